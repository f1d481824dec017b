// SPDX-License-Identifier: GPL-3.0-or-later
// DeepSeek-V3 config.json -> ModelSpec. Keys and defaults are those of
// transformers 5.17 configuration_deepseek_v3.py (DeepseekV3Config); the shapes
// they size are those of modeling_deepseek_v3.py (parametertable.cpp
// buildDeepseekV3). DeepSeek-R1 and its fine-tunes share the model_type.
#include "core/checkedmath.h"
#include "model/configreader.h"

namespace headroom::detail {

void readDeepseekV3(ConfigReader& r, ModelSpec& s)
{
    // Required as for every family (hfconfig.cpp): DeepseekV3Config's
    // defaults are the 671B model's sizes, which a truncated file would
    // silently plan.
    s.hidden = r.dimension("hidden_size");
    s.layers = r.size("num_hidden_layers", kMaxLayers);
    s.heads = r.dimension("num_attention_heads");
    s.vocab = r.dimension("vocab_size");
    // intermediate_size sizes the dense layers' DeepseekV3MLP,
    // moe_intermediate_size every routed expert (ModelSpec::intermediate, the
    // expert width as for the other MoE families) and, times n_shared_experts,
    // the shared experts' MLP.
    s.denseIntermediate = r.dimension("intermediate_size");
    s.intermediate = r.dimension("moe_intermediate_size");
    // __post_init__: num_key_value_heads None -> num_attention_heads. MLA
    // expands the latent to every head, so it sizes no tensor here.
    s.kvHeads = r.dimension("num_key_value_heads", s.heads);
    s.experts = r.dimension("n_routed_experts", 256);
    s.expertsPerToken = r.dimension("num_experts_per_tok", 8);
    s.sharedExperts = r.dimension("n_shared_experts", 1);
    s.sharedExpertIntermediate = satMul(s.intermediate, s.sharedExperts);
    // DeepseekV3DecoderLayer: layer_idx >= first_k_dense_replace is MoE.
    // moe_layer_freq is read by no module in 5.17.
    s.denseLayers = r.count("first_k_dense_replace", kMaxLayers, 3);
    // DeepseekV3Attention. q_lora_rank null: one q_proj.
    s.qLoraRank = r.find("q_lora_rank") ? r.dimension("q_lora_rank") : (r.has("q_lora_rank") ? 0 : 1536);
    s.kvLoraRank = r.dimension("kv_lora_rank", 512);
    s.qkRopeHeadDim = r.dimension("qk_rope_head_dim", 64);
    const std::uint64_t nope = r.dimension("qk_nope_head_dim", 128);
    s.headDim = satAdd(nope, s.qkRopeHeadDim); // qk_head_dim
    s.vHeadDim = r.dimension("v_head_dim", 128);
    s.maxPositions = r.dimension("max_position_embeddings", 4096);
    s.hiddenAct = r.text("hidden_act", "silu");
    s.norm = NormKind::RmsNorm;
    s.gatedMlp = true;
    // attention_bias covers q_a_proj (or nothing on q_proj), kv_a_proj_with_mqa and o_proj.
    s.qkvBias = s.attnOutBias = r.flag("attention_bias", false);
    s.mlpBias = false;
    s.tieEmbeddings = r.flag("tie_word_embeddings", false);
    s.dropout = r.probability("attention_dropout", 0.0);
    r.flag("rope_interleave", true);
    r.flag("norm_topk_prob", true);
    // DeepseekV3TopkRouter views the scores as (tokens, n_group, experts /
    // n_group), takes the top 2 of each group and keeps topk_group groups:
    // a config that breaks this fails in transformers' first forward.
    const std::uint64_t groups = r.dimension("n_group", 8);
    const std::uint64_t keptGroups = r.dimension("topk_group", 4);
    if (r.error())
        return;
    if (s.experts % groups != 0)
        r.fail(ErrorCode::InvalidArgument, "\"n_routed_experts\" " + std::to_string(s.experts)
                                               + " is not divisible by \"n_group\" " + std::to_string(groups));
    else if (s.experts / groups < 2)
        r.fail(ErrorCode::InvalidArgument, "\"n_group\" " + std::to_string(groups) + " leaves fewer than 2 of the "
                                               + std::to_string(s.experts)
                                               + " routed experts in a group (the router scores each group by its top 2)");
    else if (keptGroups > groups)
        r.fail(ErrorCode::InvalidArgument, "\"topk_group\" " + std::to_string(keptGroups) + " exceeds \"n_group\" "
                                               + std::to_string(groups));
    else if (s.expertsPerToken > keptGroups * (s.experts / groups))
        r.fail(ErrorCode::InvalidArgument, "\"num_experts_per_tok\" " + std::to_string(s.expertsPerToken)
                                               + " exceeds the experts of the \"topk_group\" groups a token keeps ("
                                               + std::to_string(keptGroups * (s.experts / groups)) + ")");
}

} // namespace headroom::detail
