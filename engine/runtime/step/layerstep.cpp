// SPDX-License-Identifier: GPL-3.0-or-later
// One Llama decoder layer, forward and backward, on tracked buffers
// (modeling_llama.py LlamaDecoderLayer: x2 = x + o(attn(rope(q(n1(x))),
// rope(k(n1(x))), v(n1(x)))); out = x2 + down(silu(gate(n2(x2))) * up(n2(x2)))).
#include "runtime/step/trainerimpl.h"

namespace headroom::rt {

namespace {

constexpr double kNormEps = 1e-6; // as trainer.cpp

} // namespace

void Trainer::Impl::allocateSaves(std::size_t l)
{
    LayerSaves& s = saves[l];
    auto act = [&](const char* name, std::size_t n) { return makeTensor(alloc, name, Category::Activations, prec.act, n); };
    auto f32 = [&](const char* name, std::size_t n) { return makeTensor(alloc, name, Category::Activations, DType::F32, n); };
    // RMSNorm saves rstd per token; GPT-2's LayerNorm mean and rstd.
    const std::size_t stats = layerNorm ? 2 * d.N : d.N;
    s.rstd1 = f32(row::kSavedNorm1Rstd, stats);
    s.h1 = act(row::kSavedNorm1Out, d.N * d.C);
    s.q = act(row::kSavedQ, d.N * d.QD);
    s.k = act(row::kSavedK, d.N * d.KD);
    s.v = act(row::kSavedV, d.N * d.KD);
    const std::size_t scores = d.B * d.NH * d.T * d.T;
    if (eager) {
        s.probs = act(row::kSavedProbs, scores);
        if (dropout > 0) {
            s.attnMask = makeTensor(alloc, row::kSavedAttnDropoutMask, Category::Activations, DType::U8, scores);
            s.attnDropped = act(row::kSavedProbsDropped, scores);
        }
    } else {
        s.lse = f32(row::kSavedLse, d.B * d.NH * d.T);
    }
    s.attn = act(row::kSavedAttnOut, d.N * d.QD);
    if (!neox) // GPT-NeoX's parallel residual has no mid-layer residual: both norms read x
        s.x2 = act(row::kSavedResidualMid, d.N * d.C);
    s.rstd2 = f32(row::kSavedNorm2Rstd, stats);
    s.h2 = act(bert ? row::kSavedNorm2In : row::kSavedNorm2Out, d.N * d.C);
    if (!layerNorm)
        s.gate = act(row::kSavedGate, d.N * d.I); // GPT-2: no gate; "up" is c_fc's output
    s.up = act(row::kSavedUp, d.N * d.I);
    s.act = act(row::kSavedAct, d.N * d.I);
    if (hiddenDropout) {
        s.residMask = makeTensor(alloc, row::kSavedResidDropoutMask, Category::Activations, DType::U8, d.N * d.C);
        s.mlpMask = makeTensor(alloc, row::kSavedMlpDropoutMask, Category::Activations, DType::U8, d.N * d.C);
    }
    for (std::size_t p = 0; p < kLayerParams; ++p)
        if (lora && loraA[l][p].present)
            s.loraOut[p] = act(row::kLoraSaved, d.N * rank);
}

void Trainer::Impl::layerForward(std::size_t l, const Tensor& x, LayerSaves& s, const Tensor* out,
                                 const LayerCopies& c)
{
    auto& P = layers[l];
    ops.rmsnormForward(s.h1, s.rstd1, x, P[Norm1].value, d.N, d.C, kNormEps);
    auto project = [&](const Tensor& dst, LayerParam w, LayerParam b, std::size_t width) {
        ops.matmulForward(dst, s.h1, weight(l, w, c), P[b].value, d.N, d.C, width);
        loraForward(l, w, s.h1, dst, s);
    };
    project(s.q, Wq, Bq, d.QD);
    project(s.k, Wk, Bk, d.KD);
    project(s.v, Wv, Bv, d.KD);
    ops.ropeForward(s.q, ropeCos, ropeSin, d.B, d.T, d.NH, d.HD, rotaryDim);
    ops.ropeForward(s.k, ropeCos, ropeSin, d.B, d.T, d.NKV, d.HD, rotaryDim);
    attentionForward(l, s);
    ops.matmulForward(s.x2, s.attn, weight(l, Wo, c), P[Bo].value, d.N, d.QD, d.C);
    loraForward(l, Wo, s.attn, s.x2, s);
    ops.addInPlace(s.x2, x, d.N * d.C);
    ops.rmsnormForward(s.h2, s.rstd2, s.x2, P[Norm2].value, d.N, d.C, kNormEps);
    ops.matmulForward(s.gate, s.h2, weight(l, Wg, c), At{}, d.N, d.C, d.I);
    ops.matmulForward(s.up, s.h2, weight(l, Wu, c), At{}, d.N, d.C, d.I);
    loraForward(l, Wg, s.h2, s.gate, s);
    loraForward(l, Wu, s.h2, s.up, s);
    ops.swigluForward(s.act, s.gate, s.up, d.N * d.I);
    if (out) {
        ops.matmulForward(*out, s.act, weight(l, Wd, c), At{}, d.N, d.I, d.C);
        loraForward(l, Wd, s.act, *out, s);
        ops.addInPlace(*out, s.x2, d.N * d.C);
    } else {
        // Recompute: the output is not needed, the adapter's saved input is.
        loraForward(l, Wd, s.act, At{}, s);
    }
}

void Trainer::Impl::layerBackward(std::size_t l, const Tensor& x, LayerSaves& s, const LayerCopies& c)
{
    auto& P = layers[l];
    // The layer's backward temporaries (one row: they live for this event only).
    auto temp = [&](std::size_t n) { return makeTensor(alloc, row::kLayerBwd, Category::Temporaries, prec.act, n); };
    Tensor dAct = temp(d.N * d.I), dGate = temp(d.N * d.I), dUp = temp(d.N * d.I), dH2 = temp(d.N * d.C);
    Tensor dAttn = temp(d.N * d.QD), dQr = temp(d.N * d.QD), dKr = temp(d.N * d.KD), dQ = temp(d.N * d.QD),
           dK = temp(d.N * d.KD), dV = temp(d.N * d.KD), dH1 = temp(d.N * d.C);
    // MLP: out = x2 + down(act).
    ops.matmulBackward(dAct, P[Wd].grad, At{}, residualGrad, s.act, weight(l, Wd, c), d.N, d.I, d.C);
    loraBackward(l, Wd, residualGrad, s.act, dAct, s);
    ops.swigluBackward(dGate, dUp, dAct, s.gate, s.up, d.N * d.I);
    ops.matmulBackward(dH2, P[Wg].grad, At{}, dGate, s.h2, weight(l, Wg, c), d.N, d.C, d.I);
    ops.matmulBackward(dH2, P[Wu].grad, At{}, dUp, s.h2, weight(l, Wu, c), d.N, d.C, d.I);
    loraBackward(l, Wg, dGate, s.h2, dH2, s);
    loraBackward(l, Wu, dUp, s.h2, dH2, s);
    ops.rmsnormBackward(residualGrad, P[Norm2].grad, dH2, s.x2, P[Norm2].value, s.rstd2, d.N, d.C);
    // Attention: x2 = x + o(attn).
    ops.matmulBackward(dAttn, P[Wo].grad, P[Bo].grad, residualGrad, s.attn, weight(l, Wo, c), d.N, d.QD, d.C);
    loraBackward(l, Wo, residualGrad, s.attn, dAttn, s);
    attentionBackward(l, dQr, dKr, dV, dAttn, s);
    ops.ropeBackward(dQ, dQr, ropeCos, ropeSin, d.B, d.T, d.NH, d.HD, rotaryDim);
    ops.ropeBackward(dK, dKr, ropeCos, ropeSin, d.B, d.T, d.NKV, d.HD, rotaryDim);
    auto back = [&](const Tensor& dy, LayerParam w, LayerParam b, std::size_t width) {
        ops.matmulBackward(dH1, P[w].grad, P[b].grad, dy, s.h1, weight(l, w, c), d.N, d.C, width);
        loraBackward(l, w, dy, s.h1, dH1, s);
    };
    back(dQ, Wq, Bq, d.QD);
    back(dK, Wk, Bk, d.KD);
    back(dV, Wv, Bv, d.KD);
    ops.rmsnormBackward(residualGrad, P[Norm1].grad, dH1, x, P[Norm1].value, s.rstd1, d.N, d.C);
}

} // namespace headroom::rt
