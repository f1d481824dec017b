// SPDX-License-Identifier: GPL-3.0-or-later
// One GPT-2 block, forward and backward, on tracked buffers (modeling_gpt2.py
// GPT2Block: x2 = x + c_proj(attn(c_attn(ln_1(x)))); out = x2 +
// mlp.c_proj(gelu(mlp.c_fc(ln_2(x2))))). q, k and v are row blocks of the fused
// c_attn weight (out = 3 x hidden, row-major), so three matmuls over
// contiguous sub-blocks write them to separate buffers without a fused copy.
#include "runtime/cpu/trainerimpl.h"

#include "runtime/cpu/activations.h"
#include "runtime/cpu/attention.h"
#include "runtime/cpu/flashattention.h"
#include "runtime/cpu/layernorm.h"
#include "runtime/cpu/matmul.h"
#include "runtime/cpu/parallel.h"

namespace headroom::rt {

namespace {

constexpr double kLayerNormEps = 1e-5; // GPT2Config.layer_norm_epsilon

void addInPlace(float* y, const float* x, std::size_t n)
{
    cpu::parallelForRanges(n, 2, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i)
            y[i] += x[i];
    });
}

// transformers ACT2FN: "gelu_new" and "gelu_pytorch_tanh" are the tanh
// approximation, "gelu" the exact erf form.
bool tanhGelu(const std::string& act) { return act != "gelu"; }

} // namespace

void CpuTrainer::Impl::gpt2Forward(std::size_t l, const Tensor& xt, LayerSaves& s, const Tensor* out,
                                   const LayerCopies& c)
{
    auto& P = layers[l];
    const cpu::AttentionShape shape{d.B, d.T, d.NH, d.NKV, d.HD};
    const double scale = cpu::defaultAttentionScale(d.HD);
    const bool tanh = tanhGelu(scenario.model.hiddenAct);
    F32View x(xt, F32View::Read);
    {
        F32View h1(s.h1, F32View::Write), w(P[Norm1].value, F32View::Read), b(P[Norm1B].value, F32View::Read);
        cpu::layernormForward(h1.data(), s.rstd1.f32(), s.rstd1.f32() + d.N, x.data(), w.data(), b.data(), d.N, d.C,
                              kLayerNormEps);
    }
    {
        F32View h1(s.h1, F32View::Read), w(weight(l, Wq, c), F32View::Read), b(P[Bq].value, F32View::Read);
        std::size_t row0 = 0;
        for (auto [dst, width] : {std::pair{&s.q, d.QD}, std::pair{&s.k, d.KD}, std::pair{&s.v, d.KD}}) {
            F32View y(*dst, F32View::Write);
            cpu::matmulForward(y.data(), h1.data(), w.data() + row0 * d.C, b.data() + row0, d.N, d.C, width);
            row0 += width;
        }
    }
    {
        F32View q(s.q, F32View::Read), k(s.k, F32View::Read), v(s.v, F32View::Read), o(s.attn, F32View::Write);
        if (eager) {
            F32View probs(s.probs, F32View::Write);
            cpu::attentionForward(o.data(), probs.data(), q.data(), k.data(), v.data(), shape, scale);
        } else {
            cpu::flashAttentionForward(o.data(), s.lse.f32(), q.data(), k.data(), v.data(), shape, scale);
        }
    }
    {
        F32View x2(s.x2, F32View::Write), a(s.attn, F32View::Read), w(weight(l, Wo, c), F32View::Read),
            b(P[Bo].value, F32View::Read);
        cpu::matmulForward(x2.data(), a.data(), w.data(), b.data(), d.N, d.QD, d.C);
        addInPlace(x2.data(), x.data(), d.N * d.C);
    }
    {
        F32View h2(s.h2, F32View::Write), x2(s.x2, F32View::Read), w(P[Norm2].value, F32View::Read),
            b(P[Norm2B].value, F32View::Read);
        cpu::layernormForward(h2.data(), s.rstd2.f32(), s.rstd2.f32() + d.N, x2.data(), w.data(), b.data(), d.N, d.C,
                              kLayerNormEps);
    }
    {
        F32View h2(s.h2, F32View::Read), fc(s.up, F32View::Write), w(weight(l, Wu, c), F32View::Read),
            b(P[Bu].value, F32View::Read);
        cpu::matmulForward(fc.data(), h2.data(), w.data(), b.data(), d.N, d.C, d.I);
    }
    {
        F32View a(s.act, F32View::Write), fc(s.up, F32View::Read);
        if (tanh)
            cpu::geluTanhForward(a.data(), fc.data(), d.N * d.I);
        else
            cpu::geluForward(a.data(), fc.data(), d.N * d.I);
    }
    if (out) {
        F32View y(*out, F32View::Write), a(s.act, F32View::Read), w(weight(l, Wd, c), F32View::Read),
            b(P[Bd].value, F32View::Read), x2(s.x2, F32View::Read);
        cpu::matmulForward(y.data(), a.data(), w.data(), b.data(), d.N, d.I, d.C);
        addInPlace(y.data(), x2.data(), d.N * d.C);
    }
}

void CpuTrainer::Impl::gpt2Backward(std::size_t l, const Tensor& xt, LayerSaves& s, const LayerCopies& c)
{
    auto& P = layers[l];
    const cpu::AttentionShape shape{d.B, d.T, d.NH, d.NKV, d.HD};
    const double scale = cpu::defaultAttentionScale(d.HD);
    const bool tanh = tanhGelu(scenario.model.hiddenAct);
    auto temp = [&](std::size_t n) { return makeTensor(alloc, row::kLayerBwd, Category::Temporaries, prec.act, n); };
    Tensor dAct = temp(d.N * d.I), dFc = temp(d.N * d.I), dH2 = temp(d.N * d.C), dAttn = temp(d.N * d.QD),
           dQ = temp(d.N * d.QD), dK = temp(d.N * d.KD), dV = temp(d.N * d.KD), dH1 = temp(d.N * d.C);
    auto grad = [&](LayerParam p) { return std::optional<F32View>(std::in_place, P[p].grad, F32View::ReadWrite); };
    {
        F32View da(dAct, F32View::ReadWrite), dy(residualGrad, F32View::Read), a(s.act, F32View::Read),
            w(weight(l, Wd, c), F32View::Read);
        auto dw = grad(Wd), db = grad(Bd);
        cpu::matmulBackward(da.data(), dw->data(), db->data(), dy.data(), a.data(), w.data(), d.N, d.I, d.C);
    }
    {
        F32View df(dFc, F32View::ReadWrite), da(dAct, F32View::Read), fc(s.up, F32View::Read);
        if (tanh)
            cpu::geluTanhBackward(df.data(), da.data(), fc.data(), d.N * d.I);
        else
            cpu::geluBackward(df.data(), da.data(), fc.data(), d.N * d.I);
    }
    {
        F32View dh(dH2, F32View::ReadWrite), df(dFc, F32View::Read), h(s.h2, F32View::Read),
            w(weight(l, Wu, c), F32View::Read);
        auto dw = grad(Wu), db = grad(Bu);
        cpu::matmulBackward(dh.data(), dw->data(), db->data(), df.data(), h.data(), w.data(), d.N, d.C, d.I);
    }
    {
        F32View dx(residualGrad, F32View::ReadWrite), dy(dH2, F32View::Read), x2(s.x2, F32View::Read),
            w(P[Norm2].value, F32View::Read);
        auto dw = grad(Norm2), db = grad(Norm2B);
        cpu::layernormBackward(dx.data(), dw->data(), db->data(), dy.data(), x2.data(), w.data(), s.rstd2.f32(),
                               s.rstd2.f32() + d.N, d.N, d.C);
    }
    {
        F32View da(dAttn, F32View::ReadWrite), dy(residualGrad, F32View::Read), a(s.attn, F32View::Read),
            w(weight(l, Wo, c), F32View::Read);
        auto dw = grad(Wo), db = grad(Bo);
        cpu::matmulBackward(da.data(), dw->data(), db->data(), dy.data(), a.data(), w.data(), d.N, d.QD, d.C);
    }
    {
        F32View dq(dQ, F32View::ReadWrite), dk(dK, F32View::ReadWrite), dv(dV, F32View::ReadWrite),
            dy(dAttn, F32View::Read), q(s.q, F32View::Read), k(s.k, F32View::Read), v(s.v, F32View::Read);
        if (eager) {
            F32View probs(s.probs, F32View::Read);
            cpu::attentionBackward(dq.data(), dk.data(), dv.data(), dy.data(), probs.data(), q.data(), k.data(),
                                   v.data(), shape, scale);
        } else {
            F32View o(s.attn, F32View::Read);
            cpu::flashAttentionBackward(dq.data(), dk.data(), dv.data(), dy.data(), o.data(), s.lse.f32(), q.data(),
                                        k.data(), v.data(), shape, scale);
        }
    }
    {
        F32View dh(dH1, F32View::ReadWrite), h(s.h1, F32View::Read), w(weight(l, Wq, c), F32View::Read);
        auto dw = grad(Wq), db = grad(Bq);
        std::size_t row0 = 0;
        for (auto [src, width] : {std::pair{&dQ, d.QD}, std::pair{&dK, d.KD}, std::pair{&dV, d.KD}}) {
            F32View dy(*src, F32View::Read);
            cpu::matmulBackward(dh.data(), dw->data() ? dw->data() + row0 * d.C : nullptr,
                                db->data() ? db->data() + row0 : nullptr, dy.data(), h.data(), w.data() + row0 * d.C,
                                d.N, d.C, width);
            row0 += width;
        }
    }
    {
        F32View dx(residualGrad, F32View::ReadWrite), dy(dH1, F32View::Read), x(xt, F32View::Read),
            w(P[Norm1].value, F32View::Read);
        auto dw = grad(Norm1), db = grad(Norm1B);
        cpu::layernormBackward(dx.data(), dw->data(), db->data(), dy.data(), x.data(), w.data(), s.rstd1.f32(),
                               s.rstd1.f32() + d.N, d.N, d.C);
    }
}

} // namespace headroom::rt
