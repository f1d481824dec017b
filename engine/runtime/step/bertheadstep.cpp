// SPDX-License-Identifier: GPL-3.0-or-later
// BERT's two heads on tracked buffers (modeling_bert.py).
//
// BertForMaskedLM (BertOnlyMLMHead -> BertLMPredictionHead):
//   transform:       h' = LayerNorm(gelu(dense(h)))        BertPredictionHeadTransform, every token
//   decoder:         logits = h' · word_embeddingsᵀ + bias  tied to the word embeddings
//   loss:            CrossEntropyLoss over the vocabulary (every token is a target here)
// The transform's LayerNorm output and statistics are the final-norm buffers
// (row final_norm.saved); the decoder is the lm_head matmul with a bias.
//
// BertForSequenceClassification:
//   BertPooler:      pooled = tanh(dense(h[:, 0]))   the first ([CLS]) token of each sequence
//   forward:         logits = classifier(dropout(pooled))   dropout: classifier_dropout, else
//                                                           hidden_dropout_prob (ModelSpec::dropout)
//   loss:            CrossEntropyLoss over num_labels, one label per sequence
// The first token of sequence b is row b·T of the last layer's output, so the
// pooler runs one one-row matmul per sequence on it in place: no gathered copy.
#include "runtime/step/trainerimpl.h"

namespace headroom::rt {

namespace {

// Under autocast the pooler's and the classifier's weights are read through
// 16-bit copies made for the event, as the layers' linears are.
struct HeadCopies {
    Tensor pooler, classifier;
};

} // namespace

static HeadCopies makeClassifierCopies(Trainer::Impl& m)
{
    HeadCopies c;
    if (!m.prec.weightCopies)
        return c;
    c.pooler = makeTensor(m.alloc, row::kHeadCopy, Category::Temporaries, m.prec.act, m.globals[PoolerW].numel());
    m.ops.cast(c.pooler, m.globals[PoolerW].value);
    c.classifier =
        makeTensor(m.alloc, row::kHeadCopy, Category::Temporaries, m.prec.act, m.globals[ClassifierW].numel());
    m.ops.cast(c.classifier, m.globals[ClassifierW].value);
    return c;
}

void Trainer::Impl::classifierForward()
{
    const Tensor& last = d.L > 0 ? layerOut[d.L - 1] : embedOut;
    const std::size_t labels = lossWidth();
    HeadCopies copies = makeClassifierCopies(*this);
    const Tensor& poolerW = prec.weightCopies ? copies.pooler : globals[PoolerW].value;
    const Tensor& classifierW = prec.weightCopies ? copies.classifier : globals[ClassifierW].value;
    // tanh's output is what its backward reads, and the classifier's input when nothing is dropped.
    pooled = makeTensor(alloc, row::kPooled, Category::Activations, prec.act, d.B * d.C);
    for (std::size_t b = 0; b < d.B; ++b)
        ops.matmulForward(At(pooled, b * d.C), At(last, b * d.T * d.C), poolerW, globals[PoolerB].value, 1, d.C, d.C);
    ops.tanhForward(pooled, pooled, d.B * d.C);
    const Tensor* input = &pooled;
    if (hiddenDropout) {
        // The mask, then dropped = pooled · mask / (1 − p) (dropoutBackward's formula) beside pooled.
        headMask = makeTensor(alloc, row::kHeadDropoutMask, Category::Activations, DType::U8, d.B * d.C);
        classifierIn = makeTensor(alloc, row::kClassifierIn, Category::Activations, prec.act, d.B * d.C);
        ops.dropoutForward(At{}, headMask, d.B * d.C, dropout, dropoutStream(d.L, kSiteClassifier));
        ops.dropoutBackward(classifierIn, pooled, headMask, d.B * d.C, dropout);
        input = &classifierIn;
    }
    logits = makeTensor(alloc, row::kLogits, Category::Logits, prec.act, d.B * labels);
    ops.matmulForward(logits, *input, classifierW, globals[ClassifierB].value, d.B, d.C, labels);
}

void Trainer::Impl::classifierBackward()
{
    if (accum == 1)
        allocateGrads(Phase::HeadBwd, 0);
    const Tensor& last = d.L > 0 ? layerOut[d.L - 1] : embedOut;
    const std::size_t labels = lossWidth();
    HeadCopies copies = makeClassifierCopies(*this);
    const Tensor& poolerW = prec.weightCopies ? copies.pooler : globals[PoolerW].value;
    const Tensor& classifierW = prec.weightCopies ? copies.classifier : globals[ClassifierW].value;
    // Only the first token of each sequence gets a gradient from the head.
    residualGrad = makeTensor(alloc, row::kResidualGrad, Category::Activations, prec.act, d.N * d.C);
    Tensor dInput = makeTensor(alloc, row::kHeadGradIn, Category::Temporaries, prec.act, d.B * d.C);
    Tensor dPooler = makeTensor(alloc, row::kHeadGradIn, Category::Temporaries, prec.act, d.B * d.C);
    ops.matmulBackward(dInput, globals[ClassifierW].grad, globals[ClassifierB].grad, logitsGrad,
                       hiddenDropout ? classifierIn : pooled, classifierW, d.B, d.C, labels);
    if (hiddenDropout)
        ops.dropoutBackward(dInput, dInput, headMask, d.B * d.C, dropout);
    ops.tanhBackward(dPooler, dInput, pooled, d.B * d.C);
    for (std::size_t b = 0; b < d.B; ++b)
        ops.matmulBackward(At(residualGrad, b * d.T * d.C), At(globals[PoolerW].grad), At(globals[PoolerB].grad),
                           At(dPooler, b * d.C), At(last, b * d.T * d.C), poolerW, 1, d.C, d.C);
    dInput.release();
    dPooler.release();
    logitsGrad.release();
    pooled.release();
    headMask.release();
    classifierIn.release();
}

const Tensor& Trainer::Impl::transformWeight(Tensor& copy)
{
    if (!prec.weightCopies)
        return globals[TransformW].value;
    copy = makeTensor(alloc, row::kHeadCopy, Category::Temporaries, prec.act, globals[TransformW].numel());
    ops.cast(copy, globals[TransformW].value);
    return copy;
}

void Trainer::Impl::mlmHeadForward()
{
    const Tensor& last = d.L > 0 ? layerOut[d.L - 1] : embedOut;
    const bool tanh = tanhGelu(scenario.model.hiddenAct);
    Tensor transformCopy;
    const Tensor& transformW = transformWeight(transformCopy);
    // The dense output (GELU's backward reads it) and GELU's output (the LayerNorm's input), both saved.
    transformPre = makeTensor(alloc, row::kTransformSaved, Category::Activations, prec.act, d.N * d.C);
    transformAct = makeTensor(alloc, row::kTransformSaved, Category::Activations, prec.act, d.N * d.C);
    ops.matmulForward(transformPre, last, transformW, globals[TransformB].value, d.N, d.C, d.C);
    ops.geluForward(transformAct, transformPre, d.N * d.C, tanh);
    finalNormForward(transformAct);
    makeHeadCopy();
    logits = makeTensor(alloc, row::kLogits, Category::Logits, prec.act, d.N * d.V);
    ops.matmulForward(logits, finalOut, headWeight(), globals[DecoderBias].value, d.N, d.C, d.V);
    headCopy.release();
}

void Trainer::Impl::mlmHeadBackward()
{
    if (accum == 1)
        allocateGrads(Phase::HeadBwd, 0);
    const Tensor& last = d.L > 0 ? layerOut[d.L - 1] : embedOut;
    const bool tanh = tanhGelu(scenario.model.hiddenAct);
    Tensor transformCopy;
    const Tensor& transformW = transformWeight(transformCopy);
    makeHeadCopy();
    residualGrad = makeTensor(alloc, row::kResidualGrad, Category::Activations, prec.act, d.N * d.C);
    auto temp = [&] { return makeTensor(alloc, row::kHeadGradIn, Category::Temporaries, prec.act, d.N * d.C); };
    // The gradients of the LayerNorm's output, GELU's output and the dense output.
    Tensor dNormOut = temp(), dAct = temp(), dPre = temp();
    ops.matmulBackward(dNormOut, headGrad(), globals[DecoderBias].grad, logitsGrad, finalOut, headWeight(), d.N, d.C,
                       d.V);
    ops.layernormBackward(dAct, globals[FinalNorm].grad, globals[FinalNormB].grad, dNormOut, transformAct,
                          globals[FinalNorm].value, finalRstd, d.N, d.C);
    ops.geluBackward(dPre, dAct, transformPre, d.N * d.C, tanh);
    ops.matmulBackward(residualGrad, globals[TransformW].grad, globals[TransformB].grad, dPre, last, transformW, d.N,
                       d.C, d.C);
    dNormOut.release();
    dAct.release();
    dPre.release();
    logitsGrad.release();
    finalOut.release();
    finalRstd.release();
    transformPre.release();
    transformAct.release();
    headCopy.release();
}

} // namespace headroom::rt
