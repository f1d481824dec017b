// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The architecture of a transformer, as far as memory is concerned: every
// field here changes either the parameter table or the activations a layer
// saves. Filled from a Hugging Face config.json (hfconfig.h), from the preset
// catalog (which stores config.json contents), or scaled from a size
// (genericmodel.h).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

// The largest sizes a model description may carry. Far beyond any released
// model (Llama 3.1 405B: 126 layers, 16384 hidden, 53248 intermediate, 128256
// vocab), far below where the product of two could overflow 64 bits: anything
// larger is a typo or a hostile file. Every reader of a model (a config.json,
// a scenario's "spec") accepts at least these, so whatever one reader takes
// in, a saved scenario reads back.
inline constexpr std::uint64_t kMaxModelDimension = std::uint64_t{1} << 24;
inline constexpr std::uint64_t kMaxModelLayers = std::uint64_t{1} << 16;

// One value per Hugging Face modelling file whose parameter layout we
// reproduce. Names follow transformers' model_type strings where they exist.
enum class Family {
    Llama,      // llama, mistral, qwen2 (qkv bias), qwen3 (q/k norm), tinyllama...: RMSNorm, RoPE, GQA, gated MLP
    Mixtral,    // mixtral: Llama attention + top-k routed gated experts
    Qwen3Moe,   // qwen3_moe: Qwen3 attention (q/k norms, decoupled head_dim) + top-k routed gated experts
    GptOss,     // gpt_oss: biased attention with per-head sinks, biased router, fused gate_up experts with biases
    Gemma,      // gemma: Llama layout, GeGLU, tied embeddings, head_dim decoupled from hidden
    Gemma2,     // gemma2: four norms per layer (pre/post attention and feed-forward)
    Gemma3,     // gemma3_text, gemma3: Gemma 2's four norms plus per-head q/k norms; gemma3 adds a SigLIP tower
    Llama4,     // llama4_text, llama4: Llama attention, every layer a Llama4TextMoe (routed experts + one shared
                // expert); llama4 adds its own vision tower (VisionTowerKind::Llama4)
    DeepseekV3, // deepseek_v3: multi-head latent attention, first_k_dense_replace dense layers, then
                // DeepseekV3MoE (sigmoid group-limited router, routed experts + shared experts)
    Olmo2,      // olmo2: post-norm blocks (no input norm), q/k RMSNorm over the whole projections
    Phi3,       // phi3: fused qkv_proj and gate_up_proj
    Gpt2,       // gpt2: LayerNorm, learned positions, fused c_attn, Conv1D, tied lm_head
    GptNeoX,    // gpt_neox (Pythia, polyglot-ko): fused query_key_value, parallel residual
    GptBigCode, // gpt_bigcode (StarCoder, octocoder): GPT-2 layout with multi-query attention
    Bert,       // bert: encoder, token types; MLM head (BertForMaskedLM) or a classifier (ModelSpec::head)
};

const char* familyName(Family family);

enum class NormKind { RmsNorm, LayerNorm };

// Which image tower an image-text model carries.
enum class VisionTowerKind {
    Siglip, // Gemma3ForConditionalGeneration: SiglipVisionModel + Gemma3MultiModalProjector
    Llama4, // Llama4ForConditionalGeneration: Llama4VisionModel + Llama4MultiModalProjector
};

// The vision tower and multi-modal projector of an image-text model: the
// fields of its vision_config that size its parameters (transformers/models/
// siglip/configuration_siglip.py SiglipVisionConfig; llama4/
// configuration_llama4.py Llama4VisionConfig). layers == 0: no vision tower.
struct VisionTowerSpec {
    VisionTowerKind kind = VisionTowerKind::Siglip;
    std::uint64_t layers = 0;        // num_hidden_layers
    std::uint64_t hidden = 0;        // hidden_size
    std::uint64_t intermediate = 0;  // intermediate_size
    std::uint64_t channels = 0;      // num_channels
    std::uint64_t imageSize = 0;     // image_size (square)
    std::uint64_t patchSize = 0;     // patch_size (square)
    bool poolingHead = false;        // vision_use_head (SiglipVisionTransformer: true when absent)
    // Llama 4 only (Llama4VisionPixelShuffleMLP, Llama4MultiModalProjector):
    std::uint64_t projectorInput = 0;  // projector_input_dim (vision_adapter.mlp.fc1's outputs)
    std::uint64_t projectorOutput = 0; // projector_output_dim (vision_adapter.mlp.fc2, square)
    std::uint64_t outputDim = 0;       // vision_output_dim (multi_modal_projector.linear_1's inputs)

    bool operator==(const VisionTowerSpec&) const = default;
};

// The task head on top of the transformer: it decides the outputs, the loss
// and which head parameters exist.
enum class ModelHead {
    LanguageModel,          // the family's own LM head: causal LM, or masked LM for BERT (BertForMaskedLM)
    SequenceClassification, // BertForSequenceClassification: pooler (dense + tanh on the first token),
                            // dropout, Linear(hidden, num_labels); one label per sequence
};

// "language-model", "sequence-classification" (scenario files, the CLI's --head).
const char* modelHeadName(ModelHead head);
bool parseModelHead(const std::string& name, ModelHead& out);

struct ModelSpec {
    std::string id;          // catalog id (Hugging Face repo id) or "custom"/"generic-13B"
    std::string modelType;   // config.json model_type
    std::string hfClass;     // the transformers class whose parameters we count
    Family family = Family::Llama;

    std::uint64_t layers = 0;          // num_hidden_layers
    std::uint64_t hidden = 0;          // hidden_size
    std::uint64_t heads = 0;           // num_attention_heads
    std::uint64_t kvHeads = 0;         // num_key_value_heads (== heads for MHA, 1 for MQA)
    std::uint64_t headDim = 0;         // head_dim (hidden / heads unless the config decouples it)
    std::uint64_t intermediate = 0;    // intermediate_size (per expert for MoE)
    std::uint64_t vocab = 0;           // vocab_size
    std::uint64_t maxPositions = 0;    // max_position_embeddings / n_positions
    std::uint64_t typeVocab = 0;       // BERT token_type embeddings (type_vocab_size)

    NormKind norm = NormKind::RmsNorm;
    std::string hiddenAct = "silu";    // hidden_act / activation_function: decides what the MLP saves
    bool gatedMlp = true;              // gate/up/down (SwiGLU, GeGLU) vs fc/proj
    bool tieEmbeddings = false;        // lm_head shares the embedding matrix
    bool qkvBias = false;              // bias on the q/k/v projections (Qwen2, GPT-2, NeoX, BERT)
    bool attnOutBias = false;          // bias on the attention output projection
    bool mlpBias = false;              // bias on the MLP projections
    bool learnedPositions = false;     // absolute position table (GPT-2, BERT) instead of RoPE
    bool parallelResidual = false;     // GPT-NeoX: attention and MLP read the same input
    double rotaryFraction = 1.0;       // the part of each head RoPE rotates (GPT-NeoX rotary_pct; no parameters)
    bool qkNorm = false;               // Qwen3, Gemma 3: RMSNorm over head_dim on each query and key head before
                                       // RoPE; OLMo 2: over the whole q (heads * head_dim) and k (kv heads * head_dim)
    bool qkL2Norm = false;             // Llama 4 use_qk_norm: Llama4TextL2Norm over head_dim on each query and key
                                       // head after RoPE, without a weight (no parameter)
    std::uint64_t experts = 0;         // MoE: num_local_experts (qwen3_moe: num_experts; 0 = dense)
    std::uint64_t expertsPerToken = 0; // MoE: num_experts_per_tok
                                       // (the expert width is `intermediate`: qwen3_moe's moe_intermediate_size)
    // Shared experts: gated MLPs every token runs besides its routed experts
    // (modeling_llama4.py Llama4TextMoe.shared_expert, a Llama4TextMLP of
    // intermediate_size). 0 for every family but Llama 4.
    std::uint64_t sharedExperts = 0;
    std::uint64_t sharedExpertIntermediate = 0;
    // Multi-head latent attention (DeepSeek-V3: modeling_deepseek_v3.py
    // DeepseekV3Attention; DeepSeek-V2 paper, arXiv:2405.04434 §2.1): the keys
    // and values come from a compressed latent of kvLoraRank per token
    // (kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj), the queries from one of
    // qLoraRank (q_a_proj, q_a_layernorm, q_b_proj; 0: one q_proj), and a
    // decoupled RoPE key of qkRopeHeadDim shared by the heads. headDim is the
    // query/key head width (qk_nope_head_dim + qk_rope_head_dim), vHeadDim the
    // value head's. kvLoraRank 0: not MLA.
    std::uint64_t qLoraRank = 0;
    std::uint64_t kvLoraRank = 0;
    std::uint64_t qkRopeHeadDim = 0;
    std::uint64_t vHeadDim = 0;
    // Dense layers before the MoE ones (DeepSeek-V3 first_k_dense_replace):
    // layers [0, denseLayers) run a gated MLP of denseIntermediate
    // (DeepseekV3MLP with intermediate_size), the rest the MoE block.
    std::uint64_t denseLayers = 0;
    std::uint64_t denseIntermediate = 0;
    // Dense layers among the MoE ones (Qwen3-MoE mlp_only_layers and
    // decoder_sparse_step, Llama 4 Maverick's interleave_moe_layer_step): their
    // indices, sorted, denseLayers of them. Empty: the dense layers are the
    // first denseLayers (DeepSeek-V3).
    std::vector<std::uint64_t> denseLayerIds;
    double dropout = 0.0;              // attention/residual dropout in training (GPT-2/BERT default 0.1)
    bool finalLogitSoftcap = false;    // Gemma 2: logits = cap * tanh(logits / cap) before the loss
    // Sliding-window attention (config.json sliding_window): 0 = none. From a
    // sequence of this length on, transformers builds a boolean mask for the
    // sliding layers (masking_utils.create_sliding_window_causal_mask), which
    // takes sdpa off the flash kernel. slidingPeriod 0: every layer slides
    // (Mistral, Phi-3); P > 0: layer i is full attention when i % P == P - 1,
    // the others slide (Gemma 2: 2, Gemma 3: sliding_window_pattern, 6).
    std::uint64_t slidingWindow = 0;
    std::uint64_t slidingPeriod = 0;
    // Gemma 3: the image side of Gemma3ForConditionalGeneration. Its weights
    // are loaded and counted, but a text-only training step never runs it:
    // no activations, and no gradients or optimizer state (its parameters get
    // no .grad, which torch.optim skips).
    VisionTowerSpec vision;
    bool useCache = true;              // config.json use_cache (PretrainedConfig default true): a decoder's
                                       // forward returns per-layer keys and values, in training too

    ModelHead head = ModelHead::LanguageModel;
    std::uint64_t numLabels = 0;       // classifier outputs (config.json num_labels / id2label); 0 with the LM head

    bool approximate = false;          // true for a model scaled from a size alone
    bool encoder = false;              // BERT-style: bidirectional, no causal lm_head
    std::string origin;                // where this spec came from: "catalog", "config.json", "model-folder", "size", "hub"
    // From the Hugging Face Hub: the revision the files came from, the commit
    // hash when the Hub or the cache named one, else the branch or tag asked
    // for; empty otherwise. Kept in saved scenarios so the model can be
    // fetched again as it was.
    std::string revision;
    // From a model folder's safetensors headers: the exact stored parameter
    // count and the dominant stored dtype ("BF16"...); 0 / empty otherwise.
    std::uint64_t checkpointParameters = 0;
    std::string checkpointDtype;

    bool isMoe() const { return experts > 0; }
    bool hasVision() const { return vision.layers > 0; }
    bool hasSharedExpert() const { return sharedExperts > 0; }
    bool isMla() const { return kvLoraRank > 0; }
    bool hasDenseLayers() const { return denseLayers > 0; }
    bool isDenseLayer(std::uint64_t layer) const
    {
        return denseLayerIds.empty() ? layer < denseLayers
                                     : std::binary_search(denseLayerIds.begin(), denseLayerIds.end(), layer);
    }
    std::uint64_t qkNopeHeadDim() const { return headDim - qkRopeHeadDim; }
    bool classifier() const { return head == ModelHead::SequenceClassification; }
    std::uint64_t qDim() const { return heads * headDim; }
    std::uint64_t kvDim() const { return kvHeads * headDim; }

    // Every field alike (plan/planbuild.h StageRowMemo: stages with equal
    // models share their activation rows).
    bool operator==(const ModelSpec&) const = default;
};

} // namespace headroom
