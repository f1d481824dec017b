// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The exact per-tensor parameter table of a model, in the names and shapes of
// its Hugging Face implementation. Repeated layers are stored once (the layer
// template) with the layer count: a plan of an 80-layer model stays cheap
// (ARCHITECTURE.md, "Repeated layers make the table regular").
#include "core/checkedmath.h"
#include "model/modelspec.h"

#include <string>
#include <vector>

namespace headroom {

// What a tensor is for: LoRA targets and weight quantization act on module
// kinds, and the activation model needs to know which are linear layers.
enum class ModuleKind {
    Embedding,         // token embedding (wte, embed_tokens, word_embeddings)
    PositionEmbedding, // learned absolute positions (wpe, position_embeddings)
    TokenTypeEmbedding,
    AttnQ, AttnK, AttnV,
    AttnQkv,           // fused q/k/v projection (c_attn, query_key_value, qkv_proj)
    AttnOut,           // o_proj, c_proj (attention), dense
    MlpGate, MlpUp,
    MlpGateUp,         // fused gate and up (Phi-3 gate_up_proj)
    MlpDown,           // down_proj, c_proj (mlp), dense_4h_to_h
    MlpIn,             // non-gated up projection (c_fc, dense_h_to_4h, intermediate.dense)
    Router,            // MoE gate
    AttnSinks,         // gpt-oss: one learned sink logit per attention head (GptOssAttention.sinks)
    Norm,
    LmHead,            // the output head: lm_head, embed_out, the MLM decoder bias, BERT's classifier
    HeadTransform,     // BERT MLM transform dense
    Pooler,
    VisionTower,       // an image tower and its projector (Gemma 3 SigLIP, Llama 4): loaded, unused by text-only training
};

const char* moduleKindName(ModuleKind kind);
bool isLinearKind(ModuleKind kind);

struct ParamTensor {
    // The HF module path without ".weight"/".bias" ("model.layers.{i}.self_attn.q_proj";
    // "{i}" is the layer index, "{e}" the expert): static text, so building a
    // table allocates nothing per tensor. name() gives the full parameter name.
    const char* path = "";
    const char* module = "";  // leaf module name used by PEFT target_modules ("q_proj", "c_attn"...)
    ModuleKind kind = ModuleKind::Norm;
    std::uint64_t rows = 0;  // for a linear weight: out_features; for a vector: its length
    std::uint64_t cols = 1;  // for a linear weight: in_features; 1 for vectors
    std::uint64_t copies = 1;// MoE experts stored as one row with copies = num experts
    bool isBias = false;
    bool isLinearWeight = false; // a 2-D weight of nn.Linear/Conv1D: quantizable, LoRA-targetable
    // A bare nn.Parameter registered under `path` itself (gpt-oss's
    // "experts.gate_up_proj", "self_attn.sinks"): name() adds no ".weight"/".bias".
    bool bareName = false;
    // The copies are one stacked tensor (a 3-D nn.Parameter of experts x
    // rows x cols, gpt-oss's GptOssExperts), not one tensor per expert.
    bool stacked = false;
    // A rank's share of a layer's routed experts under expert parallelism
    // (plan/parallel.cpp rankParameterTable): copies is experts / ep, which
    // may be 1, and the tensor is an expert all the same.
    bool expertShare = false;

    Bytes elements() const { return satMul(rows, cols, copies); }
    // An expert weight (MoE: copies > 1). transformers 5.17 keeps every
    // family's experts as 3-D nn.Parameters (MixtralExperts, Qwen3MoeExperts,
    // GptOssExperts) run by aten::_grouped_mm: bitsandbytes does not quantize
    // them, PEFT's target_modules does not adapt them, autocast does not cast
    // them (plan/moesaves.h; accountant: the MoE reference cases).
    bool isExpert() const { return copies > 1 || expertShare; }
    std::string name() const;  // full parameter name, e.g. "model.layers.{i}.self_attn.q_proj.weight"
};

struct ParameterTable {
    std::vector<ParamTensor> global; // embeddings, final norm, heads
    std::vector<ParamTensor> layer;  // one layer's tensors, repeated `layers` times
    std::uint64_t layers = 0;
    // Models whose first layers differ (DeepSeek-V3's first_k_dense_replace
    // dense layers before the MoE ones): the first `denseLayers` of the
    // `layers` hold `denseLayer`'s tensors instead of `layer`'s. 0 for every
    // other family.
    std::vector<ParamTensor> denseLayer;
    std::uint64_t denseLayers = 0;

    // How many layers hold `layer`'s tensors: every layer but the dense ones.
    std::uint64_t layerRepeats() const { return layers - (denseLayers < layers ? denseLayers : layers); }
    Bytes layerElements() const;
    Bytes denseLayerElements() const;
    // Every layer's parameters: the dense ones' and the others'.
    Bytes allLayersElements() const;
    Bytes globalElements() const;
    // Parameters counted as transformers counts them: tied weights once.
    Bytes totalElements() const;
    // For MoE: parameters one token touches (shared + top-k experts).
    Bytes activeElements(std::uint64_t expertsPerToken, std::uint64_t experts) const;
    // Elements of the largest single tensor (LOMO's live gradient, Adafactor's
    // transients); a stacked expert tensor counts whole.
    Bytes largestTensorElements() const;
};

// Build the table for a spec. Exact for every Family above: the tests compare
// totals with what transformers reports (tools/reference/hf_param_counts.py).
ParameterTable buildParameterTable(const ModelSpec& spec);

} // namespace headroom
