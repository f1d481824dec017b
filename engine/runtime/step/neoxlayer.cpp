// SPDX-License-Identifier: GPL-3.0-or-later
// One GPT-NeoX layer (Pythia, polyglot-ko) with the parallel residual every
// such checkpoint uses (modeling_gpt_neox.py GPTNeoXLayer.forward,
// use_parallel_residual=True):
//   out = x + dropout(dense(attn(rope(q), rope(k), v)))   with q, k, v from query_key_value(ln1(x))
//           + dropout(dense_4h_to_h(gelu(dense_h_to_4h(ln2(x)))))
// Both LayerNorms read the layer input, so no mid-layer residual exists; RoPE
// turns the first rotaryDim elements of each head (partial rotary,
// GPTNeoXAttention: rotary_ndims = int(head_size · rotary_pct)).
#include "runtime/step/trainerimpl.h"

namespace headroom::rt {

namespace {

constexpr double kLayerNormEps = 1e-5; // GPTNeoXConfig.layer_norm_eps

} // namespace

void Trainer::Impl::neoxForward(std::size_t l, const Tensor& x, LayerSaves& s, const Tensor* out, const LayerCopies& c)
{
    auto& P = layers[l];
    const bool tanh = tanhGelu(scenario.model.hiddenAct);
    ops.layernormForward(s.h1, s.rstd1, x, P[Norm1].value, P[Norm1B].value, d.N, d.C, kLayerNormEps);
    // q, k, v: rows [0, QD), [QD, QD + KD), [QD + KD, QD + 2 KD) of query_key_value.
    fusedQkvForward(l, s, c);
    ops.ropeForward(s.q, ropeCos, ropeSin, d.B, d.T, d.NH, d.HD, rotaryDim);
    ops.ropeForward(s.k, ropeCos, ropeSin, d.B, d.T, d.NKV, d.HD, rotaryDim);
    attentionForward(l, s);
    ops.layernormForward(s.h2, s.rstd2, x, P[Norm2].value, P[Norm2B].value, d.N, d.C, kLayerNormEps);
    ops.matmulForward(s.up, s.h2, weight(l, Wu, c), P[Bu].value, d.N, d.C, d.I);
    ops.geluForward(s.act, s.up, d.N * d.I, tanh);
    if (!out) {
        // Recompute: the output is not needed, the dropout masks are.
        if (hiddenDropout) {
            ops.dropoutForward(At{}, s.residMask, d.N * d.C, dropout, dropoutStream(l, kSiteAttnOut));
            ops.dropoutForward(At{}, s.mlpMask, d.N * d.C, dropout, dropoutStream(l, kSiteMlpOut));
        }
        return;
    }
    // The attention branch's projection lives only until it is summed into
    // the output: a forward temporary (the headroom rows' layer.attn_proj).
    Tensor attnProj = makeTensor(alloc, row::kAttnProj, Category::Temporaries, prec.act, d.N * d.C);
    ops.matmulForward(attnProj, s.attn, weight(l, Wo, c), P[Bo].value, d.N, d.QD, d.C);
    if (hiddenDropout) // post_attention_dropout
        ops.dropoutForward(At(attnProj), s.residMask, d.N * d.C, dropout, dropoutStream(l, kSiteAttnOut));
    ops.matmulForward(*out, s.act, weight(l, Wd, c), P[Bd].value, d.N, d.I, d.C);
    if (hiddenDropout) // post_mlp_dropout
        ops.dropoutForward(At(*out), s.mlpMask, d.N * d.C, dropout, dropoutStream(l, kSiteMlpOut));
    ops.addInPlace(*out, attnProj, d.N * d.C);
    ops.addInPlace(*out, x, d.N * d.C);
}

void Trainer::Impl::neoxBackward(std::size_t l, const Tensor& x, LayerSaves& s, const LayerCopies& c)
{
    auto& P = layers[l];
    const bool tanh = tanhGelu(scenario.model.hiddenAct);
    auto temp = [&](std::size_t n) { return makeTensor(alloc, row::kLayerBwd, Category::Temporaries, prec.act, n); };
    Tensor dAct = temp(d.N * d.I), dUp = temp(d.N * d.I), dH2 = temp(d.N * d.C), dAttn = temp(d.N * d.QD),
           dQr = temp(d.N * d.QD), dKr = temp(d.N * d.KD), dQ = temp(d.N * d.QD), dK = temp(d.N * d.KD),
           dV = temp(d.N * d.KD), dH1 = temp(d.N * d.C);
    // Each branch sees the output's gradient through its own dropout mask;
    // the residual path keeps it unmasked (residualGrad is dx already).
    Tensor dDropped = hiddenDropout ? temp(d.N * d.C) : Tensor{};
    auto throughDropout = [&](const Tensor& mask) -> const Tensor& {
        if (!hiddenDropout)
            return residualGrad;
        ops.dropoutBackward(dDropped, residualGrad, mask, d.N * d.C, dropout);
        return dDropped;
    };
    // MLP branch: out += dense_4h_to_h(gelu(dense_h_to_4h(ln2(x)))).
    ops.matmulBackward(dAct, P[Wd].grad, P[Bd].grad, throughDropout(s.mlpMask), s.act, weight(l, Wd, c), d.N, d.I,
                       d.C);
    ops.geluBackward(dUp, dAct, s.up, d.N * d.I, tanh);
    ops.matmulBackward(dH2, P[Wu].grad, P[Bu].grad, dUp, s.h2, weight(l, Wu, c), d.N, d.C, d.I);
    // Attention branch: out += dense(attn(...)).
    ops.matmulBackward(dAttn, P[Wo].grad, P[Bo].grad, throughDropout(s.residMask), s.attn, weight(l, Wo, c), d.N,
                       d.QD, d.C);
    attentionBackward(l, dQr, dKr, dV, dAttn, s);
    ops.ropeBackward(dQ, dQr, ropeCos, ropeSin, d.B, d.T, d.NH, d.HD, rotaryDim);
    ops.ropeBackward(dK, dKr, ropeCos, ropeSin, d.B, d.T, d.NKV, d.HD, rotaryDim);
    fusedQkvBackward(l, dQ, dK, dV, dH1, s, c);
    // Both norms read x: their input gradients add to the residual one, now
    // that every read of the output's gradient is done.
    ops.layernormBackward(residualGrad, P[Norm2].grad, P[Norm2B].grad, dH2, x, P[Norm2].value, s.rstd2, d.N, d.C);
    ops.layernormBackward(residualGrad, P[Norm1].grad, P[Norm1B].grad, dH1, x, P[Norm1].value, s.rstd1, d.N, d.C);
}

} // namespace headroom::rt
