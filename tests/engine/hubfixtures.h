// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Repositories for the fake Hub (fakehub.h): a tiny Llama's config.json and
// safetensors shards built tensor by tensor, so every expected count is the
// sum over the tensors served, never a number typed in.
#include "fakehub.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hubfixtures {

// TinyLlama's layout, shrunk: V 320, H 64, 4 heads (2 KV heads) of 16, I 176, 2 layers.
inline const char* kTinyConfig = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
  "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
  "intermediate_size": 176, "vocab_size": 320, "torch_dtype": "bfloat16"})";

inline const std::string kCommit = "0123456789abcdef0123456789abcdef01234567";

struct Tensor {
    std::string name;
    std::string dtype;
    std::vector<std::uint64_t> shape;
};

// The tensors LlamaForCausalLM saves for kTinyConfig (norms in F32, the rest BF16).
inline std::vector<Tensor> tinyLlamaTensors(int firstLayer, int lastLayer, bool embeddings, bool head)
{
    std::vector<Tensor> t;
    if (embeddings)
        t.push_back({"model.embed_tokens.weight", "BF16", {320, 64}});
    for (int l = firstLayer; l <= lastLayer; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        t.push_back({p + "self_attn.q_proj.weight", "BF16", {64, 64}});
        t.push_back({p + "self_attn.k_proj.weight", "BF16", {32, 64}});
        t.push_back({p + "self_attn.v_proj.weight", "BF16", {32, 64}});
        t.push_back({p + "self_attn.o_proj.weight", "BF16", {64, 64}});
        t.push_back({p + "mlp.gate_proj.weight", "BF16", {176, 64}});
        t.push_back({p + "mlp.up_proj.weight", "BF16", {176, 64}});
        t.push_back({p + "mlp.down_proj.weight", "BF16", {64, 176}});
        t.push_back({p + "input_layernorm.weight", "F32", {64}});
        t.push_back({p + "post_attention_layernorm.weight", "F32", {64}});
    }
    if (head) {
        t.push_back({"model.norm.weight", "F32", {64}});
        t.push_back({"lm_head.weight", "BF16", {320, 64}});
    }
    return t;
}

struct Shard {
    std::string file;           // "model-00001-of-00002.safetensors"
    std::string header;         // the file's first 8 + N bytes
    std::uint64_t fileSize = 0; // header and data
    std::uint64_t elements = 0; // the sum the importer must find
    std::map<std::string, std::uint64_t> elementsByDtype;
    std::vector<std::string> tensorNames;
};

inline std::uint64_t dtypeWidth(const std::string& dtype) { return dtype == "F32" ? 4 : dtype == "BF16" ? 2 : 1; }

// Tensors back to back after the header, as safetensors' serializer lays them
// out; `padding` characters of __metadata__ make a long header.
inline Shard buildShard(const std::string& file, const std::vector<Tensor>& tensors, std::size_t padding = 0)
{
    Shard s;
    s.file = file;
    nlohmann::json header = {{"__metadata__", {{"format", "pt"}}}};
    if (padding > 0)
        header["__metadata__"]["padding"] = std::string(padding, 'x');
    std::uint64_t offset = 0;
    for (const Tensor& t : tensors) {
        std::uint64_t elements = 1;
        for (std::uint64_t d : t.shape)
            elements *= d;
        const std::uint64_t bytes = elements * dtypeWidth(t.dtype);
        header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
        s.elements += elements;
        s.elementsByDtype[t.dtype] += elements;
        s.tensorNames.push_back(t.name);
    }
    const std::string text = header.dump();
    std::string prefix(8, '\0');
    for (int i = 0; i < 8; ++i)
        prefix[std::size_t(i)] = char((std::uint64_t(text.size()) >> (8 * i)) & 0xff);
    s.header = prefix + text;
    s.fileSize = s.header.size() + offset;
    return s;
}

// model.safetensors.index.json for these shards.
inline std::string indexFor(const std::vector<Shard>& shards)
{
    nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
    for (const Shard& s : shards)
        for (const std::string& name : s.tensorNames)
            index["weight_map"][name] = s.file;
    return index.dump(2);
}

inline fakehub::RepoFile smallFile(std::string bytes, std::string etag)
{
    fakehub::RepoFile f;
    f.bytes = std::move(bytes);
    f.etag = std::move(etag);
    return f;
}

// A shard as the Hub stores it: in LFS, named by its sha256, and far larger
// than its header (`dataPadding` zero bytes more, so fetching the weights
// would show in the server's byte count).
inline fakehub::RepoFile lfsFile(const Shard& shard, std::string sha256, std::uint64_t dataPadding = 0)
{
    fakehub::RepoFile f;
    f.bytes = shard.header;
    f.size = shard.fileSize + dataPadding;
    f.lfs = true;
    f.etag = std::move(sha256);
    return f;
}

// The tiny Llama in two shards with an index (`shards` receives them).
inline fakehub::Repo shardedTinyLlama(std::vector<Shard>& shards, std::uint64_t dataPadding = 0)
{
    shards = {buildShard("model-00001-of-00002.safetensors", tinyLlamaTensors(0, 0, true, false)),
              buildShard("model-00002-of-00002.safetensors", tinyLlamaTensors(1, 1, false, true))};
    fakehub::Repo repo;
    repo.commit = kCommit;
    repo.files["config.json"] = smallFile(kTinyConfig, "1111111111111111111111111111111111111111");
    repo.files["model.safetensors.index.json"] =
        smallFile(indexFor(shards), "2222222222222222222222222222222222222222");
    repo.files[shards[0].file] =
        lfsFile(shards[0], "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", dataPadding);
    repo.files[shards[1].file] =
        lfsFile(shards[1], "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", dataPadding);
    return repo;
}

inline std::uint64_t sumOf(const std::vector<Shard>& shards)
{
    std::uint64_t total = 0;
    for (const Shard& s : shards)
        total += s.elements;
    return total;
}

} // namespace hubfixtures
