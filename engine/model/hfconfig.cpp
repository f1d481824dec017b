// SPDX-License-Identifier: GPL-3.0-or-later
// config.json -> ModelSpec. The keys and their defaults are those of the
// transformers configuration classes (transformers/models/<type>/
// configuration_<type>.py, v4.4x): a key absent from config.json takes the
// class default, as PretrainedConfig.from_dict would, and JSON null means
// "None" (num_key_value_heads, head_dim, n_inner...).
//
// Exception: the keys that size the model itself (hidden size, layers, heads,
// vocabulary, intermediate size) are required. transformers would fill them
// with the dimensions of some default model (LlamaConfig() is Llama-7B), so a
// config.json without them would silently plan a different model; and
// save_pretrained always writes them (to_diff_dict keeps every attribute that
// PretrainedConfig itself does not define).
#include "model/hfconfig.h"

#include "model/configreader.h"

#include "model/modelhead.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <iterator>

namespace headroom {

namespace {

using nlohmann::json;

using detail::ConfigReader;
using detail::kMaxDimension;
using detail::kMaxLayers;
using detail::quoted;

// Key names differ per family: GPT-2 and GPTBigCode use n_embd, n_layer, n_head.
struct SizeKeys {
    const char* hidden;
    const char* layers;
    const char* heads;
};
constexpr SizeKeys kHfKeys{"hidden_size", "num_hidden_layers", "num_attention_heads"};
constexpr SizeKeys kGpt2Keys{"n_embd", "n_layer", "n_head"};

void readCommonSizes(ConfigReader& r, ModelSpec& s, const SizeKeys& keys)
{
    s.hidden = r.dimension(keys.hidden);
    s.layers = r.size(keys.layers, kMaxLayers);
    s.heads = r.dimension(keys.heads);
    s.vocab = r.dimension("vocab_size");
}

// qwen3_moe (Qwen3MoeConfig, transformers 5.17): num_experts=128,
// num_experts_per_tok=8. Qwen3MoeDecoderLayer makes layer i sparse when
// i is not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0, else a
// dense Qwen3MoeMLP of intermediate_size (ModelSpec::denseLayerIds; every
// released Qwen3-MoE config has mlp_only_layers [] and decoder_sparse_step
// 1). norm_topk_prob rescales the top-k weights: no parameter, no saved
// tensor of note.
void readQwen3MoeExperts(ConfigReader& r, ModelSpec& s)
{
    s.experts = r.dimension("num_experts", 128);
    s.expertsPerToken = r.dimension("num_experts_per_tok", 8);
    const std::uint64_t step = r.size("decoder_sparse_step", kMaxLayers, 1);
    std::vector<bool> dense(s.layers, false);
    for (std::uint64_t i = 0; i < s.layers; ++i)
        dense[i] = (i + 1) % step != 0;
    const json* listed = r.find("mlp_only_layers");
    if (listed && !listed->is_array()) {
        r.fail(ErrorCode::MissingField, "\"mlp_only_layers\" is " + listed->dump() + "; expected a list of layer indices");
        return;
    }
    if (listed) {
        for (const json& index : *listed) {
            if (!index.is_number_integer()) {
                r.fail(ErrorCode::InvalidArgument, "\"mlp_only_layers\" holds " + index.dump() + "; expected layer indices");
                return;
            }
            // An index past the last layer names no layer (Python's `in` test).
            const std::int64_t i = index.get<std::int64_t>();
            if (i >= 0 && std::uint64_t(i) < s.layers)
                dense[std::uint64_t(i)] = true;
        }
    }
    setDenseLayers(r, s, dense, "\"decoder_sparse_step\" and \"mlp_only_layers\"", "qwen3");
    if (s.denseLayers > 0)
        s.denseIntermediate = r.dimension("intermediate_size", 6144); // Qwen3MoeConfig's default
}

// llama, mistral, qwen2, qwen3, smollm3, mixtral, gemma, gemma2, gemma3_text,
// olmo2, phi3: RMSNorm, RoPE, GQA, gated MLP, head_dim = hidden / heads unless
// the config sets head_dim. Also reads Gemma3Config's text_config (model type
// "gemma3", through readGemma3).
void readLlamaLike(ConfigReader& r, ModelSpec& s)
{
    const std::string& t = s.modelType;
    const bool gemma3 = t == "gemma3_text" || t == "gemma3";
    const bool gemma = t == "gemma" || t == "gemma2" || gemma3;
    const bool qwen3Moe = t == "qwen3_moe";
    const bool qwen3 = t == "qwen3" || qwen3Moe;
    const bool olmo2 = t == "olmo2";
    const bool smollm3 = t == "smollm3";
    if (t == "gemma3") {
        // google/gemma-3-4b-pt and -27b-pt leave vocab_size (and the 4B also
        // the head counts) to Gemma3TextConfig's defaults: vocab_size=262_208,
        // num_attention_heads=8 (configuration_gemma3.py). Inside text_config
        // those class defaults are the published model, so they apply; the
        // other sizes stay required.
        s.hidden = r.dimension("hidden_size");
        s.layers = r.size("num_hidden_layers", kMaxLayers);
        s.heads = r.dimension("num_attention_heads", 8);
        s.vocab = r.dimension("vocab_size", 262208);
    } else {
        readCommonSizes(r, s, kHfKeys);
    }
    // Qwen3MoeConfig: intermediate_size (default 6144) sizes only the dense
    // layers (Qwen3MoeMLP), which are refused below; the experts' width is
    // moe_intermediate_size, required as intermediate_size is elsewhere.
    s.intermediate = qwen3Moe ? r.dimension("moe_intermediate_size") : r.dimension("intermediate_size");
    // Most config classes here map num_key_value_heads=None to
    // num_attention_heads (LlamaConfig.__init__: "for backward compatibility").
    // GemmaConfig's literal default 16 equals its default head count: MHA.
    // Gemma3TextConfig's default is 4 (no None mapping); SmolLM3Config's is 4
    // when the key is absent and num_attention_heads when it is null.
    const bool kvDefaultFour = gemma3 || (smollm3 && !r.has("num_key_value_heads"));
    s.kvHeads = r.dimension("num_key_value_heads", kvDefaultFour ? std::uint64_t{4} : s.heads);
    // GemmaConfig, Gemma2Config and Gemma3TextConfig default head_dim to 256
    // (not hidden/heads); LlamaConfig, MistralConfig, MixtralConfig default it
    // to None, and Qwen2Attention, Phi3Attention, Olmo2Attention and
    // SmolLM3Attention read getattr(config, "head_dim", hidden_size //
    // num_attention_heads). 0 here means "derive it". Qwen3Config:
    // head_dim=128, decoupled from hidden / heads (Qwen3-0.6B: 1024 / 16 = 64,
    // but 128). Qwen3MoeConfig (5.17) has no head_dim field: Qwen3MoeAttention
    // reads getattr(config, "head_dim", hidden_size // num_attention_heads),
    // and the released configs set it (Qwen3-30B-A3B: 128, not 2048 / 32).
    const bool headDim128 = qwen3 && !qwen3Moe;
    s.headDim = r.dimension("head_dim", gemma ? std::uint64_t{256} : headDim128 ? std::uint64_t{128} : std::uint64_t{0});
    // max_position_embeddings defaults: LlamaConfig 2048, MistralConfig and
    // MixtralConfig 4096 * 32, Qwen2Config, Qwen3Config and SmolLM3Config
    // 32768, Gemma(2)Config 8192, Gemma3TextConfig 131_072, Phi3Config 4096,
    // Olmo2Config 2048.
    const std::uint64_t positions = t == "mistral" || t == "mixtral"     ? 4096 * 32
                                  : t == "qwen2" || qwen3 || smollm3    ? 32768
                                  : gemma3                              ? 131072
                                  : gemma                               ? 8192
                                  : t == "phi3"                         ? 4096
                                                                        : 2048;
    s.maxPositions = r.dimension("max_position_embeddings", positions);
    s.norm = NormKind::RmsNorm;
    s.gatedMlp = true;
    // tie_word_embeddings: False in LlamaConfig, MistralConfig, Qwen2Config,
    // Qwen3Config, MixtralConfig, Phi3Config, Olmo2Config; True in
    // GemmaConfig, Gemma2Config, Gemma3TextConfig, Gemma3Config and
    // SmolLM3Config. (Qwen3-0.6B to -4B set it true in their config.json.)
    // For Gemma3Config the top-level key governs (readGemma3).
    if (t != "gemma3")
        s.tieEmbeddings = r.flag("tie_word_embeddings", gemma || smollm3);
    // Gemma2Config.final_logit_softcapping: 30.0 by default, null turns it off
    // (modeling_gemma2.py Gemma2ForCausalLM.forward: logits / cap, tanh, * cap).
    // Gemma3TextConfig defaults it to None (modeling_gemma3.py
    // Gemma3ForCausalLM.forward applies it only when set).
    s.finalLogitSoftcap = (t == "gemma2" && r.positiveOrNull("final_logit_softcapping", true))
                          || (gemma3 && r.positiveOrNull("final_logit_softcapping", false));
    // sliding_window: an int, or null for none. Class defaults: MistralConfig,
    // Gemma2Config and Gemma3TextConfig 4096; Phi3Config and MixtralConfig
    // None. Which layers slide: every one in Mistral, Mixtral and Phi-3 (their
    // models pick create_sliding_window_causal_mask whenever it is set); in
    // Gemma 2 and 3 those with (i + 1) % P != 0 (Gemma2Config.layer_types
    // with P = 2; Gemma3TextConfig's sliding_window_pattern, default 6).
    // Qwen2, Qwen3 and SmolLM3 slide only with use_sliding_window (false in
    // every published config, and then from max_window_layers on): not planned.
    auto window = [&](std::uint64_t classDefault) -> std::uint64_t {
        if (r.has("sliding_window") && !r.find("sliding_window"))
            return 0; // null
        return r.size("sliding_window", kMaxDimension, classDefault);
    };
    if (t == "mistral" || t == "mixtral" || t == "phi3") {
        s.slidingWindow = window(t == "mistral" ? 4096 : 0);
        s.slidingPeriod = 0;
    } else if (t == "gemma2") {
        s.slidingWindow = window(4096);
        s.slidingPeriod = 2;
    } else if (gemma3) {
        s.slidingWindow = window(4096);
        s.slidingPeriod = r.size("sliding_window_pattern", kMaxLayers, 6);
    }
    if (gemma) {
        // GemmaMLP (v4.38-4.4x) uses hidden_activation and treats None as
        // gelu_pytorch_tanh; Gemma2Config and Gemma3TextConfig default
        // hidden_activation to it; v5 reads hidden_act for gemma. Prefer the
        // specific key, then the general one.
        s.hiddenAct = r.text("hidden_activation", r.text("hidden_act", "gelu_pytorch_tanh"));
    } else {
        s.hiddenAct = r.text("hidden_act", "silu"); // LlamaConfig ... Phi3Config, Olmo2Config: "silu"
    }
    if (t == "llama" || gemma || qwen3 || olmo2 || smollm3) {
        // LlamaAttention, GemmaAttention, Gemma3Attention, Qwen3Attention,
        // Olmo2Attention and SmolLM3Attention: bias=config.attention_bias on
        // q, k, v and o (default False); LlamaMLP and SmolLM3MLP:
        // bias=config.mlp_bias (Qwen3MLP, Gemma3MLP, Olmo2MLP: bias=False).
        s.qkvBias = s.attnOutBias = r.flag("attention_bias", false);
        if (t == "llama" || smollm3)
            s.mlpBias = r.flag("mlp_bias", false);
    } else if (t == "qwen2") {
        // Qwen2Attention: q/k/v_proj bias=True, o_proj bias=False, always.
        s.qkvBias = true;
    } // mistral, mixtral, phi3: every projection has bias=False.
    // Qwen3Attention and Gemma3Attention: q_norm and k_norm, an RMSNorm over
    // head_dim, applied to each head of q_proj's and k_proj's output before
    // RoPE (modeling_qwen3.py, modeling_gemma3.py). Olmo2Attention: q_norm over
    // num_heads * head_dim and k_norm over num_kv_heads * head_dim, applied to
    // the whole projection output (modeling_olmo2.py). Sliding windows
    // (Qwen3's use_sliding_window, Gemma 3's sliding_window on five layers of
    // six, SmolLM3's) and SmolLM3's NoPE layers change no parameter.
    s.qkNorm = qwen3 || gemma3 || olmo2;
    if (t == "phi3") {
        // Phi3Config: resid_pdrop, embd_pdrop, attention_dropout, all 0.0.
        s.dropout = r.maxProbability({"attention_dropout", "resid_pdrop", "embd_pdrop"}, 0.0);
    } else {
        s.dropout = r.probability("attention_dropout", 0.0); // the only dropout of these classes
    }
    if (t == "mixtral") {
        // MixtralConfig: num_local_experts=8, num_experts_per_tok=2.
        s.experts = r.dimension("num_local_experts", 8);
        s.expertsPerToken = r.dimension("num_experts_per_tok", 2);
    }
    if (qwen3Moe)
        readQwen3MoeExperts(r, s);
}

// gpt_oss (GptOssConfig, transformers 5.17 configuration_gpt_oss.py):
// num_local_experts=128, num_experts_per_tok=4, head_dim=64 (None: hidden /
// heads), num_key_value_heads=8 (None: heads), sliding_window=128,
// max_position_embeddings=131072, attention_bias=True, tie_word_embeddings=False.
// layer_types defaults to sliding on even layers, full on odd ones
// (GptOssConfig.__post_init__: "sliding_attention" if (i + 1) % 2 else
// "full_attention"); that pattern (slidingPeriod 2, as Gemma 2) or all-full
// is planned, another one is refused. The experts always have biases
// (GptOssExperts) and their activation is the clamped SwiGLU of
// GptOssExperts._apply_gate whatever hidden_act says. quantization_config
// (MXFP4 in the released checkpoints) is not read: weights are planned in the
// scenario's dtype.
void readGptOss(ConfigReader& r, ModelSpec& s)
{
    readCommonSizes(r, s, kHfKeys);
    s.intermediate = r.dimension("intermediate_size");
    s.kvHeads = r.dimension("num_key_value_heads", r.has("num_key_value_heads") ? s.heads : std::uint64_t{8});
    if (r.has("head_dim") && !r.find("head_dim"))
        s.headDim = 0; // null: hidden / heads (checkShapes)
    else
        s.headDim = r.dimension("head_dim", 64);
    s.maxPositions = r.dimension("max_position_embeddings", 131072);
    s.tieEmbeddings = r.flag("tie_word_embeddings", false);
    s.qkvBias = s.attnOutBias = r.flag("attention_bias", true);
    s.mlpBias = true;
    s.norm = NormKind::RmsNorm;
    s.gatedMlp = true;
    s.hiddenAct = r.text("hidden_act", "silu");
    s.dropout = r.probability("attention_dropout", 0.0);
    s.experts = r.dimension("num_local_experts", 128);
    s.expertsPerToken = r.dimension("num_experts_per_tok", 4);
    if (r.has("sliding_window") && !r.find("sliding_window"))
        s.slidingWindow = 0;
    else
        s.slidingWindow = r.size("sliding_window", kMaxDimension, 128);
    s.slidingPeriod = 2;
    const json* types = r.find("layer_types");
    if (!types)
        return;
    if (!types->is_array() || types->size() != s.layers) {
        r.fail(ErrorCode::InvalidArgument, "\"layer_types\" must list one type per layer ("
                                               + std::to_string(s.layers) + "), got " + types->dump().substr(0, 80));
        return;
    }
    bool alternating = true, allFull = true;
    for (std::size_t i = 0; i < types->size(); ++i) {
        const json& type = (*types)[i];
        const bool full = type == "full_attention";
        if (!full && type != "sliding_attention") {
            r.fail(ErrorCode::InvalidArgument, "\"layer_types\" holds " + type.dump()
                                                   + "; expected \"sliding_attention\" or \"full_attention\"");
            return;
        }
        alternating = alternating && full == (i % 2 == 1);
        allFull = allFull && full;
    }
    if (allFull || s.slidingWindow == 0) {
        s.slidingWindow = 0;
        s.slidingPeriod = 0;
    } else if (!alternating) {
        r.fail(ErrorCode::UnsupportedCombination,
               "\"layer_types\" is not the alternating sliding/full pattern of gpt-oss (sliding on even layers): "
               "not planned yet");
    }
}

// gemma3 (Gemma3Config, counted as Gemma3ForConditionalGeneration): the text
// model's settings nested under "text_config" (a Gemma3TextConfig), a SigLIP
// "vision_config" (SiglipVisionConfig) and the multi-modal projector, whose
// sizes come from both (modeling_gemma3.py Gemma3MultiModalProjector).
void readGemma3(ConfigReader& r, ModelSpec& s)
{
    // Gemma3Config.__post_init__ builds Gemma3TextConfig() (Gemma 2 2B's
    // sizes) when text_config is missing: required here (readTextConfig).
    if (!readTextConfig(r, s, "gemma3", readLlamaLike))
        return;
    s.tieEmbeddings = r.flag("tie_word_embeddings", true);  // Gemma3Config: tie_word_embeddings=True
    // vision_config absent: SiglipVisionConfig() (Gemma3Config.__post_init__).
    static const json kEmpty = json::object();
    const json* vision = r.find("vision_config");
    if (vision && !vision->is_object()) {
        r.fail(ErrorCode::MissingField, "\"vision_config\" is " + vision->dump() + "; expected an object");
        return;
    }
    ConfigReader v(vision ? *vision : kEmpty, "vision_config");
    // SiglipVisionConfig defaults: hidden_size=768, intermediate_size=3072,
    // num_hidden_layers=12, num_channels=3, image_size=224, patch_size=16.
    VisionTowerSpec& tower = s.vision;
    tower.hidden = v.dimension("hidden_size", 768);
    tower.intermediate = v.dimension("intermediate_size", 3072);
    tower.layers = v.size("num_hidden_layers", kMaxLayers, 12);
    tower.channels = v.dimension("num_channels", 3);
    tower.imageSize = v.dimension("image_size", 224);
    tower.patchSize = v.dimension("patch_size", 16);
    // modeling_siglip.py SiglipVisionTransformer: use_head = True unless the
    // config has vision_use_head (Gemma 3's configs set it false).
    tower.poolingHead = v.flag("vision_use_head", true);
    if (v.error())
        r.fail(v.error()->code, v.error()->detail);
    else if (tower.imageSize % tower.patchSize != 0)
        r.fail(ErrorCode::InvalidArgument, "\"vision_config.image_size\" " + std::to_string(tower.imageSize)
                                               + " is not a multiple of \"vision_config.patch_size\" "
                                               + std::to_string(tower.patchSize));
}

// gpt2 (GPT2Config) and gpt_bigcode (GPTBigCodeConfig): n_* keys, Conv1D or
// Linear with bias everywhere, learned positions, tied lm_head.
void readGpt2Like(ConfigReader& r, ModelSpec& s)
{
    readCommonSizes(r, s, kGpt2Keys);
    s.maxPositions = r.dimension("n_positions", 1024);        // both classes: 1024
    s.intermediate = r.dimension("n_inner", 4 * s.hidden);   // n_inner=None -> 4 * n_embd
    const bool bigcode = s.modelType == "gpt_bigcode";
    // GPT2Config: "gelu_new"; GPTBigCodeConfig: "gelu_pytorch_tanh".
    s.hiddenAct = r.text("activation_function", bigcode ? "gelu_pytorch_tanh" : "gelu_new");
    s.dropout = r.maxProbability({"attn_pdrop", "resid_pdrop", "embd_pdrop"}, 0.1); // all 0.1
    s.tieEmbeddings = r.flag("tie_word_embeddings", true); // PretrainedConfig default; both tie lm_head
    // GPTBigCodeConfig.multi_query=True: one shared key/value head.
    s.kvHeads = bigcode && r.flag("multi_query", true) ? 1 : s.heads;
    s.norm = NormKind::LayerNorm;
    s.gatedMlp = false;
    s.qkvBias = s.attnOutBias = s.mlpBias = true;
    s.learnedPositions = true;
}

// gpt_neox (GPTNeoXConfig): Pythia, polyglot-ko.
void readGptNeoX(ConfigReader& r, ModelSpec& s)
{
    readCommonSizes(r, s, kHfKeys);
    s.kvHeads = s.heads;
    s.intermediate = r.dimension("intermediate_size");
    s.maxPositions = r.dimension("max_position_embeddings", 2048);
    s.hiddenAct = r.text("hidden_act", "gelu");
    // GPTNeoXConfig.attention_bias=True covers query_key_value and dense;
    // GPTNeoXMLP always has bias.
    s.qkvBias = s.attnOutBias = r.flag("attention_bias", true);
    s.mlpBias = true;
    s.parallelResidual = r.flag("use_parallel_residual", true);
    s.tieEmbeddings = r.flag("tie_word_embeddings", false);
    s.dropout = r.maxProbability({"attention_dropout", "hidden_dropout"}, 0.0);
    // GPTNeoXConfig.rotary_pct (0.25 in every Pythia config): RoPE turns the
    // first int(head_size · rotary_pct) elements of each head.
    s.rotaryFraction = r.fraction("rotary_pct", 0.25);
    s.norm = NormKind::LayerNorm;
    s.gatedMlp = false;
}

// bert (BertConfig), counted as BertForMaskedLM, or as
// BertForSequenceClassification when `architectures` names it (a fine-tuned
// classifier's config.json). Every other architecture keeps the MLM head.
void readBert(ConfigReader& r, ModelSpec& s)
{
    readCommonSizes(r, s, kHfKeys);
    s.kvHeads = s.heads;
    s.intermediate = r.dimension("intermediate_size");
    s.maxPositions = r.dimension("max_position_embeddings", 512);
    s.typeVocab = r.dimension("type_vocab_size", 2);
    s.hiddenAct = r.text("hidden_act", "gelu");
    s.dropout = r.maxProbability({"hidden_dropout_prob", "attention_probs_dropout_prob"}, 0.1);
    s.tieEmbeddings = r.flag("tie_word_embeddings", true); // MLM decoder tied to word_embeddings
    s.norm = NormKind::LayerNorm;
    s.gatedMlp = false;
    s.qkvBias = s.attnOutBias = s.mlpBias = true;
    s.learnedPositions = true;
    s.encoder = true;
    const json* archs = r.find("architectures");
    if (archs && !archs->is_array()) {
        r.fail(ErrorCode::MissingField, "\"architectures\" is " + archs->dump() + "; expected a list of class names");
        return;
    }
    if (archs && !archs->empty() && archs->front() == "BertForSequenceClassification") {
        // configuration_utils.py PretrainedConfig.__init__: the label count is
        // the length of id2label when the config has one (a num_labels that
        // disagrees only draws a warning), else num_labels, else 2.
        std::uint64_t labels = 0;
        if (const json* map = r.find("id2label")) {
            if (!map->is_object() || map->empty() || map->size() > kMaxLabels)
                r.fail(ErrorCode::InvalidArgument, "\"id2label\" must be a non-empty object of label names, got "
                                                       + map->dump().substr(0, 80));
            else
                labels = map->size();
        }
        if (labels == 0)
            labels = r.size("num_labels", kMaxLabels, 2);
        s.head = ModelHead::SequenceClassification;
        s.numLabels = labels;
        s.hfClass = "BertForSequenceClassification";
    }
}

struct TypeInfo {
    const char* modelType;
    Family family;
    const char* hfClass;
    void (*read)(ConfigReader&, ModelSpec&);
};

constexpr TypeInfo kTypes[] = {
    {"llama", Family::Llama, "LlamaForCausalLM", readLlamaLike},
    {"mistral", Family::Llama, "MistralForCausalLM", readLlamaLike},
    {"qwen2", Family::Llama, "Qwen2ForCausalLM", readLlamaLike},
    {"qwen3", Family::Llama, "Qwen3ForCausalLM", readLlamaLike},
    {"smollm3", Family::Llama, "SmolLM3ForCausalLM", readLlamaLike},
    {"mixtral", Family::Mixtral, "MixtralForCausalLM", readLlamaLike},
    {"qwen3_moe", Family::Qwen3Moe, "Qwen3MoeForCausalLM", readLlamaLike},
    {"gpt_oss", Family::GptOss, "GptOssForCausalLM", readGptOss},
    {"gemma", Family::Gemma, "GemmaForCausalLM", readLlamaLike},
    {"gemma2", Family::Gemma2, "Gemma2ForCausalLM", readLlamaLike},
    {"gemma3_text", Family::Gemma3, "Gemma3ForCausalLM", readLlamaLike},
    {"gemma3", Family::Gemma3, "Gemma3ForConditionalGeneration", readGemma3},
    {"llama4_text", Family::Llama4, "Llama4ForCausalLM", detail::readLlama4Text},
    {"llama4", Family::Llama4, "Llama4ForConditionalGeneration", detail::readLlama4},
    {"deepseek_v3", Family::DeepseekV3, "DeepseekV3ForCausalLM", detail::readDeepseekV3},
    {"olmo2", Family::Olmo2, "Olmo2ForCausalLM", readLlamaLike},
    {"phi3", Family::Phi3, "Phi3ForCausalLM", readLlamaLike},
    {"gpt2", Family::Gpt2, "GPT2LMHeadModel", readGpt2Like},
    {"gpt_neox", Family::GptNeoX, "GPTNeoXForCausalLM", readGptNeoX},
    {"gpt_bigcode", Family::GptBigCode, "GPTBigCodeForCausalLM", readGpt2Like},
    {"bert", Family::Bert, "BertForMaskedLM", readBert},
};

std::string supportedList()
{
    std::string list;
    for (const std::string& t : supportedModelTypes())
        list += (list.empty() ? "" : ", ") + t;
    return list;
}

// Shape consistency that transformers would otherwise discover as a
// ValueError or a reshape failure in the first forward pass. Fills headDim
// when the config leaves it to hidden / heads.
std::optional<Error> checkShapes(ModelSpec& s)
{
    const bool gpt2Keys = s.family == Family::Gpt2 || s.family == Family::GptBigCode;
    const std::string hiddenKey = gpt2Keys ? "n_embd" : "hidden_size";
    const std::string headsKey = gpt2Keys ? "n_head" : "num_attention_heads";
    if (s.headDim == 0) {
        if (s.hidden % s.heads != 0)
            return makeError(ErrorCode::InvalidArgument,
                             quoted(hiddenKey) + " " + std::to_string(s.hidden) + " is not divisible by "
                                 + quoted(headsKey) + " " + std::to_string(s.heads)
                                 + " and no \"head_dim\" is given");
        s.headDim = s.hidden / s.heads;
    }
    if (s.heads % s.kvHeads != 0)
        return makeError(ErrorCode::InvalidArgument,
                         "\"num_key_value_heads\" " + std::to_string(s.kvHeads) + " does not divide "
                             + quoted(headsKey) + " " + std::to_string(s.heads));
    if (s.isMoe() && s.expertsPerToken > s.experts)
        return makeError(ErrorCode::InvalidArgument,
                         "\"num_experts_per_tok\" " + std::to_string(s.expertsPerToken)
                             + " exceeds " + (s.family == Family::Qwen3Moe ? "\"num_experts\" " : "\"num_local_experts\" ")
                             + std::to_string(s.experts));
    return std::nullopt;
}

Result<ModelSpec> specFromObject(const json& config, const std::string& id)
{
    if (!config.is_object())
        return makeError(ErrorCode::MalformedJson,
                         std::string("config.json must be a JSON object, not ") + config.type_name());
    const auto typeIt = config.find("model_type");
    if (typeIt == config.end() || !typeIt->is_string())
        return makeError(ErrorCode::MissingField,
                         typeIt == config.end() ? std::string("config.json has no \"model_type\"")
                                                : "\"model_type\" is " + typeIt->dump() + "; expected a string");
    const std::string type = typeIt->get<std::string>();
    const auto info = std::find_if(std::begin(kTypes), std::end(kTypes),
                                   [&](const TypeInfo& i) { return type == i.modelType; });
    if (info == std::end(kTypes))
        return makeError(ErrorCode::UnknownModelType,
                         "\"model_type\" is \"" + type + "\"; supported: " + supportedList());

    ModelSpec s;
    s.id = id;
    s.origin = "config.json";
    s.modelType = type;
    s.hfClass = info->hfClass;
    s.family = info->family;
    ConfigReader reader(config);
    info->read(reader, s);
    s.useCache = reader.flag("use_cache", true);  // configuration_utils.py PretrainedConfig: use_cache=True
    if (reader.error())
        return *reader.error();
    if (auto error = checkShapes(s))
        return *error;
    return s;
}

} // namespace

const std::vector<std::string>& supportedModelTypes()
{
    static const std::vector<std::string> types = [] {
        std::vector<std::string> list;
        for (const TypeInfo& i : kTypes)
            list.emplace_back(i.modelType);
        return list;
    }();
    return types;
}

Result<ModelSpec> modelSpecFromHfConfig(const nlohmann::json& config, const std::string& id)
{
    try {
        return specFromObject(config, id);
    } catch (const std::exception& e) { // nlohmann::json::exception, bad_alloc: never thrown onwards
        return makeError(ErrorCode::MalformedJson, std::string("config.json could not be read: ") + e.what());
    }
}

Result<ModelSpec> modelSpecFromHfConfigText(std::string_view text, const std::string& id)
{
    json config;
    try {
        config = json::parse(text);
    } catch (const std::exception& e) {
        return makeError(ErrorCode::MalformedJson, std::string("config.json is not valid JSON: ") + e.what());
    }
    return modelSpecFromHfConfig(config, id);
}

Result<ModelSpec> modelSpecFromConfigFile(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path file(path);
    if (!fs::is_regular_file(file, ec))
        return makeError(ErrorCode::FileNotFound, "no config file at " + path);
    std::ifstream in(file, std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (!in.is_open() || in.bad())
        return makeError(ErrorCode::IoError, "cannot read " + path);
    // Name the spec after what the user picked: the folder of a config.json,
    // otherwise the file itself ("llama-3.json" -> "llama-3").
    std::string id = file.stem().string();
    if (id == "config") {
        const fs::path folder = fs::absolute(file, ec).parent_path();
        id = folder.filename().empty() ? "custom" : folder.filename().string();
    }
    Result<ModelSpec> spec = modelSpecFromHfConfigText(text, id);
    if (!spec)
        return makeError(spec.error().code, path + ": " + spec.error().detail);
    return spec;
}

} // namespace headroom
