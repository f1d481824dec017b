// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the step program: the model's tensors and the pieces of one step.
#include "plan/rownames.h"
#include "runtime/step/trainer.h"

#include <array>
#include <optional>

namespace headroom::rt {

// Row names: plan/rownames.h (namespace headroom::row), shared with the planner.

// transformers ACT2FN: "gelu" is the exact erf form (Pythia); "gelu_new",
// "gelu_fast" and "gelu_pytorch_tanh" (GPT-2) the tanh approximation.
inline bool tanhGelu(const std::string& act) { return act != "gelu"; }

struct Dims {
    std::size_t B = 0, T = 0, N = 0, C = 0, NH = 0, NKV = 0, HD = 0, QD = 0, KD = 0, I = 0, V = 0, L = 0;
};

// Storage dtypes of one precision mode (docs/runtime.md, "Precision").
struct PrecisionPlan {
    DType act = DType::F32;    // activations, logits, activation gradients
    DType master = DType::F32; // weights as the optimizer updates them
    DType grad = DType::F32;
    DType state = DType::F32;
    bool weightCopies = false; // 16-bit copies of linear weights for the matmuls
    bool lossScaling = false;  // fp16: dynamic loss scaling
};
PrecisionPlan precisionPlan(Precision p);

// Llama uses Norm1..Wd; BERT its query/key/value in Wq..Bv, attention.output
// in Wo/Bo and Norm1/Norm1B, intermediate in Wu/Bu, output in Wd/Bd and
// Norm2/Norm2B; GPT-2 and GPT-NeoX keep their fused c_attn /
// query_key_value in Wq/Bq (q, k and v are row blocks of it), c_fc /
// dense_h_to_4h in Wu/Bu, and LayerNorm biases in Norm1B/Norm2B.
enum LayerParam : std::size_t { Norm1, Wq, Bq, Wk, Bk, Wv, Bv, Wo, Bo, Norm2, Wg, Wu, Wd, Norm1B, Norm2B, Bu, Bd, kLayerParams };
// BERT (modeling_bert.py): Embed, Wpe and TypeEmbed are word, position and
// token type embeddings, EmbedNorm/EmbedNormB the embeddings' LayerNorm;
// the sequence classifier adds BertPooler's dense and the classifier; the
// masked-LM head (BertLMPredictionHead) its transform dense (TransformW/B),
// the transform's LayerNorm in FinalNorm/FinalNormB, and the decoder's bias
// (the decoder weight is the word embedding).
enum GlobalParam : std::size_t {
    Embed, FinalNorm, LmHead, FinalNormB, Wpe,
    TypeEmbed, EmbedNorm, EmbedNormB, PoolerW, PoolerB, ClassifierW, ClassifierB, TransformW, TransformB, DecoderBias,
    kGlobalParams
};

struct Param {
    std::string name;
    std::size_t rows = 0, cols = 1; // a matrix: out x in; a vector: n x 1
    bool present = false;
    bool isMatrix = false;
    bool isEmbedding = false;
    bool frozen = false;            // PEFT: the base is not trained
    bool quantized = false;         // QLoRA: NF4 storage in q* tensors, no `value`
    Tensor value;
    Tensor qPacked, qAbsmax, qAbsmax2, qOffset; // NF4 codes, absmax (fp32, or 8-bit with double quantization)
    Tensor grad;
    std::vector<Tensor> state;
    std::int64_t step = 0;
    std::size_t numel() const { return rows * cols; }
};

// What one layer keeps for its backward (or rebuilds in it when checkpointed).
// BERT (post-LN): x2 is the attention LayerNorm's input (dense output +
// layer input), h1 its output, h2 the output LayerNorm's input.
struct LayerSaves {
    Tensor rstd1, h1, q, k, v, probs, lse, attn, x2, rstd2, h2, gate, up, act;
    // Dropout: eager attention's 1-byte mask and dropped probabilities (B, NH,
    // T, T); the 1-byte masks of the attention output and the MLP output.
    Tensor attnMask, attnDropped, residMask, mlpMask;
    std::array<Tensor, kLayerParams> loraOut; // per targeted linear: scale * x A^T (tokens x rank), saved for B's gradient
};

struct LayerCopies {
    std::array<Tensor, kLayerParams> w; // only linear weights are filled
};

struct Trainer::Impl {
    Impl(const Scenario& s, TrackingAllocator& a, Ops& k, const TrainerOptions& o);

    Scenario scenario;
    TrackingAllocator& alloc;
    Ops& ops;
    TrainerOptions options;
    Dims d;
    PrecisionPlan prec;
    std::uint64_t checkpointEvery = 0;
    bool eager = false;
    std::uint64_t accum = 1;
    std::uint64_t eventLayers = 0;

    std::vector<std::array<Param, kLayerParams>> layers;
    // LoRA adapters per layer and targeted linear: A (rank x in) and B (out x rank), fp32.
    std::vector<std::array<Param, kLayerParams>> loraA, loraB;
    bool lora = false;
    bool gpt2 = false;       // GPT-2 family: LayerNorm, learned positions, GELU, fused c_attn
    bool neox = false;       // GPT-NeoX: LayerNorm, fused query_key_value, partial rotary, parallel residual
    bool bert = false;       // BERT encoder: post-LN, bidirectional attention, token types, embedding LayerNorm
    bool classifier = false; // BertForSequenceClassification's head (bertheadstep.cpp) instead of an LM head
    bool layerNorm = false;  // GPT-2, GPT-NeoX and BERT: LayerNorm with bias (mean and rstd saved)
    std::size_t rotaryDim = 0; // RoPE over the first rotaryDim elements of each head (0: no RoPE)
    // Dropout in training (the model's dropout probability): on the attention
    // probabilities in every family; on the embedding output and on both
    // sublayers' outputs before their residual adds in GPT-2 (modeling_gpt2.py
    // drop, attn_dropout, resid_dropout, mlp.dropout); Llama has attention
    // dropout only (modeling_llama.py eager_attention_forward).
    float dropout = 0.0f;
    bool hiddenDropout = false;
    std::uint64_t stepCount = 0;  // steps taken: part of every dropout stream
    std::uint64_t currentMicro = 0;
    Tensor embedMask;
    // Sites of dropout within a layer (the stream's last part); the embedding's is layer L.
    enum DropoutSite : std::uint64_t { kSiteAttention, kSiteAttnOut, kSiteMlpOut, kSiteEmbedding, kSiteClassifier };
    std::uint64_t dropoutStream(std::size_t layer, DropoutSite site) const;
    cpu::AttentionShape attentionShape(std::size_t layer) const;
    std::size_t rank = 0;
    float loraScale = 1.0f;  // alpha / rank (PEFT LoraLayer.scaling)
    WeightQuant quant = WeightQuant::None;
    std::array<Param, kGlobalParams> globals;
    Tensor ropeCos, ropeSin;
    std::vector<std::pair<std::string, std::vector<float>>> captured;
    void capture(Param& p, std::size_t l);

    // Per micro-batch state.
    Tensor headGradIn;  // chunked loss: the final norm output's gradient, loss backward -> head backward
    // BERT: the embeddings' LayerNorm input and statistics; the classifier
    // head's pooled output (tanh), its dropout mask and dropped copy.
    Tensor embedSum, embedStats, pooled, headMask, classifierIn;
    // BERT's masked-LM head: the transform dense's output and GELU's, saved.
    Tensor transformPre, transformAct;
    Tensor tokens, targets, embedOut, finalRstd, finalOut, logits, lossLse, logitsGrad, residualGrad, headCopy;
    std::vector<LayerSaves> saves;
    std::vector<Tensor> layerOut;
    double lossValue = 0;
    bool lastStepSkipped = false;

    std::size_t event(Phase p, std::int64_t layer = -1) const;
    void begin(Phase p, std::int64_t layer, const EventCallback& cb, std::uint64_t micro);
    void end() { alloc.endEvent(); }
    bool checkpointed(std::size_t l) const { return checkpointEvery != 0 && l % checkpointEvery == 0; }

    void allocateModel();
    void allocateGrads(Phase phase, std::size_t layer);
    void allocateOptimizerState();
    void initialiseWeights();
    void allocateSaves(std::size_t l);
    LayerCopies makeCopies(std::size_t l);
    const Tensor& weight(std::size_t l, LayerParam p, const LayerCopies& c) const;
    const Tensor& headWeight() const;
    Tensor& headGrad();

    void quantizeWeight(Param& p, const std::vector<float>& values);
    void dequantizeWeight(const Param& p, const Tensor& out) const;
    bool targeted(std::size_t l, LayerParam p) const { return lora && loraA[l][p].present; }
    void loraForward(std::size_t l, LayerParam p, const Tensor& x, At y, LayerSaves& s);
    void loraBackward(std::size_t l, LayerParam p, const Tensor& dy, const Tensor& x, const Tensor& dx,
                      const LayerSaves& s);
    void attentionForward(std::size_t l, LayerSaves& s);
    void attentionBackward(std::size_t l, const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                           const LayerSaves& s);
    template <typename F>
    void forEachTrainable(F&& f);
    void embedForward(const std::int32_t* batch);
    void layerForward(std::size_t l, const Tensor& x, LayerSaves& s, const Tensor* out, const LayerCopies& c);
    void layerBackward(std::size_t l, const Tensor& x, LayerSaves& s, const LayerCopies& c);
    void gpt2Forward(std::size_t l, const Tensor& x, LayerSaves& s, const Tensor* out, const LayerCopies& c);
    void gpt2Backward(std::size_t l, const Tensor& x, LayerSaves& s, const LayerCopies& c);
    void bertForward(std::size_t l, const Tensor& x, LayerSaves& s, const Tensor* out, const LayerCopies& c);
    void bertBackward(std::size_t l, const Tensor& x, LayerSaves& s, const LayerCopies& c);
    void bertEmbedForward();
    void bertEmbedBackward();
    // BertForSequenceClassification's head (bertheadstep.cpp).
    std::size_t lossRows() const { return classifier ? d.B : d.N; }
    std::size_t lossWidth() const { return classifier ? scenario.model.numLabels : d.V; }
    void classifierForward();
    void classifierBackward();
    bool mlmHead() const { return bert && !classifier; }
    // The lm_head is the word embedding (tied, or BERT's MLM decoder, always tied).
    bool tiedHead() const { return scenario.model.tieEmbeddings || bert; }
    void mlmHeadForward();
    void mlmHeadBackward();
    // The MLM transform's weight as its matmul reads it: a low-precision copy
    // (kept in `copy`, freed when it goes) where the precision makes weight
    // copies, else the parameter itself.
    const Tensor& transformWeight(Tensor& copy);
    void neoxForward(std::size_t l, const Tensor& x, LayerSaves& s, const Tensor* out, const LayerCopies& c);
    void neoxBackward(std::size_t l, const Tensor& x, LayerSaves& s, const LayerCopies& c);
    // GPT-2's c_attn and GPT-NeoX's query_key_value (gpt2layer.cpp).
    void fusedQkvForward(std::size_t l, LayerSaves& s, const LayerCopies& c);
    void fusedQkvBackward(std::size_t l, const Tensor& dQ, const Tensor& dK, const Tensor& dV, const Tensor& dH1,
                          LayerSaves& s, const LayerCopies& c);
    // The family's layer: out is null in a checkpointed layer's recompute.
    void anyLayerForward(std::size_t l, const Tensor& x, LayerSaves& s, const Tensor* out, const LayerCopies& c);
    void anyLayerBackward(std::size_t l, const Tensor& x, LayerSaves& s, const LayerCopies& c);
    void finalNormForward(const Tensor& x);
    void finalNormBackward(const Tensor& x, const Tensor& gradIn);
    void headForward();
    double lossForward();
    void lossBackward(double dloss);
    bool chunked() const { return scenario.train.chunkedCrossEntropy; }
    void makeHeadCopy();
    double chunkedLossForward();
    void chunkedLossBackward(double dloss);
    void headBackward();
    void embedBackward();
    bool optimizerStep();
    void fusedUpdate(std::size_t layer);  // LOMO; layer -1: the global tensors
    bool lomo() const { return scenario.train.optimizer == Optimizer::Lomo; }
    void runMicroBatch(const std::int32_t* batch, std::uint64_t micro, bool last, double dloss, const EventCallback& cb,
                       bool forwardOnly);
    void releaseMicroBatch();
};

template <typename F>
void Trainer::Impl::forEachTrainable(F&& f)
{
    for (std::size_t l = 0; l < layers.size(); ++l)
        for (Param& p : layers[l])
            if (p.present && !p.frozen)
                f(p, l, row::kGradsLayer, row::kStateLayer);
    if (lora)
        for (std::size_t l = 0; l < layers.size(); ++l)
            for (std::size_t i = 0; i < kLayerParams; ++i)
                for (Param* p : {&loraA[l][i], &loraB[l][i]})
                    if (p->present)
                        f(*p, l, row::kGradsLayer, row::kStateLayer);
    for (Param& p : globals)
        if (p.present && !p.frozen)
            f(p, std::size_t(-1), row::kGradsGlobal, row::kStateGlobal);
}

} // namespace headroom::rt
