// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU backend's Ops: the reference kernels of runtime/cpu on host
// memory. 16-bit tensors are read into fp32 staging copies and rounded back
// when written (F32View); staging is kernel scratch, like a GPU's registers,
// and not part of the tensor table (docs/runtime.md, "Precision").
#include "runtime/ops.h"

#include "runtime/cpu/activations.h"
#include "runtime/cpu/adamw8bit.h"
#include "runtime/cpu/crossentropy.h"
#include "runtime/cpu/dropout.h"
#include "runtime/cpu/embedding.h"
#include "runtime/cpu/flashattention.h"
#include "runtime/cpu/layernorm.h"
#include "runtime/cpu/matmul.h"
#include "runtime/cpu/nf4.h"
#include "runtime/cpu/parallel.h"
#include "runtime/cpu/rmsnorm.h"
#include "runtime/cpu/rope.h"
#include "runtime/cpu/rowbroadcast.h"

#include <cstring>
#include <optional>
#include <stdexcept>

namespace headroom::rt {

namespace {

// An fp32 view of `count` elements of an optional argument, or none.
std::optional<F32View> view(At a, F32View::Mode mode, std::size_t count)
{
    if (!a.present())
        return std::nullopt;
    return std::optional<F32View>(std::in_place, *a.tensor, mode, a.offset, count);
}

float* data(std::optional<F32View>& v) { return v ? v->data() : nullptr; }

const std::int32_t* ints(At a) { return a.tensor->i32() + a.offset; }

std::uint8_t* maskBytes(At a)
{
    if (!a.present())
        return nullptr;
    if (a.tensor->dtype != DType::U8)
        throw std::logic_error("attention dropout: the mask must be a U8 tensor");
    return a.tensor->u8() + a.offset;
}

std::span<float> span(F32View& v, std::size_t n) { return {v.data(), n}; }

class CpuOps final : public Ops {
public:
    std::string name() const override { return "cpu"; }

    void upload(At dst, std::span<const float> values) override
    {
        for (std::size_t i = 0; i < values.size(); ++i)
            storeElement(*dst.tensor, dst.offset + i, values[i]);
    }
    void uploadRaw(const Tensor& dst, const void* bytes, Bytes count) override
    {
        if (count > dst.buffer.bytes())
            throw std::logic_error("uploadRaw: more bytes than the tensor holds");
        std::memcpy(dst.buffer.data(), bytes, count);
    }
    std::vector<float> download(const Tensor& t) override
    {
        std::vector<float> values(t.numel);
        for (std::size_t i = 0; i < values.size(); ++i)
            values[i] = loadElement(t, i);
        return values;
    }
    void zero(At dst, std::size_t n) override
    {
        std::memset(dst.tensor->buffer.data() + dst.offset * dtypeBytes(dst.tensor->dtype), 0,
                    n * dtypeBytes(dst.tensor->dtype));
    }
    void cast(const Tensor& dst, const Tensor& src) override
    {
        F32View s(src, F32View::Read);
        cpu::parallelForRanges(dst.numel, 2, [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i)
                storeElement(dst, i, s.data()[i]);
        });
    }
    void addInPlace(const Tensor& yt, const Tensor& xt, std::size_t n) override
    {
        F32View y(yt, F32View::ReadWrite, 0, n), x(xt, F32View::Read, 0, n);
        cpu::parallelForRanges(n, 2, [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i)
                y.data()[i] += x.data()[i];
        });
    }

    void ropeTable(const Tensor& cos, const Tensor& sin, std::size_t T, std::size_t HD, double theta) override
    {
        cpu::ropeTable(cos.f32(), sin.f32(), T, HD, theta);
    }
    void embeddingForward(const Tensor& out, const Tensor& tokens, const Tensor& wte, At wpe, std::size_t B,
                          std::size_t T, std::size_t C, std::size_t V) override
    {
        F32View o(out, F32View::Write), table(wte, F32View::Read);
        auto positions = view(wpe, F32View::Read, T * C);
        cpu::embeddingForward(o.data(), tokens.i32(), table.data(), static_cast<const float*>(data(positions)), B, T,
                              C, V);
    }
    void embeddingBackward(At dwte, At dwpe, const Tensor& dout, const Tensor& tokens, std::size_t B, std::size_t T,
                           std::size_t C, std::size_t V) override
    {
        auto dw = view(dwte, F32View::ReadWrite, V * C), dp = view(dwpe, F32View::ReadWrite, T * C);
        F32View dy(dout, F32View::Read);
        cpu::embeddingBackward(data(dw), data(dp), dy.data(), tokens.i32(), B, T, C, V);
    }
    void rmsnormForward(const Tensor& out, const Tensor& rstd, const Tensor& inp, const Tensor& weight, std::size_t N,
                        std::size_t C, double eps) override
    {
        F32View o(out, F32View::Write), x(inp, F32View::Read), w(weight, F32View::Read);
        cpu::rmsnormForward(o.data(), rstd.f32(), x.data(), w.data(), N, C, eps);
    }
    void rmsnormBackward(const Tensor& dinp, const Tensor& dweight, const Tensor& dout, const Tensor& inp,
                         const Tensor& weight, const Tensor& rstd, std::size_t N, std::size_t C) override
    {
        F32View dx(dinp, F32View::ReadWrite), dw(dweight, F32View::ReadWrite), dy(dout, F32View::Read),
            x(inp, F32View::Read), w(weight, F32View::Read);
        cpu::rmsnormBackward(dx.data(), dw.data(), dy.data(), x.data(), w.data(), rstd.f32(), N, C);
    }
    void layernormForward(const Tensor& out, const Tensor& stats, const Tensor& inp, const Tensor& weight, At bias,
                          std::size_t N, std::size_t C, double eps) override
    {
        F32View o(out, F32View::Write), x(inp, F32View::Read), w(weight, F32View::Read);
        auto b = view(bias, F32View::Read, C);
        cpu::layernormForward(o.data(), stats.f32(), stats.f32() + N, x.data(), w.data(),
                              static_cast<const float*>(data(b)), N, C, eps);
    }
    void layernormBackward(const Tensor& dinp, const Tensor& dweight, At dbias, const Tensor& dout, const Tensor& inp,
                           const Tensor& weight, const Tensor& stats, std::size_t N, std::size_t C) override
    {
        F32View dx(dinp, F32View::ReadWrite), dw(dweight, F32View::ReadWrite), dy(dout, F32View::Read),
            x(inp, F32View::Read), w(weight, F32View::Read);
        auto db = view(dbias, F32View::ReadWrite, C);
        cpu::layernormBackward(dx.data(), dw.data(), data(db), dy.data(), x.data(), w.data(), stats.f32(),
                               stats.f32() + N, N, C);
    }
    void matmulForward(At out, At inp, At weight, At bias, std::size_t rows, std::size_t C, std::size_t OC) override
    {
        auto y = view(out, F32View::Write, rows * OC), x = view(inp, F32View::Read, rows * C),
             w = view(weight, F32View::Read, OC * C), b = view(bias, F32View::Read, OC);
        cpu::matmulForward(data(y), static_cast<const float*>(data(x)), static_cast<const float*>(data(w)),
                           static_cast<const float*>(data(b)), rows, C, OC);
    }
    void matmulBackward(At dinp, At dweight, At dbias, At dout, At inp, At weight, std::size_t rows, std::size_t C,
                        std::size_t OC) override
    {
        auto dx = view(dinp, F32View::ReadWrite, rows * C), dw = view(dweight, F32View::ReadWrite, OC * C),
             db = view(dbias, F32View::ReadWrite, OC), dy = view(dout, F32View::Read, rows * OC),
             x = view(inp, F32View::Read, rows * C), w = view(weight, F32View::Read, OC * C);
        cpu::matmulBackward(data(dx), data(dw), data(db), static_cast<const float*>(data(dy)),
                            static_cast<const float*>(data(x)), static_cast<const float*>(data(w)), rows, C, OC);
    }
    void ropeForward(const Tensor& x, const Tensor& cos, const Tensor& sin, std::size_t B, std::size_t T,
                     std::size_t NH, std::size_t HD, std::size_t rotaryDim) override
    {
        F32View v(x, F32View::ReadWrite);
        cpu::ropeForward(v.data(), v.data(), cos.f32(), sin.f32(), B, T, NH, HD, rotaryDim);
    }
    void ropeBackward(const Tensor& dinp, const Tensor& dout, const Tensor& cos, const Tensor& sin, std::size_t B,
                      std::size_t T, std::size_t NH, std::size_t HD, std::size_t rotaryDim) override
    {
        F32View dx(dinp, F32View::ReadWrite), dy(dout, F32View::Read);
        cpu::ropeBackward(dx.data(), dy.data(), cos.f32(), sin.f32(), B, T, NH, HD, rotaryDim);
    }
    void attentionForward(const Tensor& out, const Tensor& probs, const Tensor& q, const Tensor& k, const Tensor& v,
                          const cpu::AttentionShape& shape, double scale, At mask, At dropped) override
    {
        F32View o(out, F32View::Write), p(probs, F32View::Write), qv(q, F32View::Read), kv(k, F32View::Read),
            vv(v, F32View::Read);
        const std::size_t scores = shape.B * shape.NH * shape.T * shape.T;
        auto d = view(dropped, F32View::Write, scores);
        cpu::attentionForward(o.data(), p.data(), qv.data(), kv.data(), vv.data(), shape, scale, maskBytes(mask),
                              data(d));
    }
    void attentionBackward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                           const Tensor& probs, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor&,
                           const cpu::AttentionShape& shape, double scale, At mask, At dropped) override
    {
        // dprobs is the GPU's room for dP; the CPU kernel keeps one row of it in scratch.
        F32View dqv(dq, F32View::ReadWrite), dkv(dk, F32View::ReadWrite), dvv(dv, F32View::ReadWrite),
            dy(dout, F32View::Read), p(probs, F32View::Read), qv(q, F32View::Read), kv(k, F32View::Read),
            vv(v, F32View::Read);
        const std::size_t scores = shape.B * shape.NH * shape.T * shape.T;
        auto d = view(dropped, F32View::Read, scores);
        cpu::attentionBackward(dqv.data(), dkv.data(), dvv.data(), dy.data(), p.data(), qv.data(), kv.data(),
                               vv.data(), shape, scale, maskBytes(mask), static_cast<const float*>(data(d)));
    }
    void flashAttentionForward(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
                               const cpu::AttentionShape& shape, double scale) override
    {
        F32View o(out, F32View::Write), qv(q, F32View::Read), kv(k, F32View::Read), vv(v, F32View::Read);
        cpu::flashAttentionForward(o.data(), lse.f32(), qv.data(), kv.data(), vv.data(), shape, scale);
    }
    void flashAttentionBackward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                                const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
                                const Tensor&, const cpu::AttentionShape& shape, double scale) override
    {
        // delta is the GPU's room for rowsum(dout · out); the CPU kernel computes it per row in scratch.
        F32View dqv(dq, F32View::ReadWrite), dkv(dk, F32View::ReadWrite), dvv(dv, F32View::ReadWrite),
            dy(dout, F32View::Read), o(out, F32View::Read), qv(q, F32View::Read), kv(k, F32View::Read),
            vv(v, F32View::Read);
        cpu::flashAttentionBackward(dqv.data(), dkv.data(), dvv.data(), dy.data(), o.data(), lse.f32(), qv.data(),
                                    kv.data(), vv.data(), shape, scale);
    }
    void swigluForward(const Tensor& out, const Tensor& gate, const Tensor& up, std::size_t n) override
    {
        F32View o(out, F32View::Write), g(gate, F32View::Read), u(up, F32View::Read);
        cpu::swigluForward(o.data(), g.data(), u.data(), n);
    }
    void swigluBackward(const Tensor& dgate, const Tensor& dup, const Tensor& dout, const Tensor& gate,
                        const Tensor& up, std::size_t n) override
    {
        F32View dg(dgate, F32View::ReadWrite), du(dup, F32View::ReadWrite), dy(dout, F32View::Read),
            g(gate, F32View::Read), u(up, F32View::Read);
        cpu::swigluBackward(dg.data(), du.data(), dy.data(), g.data(), u.data(), n);
    }
    void dropoutForward(At x, const Tensor& mask, std::size_t n, float p, std::uint64_t stream) override
    {
        if (mask.dtype != DType::U8 || mask.numel < n)
            throw std::logic_error("dropout: the mask must be a U8 tensor of n elements");
        auto xv = view(x, F32View::ReadWrite, n);
        cpu::dropoutForward(data(xv), mask.u8(), n, p, stream);
    }
    void dropoutBackward(const Tensor& dst, const Tensor& src, const Tensor& mask, std::size_t n, float p) override
    {
        if (mask.dtype != DType::U8 || mask.numel < n)
            throw std::logic_error("dropout: the mask must be a U8 tensor of n elements");
        if (&dst == &src || dst.buffer.data() == src.buffer.data()) {
            F32View d(dst, F32View::ReadWrite, 0, n);
            cpu::dropoutBackward(d.data(), d.data(), mask.u8(), n, p);
            return;
        }
        F32View d(dst, F32View::Write, 0, n), sv(src, F32View::Read, 0, n);
        cpu::dropoutBackward(d.data(), sv.data(), mask.u8(), n, p);
    }
    void geluForward(const Tensor& out, const Tensor& inp, std::size_t n, bool tanh) override
    {
        F32View o(out, F32View::Write), x(inp, F32View::Read);
        if (tanh)
            cpu::geluTanhForward(o.data(), x.data(), n);
        else
            cpu::geluForward(o.data(), x.data(), n);
    }
    void geluBackward(const Tensor& dinp, const Tensor& dout, const Tensor& inp, std::size_t n, bool tanh) override
    {
        F32View dx(dinp, F32View::ReadWrite), dy(dout, F32View::Read), x(inp, F32View::Read);
        if (tanh)
            cpu::geluTanhBackward(dx.data(), dy.data(), x.data(), n);
        else
            cpu::geluBackward(dx.data(), dy.data(), x.data(), n);
    }
    void tanhForward(const Tensor& out, const Tensor& inp, std::size_t n) override
    {
        F32View x(inp, F32View::Read);
        F32View o(out, F32View::Write);
        cpu::tanhForward(o.data(), x.data(), n);
    }
    void tanhBackward(const Tensor& dinp, const Tensor& dout, const Tensor& out, std::size_t n) override
    {
        F32View dx(dinp, F32View::ReadWrite), dy(dout, F32View::Read), y(out, F32View::Read);
        cpu::tanhBackward(dx.data(), dy.data(), y.data(), n);
    }
    void addRowToRows(const Tensor& out, At row, std::size_t rows, std::size_t C) override
    {
        F32View o(out, F32View::ReadWrite);
        auto r = view(row, F32View::Read, C);
        cpu::addRowToRows(o.data(), static_cast<const float*>(data(r)), rows, C);
    }
    void sumRowsInto(At drow, const Tensor& dout, std::size_t rows, std::size_t C) override
    {
        auto dr = view(drow, F32View::ReadWrite, C);
        F32View dy(dout, F32View::Read);
        cpu::sumRowsInto(data(dr), dy.data(), rows, C);
    }

    void loraForward(const Tensor& saved, At y, const Tensor& x, const Tensor& A, const Tensor& B, std::size_t rows,
                     std::size_t in, std::size_t r, std::size_t out, float scale) override
    {
        {
            // Saved: scale · x Aᵀ, so that y += saved Bᵀ and dB = dyᵀ saved exactly.
            F32View a(saved, F32View::Write), xv(x, F32View::Read);
            cpu::matmulForward(a.data(), xv.data(), A.f32(), static_cast<const float*>(nullptr), rows, in, r);
            for (std::size_t i = 0; i < rows * r; ++i)
                a.data()[i] *= scale;
        }
        if (!y.present())
            return;
        F32View a(saved, F32View::Read), yv(*y.tensor, F32View::ReadWrite, y.offset, rows * out);
        const float* b = B.f32();
        cpu::parallelFor(rows, out * r, [&](std::size_t n) {
            for (std::size_t o = 0; o < out; ++o) {
                double acc = 0;
                for (std::size_t k = 0; k < r; ++k)
                    acc += double(a.data()[n * r + k]) * double(b[o * r + k]);
                yv.data()[n * out + o] = static_cast<float>(double(yv.data()[n * out + o]) + acc);
            }
        });
    }
    void loraBackward(const Tensor& dx, const Tensor& dA, const Tensor& dB, const Tensor& dy, const Tensor& x,
                      const Tensor& saved, const Tensor& A, const Tensor& B, const Tensor& dSaved, std::size_t rows,
                      std::size_t in, std::size_t r, std::size_t out, float scale) override
    {
        F32View ds(dSaved, F32View::ReadWrite), a(saved, F32View::Read), dyv(dy, F32View::Read),
            xv(x, F32View::Read), dxv(dx, F32View::ReadWrite);
        // d(saved) = dy B and dB = dyᵀ saved; then d(x Aᵀ) = scale · d(saved).
        cpu::matmulBackward(ds.data(), dB.f32(), static_cast<float*>(nullptr), dyv.data(), a.data(), B.f32(), rows, r,
                            out);
        for (std::size_t i = 0; i < rows * r; ++i)
            ds.data()[i] *= scale;
        cpu::matmulBackward(dxv.data(), dA.f32(), static_cast<float*>(nullptr), ds.data(), xv.data(), A.f32(), rows,
                            in, r);
    }

    double crossEntropyForward(At lse, At logits, At targets, std::size_t rows, std::size_t V) override
    {
        auto in = view(logits, F32View::Read, rows * V);
        return cpu::crossEntropyForward(lse.tensor->f32() + lse.offset, static_cast<const float*>(data(in)),
                                        ints(targets), rows, V);
    }
    void crossEntropyBackward(At dlogits, At logits, At lse, At targets, std::size_t rows, std::size_t V,
                              double dloss) override
    {
        auto out = view(dlogits, F32View::ReadWrite, rows * V), in = view(logits, F32View::Read, rows * V);
        cpu::crossEntropyBackward(data(out), static_cast<const float*>(data(in)), lse.tensor->f32() + lse.offset,
                                  ints(targets), rows, V, dloss);
    }

    void nf4Dequantize(const Tensor& out, const Tensor& packed, const Tensor& absmax, std::size_t n) override
    {
        F32View y(out, F32View::Write);
        cpu::nf4Dequantize(y.data(), packed.u8(), absmax.f32(), n);
    }
    void nf4DequantizeDouble(const Tensor& out, const Tensor& packed, const Tensor& absmaxCodes, const Tensor& absmax2,
                             const Tensor& offset, std::size_t n) override
    {
        F32View y(out, F32View::Write);
        std::vector<float> absmax(absmaxCodes.numel); // kernel scratch: one fp32 per block of 64
        cpu::nf4DoubleDequantizeAbsmax(absmax.data(), absmaxCodes.u8(), absmax2.f32(), offset.f32()[0], absmax.size());
        cpu::nf4Dequantize(y.data(), packed.u8(), absmax.data(), n);
    }

    void sgdStep(const Tensor& param, const Tensor& grad, At momentum, std::int64_t step,
                 const cpu::SgdConfig& config) override
    {
        const std::size_t n = param.numel;
        F32View w(param, F32View::ReadWrite), g(grad, F32View::Read);
        auto m = view(momentum, F32View::ReadWrite, n);
        cpu::sgdStep(span(w, n), {g.data(), n}, m ? span(*m, n) : std::span<float>{}, step, config);
    }
    void adamwStep(const Tensor& param, const Tensor& grad, const Tensor& expAvg, const Tensor& expAvgSq,
                   std::int64_t step, const cpu::AdamWConfig& config) override
    {
        const std::size_t n = param.numel;
        F32View w(param, F32View::ReadWrite), g(grad, F32View::Read), m(expAvg, F32View::ReadWrite),
            v(expAvgSq, F32View::ReadWrite);
        cpu::adamwStep(span(w, n), {g.data(), n}, span(m, n), span(v, n), step, config);
    }
    void adamw8bitInit(const Tensor& m, const Tensor& mAbsmax, const Tensor& v, const Tensor& vAbsmax) override
    {
        cpu::adamw8bitInit(state(m, mAbsmax, v, vAbsmax), m.numel);
    }
    void adamw8bitStep(const Tensor& param, const Tensor& grad, const Tensor& m, const Tensor& mAbsmax, const Tensor& v,
                       const Tensor& vAbsmax, std::int64_t step, const cpu::AdamWConfig& config) override
    {
        const std::size_t n = param.numel;
        F32View w(param, F32View::ReadWrite), g(grad, F32View::Read);
        cpu::adamw8bitStep(span(w, n), {g.data(), n}, state(m, mAbsmax, v, vAbsmax), step, config);
    }
    void lionStep(const Tensor& param, const Tensor& grad, const Tensor& expAvg, const cpu::LionConfig& config) override
    {
        const std::size_t n = param.numel;
        F32View w(param, F32View::ReadWrite), g(grad, F32View::Read), m(expAvg, F32View::ReadWrite);
        cpu::lionStep(span(w, n), {g.data(), n}, span(m, n), config);
    }
    void adafactorStepFactored(const Tensor& param, const Tensor& grad, std::size_t rows, std::size_t cols,
                               const Tensor& rowState, const Tensor& colState, std::int64_t step,
                               const cpu::AdafactorConfig& config) override
    {
        const std::size_t n = param.numel;
        F32View w(param, F32View::ReadWrite), g(grad, F32View::Read), r(rowState, F32View::ReadWrite),
            c(colState, F32View::ReadWrite);
        cpu::adafactorStepFactored(span(w, n), {g.data(), n}, rows, cols, span(r, rows), span(c, cols), {}, step,
                                   config);
    }
    void adafactorStepUnfactored(const Tensor& param, const Tensor& grad, const Tensor& expAvgSq, std::int64_t step,
                                 const cpu::AdafactorConfig& config) override
    {
        const std::size_t n = param.numel;
        F32View w(param, F32View::ReadWrite), g(grad, F32View::Read), v(expAvgSq, F32View::ReadWrite);
        cpu::adafactorStepUnfactored(span(w, n), {g.data(), n}, span(v, n), {}, step, config);
    }
    void lomoUpdate(const Tensor& param, const Tensor& grad, const cpu::LomoConfig& config) override
    {
        const std::size_t n = param.numel;
        F32View w(param, F32View::ReadWrite), g(grad, F32View::ReadWrite);
        cpu::lomoFusedUpdate(span(w, n), span(g, n), config);
    }

    void startLossScaling(const cpu::GradScaler::Config& config) override { m_scaler.emplace(config); }
    float lossScale() override { return m_scaler ? m_scaler->scale() : 1.0f; }
    void unscale(const Tensor& grad) override
    {
        if (grad.dtype != DType::F32)
            throw std::logic_error("loss scaling needs fp32 gradients");
        m_foundInf = m_scaler->unscale({grad.f32(), grad.numel}) || m_foundInf;
    }
    bool finishUnscale() override
    {
        const bool found = m_foundInf;
        m_scaler->update(found);
        m_foundInf = false;
        return found;
    }

private:
    static cpu::AdamW8bitState state(const Tensor& m, const Tensor& mAbsmax, const Tensor& v, const Tensor& vAbsmax)
    {
        return {{m.u8(), m.numel}, {mAbsmax.f32(), mAbsmax.numel}, {v.u8(), v.numel}, {vAbsmax.f32(), vAbsmax.numel}};
    }

    std::optional<cpu::GradScaler> m_scaler;
    bool m_foundInf = false;
};

} // namespace

std::unique_ptr<Ops> makeCpuOps() { return std::make_unique<CpuOps>(); }

} // namespace headroom::rt
