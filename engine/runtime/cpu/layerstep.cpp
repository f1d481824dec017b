// SPDX-License-Identifier: GPL-3.0-or-later
// One Llama decoder layer, forward and backward, on tracked buffers
// (modeling_llama.py LlamaDecoderLayer: x2 = x + o(attn(rope(q(n1(x))),
// rope(k(n1(x))), v(n1(x)))); out = x2 + down(silu(gate(n2(x2))) * up(n2(x2)))).
#include "runtime/cpu/trainerimpl.h"

#include "runtime/cpu/activations.h"
#include "runtime/cpu/attention.h"
#include "runtime/cpu/flashattention.h"
#include "runtime/cpu/parallel.h"
#include "runtime/cpu/matmul.h"
#include "runtime/cpu/rmsnorm.h"
#include "runtime/cpu/rope.h"

namespace headroom::rt {

namespace {

constexpr double kNormEps = 1e-6; // as trainer.cpp

const float* noBias = nullptr;

void addInPlace(float* y, const float* x, std::size_t n)
{
    cpu::parallelForRanges(n, 2, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i)
            y[i] += x[i];
    });
}

} // namespace

void CpuTrainer::Impl::allocateSaves(std::size_t l)
{
    LayerSaves& s = saves[l];
    auto act = [&](const char* name, std::size_t n) { return makeTensor(alloc, name, Category::Activations, prec.act, n); };
    auto f32 = [&](const char* name, std::size_t n) { return makeTensor(alloc, name, Category::Activations, DType::F32, n); };
    // RMSNorm saves rstd per token; GPT-2's LayerNorm mean and rstd.
    const std::size_t stats = gpt2 ? 2 * d.N : d.N;
    s.rstd1 = f32("saved.norm1.rstd", stats);
    s.h1 = act("saved.norm1.out", d.N * d.C);
    s.q = act("saved.attn.q", d.N * d.QD);
    s.k = act("saved.attn.k", d.N * d.KD);
    s.v = act("saved.attn.v", d.N * d.KD);
    if (eager)
        s.probs = act("saved.attn.probs", d.B * d.NH * d.T * d.T);
    else
        s.lse = f32("saved.attn.lse", d.B * d.NH * d.T);
    s.attn = act("saved.attn.out", d.N * d.QD);
    s.x2 = act("saved.residual.mid", d.N * d.C);
    s.rstd2 = f32("saved.norm2.rstd", stats);
    s.h2 = act("saved.norm2.out", d.N * d.C);
    if (!gpt2)
        s.gate = act("saved.mlp.gate", d.N * d.I);  // GPT-2: no gate; "up" is c_fc's output
    s.up = act("saved.mlp.up", d.N * d.I);
    s.act = act("saved.mlp.act", d.N * d.I);
    for (std::size_t p = 0; p < kLayerParams; ++p)
        if (lora && loraA[l][p].present)
            s.loraOut[p] = act(row::kLoraSaved, d.N * rank);
}

void CpuTrainer::Impl::layerForward(std::size_t l, const Tensor& xt, LayerSaves& s, const Tensor* out,
                                    const LayerCopies& c)
{
    auto& P = layers[l];
    const cpu::AttentionShape shape{d.B, d.T, d.NH, d.NKV, d.HD};
    const double scale = cpu::defaultAttentionScale(d.HD);
    F32View x(xt, F32View::Read);
    {
        F32View h1(s.h1, F32View::Write), w(P[Norm1].value, F32View::Read);
        cpu::rmsnormForward(h1.data(), s.rstd1.f32(), x.data(), w.data(), d.N, d.C, kNormEps);
    }
    {
        F32View h1(s.h1, F32View::Read);
        auto project = [&](const Tensor& dst, LayerParam w, LayerParam b, std::size_t width) {
            F32View y(dst, F32View::Write), wv(weight(l, w, c), F32View::Read);
            std::optional<F32View> bv;
            if (P[b].present)
                bv.emplace(P[b].value, F32View::Read);
            cpu::matmulForward(y.data(), h1.data(), wv.data(), bv ? bv->data() : noBias, d.N, d.C, width);
            loraForward(l, w, h1.data(), y.data(), s);
        };
        project(s.q, Wq, Bq, d.QD);
        project(s.k, Wk, Bk, d.KD);
        project(s.v, Wv, Bv, d.KD);
    }
    {
        F32View q(s.q, F32View::ReadWrite), k(s.k, F32View::ReadWrite);
        cpu::ropeForward(q.data(), q.data(), ropeCos.f32(), ropeSin.f32(), d.B, d.T, d.NH, d.HD, d.HD);
        cpu::ropeForward(k.data(), k.data(), ropeCos.f32(), ropeSin.f32(), d.B, d.T, d.NKV, d.HD, d.HD);
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
        F32View x2(s.x2, F32View::Write), a(s.attn, F32View::Read), w(weight(l, Wo, c), F32View::Read);
        std::optional<F32View> b;
        if (P[Bo].present)
            b.emplace(P[Bo].value, F32View::Read);
        cpu::matmulForward(x2.data(), a.data(), w.data(), b ? b->data() : noBias, d.N, d.QD, d.C);
        loraForward(l, Wo, a.data(), x2.data(), s);
        addInPlace(x2.data(), x.data(), d.N * d.C);
    }
    {
        F32View h2(s.h2, F32View::Write), x2(s.x2, F32View::Read), w(P[Norm2].value, F32View::Read);
        cpu::rmsnormForward(h2.data(), s.rstd2.f32(), x2.data(), w.data(), d.N, d.C, kNormEps);
    }
    {
        F32View h2(s.h2, F32View::Read), g(s.gate, F32View::Write), u(s.up, F32View::Write),
            wg(weight(l, Wg, c), F32View::Read), wu(weight(l, Wu, c), F32View::Read);
        cpu::matmulForward(g.data(), h2.data(), wg.data(), noBias, d.N, d.C, d.I);
        cpu::matmulForward(u.data(), h2.data(), wu.data(), noBias, d.N, d.C, d.I);
        loraForward(l, Wg, h2.data(), g.data(), s);
        loraForward(l, Wu, h2.data(), u.data(), s);
    }
    {
        F32View a(s.act, F32View::Write), g(s.gate, F32View::Read), u(s.up, F32View::Read);
        cpu::swigluForward(a.data(), g.data(), u.data(), d.N * d.I);
    }
    if (out) {
        F32View y(*out, F32View::Write), a(s.act, F32View::Read), w(weight(l, Wd, c), F32View::Read),
            x2(s.x2, F32View::Read);
        cpu::matmulForward(y.data(), a.data(), w.data(), noBias, d.N, d.I, d.C);
        loraForward(l, Wd, a.data(), y.data(), s);
        addInPlace(y.data(), x2.data(), d.N * d.C);
    } else if (targeted(l, Wd)) {
        // Recompute: the output is not needed, the adapter's saved input is.
        F32View a(s.act, F32View::Read);
        loraForward(l, Wd, a.data(), nullptr, s);
    }
}

void CpuTrainer::Impl::layerBackward(std::size_t l, const Tensor& xt, LayerSaves& s, const LayerCopies& c)
{
    auto& P = layers[l];
    const cpu::AttentionShape shape{d.B, d.T, d.NH, d.NKV, d.HD};
    const double scale = cpu::defaultAttentionScale(d.HD);
    // The layer's backward temporaries (one row: they live for this event only).
    auto temp = [&](std::size_t n) { return makeTensor(alloc, row::kLayerBwd, Category::Temporaries, prec.act, n); };
    Tensor dAct = temp(d.N * d.I), dGate = temp(d.N * d.I), dUp = temp(d.N * d.I), dH2 = temp(d.N * d.C);
    Tensor dAttn = temp(d.N * d.QD), dQr = temp(d.N * d.QD), dKr = temp(d.N * d.KD), dQ = temp(d.N * d.QD),
           dK = temp(d.N * d.KD), dV = temp(d.N * d.KD), dH1 = temp(d.N * d.C);
    auto grad = [&](LayerParam p) { return std::optional<F32View>(std::in_place, P[p].grad, F32View::ReadWrite); };
    auto gradOrNull = [&](LayerParam p) {
        return P[p].present ? std::optional<F32View>(std::in_place, P[p].grad, F32View::ReadWrite) : std::nullopt;
    };
    // MLP: out = x2 + down(act).
    {
        F32View da(dAct, F32View::ReadWrite), dy(residualGrad, F32View::Read), a(s.act, F32View::Read),
            w(weight(l, Wd, c), F32View::Read);
        auto dw = grad(Wd);
        cpu::matmulBackward(da.data(), dw->data(), static_cast<float*>(nullptr), dy.data(), a.data(), w.data(), d.N,
                            d.I, d.C);
        loraBackward(l, Wd, dy.data(), a.data(), da.data(), s);
    }
    {
        F32View dg(dGate, F32View::ReadWrite), du(dUp, F32View::ReadWrite), da(dAct, F32View::Read),
            g(s.gate, F32View::Read), u(s.up, F32View::Read);
        cpu::swigluBackward(dg.data(), du.data(), da.data(), g.data(), u.data(), d.N * d.I);
    }
    {
        F32View dh(dH2, F32View::ReadWrite), h(s.h2, F32View::Read), dg(dGate, F32View::Read), du(dUp, F32View::Read),
            wg(weight(l, Wg, c), F32View::Read), wu(weight(l, Wu, c), F32View::Read);
        auto gg = grad(Wg);
        auto gu = grad(Wu);
        cpu::matmulBackward(dh.data(), gg->data(), static_cast<float*>(nullptr), dg.data(), h.data(), wg.data(), d.N,
                            d.C, d.I);
        cpu::matmulBackward(dh.data(), gu->data(), static_cast<float*>(nullptr), du.data(), h.data(), wu.data(), d.N,
                            d.C, d.I);
        loraBackward(l, Wg, dg.data(), h.data(), dh.data(), s);
        loraBackward(l, Wu, du.data(), h.data(), dh.data(), s);
    }
    {
        F32View dx(residualGrad, F32View::ReadWrite), dy(dH2, F32View::Read), x2(s.x2, F32View::Read),
            w(P[Norm2].value, F32View::Read);
        auto dw = grad(Norm2);
        cpu::rmsnormBackward(dx.data(), dw->data(), dy.data(), x2.data(), w.data(), s.rstd2.f32(), d.N, d.C);
    }
    // Attention: x2 = x + o(attn).
    {
        F32View da(dAttn, F32View::ReadWrite), dy(residualGrad, F32View::Read), a(s.attn, F32View::Read),
            w(weight(l, Wo, c), F32View::Read);
        auto dw = grad(Wo);
        auto db = gradOrNull(Bo);
        cpu::matmulBackward(da.data(), dw->data(), db ? db->data() : static_cast<float*>(nullptr), dy.data(), a.data(),
                            w.data(), d.N, d.QD, d.C);
        loraBackward(l, Wo, dy.data(), a.data(), da.data(), s);
    }
    {
        F32View dq(dQr, F32View::ReadWrite), dk(dKr, F32View::ReadWrite), dv(dV, F32View::ReadWrite),
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
        F32View dq(dQ, F32View::ReadWrite), dk(dK, F32View::ReadWrite), dqr(dQr, F32View::Read),
            dkr(dKr, F32View::Read);
        cpu::ropeBackward(dq.data(), dqr.data(), ropeCos.f32(), ropeSin.f32(), d.B, d.T, d.NH, d.HD, d.HD);
        cpu::ropeBackward(dk.data(), dkr.data(), ropeCos.f32(), ropeSin.f32(), d.B, d.T, d.NKV, d.HD, d.HD);
    }
    {
        F32View dh(dH1, F32View::ReadWrite), h(s.h1, F32View::Read);
        auto back = [&](const Tensor& dyT, LayerParam w, LayerParam b, std::size_t width) {
            F32View dy(dyT, F32View::Read), wv(weight(l, w, c), F32View::Read);
            auto dw = grad(w);
            auto db = gradOrNull(b);
            cpu::matmulBackward(dh.data(), dw->data(), db ? db->data() : static_cast<float*>(nullptr), dy.data(),
                                h.data(), wv.data(), d.N, d.C, width);
            loraBackward(l, w, dy.data(), h.data(), dh.data(), s);
        };
        back(dQ, Wq, Bq, d.QD);
        back(dK, Wk, Bk, d.KD);
        back(dV, Wv, Bv, d.KD);
    }
    {
        F32View dx(residualGrad, F32View::ReadWrite), dy(dH1, F32View::Read), x(xt, F32View::Read),
            w(P[Norm1].value, F32View::Read);
        auto dw = grad(Norm1);
        cpu::rmsnormBackward(dx.data(), dw->data(), dy.data(), x.data(), w.data(), s.rstd1.f32(), d.N, d.C);
    }
}

} // namespace headroom::rt
