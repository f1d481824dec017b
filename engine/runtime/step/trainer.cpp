// SPDX-License-Identifier: GPL-3.0-or-later
// The training step program: setup, the event sequence of one step,
// embedding, head and loss. The model's parameters are made and initialised
// in modelparams.cpp; the layers are in layerstep.cpp, gpt2layer.cpp,
// neoxlayer.cpp and bertlayer.cpp, BERT's classifier head in bertheadstep.cpp,
// the optimizers in optimizerstep.cpp. Every buffer comes from
// the tracking allocator; every computation is a call on the backend's Ops.
#include "runtime/step/trainerimpl.h"

#include "plan/headroomrows.h"
#include "plan/sweep.h"
#include "runtime/cpu/rope.h"

#include <algorithm>
#include <cmath>

namespace headroom::rt {

namespace {

// Llama's default (transformers LlamaConfig: rms_norm_eps 1e-6 in the
// original config).
constexpr double kNormEps = 1e-6;
// GPT-2's layer_norm_epsilon (transformers GPT2Config).
constexpr double kLayerNormEps = 1e-5;
// BertConfig.layer_norm_eps: also the MLM transform's LayerNorm (BertPredictionHeadTransform).
constexpr double kBertLayerNormEps = 1e-12;

} // namespace

// The engine runs exactly the program the headroom rows describe.
std::string programUnsupported(const Scenario& s) { return headroomProgramGap(s); }

PrecisionPlan precisionPlan(Precision p)
{
    PrecisionPlan r;
    switch (p) {
    case Precision::Bf16Mixed:
        r.act = DType::BF16;
        r.weightCopies = true;
        break;
    case Precision::Fp16Mixed:
        r.act = DType::F16;
        r.weightCopies = true;
        r.lossScaling = true;
        break;
    case Precision::Bf16:
        r.act = r.master = r.grad = r.state = DType::BF16;
        break;
    default: break;
    }
    return r;
}

Trainer::Impl::Impl(const Scenario& s, TrackingAllocator& a, Ops& k, const TrainerOptions& o)
    : scenario(s), alloc(a), ops(k), options(o)
{
    const ModelSpec& m = s.model;
    const TrainConfig& t = s.train;
    d.B = t.microBatch;
    d.T = t.seqLen;
    d.N = d.B * d.T;
    d.C = m.hidden;
    d.NH = m.heads;
    d.NKV = m.kvHeads;
    d.HD = m.headDim;
    d.QD = d.NH * d.HD;
    d.KD = d.NKV * d.HD;
    d.I = m.intermediate;
    d.V = m.vocab;
    d.L = m.layers;
    prec = precisionPlan(t.precision);
    eager = t.attention == Attention::Eager;
    accum = t.gradAccum;
    switch (t.checkpointing) {
    case Checkpointing::None: checkpointEvery = 0; break;
    case Checkpointing::Full: checkpointEvery = 1; break;
    case Checkpointing::EveryK: checkpointEvery = t.checkpointEvery; break;
    // Refused before a step is built (headroomProgramGap); the layers would
    // be checkpointed whole.
    case Checkpointing::SelectiveOps: checkpointEvery = 1; break;
    }
    lora = t.peft.method != PeftMethod::None;
    gpt2 = m.family == Family::Gpt2;
    neox = m.family == Family::GptNeoX;
    bert = m.family == Family::Bert;
    classifier = m.classifier();
    layerNorm = gpt2 || neox || bert;
    // HF's rotary dimension: int(head_size · rotary_pct) (modeling_gpt_neox.py
    // GPTNeoXAttention.rotary_ndims); Llama rotates whole heads, GPT-2 none.
    rotaryDim = gpt2 || bert ? 0 : neox ? cpu::rotaryDimension(d.HD, m.rotaryFraction) : d.HD;
    dropout = static_cast<float>(m.dropout);
    hiddenDropout = dropout > 0 && m.family != Family::Llama;
    quant = t.weightQuant;
    if (lora) {
        // PEFT: a frozen base in the activation dtype (or NF4), fp32 adapters
        // with fp32 gradients and optimizer state (autocast_adapter_dtype).
        rank = t.peft.rank;
        loraScale = static_cast<float>(t.peft.alpha / double(t.peft.rank));
        prec.master = prec.act;
        prec.grad = prec.state = DType::F32;
        prec.weightCopies = false;
    }
    if (prec.lossScaling) {
        cpu::GradScaler::Config config;
        config.initScale = o.initialLossScale;
        ops.startLossScaling(config);
    }
    saves.resize(d.L);
    layerOut.resize(d.L);
}

std::size_t Trainer::Impl::event(Phase p, std::int64_t layer) const
{
    return eventIndex(Mode::Train, p, layer, d.L);
}

void Trainer::Impl::begin(Phase p, std::int64_t layer, const EventCallback& cb, std::uint64_t micro)
{
    const std::size_t e = event(p, layer);
    if (cb)
        cb(e, micro);
    alloc.beginEvent(e);
}

void Trainer::Impl::allocateGrads(Phase phase, std::size_t layer)
{
    // Load (accumulation): every gradient; HeadBwd: the global ones; LayerBwd: the layer's.
    forEachTrainable([&](Param& p, std::size_t l, const char* gradName, const char*) {
        const bool global = l == std::size_t(-1);
        const bool now = phase == Phase::Load || (phase == Phase::HeadBwd && global) ||
                         (phase == Phase::LayerBwd && !global && l == layer);
        if (now && p.grad.empty())
            p.grad = makeTensor(alloc, gradName, Category::Gradients, prec.grad, p.numel());
    });
}

const Tensor& Trainer::Impl::weight(std::size_t l, LayerParam p, const LayerCopies& c) const
{
    return (prec.weightCopies || layers[l][p].quantized) ? c.w[p] : layers[l][p].value;
}

LayerCopies Trainer::Impl::makeCopies(std::size_t l)
{
    LayerCopies c;
    if (quant != WeightQuant::None) {
        // QLoRA: each NF4 weight dequantised to the activation dtype for this
        // event's matmuls (bitsandbytes MatMul4Bit dequantises per call).
        for (LayerParam p : {Wq, Wk, Wv, Wo, Wg, Wu, Wd}) {
            if (!layers[l][p].present)
                continue;
            c.w[p] = makeTensor(alloc, row::kDequantized, Category::Temporaries, prec.act, layers[l][p].numel());
            dequantizeWeight(layers[l][p], c.w[p]);
        }
        return c;
    }
    if (!prec.weightCopies)
        return c;
    // The 16-bit copies the matmuls read (autocast's cast of each fp32 weight),
    // made for this event and freed with it.
    for (LayerParam p : {Wq, Wk, Wv, Wo, Wg, Wu, Wd}) {
        const Param& src = layers[l][p];
        if (!src.present)
            continue;
        c.w[p] = makeTensor(alloc, row::kWeightCopies, Category::Temporaries, prec.act, src.numel());
        ops.cast(c.w[p], src.value);
    }
    return c;
}

const Tensor& Trainer::Impl::headWeight() const
{
    if (prec.weightCopies)
        return headCopy;
    return globals[tiedHead() ? Embed : LmHead].value;
}

Tensor& Trainer::Impl::headGrad() { return globals[tiedHead() ? Embed : LmHead].grad; }

void Trainer::Impl::embedForward(const std::int32_t* batch)
{
    tokens = makeTensor(alloc, row::kTokens, Category::Activations, DType::I32, d.N);
    targets = makeTensor(alloc, row::kTokens, Category::Activations, DType::I32, lossRows());
    std::vector<std::int32_t> inputs(d.N), next(lossRows());
    for (std::size_t b = 0; b < d.B; ++b)
        for (std::size_t t = 0; t < d.T; ++t) {
            inputs[b * d.T + t] = batch[b * (d.T + 1) + t];
            if (!classifier)
                next[b * d.T + t] = batch[b * (d.T + 1) + t + 1];
        }
    // A sequence classifier's label: the sequence's extra token, modulo num_labels.
    if (classifier)
        for (std::size_t b = 0; b < d.B; ++b)
            next[b] = static_cast<std::int32_t>(std::uint64_t(batch[b * (d.T + 1) + d.T]) % lossWidth());
    ops.uploadRaw(tokens, inputs.data(), d.N * sizeof(std::int32_t));
    ops.uploadRaw(targets, next.data(), lossRows() * sizeof(std::int32_t));
    if (bert) {
        bertEmbedForward();
    } else {
        embedOut = makeTensor(alloc, row::kEmbedOut, Category::Activations, prec.act, d.N * d.C);
        ops.embeddingForward(embedOut, tokens, globals[Embed].value, globals[Wpe].value, d.B, d.T, d.C, d.V);
    }
    if (hiddenDropout) {
        // GPT2Model.drop on the sum of token and position embeddings; BertEmbeddings.dropout after its LayerNorm.
        embedMask = makeTensor(alloc, row::kEmbedDropoutMask, Category::Activations, DType::U8, d.N * d.C);
        ops.dropoutForward(At(embedOut), embedMask, d.N * d.C, dropout, dropoutStream(d.L, kSiteEmbedding));
    }
}

void Trainer::Impl::makeHeadCopy()
{
    if (!prec.weightCopies)
        return;
    const Param& src = globals[tiedHead() ? Embed : LmHead];
    headCopy = makeTensor(alloc, row::kHeadCopy, Category::Temporaries, prec.act, src.numel());
    ops.cast(headCopy, src.value);
}

void Trainer::Impl::headForward()
{
    if (classifier) {
        classifierForward();
        return;
    }
    if (mlmHead()) {
        mlmHeadForward();
        return;
    }
    const Tensor& x = d.L > 0 ? layerOut[d.L - 1] : embedOut;
    finalNormForward(x);
    if (chunked())
        return; // the chunked loss makes the logits chunk by chunk
    makeHeadCopy();
    logits = makeTensor(alloc, row::kLogits, Category::Logits, prec.act, d.N * d.V);
    ops.matmulForward(logits, finalOut, headWeight(), At{}, d.N, d.C, d.V);
    if (prec.weightCopies)
        headCopy.buffer.release();
}

void Trainer::Impl::finalNormForward(const Tensor& x)
{
    // RMSNorm keeps rstd per token; LayerNorm mean and rstd (fp32).
    finalRstd = makeTensor(alloc, row::kFinalNorm, Category::Activations, DType::F32, layerNorm ? 2 * d.N : d.N);
    finalOut = makeTensor(alloc, row::kFinalNorm, Category::Activations, prec.act, d.N * d.C);
    if (layerNorm)
        ops.layernormForward(finalOut, finalRstd, x, globals[FinalNorm].value, globals[FinalNormB].value, d.N, d.C,
                             bert ? kBertLayerNormEps : kLayerNormEps);
    else
        ops.rmsnormForward(finalOut, finalRstd, x, globals[FinalNorm].value, d.N, d.C, kNormEps);
}

void Trainer::Impl::finalNormBackward(const Tensor& x, const Tensor& gradIn)
{
    if (layerNorm)
        ops.layernormBackward(residualGrad, globals[FinalNorm].grad, globals[FinalNormB].grad, gradIn, x,
                              globals[FinalNorm].value, finalRstd, d.N, d.C);
    else
        ops.rmsnormBackward(residualGrad, globals[FinalNorm].grad, gradIn, x, globals[FinalNorm].value, finalRstd, d.N,
                            d.C);
}

double Trainer::Impl::lossForward()
{
    lossLse = makeTensor(alloc, row::kLossLse, Category::Logits, DType::F32, lossRows());
    return ops.crossEntropyForward(lossLse, logits, targets, lossRows(), lossWidth());
}

void Trainer::Impl::lossBackward(double dloss)
{
    logitsGrad = makeTensor(alloc, row::kLogitsGrad, Category::Logits, prec.act, lossRows() * lossWidth());
    ops.crossEntropyBackward(logitsGrad, logits, lossLse, targets, lossRows(), lossWidth(), dloss);
    logits.release();
    lossLse.release();
}

void Trainer::Impl::headBackward()
{
    if (classifier) {
        classifierBackward();
        return;
    }
    if (mlmHead()) {
        mlmHeadBackward();
        return;
    }
    if (chunked()) {
        // The lm_head's backward ran chunk by chunk in the loss backward.
        residualGrad = makeTensor(alloc, row::kResidualGrad, Category::Activations, prec.act, d.N * d.C);
        finalNormBackward(d.L > 0 ? layerOut[d.L - 1] : embedOut, headGradIn);
        headGradIn.release();
        finalOut.release();
        finalRstd.release();
        return;
    }
    if (accum == 1)
        allocateGrads(Phase::HeadBwd, 0);
    makeHeadCopy();
    residualGrad = makeTensor(alloc, row::kResidualGrad, Category::Activations, prec.act, d.N * d.C);
    Tensor gradIn = makeTensor(alloc, row::kHeadGradIn, Category::Temporaries, prec.act, d.N * d.C);
    ops.matmulBackward(gradIn, headGrad(), At{}, logitsGrad, finalOut, headWeight(), d.N, d.C, d.V);
    finalNormBackward(d.L > 0 ? layerOut[d.L - 1] : embedOut, gradIn);
    gradIn.release();
    logitsGrad.release();
    finalOut.release();
    finalRstd.release();
    if (prec.weightCopies)
        headCopy.release();
}

void Trainer::Impl::embedBackward()
{
    if (hiddenDropout) {
        ops.dropoutBackward(residualGrad, residualGrad, embedMask, d.N * d.C, dropout);
        embedMask.release();
    }
    if (bert)
        bertEmbedBackward();
    else
        ops.embeddingBackward(globals[Embed].grad, globals[Wpe].grad, residualGrad, tokens, d.B, d.T, d.C, d.V);
    residualGrad.release();
    embedOut.release();
    tokens.release();
    targets.release();
}

void Trainer::Impl::runMicroBatch(const std::int32_t* batch, std::uint64_t micro, bool last, double dloss,
                                     const EventCallback& cb, bool forwardOnly)
{
    currentMicro = micro;
    begin(Phase::Load, -1, cb, micro);
    if (accum > 1 && micro == 0 && !forwardOnly)
        allocateGrads(Phase::Load, 0);
    end();
    begin(Phase::EmbedFwd, -1, cb, micro);
    embedForward(batch);
    end();
    for (std::size_t l = 0; l < d.L; ++l) {
        begin(Phase::LayerFwd, static_cast<std::int64_t>(l), cb, micro);
        const Tensor& x = l == 0 ? embedOut : layerOut[l - 1];
        layerOut[l] = makeTensor(alloc, row::kLayerOut, Category::Activations, prec.act, d.N * d.C);
        LayerCopies copies = makeCopies(l);
        allocateSaves(l);
        anyLayerForward(l, x, saves[l], &layerOut[l], copies);
        if (checkpointed(l))
            saves[l] = LayerSaves{};  // a checkpointed layer keeps only its input
        copies = LayerCopies{};
        end();
    }
    begin(Phase::HeadFwd, -1, cb, micro);
    headForward();
    end();
    begin(Phase::LossFwd, -1, cb, micro);
    lossValue = chunked() ? chunkedLossForward() : lossForward();
    end();
    if (forwardOnly) {
        releaseMicroBatch();
        return;
    }
    begin(Phase::LossBwd, -1, cb, micro);
    if (chunked())
        chunkedLossBackward(dloss);
    else
        lossBackward(dloss);
    end();
    begin(Phase::HeadBwd, -1, cb, micro);
    headBackward();
    end();
    for (std::size_t l = d.L; l-- > 0;) {
        begin(Phase::LayerBwd, static_cast<std::int64_t>(l), cb, micro);
        if (accum == 1)
            allocateGrads(Phase::LayerBwd, l);
        const Tensor& x = l == 0 ? embedOut : layerOut[l - 1];
        LayerCopies copies = makeCopies(l);
        if (checkpointed(l)) {
            // Recompute the forward from the kept input; the output is not needed again.
            allocateSaves(l);
            anyLayerForward(l, x, saves[l], nullptr, copies);
        }
        anyLayerBackward(l, x, saves[l], copies);
        if (lomo())
            fusedUpdate(l);
        saves[l] = LayerSaves{};
        layerOut[l].release();  // the output of layer l: its last reader was layer l + 1's backward
        copies = LayerCopies{};
        end();
    }
    begin(Phase::EmbedBwd, -1, cb, micro);
    embedBackward();
    if (lomo())
        fusedUpdate(std::size_t(-1));
    end();
    if (!last)
        return;
    begin(Phase::OptimizerStep, -1, cb, micro);
    if (options.captureGradients && !lomo()) {
        captured.clear();
        forEachTrainable([&](Param& p, std::size_t l, const char*, const char*) { capture(p, l); });
    }
    if (!lomo())
        optimizerStep();
    end();
}

void Trainer::Impl::anyLayerForward(std::size_t l, const Tensor& x, LayerSaves& s, const Tensor* out,
                                    const LayerCopies& c)
{
    if (bert)
        bertForward(l, x, s, out, c);
    else if (gpt2)
        gpt2Forward(l, x, s, out, c);
    else if (neox)
        neoxForward(l, x, s, out, c);
    else
        layerForward(l, x, s, out, c);
}

void Trainer::Impl::anyLayerBackward(std::size_t l, const Tensor& x, LayerSaves& s, const LayerCopies& c)
{
    if (bert)
        bertBackward(l, x, s, c);
    else if (gpt2)
        gpt2Backward(l, x, s, c);
    else if (neox)
        neoxBackward(l, x, s, c);
    else
        layerBackward(l, x, s, c);
}

void Trainer::Impl::capture(Param& p, std::size_t l)
{
    captured.emplace_back((l == std::size_t(-1) ? "" : "layers." + std::to_string(l) + ".") + p.name,
                          ops.download(p.grad));
}

void Trainer::Impl::releaseMicroBatch()
{
    // After a forward-only pass: everything of the micro-batch goes in one event.
    alloc.beginEvent(event(Phase::LossBwd));
    tokens.release();
    targets.release();
    embedOut.release();
    embedMask.release();
    embedSum.release();
    embedStats.release();
    pooled.release();
    headMask.release();
    classifierIn.release();
    transformPre.release();
    transformAct.release();
    for (auto& s : saves)
        s = LayerSaves{};
    for (auto& t : layerOut)
        t.release();
    finalOut.release();
    finalRstd.release();
    logits.release();
    lossLse.release();
    headCopy.release();
    alloc.endEvent();
}

Trainer::Trainer(const Scenario& scenario, TrackingAllocator& allocator, Ops& ops, const TrainerOptions& options)
{
    if (auto why = programUnsupported(scenario); !why.empty())
        throw std::invalid_argument("not supported by the " + ops.name() + " backend yet: " + why);
    m_impl = std::make_unique<Impl>(scenario, allocator, ops, options);
    allocator.beginEvent(m_impl->event(Phase::Load));
    m_impl->allocateModel();
    allocator.endEvent();
}

Trainer::~Trainer() = default;

std::size_t Trainer::tokensPerStep() const
{
    return m_impl->accum * m_impl->d.B * (m_impl->d.T + 1);
}

StepResult Trainer::step(const std::vector<std::int32_t>& tokens, const EventCallback& onEvent)
{
    Impl& m = *m_impl;
    if (tokens.size() < tokensPerStep())
        throw std::invalid_argument("training step: not enough tokens");
    StepResult result;
    m.captured.clear();
    result.lossScale = m.prec.lossScaling ? m.ops.lossScale() : 1.0f;
    const std::size_t perMicro = m.d.B * (m.d.T + 1);
    double lossSum = 0;
    for (std::uint64_t micro = 0; micro < m.accum; ++micro) {
        // The mean over micro-batches (the loss / accumulation steps of HF
        // Trainer), times the fp16 loss scale (torch.cuda.amp.GradScaler.scale).
        const double dloss = double(result.lossScale) / double(m.accum);
        m.runMicroBatch(tokens.data() + micro * perMicro, micro, micro + 1 == m.accum, dloss, onEvent, false);
        lossSum += m.lossValue;
    }
    result.loss = lossSum / double(m.accum);
    result.skipped = m.lastStepSkipped;
    ++m.stepCount; // the next step draws new dropout masks
    return result;
}

double Trainer::loss(const std::vector<std::int32_t>& tokens)
{
    if (tokens.size() < m_impl->d.B * (m_impl->d.T + 1))
        throw std::invalid_argument("loss: not enough tokens");
    m_impl->runMicroBatch(tokens.data(), 0, false, 1.0, {}, true);
    return m_impl->lossValue;
}

std::vector<ParameterRef> Trainer::parameters()
{
    // Every stored (not quantized) parameter, trainable or not.
    std::vector<ParameterRef> refs;
    for (std::size_t l = 0; l < m_impl->d.L; ++l) {
        for (Param& p : m_impl->layers[l])
            if (p.present && !p.quantized)
                refs.push_back({"layers." + std::to_string(l) + "." + p.name, &p.value});
        if (m_impl->lora)
            for (std::size_t i = 0; i < kLayerParams; ++i)
                for (Param* p : {&m_impl->loraA[l][i], &m_impl->loraB[l][i]})
                    if (p->present)
                        refs.push_back({"layers." + std::to_string(l) + "." + p->name, &p->value});
    }
    for (Param& p : m_impl->globals)
        if (p.present)
            refs.push_back({p.name, &p.value});
    return refs;
}

const std::vector<std::pair<std::string, std::vector<float>>>& Trainer::capturedGradients() const
{
    return m_impl->captured;
}

Ops& Trainer::ops() { return m_impl->ops; }

} // namespace headroom::rt
