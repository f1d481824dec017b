// SPDX-License-Identifier: GPL-3.0-or-later
// One BERT encoder layer, forward and backward, on tracked buffers
// (modeling_bert.py BertLayer, post-LN):
//   BertSelfAttention:  q, k, v = query(x), key(x), value(x); ctx = attention, every key for every query
//   BertSelfOutput:     a   = LayerNorm(dropout(dense(ctx)) + x)
//   BertIntermediate:   g   = gelu(dense(a))
//   BertOutput:         out = LayerNorm(dropout(dense(g)) + a)
// and BERT's embeddings (BertEmbeddings.forward: LayerNorm(word + token type +
// position embeddings), then dropout).
#include "runtime/step/trainerimpl.h"

namespace headroom::rt {

namespace {

constexpr double kBertLayerNormEps = 1e-12; // BertConfig.layer_norm_eps

} // namespace

void Trainer::Impl::bertForward(std::size_t l, const Tensor& x, LayerSaves& s, const Tensor* out, const LayerCopies& c)
{
    auto& P = layers[l];
    const bool tanh = tanhGelu(scenario.model.hiddenAct);
    ops.matmulForward(s.q, x, weight(l, Wq, c), P[Bq].value, d.N, d.C, d.QD);
    ops.matmulForward(s.k, x, weight(l, Wk, c), P[Bk].value, d.N, d.C, d.KD);
    ops.matmulForward(s.v, x, weight(l, Wv, c), P[Bv].value, d.N, d.C, d.KD);
    attentionForward(l, s); // bidirectional: attentionShape says not causal
    ops.matmulForward(s.x2, s.attn, weight(l, Wo, c), P[Bo].value, d.N, d.QD, d.C);
    if (hiddenDropout) // BertSelfOutput.dropout
        ops.dropoutForward(At(s.x2), s.residMask, d.N * d.C, dropout, dropoutStream(l, kSiteAttnOut));
    ops.addInPlace(s.x2, x, d.N * d.C);
    ops.layernormForward(s.h1, s.rstd1, s.x2, P[Norm1].value, P[Norm1B].value, d.N, d.C, kBertLayerNormEps);
    ops.matmulForward(s.up, s.h1, weight(l, Wu, c), P[Bu].value, d.N, d.C, d.I);
    ops.geluForward(s.act, s.up, d.N * d.I, tanh);
    ops.matmulForward(s.h2, s.act, weight(l, Wd, c), P[Bd].value, d.N, d.I, d.C);
    if (hiddenDropout) // BertOutput.dropout
        ops.dropoutForward(At(s.h2), s.mlpMask, d.N * d.C, dropout, dropoutStream(l, kSiteMlpOut));
    ops.addInPlace(s.h2, s.h1, d.N * d.C);
    // The output LayerNorm's statistics are saved with its output. A
    // checkpointed layer's recompute (out null) writes the same output again
    // into layerOut[l], which lives until the end of this layer's backward.
    ops.layernormForward(out ? *out : layerOut[l], s.rstd2, s.h2, P[Norm2].value, P[Norm2B].value, d.N, d.C,
                         kBertLayerNormEps);
}

void Trainer::Impl::bertBackward(std::size_t l, const Tensor& x, LayerSaves& s, const LayerCopies& c)
{
    auto& P = layers[l];
    const bool tanh = tanhGelu(scenario.model.hiddenAct);
    auto temp = [&](std::size_t n) { return makeTensor(alloc, row::kLayerBwd, Category::Temporaries, prec.act, n); };
    // Every temporary up front, as the plan's one row holds them together.
    Tensor dA = temp(d.N * d.C), dAct = temp(d.N * d.I), dUp = temp(d.N * d.I), dAttn = temp(d.N * d.QD),
           dQ = temp(d.N * d.QD), dK = temp(d.N * d.KD), dV = temp(d.N * d.KD);
    Tensor dDropped = hiddenDropout ? temp(d.N * d.C) : Tensor{};
    auto throughDropout = [&](const Tensor& grad, const Tensor& mask) -> const Tensor& {
        if (!hiddenDropout)
            return grad;
        ops.dropoutBackward(dDropped, grad, mask, d.N * d.C, dropout);
        return dDropped;
    };
    // BertOutput: the LayerNorm's input gradient goes to dense (through the
    // dropout) and, by the residual, to a; dA then gathers intermediate's too.
    ops.layernormBackward(dA, P[Norm2].grad, P[Norm2B].grad, residualGrad, s.h2, P[Norm2].value, s.rstd2, d.N, d.C);
    ops.matmulBackward(dAct, P[Wd].grad, P[Bd].grad, throughDropout(dA, s.mlpMask), s.act, weight(l, Wd, c), d.N, d.I,
                       d.C);
    ops.geluBackward(dUp, dAct, s.up, d.N * d.I, tanh);
    ops.matmulBackward(dA, P[Wu].grad, P[Bu].grad, dUp, s.h1, weight(l, Wu, c), d.N, d.C, d.I);
    // BertSelfOutput: residualGrad (its layer-output gradient consumed) starts
    // again from zero and becomes the gradient of x: the residual's, then the
    // query/key/value projections' added in.
    ops.zero(At(residualGrad), d.N * d.C);
    ops.layernormBackward(residualGrad, P[Norm1].grad, P[Norm1B].grad, dA, s.x2, P[Norm1].value, s.rstd1, d.N, d.C);
    ops.matmulBackward(dAttn, P[Wo].grad, P[Bo].grad, throughDropout(residualGrad, s.residMask), s.attn,
                       weight(l, Wo, c), d.N, d.QD, d.C);
    attentionBackward(l, dQ, dK, dV, dAttn, s);
    ops.matmulBackward(residualGrad, P[Wq].grad, P[Bq].grad, dQ, x, weight(l, Wq, c), d.N, d.C, d.QD);
    ops.matmulBackward(residualGrad, P[Wk].grad, P[Bk].grad, dK, x, weight(l, Wk, c), d.N, d.C, d.KD);
    ops.matmulBackward(residualGrad, P[Wv].grad, P[Bv].grad, dV, x, weight(l, Wv, c), d.N, d.C, d.KD);
}

void Trainer::Impl::bertEmbedForward()
{
    // BertEmbeddings: word + token type (row 0: the all-zero token_type_ids
    // buffer) + absolute position embeddings, LayerNorm, then dropout (the
    // caller's, on embedOut). The LayerNorm's input and statistics are saved.
    embedSum = makeTensor(alloc, row::kEmbedNormSaved, Category::Activations, prec.act, d.N * d.C);
    embedStats = makeTensor(alloc, row::kEmbedNormSaved, Category::Activations, DType::F32, 2 * d.N);
    ops.embeddingForward(embedSum, tokens, globals[Embed].value, globals[Wpe].value, d.B, d.T, d.C, d.V);
    ops.addRowToRows(embedSum, At(globals[TypeEmbed].value), d.N, d.C);
    embedOut = makeTensor(alloc, row::kEmbedOut, Category::Activations, prec.act, d.N * d.C);
    ops.layernormForward(embedOut, embedStats, embedSum, globals[EmbedNorm].value, globals[EmbedNormB].value, d.N, d.C,
                         kBertLayerNormEps);
}

void Trainer::Impl::bertEmbedBackward()
{
    Tensor dSum = makeTensor(alloc, row::kEmbedBwd, Category::Temporaries, prec.act, d.N * d.C);
    ops.layernormBackward(dSum, globals[EmbedNorm].grad, globals[EmbedNormB].grad, residualGrad, embedSum,
                          globals[EmbedNorm].value, embedStats, d.N, d.C);
    ops.embeddingBackward(globals[Embed].grad, globals[Wpe].grad, dSum, tokens, d.B, d.T, d.C, d.V);
    ops.sumRowsInto(At(globals[TypeEmbed].grad), dSum, d.N, d.C);
    dSum.release();
    embedSum.release();
    embedStats.release();
}

} // namespace headroom::rt
