// SPDX-License-Identifier: GPL-3.0-or-later
// Parameter layouts follow the transformers modelling files named per family
// (transformers/models/<type>/modeling_<type>.py, v4.4x-5.x): module names,
// shapes, and which biases exist. Tied weights appear once, as
// model.num_parameters() counts them.
#include "model/parametertable.h"

#include <algorithm>
#include <string_view>

namespace headroom {

const char* moduleKindName(ModuleKind kind)
{
    switch (kind) {
    case ModuleKind::Embedding: return "embedding";
    case ModuleKind::PositionEmbedding: return "position-embedding";
    case ModuleKind::TokenTypeEmbedding: return "token-type-embedding";
    case ModuleKind::AttnQ: return "attn-q";
    case ModuleKind::AttnK: return "attn-k";
    case ModuleKind::AttnV: return "attn-v";
    case ModuleKind::AttnQkv: return "attn-qkv";
    case ModuleKind::AttnOut: return "attn-o";
    case ModuleKind::MlpGate: return "mlp-gate";
    case ModuleKind::MlpUp: return "mlp-up";
    case ModuleKind::MlpGateUp: return "mlp-gate-up";
    case ModuleKind::MlpDown: return "mlp-down";
    case ModuleKind::MlpIn: return "mlp-in";
    case ModuleKind::Router: return "router";
    case ModuleKind::AttnSinks: return "attn-sinks";
    case ModuleKind::Norm: return "norm";
    case ModuleKind::LmHead: return "lm-head";
    case ModuleKind::HeadTransform: return "head-transform";
    case ModuleKind::Pooler: return "pooler";
    case ModuleKind::VisionTower: return "vision-tower";
    }
    return "?";
}

bool isLinearKind(ModuleKind kind)
{
    switch (kind) {
    case ModuleKind::AttnQ: case ModuleKind::AttnK: case ModuleKind::AttnV: case ModuleKind::AttnQkv:
    case ModuleKind::AttnOut: case ModuleKind::MlpGate: case ModuleKind::MlpUp: case ModuleKind::MlpGateUp:
    case ModuleKind::MlpDown: case ModuleKind::MlpIn: case ModuleKind::Router: case ModuleKind::LmHead:
    case ModuleKind::HeadTransform: case ModuleKind::Pooler:
        return true;
    default:
        return false;
    }
}

namespace {

class TableBuilder {
public:
    explicit TableBuilder(std::vector<ParamTensor>& out) : m_out(out) {}

    // nn.Linear(in, out[, bias]): weight (out, in) and optionally bias (out).
    void linear(const char* path, const char* module, ModuleKind kind, std::uint64_t in, std::uint64_t out, bool bias,
                std::uint64_t copies = 1)
    {
        m_out.push_back({path, module, kind, out, in, copies, false, true});
        if (bias)
            m_out.push_back({path, module, kind, out, 1, copies, true, false});
    }
    void norm(const char* path, const char* module, std::uint64_t width, NormKind kind)
    {
        m_out.push_back({path, module, ModuleKind::Norm, width, 1, 1, false, false});
        if (kind == NormKind::LayerNorm)
            m_out.push_back({path, module, ModuleKind::Norm, width, 1, 1, true, false});
    }
    // An embedding table: path names the module, the parameter is path + ".weight".
    void table(const char* path, const char* module, ModuleKind kind, std::uint64_t rows, std::uint64_t width)
    {
        m_out.push_back({path, module, kind, rows, width, 1, false, false});
    }
    // A tensor of the vision tower: weight (rows, cols), `copies` of it (one
    // per SigLIP layer), optionally a bias (rows). Not a text linear: never a
    // LoRA target, never quantized, never cast by autocast in a text step.
    void vision(const char* path, const char* module, std::uint64_t rows, std::uint64_t cols, bool bias,
                std::uint64_t copies = 1)
    {
        m_out.push_back({path, module, ModuleKind::VisionTower, rows, cols, copies, false, false});
        if (bias)
            m_out.push_back({path, module, ModuleKind::VisionTower, rows, 1, copies, true, false});
    }
    // A bare nn.Parameter named by its path (no ".weight"): gpt-oss's
    // stacked expert tensors and biases (copies = experts, one 3-D / 2-D
    // parameter) and its attention sinks.
    void bare(const char* path, const char* module, ModuleKind kind, std::uint64_t rows, std::uint64_t cols,
              std::uint64_t copies, bool isBias)
    {
        m_out.push_back({path, module, kind, rows, cols, copies, isBias, false, true, copies > 1});
    }
    // A bare vector parameter registered as a bias-like tensor (BERT's cls.predictions.bias).
    void vector(const char* path, const char* module, ModuleKind kind, std::uint64_t length)
    {
        m_out.push_back({path, module, kind, length, 1, 1, true, false});
    }

private:
    std::vector<ParamTensor>& m_out;
};

// modeling_llama.py LlamaDecoderLayer; mistral, qwen2, qwen3, smollm3, gemma,
// gemma2, gemma3, olmo2 and mixtral share the attention block. Llama's attention_bias covers q, k, v
// and o; Qwen2 has bias on q, k, v only (qkvBias without attnOutBias).
// modeling_qwen3.py Qwen3Attention adds q_norm and k_norm, each a
// Qwen3RMSNorm(head_dim): one weight of head_dim per layer, shared by the heads.
// modeling_olmo2.py Olmo2DecoderLayer: no input_layernorm; the sublayer
// outputs are normed (post_attention_layernorm, post_feedforward_layernorm).
// modeling_gemma2.py Gemma2DecoderLayer (and Gemma3DecoderLayer): two more
// norms around the MLP.
void addLlamaLikeNorms(TableBuilder& l, const ModelSpec& s)
{
    if (s.family != Family::Olmo2)
        l.norm("model.layers.{i}.input_layernorm", "input_layernorm", s.hidden, s.norm);
    l.norm("model.layers.{i}.post_attention_layernorm", "post_attention_layernorm", s.hidden, s.norm);
    if (s.family == Family::Gemma2 || s.family == Family::Gemma3) {
        l.norm("model.layers.{i}.pre_feedforward_layernorm", "pre_feedforward_layernorm", s.hidden, s.norm);
        l.norm("model.layers.{i}.post_feedforward_layernorm", "post_feedforward_layernorm", s.hidden, s.norm);
    } else if (s.family == Family::Olmo2) {
        l.norm("model.layers.{i}.post_feedforward_layernorm", "post_feedforward_layernorm", s.hidden, s.norm);
    }
}

void addLlamaAttention(TableBuilder& b, const ModelSpec& s)
{
    b.linear("model.layers.{i}.self_attn.q_proj", "q_proj", ModuleKind::AttnQ, s.hidden, s.qDim(), s.qkvBias);
    b.linear("model.layers.{i}.self_attn.k_proj", "k_proj", ModuleKind::AttnK, s.hidden, s.kvDim(), s.qkvBias);
    b.linear("model.layers.{i}.self_attn.v_proj", "v_proj", ModuleKind::AttnV, s.hidden, s.kvDim(), s.qkvBias);
    b.linear("model.layers.{i}.self_attn.o_proj", "o_proj", ModuleKind::AttnOut, s.qDim(), s.hidden, s.attnOutBias);
    if (s.qkNorm) {
        // modeling_olmo2.py Olmo2Attention: q_norm = Olmo2RMSNorm(num_heads *
        // head_dim), k_norm = Olmo2RMSNorm(num_kv_heads * head_dim), over the
        // whole projections; Gemma3Attention: Gemma3RMSNorm(head_dim) like Qwen3.
        const bool whole = s.family == Family::Olmo2;
        b.norm("model.layers.{i}.self_attn.q_norm", "q_norm", whole ? s.qDim() : s.headDim, NormKind::RmsNorm);
        b.norm("model.layers.{i}.self_attn.k_norm", "k_norm", whole ? s.kvDim() : s.headDim, NormKind::RmsNorm);
    }
}

// Gemma3ForConditionalGeneration's image side, in the global tensors (it is
// not one of the text layers): modeling_siglip.py SiglipVisionEmbeddings
// (patch Conv2d with bias, position table of (image / patch)^2 rows),
// SiglipEncoderLayer (layer_norm1/2 with bias; q, k, v, out_proj and fc1, fc2
// with bias), post_layernorm, and SiglipMultiheadAttentionPoolingHead when
// use_head (probe, nn.MultiheadAttention's in_proj 3h x h and out_proj, a
// LayerNorm and an MLP); modeling_gemma3.py Gemma3MultiModalProjector
// (mm_input_projection_weight vision_hidden x text_hidden, mm_soft_emb_norm
// over vision_hidden).
void addVisionTower(TableBuilder& g, const ModelSpec& s)
{
    const VisionTowerSpec& v = s.vision;
    const std::uint64_t h = v.hidden, n = v.layers;
    const std::uint64_t patches = (v.imageSize / v.patchSize) * (v.imageSize / v.patchSize);
    g.vision("model.vision_tower.embeddings.patch_embedding", "patch_embedding", h,
             satMul(v.channels, v.patchSize, v.patchSize), true);
    g.vision("model.vision_tower.embeddings.position_embedding", "position_embedding", patches, h, false);
    g.vision("model.vision_tower.encoder.layers.{i}.layer_norm1", "layer_norm1", h, 1, true, n);
    for (const char* path : {"model.vision_tower.encoder.layers.{i}.self_attn.q_proj",
                             "model.vision_tower.encoder.layers.{i}.self_attn.k_proj",
                             "model.vision_tower.encoder.layers.{i}.self_attn.v_proj",
                             "model.vision_tower.encoder.layers.{i}.self_attn.out_proj"})
        g.vision(path, "self_attn", h, h, true, n);
    g.vision("model.vision_tower.encoder.layers.{i}.layer_norm2", "layer_norm2", h, 1, true, n);
    g.vision("model.vision_tower.encoder.layers.{i}.mlp.fc1", "fc1", v.intermediate, h, true, n);
    g.vision("model.vision_tower.encoder.layers.{i}.mlp.fc2", "fc2", h, v.intermediate, true, n);
    g.vision("model.vision_tower.post_layernorm", "post_layernorm", h, 1, true);
    if (v.poolingHead) {
        g.vision("model.vision_tower.head.probe", "probe", h, 1, false);
        g.vision("model.vision_tower.head.attention.in_proj", "attention", 3 * h, h, true);
        g.vision("model.vision_tower.head.attention.out_proj", "out_proj", h, h, true);
        g.vision("model.vision_tower.head.layernorm", "layernorm", h, 1, true);
        g.vision("model.vision_tower.head.mlp.fc1", "fc1", v.intermediate, h, true);
        g.vision("model.vision_tower.head.mlp.fc2", "fc2", h, v.intermediate, true);
    }
    g.vision("model.multi_modal_projector.mm_input_projection", "mm_input_projection", h, s.hidden, false);
    g.vision("model.multi_modal_projector.mm_soft_emb_norm", "mm_soft_emb_norm", h, 1, false);
}

// Llama4ForConditionalGeneration's image side (modeling_llama4.py, transformers
// 5.17), in the global tensors: Llama4VisionModel's class_embedding (h),
// positional_embedding_vlm ((image / patch)^2 + 1, h), patch_embedding
// (Llama4UnfoldConvolution: Linear(channels * patch^2, h), no bias),
// layernorm_pre and layernorm_post (nn.LayerNorm), per Llama4VisionEncoderLayer
// q, k, v, o_proj (Llama4VisionAttention: h x h with bias, heads * (h / heads)
// = h), mlp.fc1 / fc2 (Llama4VisionMLP, with bias) and two LayerNorms;
// vision_adapter.mlp (Llama4VisionMLP2: fc1 Linear(intermediate_size,
// projector_input_dim), fc2 Linear(projector_output_dim,
// projector_output_dim), no biases); Llama4MultiModalProjector.linear_1
// (Linear(vision_output_dim, text hidden), bias=False).
void addLlama4VisionTower(TableBuilder& g, const ModelSpec& s)
{
    const VisionTowerSpec& v = s.vision;
    const std::uint64_t h = v.hidden, n = v.layers;
    const std::uint64_t side = v.imageSize / v.patchSize;
    g.vision("vision_model.class_embedding", "class_embedding", h, 1, false);
    g.vision("vision_model.positional_embedding_vlm", "positional_embedding_vlm", satAdd(satMul(side, side), 1), h,
             false);
    g.vision("vision_model.patch_embedding.linear", "linear", h, satMul(v.channels, v.patchSize, v.patchSize), false);
    g.vision("vision_model.layernorm_pre", "layernorm_pre", h, 1, true);
    g.vision("vision_model.layernorm_post", "layernorm_post", h, 1, true);
    for (const char* path : {"vision_model.model.layers.{i}.self_attn.q_proj", "vision_model.model.layers.{i}.self_attn.k_proj",
                             "vision_model.model.layers.{i}.self_attn.v_proj", "vision_model.model.layers.{i}.self_attn.o_proj"})
        g.vision(path, "self_attn", h, h, true, n);
    g.vision("vision_model.model.layers.{i}.mlp.fc1", "fc1", v.intermediate, h, true, n);
    g.vision("vision_model.model.layers.{i}.mlp.fc2", "fc2", h, v.intermediate, true, n);
    g.vision("vision_model.model.layers.{i}.input_layernorm", "input_layernorm", h, 1, true, n);
    g.vision("vision_model.model.layers.{i}.post_attention_layernorm", "post_attention_layernorm", h, 1, true, n);
    g.vision("vision_model.vision_adapter.mlp.fc1", "fc1", v.projectorInput, v.intermediate, false);
    g.vision("vision_model.vision_adapter.mlp.fc2", "fc2", v.projectorOutput, v.projectorOutput, false);
    g.vision("multi_modal_projector.linear_1", "linear_1", s.hidden, v.outputDim, false);
}

void buildLlamaLike(const ModelSpec& s, ParameterTable& t)
{
    TableBuilder g(t.global), l(t.layer);
    g.table("model.embed_tokens", "embed_tokens", ModuleKind::Embedding, s.vocab, s.hidden);
    addLlamaAttention(l, s);
    if (s.family == Family::Mixtral) {
        // modeling_mixtral.py MixtralSparseMoeBlock: gate (router) without bias,
        // experts w1 (gate), w2 (down), w3 (up), none with bias, named as the
        // checkpoints store them. transformers 5.17 stacks them on load into
        // 3-D parameters (MixtralExperts gate_up_proj, down_proj), which
        // bitsandbytes, PEFT's target_modules and autocast do not reach
        // (ParamTensor::isExpert).
        l.linear("model.layers.{i}.block_sparse_moe.gate", "gate", ModuleKind::Router, s.hidden, s.experts, false);
        l.linear("model.layers.{i}.block_sparse_moe.experts.{e}.w1", "w1", ModuleKind::MlpGate, s.hidden, s.intermediate, false, s.experts);
        l.linear("model.layers.{i}.block_sparse_moe.experts.{e}.w2", "w2", ModuleKind::MlpDown, s.intermediate, s.hidden, false, s.experts);
        l.linear("model.layers.{i}.block_sparse_moe.experts.{e}.w3", "w3", ModuleKind::MlpUp, s.hidden, s.intermediate, false, s.experts);
    } else if (s.family == Family::Qwen3Moe) {
        // modeling_qwen3_moe.py (transformers 5.17) Qwen3MoeSparseMoeBlock: the
        // router Qwen3MoeTopKRouter, weight (num_experts, hidden), no bias, and
        // Qwen3MoeExperts with moe_intermediate_size (here `intermediate`), no
        // biases. Named as the released checkpoints store them (Qwen3-30B-A3B's
        // model.safetensors.index.json: mlp.gate.weight,
        // mlp.experts.{e}.gate_proj/up_proj/down_proj.weight); transformers 5
        // stacks the experts on load into experts.gate_up_proj (E, 2i, h) and
        // experts.down_proj (E, h, i), the same elements, and neither quantized
        // nor LoRA-targeted nor cast by autocast (as Mixtral). Dense layers
        // (mlp_only_layers, decoder_sparse_step) are table.denseLayer, below.
        l.linear("model.layers.{i}.mlp.gate", "gate", ModuleKind::Router, s.hidden, s.experts, false);
        l.linear("model.layers.{i}.mlp.experts.{e}.gate_proj", "gate_proj", ModuleKind::MlpGate, s.hidden, s.intermediate, false, s.experts);
        l.linear("model.layers.{i}.mlp.experts.{e}.up_proj", "up_proj", ModuleKind::MlpUp, s.hidden, s.intermediate, false, s.experts);
        l.linear("model.layers.{i}.mlp.experts.{e}.down_proj", "down_proj", ModuleKind::MlpDown, s.intermediate, s.hidden, false, s.experts);
    } else if (s.family == Family::GptOss) {
        // modeling_gpt_oss.py (transformers 5.17): GptOssAttention.sinks, one
        // nn.Parameter of num_attention_heads; GptOssTopKRouter weight
        // (num_local_experts, hidden) and bias (num_local_experts);
        // GptOssExperts: stacked nn.Parameters gate_up_proj (E, hidden,
        // 2 * intermediate), gate_up_proj_bias (E, 2 * intermediate), down_proj
        // (E, intermediate, hidden), down_proj_bias (E, hidden). They are not
        // nn.Linear: neither bitsandbytes nor PEFT's target_modules reach them
        // (not linear weights here). The released checkpoint stores the expert
        // weights in MXFP4 (gate_up_proj_blocks / _scales); they are planned in
        // the scenario's dtype, as transformers dequantizes them without the
        // triton kernels.
        l.bare("model.layers.{i}.self_attn.sinks", "sinks", ModuleKind::AttnSinks, s.heads, 1, 1, false);
        l.linear("model.layers.{i}.mlp.router", "router", ModuleKind::Router, s.hidden, s.experts, true);
        l.bare("model.layers.{i}.mlp.experts.gate_up_proj", "experts", ModuleKind::MlpGateUp, 2 * s.intermediate, s.hidden, s.experts, false);
        l.bare("model.layers.{i}.mlp.experts.gate_up_proj_bias", "experts", ModuleKind::MlpGateUp, 2 * s.intermediate, 1, s.experts, true);
        l.bare("model.layers.{i}.mlp.experts.down_proj", "experts", ModuleKind::MlpDown, s.hidden, s.intermediate, s.experts, false);
        l.bare("model.layers.{i}.mlp.experts.down_proj_bias", "experts", ModuleKind::MlpDown, s.hidden, 1, s.experts, true);
    } else if (s.family == Family::Llama4) {
        // modeling_llama4.py (transformers 5.17) Llama4TextMoe, the
        // feed_forward of the MoE layers (dense ones are table.denseLayer,
        // below): Llama4Router, an nn.Linear(hidden, num_local_experts) without
        // bias; Llama4TextExperts, bare stacked nn.Parameters gate_up_proj
        // (E, hidden, 2 * intermediate) and down_proj (E, intermediate,
        // hidden), the same elements as (E, 2i, h) and (E, h, i); and
        // shared_expert, a Llama4TextMLP of intermediate_size (nn.Linears
        // without bias, LoRA-targetable as a dense MLP's are).
        l.linear("model.layers.{i}.feed_forward.router", "router", ModuleKind::Router, s.hidden, s.experts, false);
        l.bare("model.layers.{i}.feed_forward.experts.gate_up_proj", "experts", ModuleKind::MlpGateUp, 2 * s.intermediate, s.hidden, s.experts, false);
        l.bare("model.layers.{i}.feed_forward.experts.down_proj", "experts", ModuleKind::MlpDown, s.hidden, s.intermediate, s.experts, false);
        const std::uint64_t shared = s.sharedExpertIntermediate;
        l.linear("model.layers.{i}.feed_forward.shared_expert.gate_proj", "gate_proj", ModuleKind::MlpGate, s.hidden, shared, false);
        l.linear("model.layers.{i}.feed_forward.shared_expert.up_proj", "up_proj", ModuleKind::MlpUp, s.hidden, shared, false);
        l.linear("model.layers.{i}.feed_forward.shared_expert.down_proj", "down_proj", ModuleKind::MlpDown, shared, s.hidden, false);
    } else {
        l.linear("model.layers.{i}.mlp.gate_proj", "gate_proj", ModuleKind::MlpGate, s.hidden, s.intermediate, s.mlpBias);
        l.linear("model.layers.{i}.mlp.up_proj", "up_proj", ModuleKind::MlpUp, s.hidden, s.intermediate, s.mlpBias);
        l.linear("model.layers.{i}.mlp.down_proj", "down_proj", ModuleKind::MlpDown, s.intermediate, s.hidden, s.mlpBias);
    }
    addLlamaLikeNorms(l, s);
    // Dense layers among the MoE ones (ModelSpec::denseLayerIds):
    // modeling_qwen3_moe.py Qwen3MoeDecoderLayer's Qwen3MoeMLP of
    // intermediate_size (mlp.gate_proj/up_proj/down_proj); modeling_llama4.py
    // Llama4TextDecoderLayer's Llama4TextMLP of intermediate_size_mlp
    // (feed_forward.gate_proj/up_proj/down_proj). No biases.
    if (s.denseLayers > 0 && (s.family == Family::Qwen3Moe || s.family == Family::Llama4)) {
        TableBuilder dense(t.denseLayer);
        addLlamaAttention(dense, s);
        const bool llama4 = s.family == Family::Llama4;
        dense.linear(llama4 ? "model.layers.{i}.feed_forward.gate_proj" : "model.layers.{i}.mlp.gate_proj", "gate_proj",
                     ModuleKind::MlpGate, s.hidden, s.denseIntermediate, false);
        dense.linear(llama4 ? "model.layers.{i}.feed_forward.up_proj" : "model.layers.{i}.mlp.up_proj", "up_proj",
                     ModuleKind::MlpUp, s.hidden, s.denseIntermediate, false);
        dense.linear(llama4 ? "model.layers.{i}.feed_forward.down_proj" : "model.layers.{i}.mlp.down_proj", "down_proj",
                     ModuleKind::MlpDown, s.denseIntermediate, s.hidden, false);
        addLlamaLikeNorms(dense, s);
        t.denseLayers = std::min(s.denseLayers, s.layers);
    }
    g.norm("model.norm", "norm", s.hidden, s.norm);
    if (!s.tieEmbeddings)
        g.linear("lm_head", "lm_head", ModuleKind::LmHead, s.hidden, s.vocab, false);
    if (s.hasVision() && s.vision.kind == VisionTowerKind::Llama4)
        addLlama4VisionTower(g, s);
    else if (s.hasVision())
        addVisionTower(g, s);
}

// modeling_deepseek_v3.py (transformers 5.17) DeepseekV3Attention: multi-head
// latent attention. q_a_proj (hidden -> q_lora_rank, attention_bias),
// q_a_layernorm (RMSNorm over q_lora_rank) and q_b_proj (q_lora_rank ->
// heads x qk_head_dim, no bias), or one q_proj without bias when q_lora_rank
// is null; kv_a_proj_with_mqa (hidden -> kv_lora_rank + qk_rope_head_dim,
// attention_bias), kv_a_layernorm (kv_lora_rank), kv_b_proj (kv_lora_rank ->
// heads x (qk_nope_head_dim + v_head_dim), no bias); o_proj (heads x
// v_head_dim -> hidden, attention_bias). The kinds place them for LoRA and the
// saves: queries AttnQ, the key/value latent AttnK, its expansion AttnV.
void addMlaAttention(TableBuilder& l, const ModelSpec& s)
{
    const bool bias = s.qkvBias;
    if (s.qLoraRank > 0) {
        l.linear("model.layers.{i}.self_attn.q_a_proj", "q_a_proj", ModuleKind::AttnQ, s.hidden, s.qLoraRank, bias);
        l.norm("model.layers.{i}.self_attn.q_a_layernorm", "q_a_layernorm", s.qLoraRank, NormKind::RmsNorm);
        l.linear("model.layers.{i}.self_attn.q_b_proj", "q_b_proj", ModuleKind::AttnQ, s.qLoraRank, s.qDim(), false);
    } else {
        l.linear("model.layers.{i}.self_attn.q_proj", "q_proj", ModuleKind::AttnQ, s.hidden, s.qDim(), false);
    }
    l.linear("model.layers.{i}.self_attn.kv_a_proj_with_mqa", "kv_a_proj_with_mqa", ModuleKind::AttnK, s.hidden,
             s.kvLoraRank + s.qkRopeHeadDim, bias);
    l.norm("model.layers.{i}.self_attn.kv_a_layernorm", "kv_a_layernorm", s.kvLoraRank, NormKind::RmsNorm);
    l.linear("model.layers.{i}.self_attn.kv_b_proj", "kv_b_proj", ModuleKind::AttnV, s.kvLoraRank,
             satMul(s.heads, s.qkNopeHeadDim() + s.vHeadDim), false);
    l.linear("model.layers.{i}.self_attn.o_proj", "o_proj", ModuleKind::AttnOut, satMul(s.heads, s.vHeadDim), s.hidden,
             s.attnOutBias);
}

// modeling_deepseek_v3.py DeepseekV3DecoderLayer: MLA, then a DeepseekV3MLP of
// intermediate_size on the first first_k_dense_replace layers (table.denseLayer)
// and a DeepseekV3MoE on the others (table.layer): the router
// DeepseekV3TopkRouter (weight (n_routed_experts, hidden); its
// e_score_correction_bias is a buffer, not a parameter), DeepseekV3Experts
// (stacked gate_up_proj (E, 2i, h) and down_proj (E, h, i), stored per expert
// in the checkpoint as experts.{e}.gate_proj/up_proj/down_proj; neither
// quantized nor LoRA-targeted nor cast by autocast, as Qwen3-MoE's) and
// shared_experts, a DeepseekV3MLP of moe_intermediate_size x n_shared_experts
// (nn.Linears, targetable). No biases anywhere in the MLPs.
void buildDeepseekV3(const ModelSpec& s, ParameterTable& t)
{
    TableBuilder g(t.global), l(t.layer), dense(t.denseLayer);
    g.table("model.embed_tokens", "embed_tokens", ModuleKind::Embedding, s.vocab, s.hidden);
    for (TableBuilder* b : {&l, &dense}) {
        addMlaAttention(*b, s);
        b->norm("model.layers.{i}.input_layernorm", "input_layernorm", s.hidden, NormKind::RmsNorm);
        b->norm("model.layers.{i}.post_attention_layernorm", "post_attention_layernorm", s.hidden, NormKind::RmsNorm);
    }
    dense.linear("model.layers.{i}.mlp.gate_proj", "gate_proj", ModuleKind::MlpGate, s.hidden, s.denseIntermediate, false);
    dense.linear("model.layers.{i}.mlp.up_proj", "up_proj", ModuleKind::MlpUp, s.hidden, s.denseIntermediate, false);
    dense.linear("model.layers.{i}.mlp.down_proj", "down_proj", ModuleKind::MlpDown, s.denseIntermediate, s.hidden, false);
    l.linear("model.layers.{i}.mlp.gate", "gate", ModuleKind::Router, s.hidden, s.experts, false);
    l.linear("model.layers.{i}.mlp.experts.{e}.gate_proj", "gate_proj", ModuleKind::MlpGate, s.hidden, s.intermediate, false, s.experts);
    l.linear("model.layers.{i}.mlp.experts.{e}.up_proj", "up_proj", ModuleKind::MlpUp, s.hidden, s.intermediate, false, s.experts);
    l.linear("model.layers.{i}.mlp.experts.{e}.down_proj", "down_proj", ModuleKind::MlpDown, s.intermediate, s.hidden, false, s.experts);
    const std::uint64_t shared = s.sharedExpertIntermediate;
    l.linear("model.layers.{i}.mlp.shared_experts.gate_proj", "gate_proj", ModuleKind::MlpGate, s.hidden, shared, false);
    l.linear("model.layers.{i}.mlp.shared_experts.up_proj", "up_proj", ModuleKind::MlpUp, s.hidden, shared, false);
    l.linear("model.layers.{i}.mlp.shared_experts.down_proj", "down_proj", ModuleKind::MlpDown, shared, s.hidden, false);
    t.denseLayers = std::min(s.denseLayers, s.layers);
    if (t.denseLayers == 0)
        t.denseLayer.clear();
    g.norm("model.norm", "norm", s.hidden, NormKind::RmsNorm);
    if (!s.tieEmbeddings)
        g.linear("lm_head", "lm_head", ModuleKind::LmHead, s.hidden, s.vocab, false);
}

// modeling_phi3.py: fused qkv_proj (q, then k and v of the KV heads) and a
// fused gate_up_proj of width 2 * intermediate.
void buildPhi3(const ModelSpec& s, ParameterTable& t)
{
    TableBuilder g(t.global), l(t.layer);
    g.table("model.embed_tokens", "embed_tokens", ModuleKind::Embedding, s.vocab, s.hidden);
    l.linear("model.layers.{i}.self_attn.qkv_proj", "qkv_proj", ModuleKind::AttnQkv, s.hidden, s.qDim() + 2 * s.kvDim(), s.qkvBias);
    l.linear("model.layers.{i}.self_attn.o_proj", "o_proj", ModuleKind::AttnOut, s.qDim(), s.hidden, s.attnOutBias);
    l.linear("model.layers.{i}.mlp.gate_up_proj", "gate_up_proj", ModuleKind::MlpGateUp, s.hidden, 2 * s.intermediate, s.mlpBias);
    l.linear("model.layers.{i}.mlp.down_proj", "down_proj", ModuleKind::MlpDown, s.intermediate, s.hidden, s.mlpBias);
    l.norm("model.layers.{i}.input_layernorm", "input_layernorm", s.hidden, s.norm);
    l.norm("model.layers.{i}.post_attention_layernorm", "post_attention_layernorm", s.hidden, s.norm);
    g.norm("model.norm", "norm", s.hidden, s.norm);
    if (!s.tieEmbeddings)
        g.linear("lm_head", "lm_head", ModuleKind::LmHead, s.hidden, s.vocab, false);
}

// modeling_gpt2.py GPT2LMHeadModel and modeling_gpt_bigcode.py: LayerNorm with
// bias, learned positions, fused c_attn (GPT-2 Conv1D: 3h; BigCode MQA:
// h + 2 * kv_dim), every projection with bias, lm_head tied to wte.
void buildGpt2Like(const ModelSpec& s, ParameterTable& t)
{
    TableBuilder g(t.global), l(t.layer);
    g.table("transformer.wte", "wte", ModuleKind::Embedding, s.vocab, s.hidden);
    g.table("transformer.wpe", "wpe", ModuleKind::PositionEmbedding, s.maxPositions, s.hidden);
    l.norm("transformer.h.{i}.ln_1", "ln_1", s.hidden, NormKind::LayerNorm);
    l.linear("transformer.h.{i}.attn.c_attn", "c_attn", ModuleKind::AttnQkv, s.hidden, s.qDim() + 2 * s.kvDim(), true);
    l.linear("transformer.h.{i}.attn.c_proj", "c_proj", ModuleKind::AttnOut, s.qDim(), s.hidden, true);
    l.norm("transformer.h.{i}.ln_2", "ln_2", s.hidden, NormKind::LayerNorm);
    l.linear("transformer.h.{i}.mlp.c_fc", "c_fc", ModuleKind::MlpIn, s.hidden, s.intermediate, true);
    l.linear("transformer.h.{i}.mlp.c_proj", "c_proj", ModuleKind::MlpDown, s.intermediate, s.hidden, true);
    g.norm("transformer.ln_f", "ln_f", s.hidden, NormKind::LayerNorm);
    if (!s.tieEmbeddings)
        g.linear("lm_head", "lm_head", ModuleKind::LmHead, s.hidden, s.vocab, false);
}

// modeling_gpt_neox.py GPTNeoXForCausalLM: fused query_key_value, dense,
// dense_h_to_4h, dense_4h_to_h, all with bias (attention_bias defaults to
// true), two LayerNorms per layer, untied embed_out.
void buildGptNeoX(const ModelSpec& s, ParameterTable& t)
{
    TableBuilder g(t.global), l(t.layer);
    g.table("gpt_neox.embed_in", "embed_in", ModuleKind::Embedding, s.vocab, s.hidden);
    l.norm("gpt_neox.layers.{i}.input_layernorm", "input_layernorm", s.hidden, NormKind::LayerNorm);
    l.norm("gpt_neox.layers.{i}.post_attention_layernorm", "post_attention_layernorm", s.hidden, NormKind::LayerNorm);
    l.linear("gpt_neox.layers.{i}.attention.query_key_value", "query_key_value", ModuleKind::AttnQkv, s.hidden, 3 * s.hidden, s.qkvBias);
    l.linear("gpt_neox.layers.{i}.attention.dense", "dense", ModuleKind::AttnOut, s.hidden, s.hidden, s.attnOutBias);
    l.linear("gpt_neox.layers.{i}.mlp.dense_h_to_4h", "dense_h_to_4h", ModuleKind::MlpIn, s.hidden, s.intermediate, true);
    l.linear("gpt_neox.layers.{i}.mlp.dense_4h_to_h", "dense_4h_to_h", ModuleKind::MlpDown, s.intermediate, s.hidden, true);
    g.norm("gpt_neox.final_layer_norm", "final_layer_norm", s.hidden, NormKind::LayerNorm);
    if (!s.tieEmbeddings)
        g.linear("embed_out", "embed_out", ModuleKind::LmHead, s.hidden, s.vocab, false);
}

// modeling_bert.py BertForMaskedLM: BertModel without pooler, plus the MLM
// head (transform dense + LayerNorm, decoder tied to word embeddings, and
// one output bias of vocab size). BertForSequenceClassification: BertModel
// with its pooler (BertPooler: Linear(hidden, hidden)) and the classifier
// Linear(hidden, num_labels), both with bias; no MLM head.
void buildBert(const ModelSpec& s, ParameterTable& t)
{
    TableBuilder g(t.global), l(t.layer);
    g.table("bert.embeddings.word_embeddings", "word_embeddings", ModuleKind::Embedding, s.vocab, s.hidden);
    g.table("bert.embeddings.position_embeddings", "position_embeddings", ModuleKind::PositionEmbedding,
            s.maxPositions, s.hidden);
    g.table("bert.embeddings.token_type_embeddings", "token_type_embeddings",
            ModuleKind::TokenTypeEmbedding, s.typeVocab, s.hidden);
    g.norm("bert.embeddings.LayerNorm", "LayerNorm", s.hidden, NormKind::LayerNorm);
    l.linear("bert.encoder.layer.{i}.attention.self.query", "query", ModuleKind::AttnQ, s.hidden, s.hidden, true);
    l.linear("bert.encoder.layer.{i}.attention.self.key", "key", ModuleKind::AttnK, s.hidden, s.hidden, true);
    l.linear("bert.encoder.layer.{i}.attention.self.value", "value", ModuleKind::AttnV, s.hidden, s.hidden, true);
    l.linear("bert.encoder.layer.{i}.attention.output.dense", "dense", ModuleKind::AttnOut, s.hidden, s.hidden, true);
    l.norm("bert.encoder.layer.{i}.attention.output.LayerNorm", "LayerNorm", s.hidden, NormKind::LayerNorm);
    l.linear("bert.encoder.layer.{i}.intermediate.dense", "dense", ModuleKind::MlpIn, s.hidden, s.intermediate, true);
    l.linear("bert.encoder.layer.{i}.output.dense", "dense", ModuleKind::MlpDown, s.intermediate, s.hidden, true);
    l.norm("bert.encoder.layer.{i}.output.LayerNorm", "LayerNorm", s.hidden, NormKind::LayerNorm);
    if (s.classifier()) {
        g.linear("bert.pooler.dense", "dense", ModuleKind::Pooler, s.hidden, s.hidden, true);
        g.linear("classifier", "classifier", ModuleKind::LmHead, s.hidden, s.numLabels, true);
        return;
    }
    g.linear("cls.predictions.transform.dense", "dense", ModuleKind::HeadTransform, s.hidden, s.hidden, true);
    g.norm("cls.predictions.transform.LayerNorm", "LayerNorm", s.hidden, NormKind::LayerNorm);
    g.vector("cls.predictions.bias", "decoder", ModuleKind::LmHead, s.vocab);
}

Bytes sumElements(const std::vector<ParamTensor>& tensors)
{
    Bytes total = 0;
    for (const ParamTensor& t : tensors)
        total = satAdd(total, t.elements());
    return total;
}

} // namespace

std::string ParamTensor::name() const
{
    // BERT's cls.predictions.bias is registered under its own name, as are
    // gpt-oss's bare parameters.
    if (bareName || std::string_view(path).ends_with(".bias"))
        return path;
    return std::string(path) + (isBias ? ".bias" : ".weight");
}

Bytes ParameterTable::layerElements() const { return sumElements(layer); }
Bytes ParameterTable::globalElements() const { return sumElements(global); }
Bytes ParameterTable::denseLayerElements() const { return sumElements(denseLayer); }
Bytes ParameterTable::allLayersElements() const
{
    return satAdd(satMul(layerRepeats(), layerElements()), satMul(layers - layerRepeats(), denseLayerElements()));
}
Bytes ParameterTable::totalElements() const { return satAdd(globalElements(), allLayersElements()); }

Bytes ParameterTable::activeElements(std::uint64_t expertsPerToken, std::uint64_t experts) const
{
    if (experts == 0)
        return totalElements();
    Bytes perLayer = 0;
    for (const ParamTensor& t : layer) {
        // Expert tensors are the rows stored with copies == experts; a token
        // reaches expertsPerToken of them (Mixtral paper, §2.1: 47B total, 13B active).
        const Bytes used = t.copies == experts ? satMul(t.rows, t.cols, expertsPerToken) : t.elements();
        perLayer = satAdd(perLayer, used);
    }
    // A text token never reaches an image tower (Gemma 3's SigLIP, Llama 4's
    // Llama4VisionModel): Meta's "17B active" for Llama 4 Scout counts the
    // text model alone (tests/engine/test_llama4.cpp).
    Bytes textGlobal = 0;
    for (const ParamTensor& t : global)
        if (t.kind != ModuleKind::VisionTower)
            textGlobal = satAdd(textGlobal, t.elements());
    // Dense layers (DeepSeek-V3's first_k_dense_replace) are used whole.
    return satAdd(textGlobal, satAdd(satMul(layerRepeats(), perLayer), satMul(layers - layerRepeats(), denseLayerElements())));
}

Bytes ParameterTable::largestTensorElements() const
{
    Bytes largest = 0;
    for (const auto* list : {&global, &layer, &denseLayer})
        for (const ParamTensor& t : *list)
            largest = std::max(largest, satMul(t.rows, t.cols, t.stacked ? t.copies : 1));
    return largest;
}

ParameterTable buildParameterTable(const ModelSpec& spec)
{
    ParameterTable table;
    table.layers = spec.layers;
    switch (spec.family) {
    case Family::Llama:
    case Family::Mixtral:
    case Family::Qwen3Moe:
    case Family::GptOss:
    case Family::Gemma:
    case Family::Gemma2:
    case Family::Gemma3:
    case Family::Llama4:
    case Family::Olmo2:
        buildLlamaLike(spec, table);
        break;
    case Family::DeepseekV3: buildDeepseekV3(spec, table); break;
    case Family::Phi3: buildPhi3(spec, table); break;
    case Family::Gpt2:
    case Family::GptBigCode: buildGpt2Like(spec, table); break;
    case Family::GptNeoX: buildGptNeoX(spec, table); break;
    case Family::Bert: buildBert(spec, table); break;
    }
    return table;
}

const char* familyName(Family family)
{
    switch (family) {
    case Family::Llama: return "llama";
    case Family::Mixtral: return "mixtral";
    case Family::Qwen3Moe: return "qwen3_moe";
    case Family::GptOss: return "gpt_oss";
    case Family::Gemma: return "gemma";
    case Family::Gemma2: return "gemma2";
    case Family::Gemma3: return "gemma3";
    case Family::Llama4: return "llama4";
    case Family::DeepseekV3: return "deepseek_v3";
    case Family::Olmo2: return "olmo2";
    case Family::Phi3: return "phi3";
    case Family::Gpt2: return "gpt2";
    case Family::GptNeoX: return "gpt_neox";
    case Family::GptBigCode: return "gpt_bigcode";
    case Family::Bert: return "bert";
    }
    return "?";
}

} // namespace headroom
