// SPDX-License-Identifier: GPL-3.0-or-later
// One GPT-2 block, forward and backward, on tracked buffers (modeling_gpt2.py
// GPT2Block: x2 = x + c_proj(attn(c_attn(ln_1(x)))); out = x2 +
// mlp.c_proj(gelu(mlp.c_fc(ln_2(x2))))). q, k and v are row blocks of the fused
// c_attn weight (out = 3 x hidden, row-major), so three matmuls over
// contiguous sub-blocks write them to separate buffers without a fused copy.
#include "runtime/step/trainerimpl.h"

namespace headroom::rt {

namespace {

constexpr double kLayerNormEps = 1e-5; // GPT2Config.layer_norm_epsilon

} // namespace

void Trainer::Impl::gpt2Forward(std::size_t l, const Tensor& x, LayerSaves& s, const Tensor* out, const LayerCopies& c)
{
    auto& P = layers[l];
    const bool tanh = tanhGelu(scenario.model.hiddenAct);
    ops.layernormForward(s.h1, s.rstd1, x, P[Norm1].value, P[Norm1B].value, d.N, d.C, kLayerNormEps);
    // q, k, v: rows [0, QD), [QD, QD + KD), [QD + KD, QD + 2 KD) of c_attn and its bias.
    fusedQkvForward(l, s, c);
    attentionForward(l, s);
    ops.matmulForward(s.x2, s.attn, weight(l, Wo, c), P[Bo].value, d.N, d.QD, d.C);
    if (hiddenDropout) // resid_dropout on c_proj's output, before the residual add
        ops.dropoutForward(At(s.x2), s.residMask, d.N * d.C, dropout, dropoutStream(l, kSiteAttnOut));
    ops.addInPlace(s.x2, x, d.N * d.C);
    ops.layernormForward(s.h2, s.rstd2, s.x2, P[Norm2].value, P[Norm2B].value, d.N, d.C, kLayerNormEps);
    ops.matmulForward(s.up, s.h2, weight(l, Wu, c), P[Bu].value, d.N, d.C, d.I);
    ops.geluForward(s.act, s.up, d.N * d.I, tanh);
    if (out) {
        ops.matmulForward(*out, s.act, weight(l, Wd, c), P[Bd].value, d.N, d.I, d.C);
        if (hiddenDropout) // GPT2MLP.dropout on c_proj's output
            ops.dropoutForward(At(*out), s.mlpMask, d.N * d.C, dropout, dropoutStream(l, kSiteMlpOut));
        ops.addInPlace(*out, s.x2, d.N * d.C);
    } else if (hiddenDropout) {
        // Recompute: the output is not needed, its dropout mask is.
        ops.dropoutForward(At{}, s.mlpMask, d.N * d.C, dropout, dropoutStream(l, kSiteMlpOut));
    }
}

void Trainer::Impl::gpt2Backward(std::size_t l, const Tensor& x, LayerSaves& s, const LayerCopies& c)
{
    auto& P = layers[l];
    const bool tanh = tanhGelu(scenario.model.hiddenAct);
    auto temp = [&](std::size_t n) { return makeTensor(alloc, row::kLayerBwd, Category::Temporaries, prec.act, n); };
    Tensor dAct = temp(d.N * d.I), dFc = temp(d.N * d.I), dH2 = temp(d.N * d.C), dAttn = temp(d.N * d.QD),
           dQ = temp(d.N * d.QD), dK = temp(d.N * d.KD), dV = temp(d.N * d.KD), dH1 = temp(d.N * d.C);
    // With dropout, the gradient reaching a sublayer's output projection is
    // the residual gradient through its mask; the residual path keeps the
    // unmasked one, so it needs a buffer of its own (used for both sublayers).
    Tensor dDropped = hiddenDropout ? temp(d.N * d.C) : Tensor{};
    auto throughDropout = [&](const Tensor& mask) -> const Tensor& {
        if (!hiddenDropout)
            return residualGrad;
        ops.dropoutBackward(dDropped, residualGrad, mask, d.N * d.C, dropout);
        return dDropped;
    };
    ops.matmulBackward(dAct, P[Wd].grad, P[Bd].grad, throughDropout(s.mlpMask), s.act, weight(l, Wd, c), d.N, d.I,
                       d.C);
    ops.geluBackward(dFc, dAct, s.up, d.N * d.I, tanh);
    ops.matmulBackward(dH2, P[Wu].grad, P[Bu].grad, dFc, s.h2, weight(l, Wu, c), d.N, d.C, d.I);
    ops.layernormBackward(residualGrad, P[Norm2].grad, P[Norm2B].grad, dH2, s.x2, P[Norm2].value, s.rstd2, d.N, d.C);
    ops.matmulBackward(dAttn, P[Wo].grad, P[Bo].grad, throughDropout(s.residMask), s.attn, weight(l, Wo, c), d.N,
                       d.QD, d.C);
    attentionBackward(l, dQ, dK, dV, dAttn, s);
    fusedQkvBackward(l, dQ, dK, dV, dH1, s, c);
    ops.layernormBackward(residualGrad, P[Norm1].grad, P[Norm1B].grad, dH1, x, P[Norm1].value, s.rstd1, d.N, d.C);
}

// The fused query/key/value projection of GPT-2's c_attn and GPT-NeoX's
// query_key_value: q, k and v are row blocks [0, QD), [QD, QD + KD),
// [QD + KD, QD + 2 KD) of the weight and its bias, so three matmuls over
// contiguous sub-blocks write them to separate buffers without a fused copy.
void Trainer::Impl::fusedQkvForward(std::size_t l, LayerSaves& s, const LayerCopies& c)
{
    auto& P = layers[l];
    std::size_t row0 = 0;
    for (auto [dst, width] : {std::pair{&s.q, d.QD}, std::pair{&s.k, d.KD}, std::pair{&s.v, d.KD}}) {
        ops.matmulForward(*dst, s.h1, At(weight(l, Wq, c), row0 * d.C), At(P[Bq].value, row0), d.N, d.C, width);
        row0 += width;
    }
}

void Trainer::Impl::fusedQkvBackward(std::size_t l, const Tensor& dQ, const Tensor& dK, const Tensor& dV,
                                     const Tensor& dH1, LayerSaves& s, const LayerCopies& c)
{
    auto& P = layers[l];
    std::size_t row0 = 0;
    for (auto [src, width] : {std::pair{&dQ, d.QD}, std::pair{&dK, d.KD}, std::pair{&dV, d.KD}}) {
        const At dw = P[Wq].grad.empty() ? At{} : At(P[Wq].grad, row0 * d.C);
        const At db = P[Bq].grad.empty() ? At{} : At(P[Bq].grad, row0);
        ops.matmulBackward(dH1, dw, db, *src, s.h1, At(weight(l, Wq, c), row0 * d.C), d.N, d.C, width);
        row0 += width;
    }
}

} // namespace headroom::rt
