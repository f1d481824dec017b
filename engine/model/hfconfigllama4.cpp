// SPDX-License-Identifier: GPL-3.0-or-later
// Llama 4 config.json -> ModelSpec. Keys and defaults are those of
// transformers 5.17 configuration_llama4.py (Llama4TextConfig,
// Llama4VisionConfig, Llama4Config); the shapes they size are those of
// modeling_llama4.py (parametertable.cpp buildLlamaLike, addLlama4VisionTower).
#include "model/configreader.h"

#include <vector>

namespace headroom::detail {

namespace {

// Llama4TextConfig.__post_init__: moe_layers, when null, is
// list(range(interleave_moe_layer_step - 1, num_hidden_layers,
// interleave_moe_layer_step)); Llama4TextDecoderLayer makes layer i a
// Llama4TextMoe when i is in moe_layers, else a dense Llama4TextMLP of
// intermediate_size_mlp (ModelSpec::denseLayerIds: Maverick's step 2 makes
// the even layers dense).
void readMoeLayers(ConfigReader& r, ModelSpec& s)
{
    std::vector<bool> dense(s.layers, true);
    if (const json* listed = r.find("moe_layers"); listed && !listed->is_null()) {
        if (!listed->is_array()) {
            r.fail(ErrorCode::MissingField, "\"moe_layers\" is " + listed->dump() + "; expected a list of layer indices");
            return;
        }
        for (const json& index : *listed) {
            if (!index.is_number_integer()) {
                r.fail(ErrorCode::InvalidArgument, "\"moe_layers\" holds " + index.dump() + "; expected layer indices");
                return;
            }
            const std::int64_t i = index.get<std::int64_t>(); // an index past the last layer names none
            if (i >= 0 && std::uint64_t(i) < s.layers)
                dense[std::uint64_t(i)] = false;
        }
    } else {
        const std::uint64_t step = r.size("interleave_moe_layer_step", kMaxLayers, 1);
        for (std::uint64_t i = step - 1; i < s.layers; i += step)
            dense[i] = false;
    }
    setDenseLayers(r, s, dense, "\"moe_layers\" and \"interleave_moe_layer_step\"", "llama");
    if (s.denseLayers > 0)
        s.denseIntermediate = r.dimension("intermediate_size_mlp", 16384); // Llama4TextConfig's default
}

} // namespace

void readLlama4Text(ConfigReader& r, ModelSpec& s)
{
    // Required as for every family (hfconfig.cpp): Llama4TextConfig's
    // defaults are Scout's sizes, which a truncated file would silently plan.
    s.hidden = r.dimension("hidden_size");
    s.layers = r.size("num_hidden_layers", kMaxLayers);
    s.heads = r.dimension("num_attention_heads");
    s.vocab = r.dimension("vocab_size");
    // intermediate_size: the width of every routed expert (Llama4TextExperts
    // expert_dim) and of the shared expert (Llama4TextMoe.shared_expert =
    // Llama4TextMLP(config), intermediate_size). intermediate_size_mlp sizes
    // only the dense layers (readMoeLayers).
    s.intermediate = r.dimension("intermediate_size");
    s.sharedExperts = 1;
    s.sharedExpertIntermediate = s.intermediate;
    s.kvHeads = r.dimension("num_key_value_heads", 8);  // Llama4TextConfig: 8
    // Llama4TextAttention: getattr(config, "head_dim", hidden // heads); the
    // class default is 128.
    s.headDim = r.dimension("head_dim", 128);
    s.maxPositions = r.dimension("max_position_embeddings", 4096 * 32);
    s.hiddenAct = r.text("hidden_act", "silu");
    s.norm = NormKind::RmsNorm;
    s.gatedMlp = true;
    // attention_bias (False) covers q, k, v and o (Llama4TextAttention).
    s.qkvBias = s.attnOutBias = r.flag("attention_bias", false);
    s.mlpBias = false; // Llama4TextMLP: bias=False
    s.tieEmbeddings = r.flag("tie_word_embeddings", false);
    s.dropout = r.probability("attention_dropout", 0.0);
    s.experts = r.dimension("num_local_experts", 16);
    s.expertsPerToken = r.dimension("num_experts_per_tok", 1);
    readMoeLayers(r, s);
    // use_qk_norm: Llama4TextL2Norm, an RMS normalisation without a weight
    // (no parameter, so not ModelSpec::qkNorm, which adds q_norm/k_norm weights).
    s.qkL2Norm = r.flag("use_qk_norm", true);
    // attn_temperature_tuning is a bool in Llama4TextConfig (5.17), but the
    // published Scout and Maverick configs hold 4: either is accepted; it
    // scales the NoPE layers' queries and sizes no parameter.
    if (const json* tuning = r.find("attn_temperature_tuning"); tuning && !tuning->is_boolean() && !tuning->is_number())
        r.fail(ErrorCode::MissingField,
               "\"attn_temperature_tuning\" is " + tuning->dump() + "; expected true, false or a number");
}

void readLlama4(ConfigReader& r, ModelSpec& s)
{
    // Llama4Config.__post_init__ builds Llama4TextConfig() (Scout) when
    // text_config is missing: required here (readTextConfig).
    if (!readTextConfig(r, s, "llama4", readLlama4Text))
        return;
    // Llama4Config.tie_word_embeddings=False; the top-level key governs
    // Llama4ForConditionalGeneration.
    s.tieEmbeddings = r.flag("tie_word_embeddings", false);
    static const json kEmpty = json::object();
    const json* vision = r.find("vision_config");
    if (vision && !vision->is_object()) {
        r.fail(ErrorCode::MissingField, "\"vision_config\" is " + vision->dump() + "; expected an object");
        return;
    }
    // vision_config absent: Llama4VisionConfig() (Llama4Config.__post_init__),
    // whose defaults follow.
    ConfigReader v(vision ? *vision : kEmpty, "vision_config");
    VisionTowerSpec& tower = s.vision;
    tower.kind = VisionTowerKind::Llama4;
    tower.hidden = v.dimension("hidden_size", 768);
    tower.layers = v.size("num_hidden_layers", kMaxLayers, 34);
    const std::uint64_t heads = v.dimension("num_attention_heads", 16);
    tower.channels = v.dimension("num_channels", 3);
    tower.intermediate = v.dimension("intermediate_size", 5632);
    tower.outputDim = v.dimension("vision_output_dim", 7680);
    tower.imageSize = v.dimension("image_size", 448);
    tower.patchSize = v.dimension("patch_size", 14);
    tower.projectorInput = v.dimension("projector_input_dim", 4096);
    tower.projectorOutput = v.dimension("projector_output_dim", 4096);
    // multi_modal_projector_bias is read by no module in 5.17
    // (Llama4MultiModalProjector.linear_1 has bias=False).
    v.flag("multi_modal_projector_bias", false);
    if (v.error())
        r.fail(v.error()->code, v.error()->detail);
    else if (tower.imageSize % tower.patchSize != 0)
        r.fail(ErrorCode::InvalidArgument, "\"vision_config.image_size\" " + std::to_string(tower.imageSize)
                                               + " is not a multiple of \"vision_config.patch_size\" "
                                               + std::to_string(tower.patchSize));
    else if (tower.hidden % heads != 0) // Llama4VisionAttention: head_dim = hidden_size // num_attention_heads
        r.fail(ErrorCode::InvalidArgument, "\"vision_config.hidden_size\" " + std::to_string(tower.hidden)
                                               + " is not divisible by \"vision_config.num_attention_heads\" "
                                               + std::to_string(heads));
}

} // namespace headroom::detail
