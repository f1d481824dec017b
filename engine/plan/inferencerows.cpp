// SPDX-License-Identifier: GPL-3.0-or-later
// Inference: weights, the KV cache, prefill temporaries and decoding.
// Sources: memory-model.md §8 (KV cache, DynamicCache growth by torch.cat),
// §5 (quantized weights), §1 (eager attention scores).
#include "plan/planbuild.h"

#include <algorithm>

namespace headroom::detail {

namespace {

Bytes kvBytes(KvCacheDtype t)
{
    switch (t) {
    case KvCacheDtype::Fp32: return 4;
    case KvCacheDtype::Fp16:
    case KvCacheDtype::Bf16: return 2;
    case KvCacheDtype::Fp8:
    case KvCacheDtype::Int8: return 1;
    }
    return 2;
}

} // namespace

void addInferenceRows(const BuildContext& ctx, std::vector<TensorRow>& rows)
{
    const ModelSpec& m = ctx.model;
    const InferenceConfig& ic = ctx.scenario.inference;
    const Bytes p = ctx.act;
    const Bytes b = ic.batch;
    const Bytes prompt = ic.promptTokens;
    const Bytes total = satAdd(ic.promptTokens, ic.newTokens);
    const Bytes T = satMul(b, prompt);

    if (m.isMla()) {
        // Multi-head latent attention caches the compressed latent and the
        // shared rotated key, kv_lora_rank + qk_rope_head_dim per token and
        // layer (DeepSeek-V2, arXiv:2405.04434 §2.1.2, Table 1: (d_c + d_h^R) l
        // elements per token; transformers 5.17 DeepseekV3Attention.forward
        // updates the cache "while latent KV is still compressed"; vLLM and
        // SGLang store the same), and each step expands every cached token to
        // all heads' keys and values (expand_kv: kv_b_proj's output and the
        // concatenated key), one layer at a time.
        const Bytes latent = satMul(m.kvLoraRank + m.qkRopeHeadDim, satMul(total, b), kvBytes(ic.kvCacheDtype));
        rows.push_back({"kv_cache.layer", "MLA cache of one layer at full length: (kv_lora_rank + qk_rope_head_dim) x tokens x batch x bytes (DeepSeek-V2 §2.1.2)",
                        Category::KvCache, latent, Phase::LayerFwd, Phase::Decode, LayerSet::All, false});
        rows.push_back({"kv_cache.grow", "DynamicCache grows by torch.cat: the old and the new copy of one layer's cache coexist",
                        Category::Temporaries, latent, Phase::Decode, Phase::Decode, LayerSet::Global, false});
        const Bytes expanded = satMul(satMul(total, b), satMul(m.heads, m.qkNopeHeadDim() + m.vHeadDim + m.headDim), p);
        rows.push_back({"mla.expanded_kv", "keys and values of every cached token expanded from the latent for one layer's decode step (expand_kv: kv_b_proj output and the concatenated key)",
                        Category::Temporaries, expanded, Phase::Decode, Phase::Decode, LayerSet::Global, false});
    } else if (!m.encoder) {
        // 2 (K and V) x kv heads x head dim x tokens x batch x bytes, per layer.
        const Bytes cache = satMul(satMul(2 * m.kvHeads, m.headDim), satMul(total, b), kvBytes(ic.kvCacheDtype));
        rows.push_back({"kv_cache.layer", "KV cache of one layer at full length: 2 x kv heads x head dim x tokens x batch x bytes (memory-model.md §8)",
                        Category::KvCache, cache, Phase::LayerFwd, Phase::Decode, LayerSet::All, false});
        rows.push_back({"kv_cache.grow", "DynamicCache grows by torch.cat: the old and the new copy of one layer's cache coexist",
                        Category::Temporaries, cache, Phase::Decode, Phase::Decode, LayerSet::Global, false});
    }

    // Prefill, one layer at a time: the hidden state in and out, q/k/v, the MLP
    // intermediates alive together, and for eager attention the 16-bit scores
    // with their fp32 softmax [flag: estimate].
    // MLA: the query, the key made from the latent and kv_b_proj's output.
    const Bytes qkv = m.isMla() ? satMul(T, satMul(m.heads, 2 * m.headDim + m.qkNopeHeadDim() + m.vHeadDim), p)
                                : satMul(T, satMul(m.heads + 2 * m.kvHeads, m.headDim), p);
    const Bytes mlp = satMul(satMul(T, m.isMoe() ? m.intermediate * m.expertsPerToken : m.intermediate), (m.gatedMlp ? 3 : 2) * p);
    const Bytes abss = satMul(satMul(b, m.heads), satMul(prompt, prompt));
    const Bytes scores = ic.attention == Attention::Eager ? satMul(abss, m.norm == NormKind::RmsNorm ? 4 + p : 2 * p) : 0;
    rows.push_back({"prefill.layer_temporary", "prefill of one layer: hidden in/out, q/k/v, MLP intermediates, eager scores",
                    Category::Temporaries, satAdd(satAdd(satMul(T, m.hidden, 2 * p), std::max(satAdd(qkv, scores), mlp)), 0),
                    Phase::LayerFwd, Phase::LayerFwd, LayerSet::All, false});
    if (ic.weightQuant == WeightQuant::Nf4 || ic.weightQuant == WeightQuant::Nf4DoubleQuant) {
        Bytes largest = 0;
        for (const ParamTensor& t : ctx.table.layer)
            if (t.isLinearWeight && t.kind != ModuleKind::Router && !t.isExpert()) // experts stay unquantized
                largest = std::max(largest, satMul(t.rows, t.cols));
        rows.push_back({"quant.dequantized_weight", "prefill dequantises each 4-bit weight to 16-bit for its matmul (bitsandbytes)",
                        Category::Temporaries, satMul(largest, 2), Phase::LayerFwd, Phase::LayerFwd, LayerSet::All, false});
    }
    // Generation keeps the logits of the last position only (generate's
    // logits_to_keep) and copies them to fp32 for sampling; an encoder
    // returns all positions; a sequence classifier one row of num_labels per
    // sequence (modeling_bert.py BertForSequenceClassification).
    const Bytes logits = m.classifier() ? satMul(b, m.numLabels, p)
                       : m.encoder      ? satMul(T, m.vocab, p)
                                        : satMul(satMul(b, m.vocab), p + 4);
    rows.push_back({"logits", "logits: the last position per sequence in the compute dtype plus its fp32 copy",
                    Category::Logits, logits, Phase::HeadFwd, Phase::HeadFwd, LayerSet::Global, false});
    if (!m.encoder)
        rows.push_back({"logits.decode", "logits of each generated token and their fp32 copy", Category::Logits, logits,
                        Phase::Decode, Phase::Decode, LayerSet::Global, false});
    rows.push_back({"cublas.workspace", "cuBLAS workspace allocated through the caching allocator (CublasHandlePool.cpp)",
                    Category::Workspace,
                    satMul(ctx.profile.cublasWorkspaceBytes(ctx.gpu.computeMajor), static_cast<Bytes>(ctx.profile.cublasWorkspacesInference)),
                    Phase::Load, Phase::Decode, LayerSet::Global, false});
}

} // namespace headroom::detail
