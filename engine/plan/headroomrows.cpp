// SPDX-License-Identifier: GPL-3.0-or-later
// The headroom profile's rows (plan/headroomrows.h). Each formula below is
// the size of a buffer the engine allocates; the names are the tags the
// engine gives them (plan/rownames.h, shared with runtime/step/). The program
// (which buffer lives through which events) is described in docs/runtime.md.
#include "plan/headroomrows.h"

#include "plan/planbuild.h"
#include "plan/rownames.h"

namespace headroom {

std::string headroomProgramGap(const Scenario& s)
{
    const ModelSpec& m = s.model;
    if (s.mode != Mode::Train)
        return "inference";
    if (m.classifier() && m.family != Family::Bert)
        return "the sequence-classification head";  // BERT's only (model/modelhead.h)
    if (m.family != Family::Llama && m.family != Family::Gpt2 && m.family != Family::GptNeoX &&
        m.family != Family::Bert)
        return std::string("model family ") + familyName(m.family);
    if (m.isMoe())
        return "mixture of experts";
    if (m.family == Family::Llama) {
        if (m.norm != NormKind::RmsNorm)
            return "LayerNorm in a Llama-family model";
        if (!m.gatedMlp || m.hiddenAct != "silu")
            return "MLP activation " + m.hiddenAct;
        if (m.learnedPositions || m.parallelResidual)
            return "learned positions or parallel residual";
        if (m.qkNorm)
            return "query and key norms (Qwen3)";  // the engine's attention has no per-head RMSNorm
    } else if (m.family == Family::GptNeoX) {
        if (m.norm != NormKind::LayerNorm || m.gatedMlp || m.learnedPositions)
            return "a GPT-NeoX model without LayerNorm, RoPE and a plain MLP";
        if (!m.parallelResidual)
            return "GPT-NeoX without the parallel residual (use_parallel_residual false)";
        if (m.hiddenAct != "gelu" && m.hiddenAct != "gelu_new" && m.hiddenAct != "gelu_fast" &&
            m.hiddenAct != "gelu_pytorch_tanh")
            return "MLP activation " + m.hiddenAct;
        const auto rotary = static_cast<std::uint64_t>(double(m.headDim) * m.rotaryFraction);
        if (rotary == 0 || rotary % 2 != 0)
            return "a rotary dimension (head_dim x rotary_pct = " + std::to_string(rotary) + ") that is not a positive even number";
        if (s.train.peft.method != PeftMethod::None)
            return "LoRA on GPT-NeoX models";
    } else if (m.family == Family::Bert) {
        if (m.classifier() && m.numLabels < 2)
            return "a regression head (num_labels 1, MSELoss)";
        if (m.norm != NormKind::LayerNorm || m.gatedMlp || !m.learnedPositions || m.parallelResidual)
            return "a BERT model without LayerNorm, learned positions and a plain MLP";
        if (m.typeVocab == 0)
            return "a BERT model without token type embeddings (type_vocab_size 0)";
        if (m.hiddenAct != "gelu" && m.hiddenAct != "gelu_new" && m.hiddenAct != "gelu_pytorch_tanh")
            return "MLP activation " + m.hiddenAct;
        if (s.train.seqLen > m.maxPositions)
            return "sequence longer than the model's learned positions";
        if (s.train.peft.method != PeftMethod::None)
            return "LoRA on BERT models";
        if (s.train.chunkedCrossEntropy)
            return "chunked cross-entropy on BERT (its heads run whole: the MLM transform and decoder bias, or one "
                   "row of logits per sequence)";
    } else {
        if (m.norm != NormKind::LayerNorm || m.gatedMlp || !m.learnedPositions || m.parallelResidual)
            return "a GPT-2 model without LayerNorm, learned positions and a plain MLP";
        if (m.hiddenAct != "gelu_new" && m.hiddenAct != "gelu" && m.hiddenAct != "gelu_pytorch_tanh")
            return "MLP activation " + m.hiddenAct;
        if (s.train.seqLen > m.maxPositions)
            return "sequence longer than the model's learned positions";
        if (s.train.peft.method != PeftMethod::None)
            return "LoRA on GPT-2 models";
    }
    if (m.family == Family::Llama && m.headDim % 2 != 0)
        return "odd head dimension (RoPE)";
    if (m.kvHeads == 0 || m.heads % m.kvHeads != 0)
        return "query heads not a multiple of KV heads";
    const TrainConfig& t = s.train;
    switch (t.precision) {
    case Precision::Fp32:
    case Precision::Bf16Mixed:
    case Precision::Bf16:
    case Precision::Fp16Mixed: break;
    default: return std::string("precision ") + precisionName(t.precision);
    }
    switch (t.optimizer) {
    case Optimizer::Sgd:
    case Optimizer::SgdMomentum:
    case Optimizer::AdamW:
    case Optimizer::AdamW8bit:
    case Optimizer::Lion:
    case Optimizer::Adafactor:
    case Optimizer::Lomo: break;
    default: return std::string("optimizer ") + optimizerName(t.optimizer);
    }
    if (t.optimizer == Optimizer::Lomo && t.gradAccum > 1)
        return "LOMO with gradient accumulation (LOMO updates during backward)";
    if (t.optimizer == Optimizer::Lomo && t.precision == Precision::Fp16Mixed)
        return "LOMO with fp16 loss scaling (needs a second backward pass for the overflow check)";
    if (t.weightQuant == WeightQuant::Int8)
        return std::string("weight quantization ") + weightQuantName(t.weightQuant);
    if (t.peft.method != PeftMethod::None && t.peft.dropout > 0)
        return "LoRA dropout (set it to 0)";
    if (t.optimizerInBackward)
        return "optimizer in backward";
    if (t.activationOffload)
        return "activation offload";
    if (s.hardware.count != 1)
        return "more than one GPU";
    if (s.hardware.sharding == Sharding::Fsdp2)
        return "FSDP2";
    if (t.checkpointing == Checkpointing::SelectiveOps)
        return "op-level selective checkpointing";
    return {};
}

namespace detail {

namespace {

struct Bytesizes {
    Bytes act = 4, master = 4, grad = 4, state = 4;
    bool copies = false;
};

Bytesizes bytesizes(Precision p, bool peft)
{
    // runtime/step/trainer.cpp precisionPlan: mixed modes keep fp32 master
    // weights, gradients and state with 16-bit activations and 16-bit weight
    // copies for the matmuls; pure bf16 stores everything in bf16.
    Bytesizes b;
    if (p == Precision::Bf16Mixed || p == Precision::Fp16Mixed) {
        b.act = 2;
        b.copies = true;
    } else if (p == Precision::Bf16) {
        b.act = b.master = b.grad = b.state = 2;
    }
    if (peft) {
        // LoRA/QLoRA: the frozen base in the activation dtype, fp32 adapters,
        // gradients and state (PEFT autocast_adapter_dtype); no weight copies.
        b.master = b.act;
        b.grad = b.state = 4;
        b.copies = false;
    }
    return b;
}

// NF4 storage of one weight (runtime/step/lorastep.cpp quantizeWeight): two
// 4-bit codes per byte and an fp32 absmax per block of 64; with double
// quantization an 8-bit absmax per block, an fp32 scale per 256 blocks and
// the fp32 offset (QLoRA §3).
Bytes nf4Bytes(WeightQuant q, Bytes n)
{
    const Bytes blocks = ceilDiv(n, 64);
    if (q == WeightQuant::Nf4)
        return ceilDiv(n, 2) + blocks * 4;
    return ceilDiv(n, 2) + blocks + ceilDiv(blocks, 256) * 4 + 4;
}

// Optimizer state of one tensor (runtime/step/optimizerstep.cpp).
Bytes stateBytes(Optimizer o, const ParamTensor& t, Bytes stateSize)
{
    const Bytes n = t.elements();
    switch (o) {
    case Optimizer::SgdMomentum:
    case Optimizer::Lion: return n * stateSize;      // one momentum (torch SGD; Lion paper Alg. 1)
    case Optimizer::AdamW: return 2 * n * stateSize; // exp_avg, exp_avg_sq
    case Optimizer::AdamW8bit:
        // bitsandbytes: 32-bit state under 4096 elements and for embeddings;
        // else two uint8 code tensors plus an fp32 absmax per block of 256 each.
        if (n < 4096 || t.kind == ModuleKind::Embedding)
            return 8 * n;
        return 2 * n + 2 * ceilDiv(n, 256) * 4;
    case Optimizer::Adafactor:
        // Factored second moment for matrices, a full one for vectors (HF Adafactor, beta1=None).
        return (t.cols > 1 ? t.rows + t.cols : n) * stateSize;
    default: return 0;
    }
}

// BertForSequenceClassification's head as runtime/step/bertheadstep.cpp runs
// it (modeling_bert.py BertPooler: tanh(dense(first token)); dropout;
// classifier; CrossEntropyLoss over num_labels, one label per sequence).
void addClassifierRows(const BuildContext& ctx, std::vector<TensorRow>& rows)
{
    const ModelSpec& m = ctx.model;
    const TrainConfig& tc = ctx.scenario.train;
    const Bytesizes z = bytesizes(tc.precision, tc.peft.method != PeftMethod::None);
    const Bytes B = tc.microBatch, N = satMul(B, tc.seqLen), C = m.hidden, L = m.numLabels, p = z.act;
    const bool dropout = m.dropout > 0;
    auto add = [&](const char* name, const char* source, Category c, Bytes bytes, Phase from, Phase to) {
        rows.push_back(TensorRow{name, source, c, bytes, from, to, LayerSet::Global, false});
    };
    if (z.copies) {
        add(row::kHeadCopy, "16-bit copies of the pooler (hidden x hidden) and classifier (labels x hidden) weights",
            Category::Temporaries, (C * C + L * C) * p, Phase::HeadFwd, Phase::HeadFwd);
        add(row::kHeadCopy, "the same copies made again in backward", Category::Temporaries, (C * C + L * C) * p,
            Phase::HeadBwd, Phase::HeadBwd);
    }
    add(row::kPooled, "pooler output tanh(dense(first token)), one vector per sequence: saved by tanh", Category::Activations,
        B * C * p, Phase::HeadFwd, Phase::HeadBwd);
    if (dropout) {
        add(row::kHeadDropoutMask, "classifier dropout mask, 1 byte per element", Category::Activations, B * C,
            Phase::HeadFwd, Phase::HeadBwd);
        add(row::kClassifierIn, "dropped pooler output, saved by the classifier for its weight gradient",
            Category::Activations, B * C * p, Phase::HeadFwd, Phase::HeadBwd);
    }
    add(row::kLogits, "classifier output: sequences x num_labels in the activation dtype", Category::Logits, B * L * p,
        Phase::HeadFwd, Phase::LossBwd);
    add(row::kLossLse, "fp32 log-sum-exp per sequence, saved by the loss for its backward", Category::Logits, B * 4,
        Phase::LossFwd, Phase::LossBwd);
    add(row::kLogitsGrad, "gradient of the logits, consumed by the classifier's backward", Category::Logits, B * L * p,
        Phase::LossBwd, Phase::HeadBwd);
    add(row::kHeadGradIn, "gradients of the classifier input and the pooler's dense output (2 x sequences x hidden)",
        Category::Temporaries, 2 * B * C * p, Phase::HeadBwd, Phase::HeadBwd);
    add(row::kResidualGrad, "gradient of the encoder's output (first tokens only from the head), then of each layer's input",
        Category::Activations, N * C * p, Phase::HeadBwd, Phase::EmbedBwd);
}

} // namespace

void addHeadroomRows(const BuildContext& ctx, std::vector<TensorRow>& rows)
{
    const ModelSpec& m = ctx.model;
    const TrainConfig& tc = ctx.scenario.train;
    const bool peft = tc.peft.method != PeftMethod::None;
    const Bytesizes z = bytesizes(tc.precision, peft);
    const Bytes B = tc.microBatch, T = tc.seqLen, N = satMul(B, T), C = m.hidden, NH = m.heads, HD = m.headDim;
    const Bytes QD = m.qDim(), KD = m.kvDim(), I = m.intermediate, V = m.vocab, p = z.act;
    const Phase load = Phase::Load, last = Phase::OptimizerStep;
    auto add = [&](const char* name, const char* source, Category c, Bytes bytes, Phase from, Phase to,
                   LayerSet set = LayerSet::Global) { rows.push_back(TensorRow{name, source, c, bytes, from, to, set, false}); };

    // ---- Model state ----------------------------------------------------
    Bytes layerStored = 0, layerLinear = 0, layerTrainable = 0, layerState = 0, layerQuantized = 0;
    Bytes globalStored = 0, globalTrainable = 0, globalState = 0;
    Bytes adapters = 0, adapterCount = 0;
    const Bytes r = tc.peft.rank;
    for (const ParamTensor& t : ctx.table.layer) {
        const Bytes n = t.elements();
        const bool quantized = tc.weightQuant != WeightQuant::None && t.isLinearWeight;
        layerStored += quantized ? nf4Bytes(tc.weightQuant, n) : n * z.master;
        if (quantized)
            layerQuantized += n;
        if (t.isLinearWeight)
            layerLinear += n;
        if (!peft) {
            layerTrainable += n;
            layerState += stateBytes(tc.optimizer, t, z.state);
        } else if (ctx.isLoraTarget(t)) {
            // LoRA A (rank x in) and B (out x rank), fp32, trainable.
            ParamTensor a = t, b = t;
            a.kind = b.kind = ModuleKind::AttnQ;
            a.rows = r;
            b.cols = r;
            adapters += a.elements() + b.elements();
            adapterCount += 1;
            layerTrainable += a.elements() + b.elements();
            layerState += stateBytes(tc.optimizer, a, 4) + stateBytes(tc.optimizer, b, 4);
        }
    }
    for (const ParamTensor& t : ctx.table.global) {
        globalStored += t.elements() * z.master;
        if (!peft) {
            globalTrainable += t.elements();
            globalState += stateBytes(tc.optimizer, t, z.state);
        }
    }
    add(row::kWeightsLayer, "the layer's parameters in the master dtype (NF4 linears under QLoRA)", Category::Weights,
        layerStored, load, last, LayerSet::All);
    add(row::kWeightsGlobal, "embeddings, final norm and untied lm_head in the master dtype", Category::Weights,
        globalStored, load, last);
    if (peft)
        add(row::kAdapters, "LoRA A and B of the targeted linears, fp32: rank x (in + out) each", Category::Weights,
            adapters * 4, load, last, LayerSet::All);
    const bool gpt2 = m.family == Family::Gpt2;
    const bool neox = m.family == Family::GptNeoX;
    const bool bert = m.family == Family::Bert;
    const bool classifier = m.classifier();
    const bool layerNorm = gpt2 || neox || bert;
    // GPT-NeoX rotates int(head_dim x rotary_pct) elements per head
    // (modeling_gpt_neox.py rotary_ndims); Llama the whole head; GPT-2 and BERT none.
    const Bytes rotary = gpt2 || bert ? 0 : neox ? static_cast<Bytes>(double(HD) * m.rotaryFraction) : HD;
    if (rotary > 0)
        add(row::kRope, "RoPE cos and sin tables: 2 x seq x rotary_dim/2 fp32", Category::Workspace,
            2 * T * (rotary / 2) * 4, load, last);
    add(row::kStateLayer, "the layer's optimizer state (per tensor: optimizerstep.cpp)", Category::OptimizerState,
        layerState, load, last, LayerSet::All);
    add(row::kStateGlobal, "optimizer state of the global tensors", Category::OptimizerState, globalState, load, last);
    // Gradients of what is trained: made by the backward that first writes
    // them and freed after the step; with accumulation made before the first micro-batch.
    const bool accumulating = tc.gradAccum > 1;
    // LOMO (arXiv:2306.09782 §3.2): each gradient is applied as soon as it is
    // complete and freed: a layer's at the end of its backward, the global
    // ones at the end of the embedding backward.
    const bool fused = tc.optimizer == Optimizer::Lomo;
    add(row::kGradsLayer, "the layer's gradients in the gradient dtype", Category::Gradients,
        satMul(layerTrainable, z.grad), accumulating ? load : Phase::LayerBwd, fused ? Phase::LayerBwd : last,
        LayerSet::All);
    // Accumulated, they are released after their update at the end of every
    // step and made again before the next step's first micro-batch
    // (optimizerstep.cpp optimizerStep: p.grad.release(); trainer.cpp
    // runMicroBatch: allocateGrads(Phase::Load) at micro 0).
    rows.back().freedAtZeroGrad = accumulating;
    // Chunked loss: the lm_head's backward runs inside the loss backward.
    const bool chunked = tc.chunkedCrossEntropy;
    add(row::kGradsGlobal, "gradients of the global tensors", Category::Gradients, satMul(globalTrainable, z.grad),
        accumulating ? load : (chunked ? Phase::LossBwd : Phase::HeadBwd), fused ? Phase::EmbedBwd : last);
    rows.back().freedAtZeroGrad = accumulating;

    // ---- Activations ------------------------------------------------------
    // A sequence classifier has one label per sequence (BertForSequenceClassification).
    const Bytes lossRows = classifier ? B : N;
    add(row::kTokens, classifier ? "input ids and one label per sequence, int32" : "input ids and next-token targets, int32",
        Category::Activations, (N + lossRows) * 4, Phase::EmbedFwd, Phase::EmbedBwd);
    if (bert) {
        // runtime/step/bertlayer.cpp bertEmbedForward: modeling_bert.py
        // BertEmbeddings.LayerNorm keeps its input (word + token type +
        // position embeddings) and fp32 mean and rstd per token.
        add(row::kEmbedNormSaved, "embedding LayerNorm input and its fp32 statistics", Category::Activations,
            N * C * p + N * 8, Phase::EmbedFwd, Phase::EmbedBwd);
        add(row::kEmbedBwd, "gradient of the embedding LayerNorm's input", Category::Temporaries, N * C * p,
            Phase::EmbedBwd, Phase::EmbedBwd);
    }
    add(row::kEmbedOut, "embedding output: the first layer's input", Category::Activations, N * C * p, Phase::EmbedFwd,
        Phase::EmbedBwd);
    // Dropout (runtime/step/attentionstep.cpp): every family drops attention
    // probabilities; GPT-2 also the embedding output and both sublayers'
    // outputs, each keeping a 1-byte mask per element (torch's CUDA fused
    // dropout keeps a bool mask: aten/src/ATen/native/cuda/Dropout.cu).
    const bool dropout = m.dropout > 0;
    const bool hiddenDropout = dropout && m.family != Family::Llama;
    if (hiddenDropout)
        add(row::kEmbedDropoutMask, "embedding dropout mask, 1 byte per element", Category::Activations, N * C,
            Phase::EmbedFwd, Phase::EmbedBwd);
    add(row::kLayerOut,
        "the layer's output (the next layer's input and checkpoint boundary), freed after this layer's backward",
        Category::Activations, N * C * p, Phase::LayerFwd, Phase::LayerBwd, LayerSet::All);
    const bool eager = tc.attention == Attention::Eager;
    struct Saved {
        const char* name;
        Bytes bytes;
    };
    // RMSNorm keeps rstd per token, LayerNorm mean and rstd (fp32). GPT-2 has
    // no gate: "up" is c_fc's output, saved by GELU, "act" GELU's, saved by c_proj.
    const Bytes stats = layerNorm ? N * 8 : N * 4;
    const Saved saved[] = {
        {row::kSavedNorm1Rstd, stats},
        {row::kSavedNorm1Out, N * C * p},
        {row::kSavedQ, N * QD * p},
        {row::kSavedK, N * KD * p},
        {row::kSavedV, N * KD * p},
        // Eager: the softmax probabilities (B x heads x seq x seq); memory-efficient: fp32 row log-sum-exp.
        {eager ? row::kSavedProbs : row::kSavedLse, eager ? B * NH * T * T * p : B * NH * T * 4},
        {row::kSavedAttnOut, N * QD * p},
        {row::kSavedResidualMid, neox ? 0 : N * C * p}, // GPT-NeoX: both norms read the layer input
        {row::kSavedNorm2Rstd, stats},
        // BERT (post-LN) saves the output LayerNorm's input instead (BertOutput.LayerNorm).
        {bert ? row::kSavedNorm2In : row::kSavedNorm2Out, N * C * p},
        {row::kSavedGate, layerNorm ? 0 : N * I * p},
        {row::kSavedUp, N * I * p},
        {row::kSavedAct, N * I * p},
        {row::kLoraSaved, N * r * p * adapterCount}, // per adapter: scale * x A^T, for B's gradient
        // Eager attention with dropout keeps its mask and the dropped
        // probabilities the value matmul read (torch's eager attention keeps
        // both); the fused kernel draws its mask again in the backward.
        {row::kSavedAttnDropoutMask, dropout && eager ? B * NH * T * T : 0},
        {row::kSavedProbsDropped, dropout && eager ? B * NH * T * T * p : 0},
        {row::kSavedResidDropoutMask, hiddenDropout ? N * C : 0},
        {row::kSavedMlpDropoutMask, hiddenDropout ? N * C : 0},
    };
    for (const Saved& s : saved) {
        if (s.bytes == 0)
            continue;
        if (ctx.anyPlainLayer())
            add(s.name, "saved by the layer's forward for its backward", Category::Activations, s.bytes, Phase::LayerFwd,
                Phase::LayerBwd, LayerSet::Plain);
        if (ctx.anyCheckpointedLayer()) {
            add(s.name, "checkpointed layer: made in forward, freed after it", Category::Activations, s.bytes,
                Phase::LayerFwd, Phase::LayerFwd, LayerSet::Checkpointed);
            add(s.name, "checkpointed layer: recomputed in backward", Category::Activations, s.bytes, Phase::LayerBwd,
                Phase::LayerBwd, LayerSet::Checkpointed);
        }
    }
    if (layerQuantized > 0) {
        add(row::kDequantized, "the layer's NF4 linears dequantised to the activation dtype for the forward",
            Category::Temporaries, layerQuantized * p, Phase::LayerFwd, Phase::LayerFwd, LayerSet::All);
        add(row::kDequantized, "the same, dequantised again for the backward", Category::Temporaries,
            layerQuantized * p, Phase::LayerBwd, Phase::LayerBwd, LayerSet::All);
    }
    if (z.copies) {
        add(row::kWeightCopies, "16-bit copies of the layer's linear weights for its forward matmuls",
            Category::Temporaries, layerLinear * p, Phase::LayerFwd, Phase::LayerFwd, LayerSet::All);
        add(row::kWeightCopies, "the same copies made again for the backward", Category::Temporaries, layerLinear * p,
            Phase::LayerBwd, Phase::LayerBwd, LayerSet::All);
    }
    // The attention backward's own buffer: eager attention's dP/dS (B x heads x
    // T x T, as torch's eager backward materialises the probabilities'
    // gradient); fused attention's fp32 delta = rowsum(dO * O) per query
    // (FlashAttention-2, Dao 2023, Algorithm 2 line 4).
    const Bytes attentionBwd = eager ? B * NH * T * T * p : B * NH * T * 4;
    // Per family, the activation gradients of one layer's backward
    // (runtime/step/layerstep.cpp, gpt2layer.cpp, neoxlayer.cpp).
    // BERT (bertlayer.cpp): GELU output and input, one hidden-size gradient
    // for both LayerNorms, the attention output, q, k, v; the q/k/v inputs'
    // gradient accumulates in the residual gradient itself.
    const Bytes layerGrads = bert ? 2 * I + C + 2 * QD + 2 * KD
                             : gpt2 ? 2 * I + 2 * C + 2 * QD + 2 * KD
                             : neox ? 2 * I + 2 * C + 3 * QD + 3 * KD
                                    : 3 * I + 2 * C + 3 * QD + 3 * KD + r * adapterCount;
    add(row::kLayerBwd,
        "activation gradients of one layer's backward: act, gate, up (3 x mlp width), both norm outputs (2 x hidden), "
        "attention output, rotated and unrotated q (3 x q dim), rotated and unrotated k and v (3 x kv dim), "
        "tokens x rank per LoRA adapter, and the attention backward's dP/dS (eager) or fp32 delta (fused); "
        "GPT-2 (no gate, no RoPE): GELU output and input, q, k, v; GPT-NeoX as Llama without the gate; BERT as GPT-2 "
        "with one hidden-size gradient; with hidden "
        "dropout the residual gradient through a sublayer's mask",
        Category::Temporaries, N * layerGrads * p + (hiddenDropout ? N * C * p : 0) + attentionBwd, Phase::LayerBwd,
        Phase::LayerBwd, LayerSet::All);
    if (neox)
        add(row::kAttnProj,
            "GPT-NeoX: the attention branch's output projection, summed into the layer output "
            "(parallel residual)",
            Category::Temporaries, N * C * p, Phase::LayerFwd, Phase::LayerFwd, LayerSet::All);

    // ---- Head and loss ----------------------------------------------------
    if (classifier) {
        addClassifierRows(ctx, rows);
        return;
    }
    const Phase headIn = chunked ? Phase::LossFwd : Phase::HeadFwd, headOut = chunked ? Phase::LossBwd : Phase::HeadBwd;
    // BERT's MLM head (runtime/step/bertheadstep.cpp; modeling_bert.py
    // BertLMPredictionHead) adds its transform dense (hidden x hidden) before
    // the decoder, which is the tied word embedding.
    const Bytes transformWeight = bert ? C * C : 0;
    if (z.copies) {
        add(row::kHeadCopy, "16-bit copy of the lm_head (or tied embedding) weight in forward; BERT: and the MLM "
            "transform's", Category::Temporaries, (V * C + transformWeight) * p, headIn, headIn);
        add(row::kHeadCopy, "the same copies made again in backward", Category::Temporaries,
            (V * C + transformWeight) * p, headOut, headOut);
    }
    if (bert)
        add(row::kTransformSaved, "MLM transform: the dense output (read by GELU's backward) and GELU's output (the "
            "LayerNorm's input)", Category::Activations, 2 * N * C * p, Phase::HeadFwd, Phase::HeadBwd);
    add(row::kFinalNorm, "final norm output and its fp32 statistics", Category::Activations, N * C * p + stats,
        Phase::HeadFwd, Phase::HeadBwd);
    add(row::kLossLse, "fp32 log-sum-exp per token, saved by the loss for its backward", Category::Logits, N * 4,
        Phase::LossFwd, Phase::LossBwd);
    if (chunked) {
        // One slice of logits at a time: the largest slice is ceil(tokens / chunks) rows.
        const Bytes slice = ceilDiv(N, tc.lossChunks) * V * p;
        add(row::kChunkLogits, "one slice of logits (head matmul and loss run per slice)", Category::Logits, slice,
            Phase::LossFwd, Phase::LossFwd);
        add(row::kChunkLogits, "the slice recomputed in backward", Category::Logits, slice, Phase::LossBwd,
            Phase::LossBwd);
        add(row::kChunkGrad, "the gradient of one slice of logits", Category::Logits, slice, Phase::LossBwd,
            Phase::LossBwd);
        add(row::kHeadGradIn, "gradient of the final norm output, summed over the slices", Category::Temporaries,
            N * C * p, Phase::LossBwd, Phase::HeadBwd);
    } else {
        add(row::kLogits, "lm_head output: tokens x vocab in the activation dtype", Category::Logits, N * V * p,
            Phase::HeadFwd, Phase::LossBwd);
        add(row::kLogitsGrad, "gradient of the logits, consumed by the lm_head backward", Category::Logits, N * V * p,
            Phase::LossBwd, Phase::HeadBwd);
        add(row::kHeadGradIn, bert ? "gradients of the MLM transform's LayerNorm output, GELU output and dense output"
                                   : "gradient of the final norm output",
            Category::Temporaries, (bert ? 3 : 1) * N * C * p, Phase::HeadBwd, Phase::HeadBwd);
    }
    add(row::kResidualGrad, "gradient of the residual stream, updated in place by every layer's backward",
        Category::Activations, N * C * p, Phase::HeadBwd, Phase::EmbedBwd);
}

} // namespace detail

} // namespace headroom
