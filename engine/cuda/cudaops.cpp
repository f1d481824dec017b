// SPDX-License-Identifier: GPL-3.0-or-later
// The step program's Ops on a CUDA device. Every tensor's Buffer holds a
// device pointer (the backend gives the tracking allocator device memory);
// this file maps each Ops call onto the launchers of engine/cuda and throws
// CudaError when one fails. Nothing here allocates per call: the little
// device memory the calls need beyond their arguments is one arena made
// with the Ops and reported (CudaOpsInfo::scratchBytes).
#include "cuda/cudaops.h"

#include "cuda/attention.h"
#include "cuda/crossentropy.h"
#include "cuda/device.h"
#include "cuda/dropout.h"
#include "cuda/elementwise.h"
#include "cuda/embedding.h"
#include "cuda/gemm.h"
#include "cuda/gradscaler.h"
#include "cuda/memory.h"
#include "cuda/norms.h"
#include "cuda/optimizers.h"
#include "cuda/quant.h"
#include "cuda/rope.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace headroom::cuda {

namespace {

using rt::At;
using rt::Tensor;

void check(const Status& status)
{
    if (!status.ok())
        throw CudaError(status);
}

DType deviceType(rt::DType d)
{
    switch (d) {
    case rt::DType::F32: return DType::f32;
    case rt::DType::BF16: return DType::bf16;
    case rt::DType::F16: return DType::f16;
    default: break;
    }
    throw std::logic_error("cuda ops: an integer tensor where a floating-point one is needed");
}

void* ptr(const Tensor& t, std::size_t offset = 0) { return t.buffer.data() + offset * rt::dtypeBytes(t.dtype); }
void* ptr(At a) { return a.present() ? ptr(*a.tensor, a.offset) : nullptr; }
float* f32(const Tensor& t)
{
    if (t.empty())
        return nullptr;
    if (t.dtype != rt::DType::F32)
        throw std::logic_error("cuda ops: an fp32 tensor is needed here (parameter gradients, statistics, state)");
    return static_cast<float*>(ptr(t));
}
float* f32(At a) { return a.present() ? f32(*a.tensor) + a.offset : nullptr; }
const std::int32_t* ints(At a) { return static_cast<const std::int32_t*>(ptr(a)); }
const std::uint8_t* bytes(const Tensor& t) { return static_cast<const std::uint8_t*>(ptr(t)); }
std::uint8_t* mutableBytes(const Tensor& t) { return static_cast<std::uint8_t*>(ptr(t)); }
std::uint8_t* maskBytes(At a)
{
    if (!a.present())
        return nullptr;
    if (a.tensor->dtype != rt::DType::U8)
        throw std::logic_error("cuda ops: the attention dropout mask must be a U8 tensor");
    return static_cast<std::uint8_t*>(ptr(a));
}

// The arena: fixed slots, each 256-byte aligned (cudaMalloc's alignment).
struct Arena {
    std::size_t lossScale = 0, growthTracker = 0, foundInf = 0, meanLoss = 0, validCount = 0, rowLoss = 0,
                loraA = 0, loraB = 0, bytes = 0;
};

Arena layout(const Scenario& s)
{
    auto align = [](std::size_t n) { return (n + 255) / 256 * 256; };
    Arena a;
    std::size_t at = 0;
    auto slot = [&](std::size_t& field, std::size_t size) {
        field = at;
        at += align(std::max<std::size_t>(size, 1));
    };
    const std::size_t rows = s.train.microBatch * s.train.seqLen;
    const ModelSpec& m = s.model;
    const std::size_t widest =
        std::max({m.hidden, m.intermediate, m.heads * m.headDim, m.kvHeads * m.headDim});
    const std::size_t rank = s.train.peft.method == PeftMethod::None ? 0 : s.train.peft.rank;
    slot(a.lossScale, 4);
    slot(a.growthTracker, 4);
    slot(a.foundInf, 4);
    slot(a.meanLoss, 4);
    slot(a.validCount, 4);
    slot(a.rowLoss, rows * 4);
    // 16-bit copies of one adapter pair (rank x widest each) for the GEMMs,
    // which take both operands in one dtype.
    slot(a.loraA, rank * widest * 2);
    slot(a.loraB, rank * widest * 2);
    a.bytes = at;
    return a;
}

class CudaOps final : public rt::Ops {
public:
    CudaOps(Context& context, const Scenario& scenario) : m_context(context), m_arena(layout(scenario))
    {
        auto buffer = DeviceBuffer::zeros(m_arena.bytes);
        check(buffer.status());
        m_scratch = std::move(buffer.value());
    }
    std::size_t scratchBytes() const { return m_scratch.bytes(); }

    std::string name() const override { return "cuda"; }

    void upload(At dst, std::span<const float> values) override
    {
        const DType type = deviceType(dst.tensor->dtype);
        std::vector<std::byte> packed(values.size() * dtypeSize(type));
        packHost(packed.data(), values.data(), values.size(), type);
        check(copyToDevice(m_context, ptr(dst), packed.data(), packed.size()));
        m_offsets.erase(ptr(dst));
    }
    void uploadRaw(const Tensor& dst, const void* data, Bytes count) override
    {
        if (count > dst.buffer.bytes())
            throw std::logic_error("uploadRaw: more bytes than the tensor holds");
        check(copyToDevice(m_context, ptr(dst), data, count));
        m_offsets.erase(ptr(dst));
    }
    std::vector<float> download(const Tensor& t) override
    {
        const DType type = deviceType(t.dtype);
        std::vector<std::byte> packed(t.numel * dtypeSize(type));
        check(copyToHost(m_context, packed.data(), ptr(t), packed.size()));
        std::vector<float> values(t.numel);
        unpackHost(values.data(), packed.data(), t.numel, type);
        return values;
    }
    void zero(At dst, std::size_t n) override
    {
        check(fillZero(m_context, ptr(dst), n * rt::dtypeBytes(dst.tensor->dtype)));
    }
    void cast(const Tensor& dst, const Tensor& src) override
    {
        check(castTensor(m_context, ptr(dst), deviceType(dst.dtype), ptr(src), deviceType(src.dtype), dst.numel));
    }
    void addInPlace(const Tensor& y, const Tensor& x, std::size_t n) override
    {
        same(y, x);
        check(cuda::addInPlace(m_context, deviceType(y.dtype), ptr(y), ptr(x), n));
    }
    void synchronize() override { check(m_context.synchronize()); }

    void ropeTable(const Tensor& cos, const Tensor& sin, std::size_t T, std::size_t HD, double theta) override
    {
        check(cuda::ropeTable(m_context, f32(cos), f32(sin), T, HD, theta));
    }
    void embeddingForward(const Tensor& out, const Tensor& tokens, const Tensor& wte, At wpe, std::size_t B,
                          std::size_t T, std::size_t C, std::size_t V) override
    {
        if (wpe.present())
            same(wte, *wpe.tensor);
        check(cuda::embeddingForward(m_context, deviceType(out.dtype), deviceType(wte.dtype), ptr(out),
                                     ints(tokens), ptr(wte), ptr(wpe), B, T, C, V));
    }
    void embeddingBackward(At dwte, At dwpe, const Tensor& dout, const Tensor& tokens, std::size_t B, std::size_t T,
                           std::size_t C, std::size_t V) override
    {
        check(cuda::embeddingBackward(m_context, deviceType(dout.dtype), f32(dwte), f32(dwpe), ptr(dout), ints(tokens),
                                      B, T, C, V));
    }
    void rmsnormForward(const Tensor& out, const Tensor& rstd, const Tensor& inp, const Tensor& weight, std::size_t N,
                        std::size_t C, double eps) override
    {
        same(out, inp);
        check(cuda::rmsnormForward(m_context, deviceType(out.dtype), deviceType(weight.dtype), ptr(out), f32(rstd),
                                   ptr(inp), ptr(weight), N, C, static_cast<float>(eps)));
    }
    void rmsnormBackward(const Tensor& dinp, const Tensor& dweight, const Tensor& dout, const Tensor& inp,
                         const Tensor& weight, const Tensor& rstd, std::size_t N, std::size_t C) override
    {
        same(dinp, inp);
        same(dout, inp);
        check(cuda::rmsnormBackward(m_context, deviceType(inp.dtype), deviceType(weight.dtype), ptr(dinp),
                                    f32(dweight), ptr(dout), ptr(inp), ptr(weight), f32(rstd), N, C));
    }
    void layernormForward(const Tensor& out, const Tensor& stats, const Tensor& inp, const Tensor& weight, At bias,
                          std::size_t N, std::size_t C, double eps) override
    {
        same(out, inp);
        if (bias.present())
            same(weight, *bias.tensor);
        check(cuda::layernormForward(m_context, deviceType(out.dtype), deviceType(weight.dtype), ptr(out), f32(stats),
                                     f32(stats) + N, ptr(inp), ptr(weight), ptr(bias), N, C, static_cast<float>(eps)));
    }
    void layernormBackward(const Tensor& dinp, const Tensor& dweight, At dbias, const Tensor& dout, const Tensor& inp,
                           const Tensor& weight, const Tensor& stats, std::size_t N, std::size_t C) override
    {
        same(dinp, inp);
        same(dout, inp);
        check(cuda::layernormBackward(m_context, deviceType(inp.dtype), deviceType(weight.dtype), ptr(dinp),
                                      f32(dweight), f32(dbias), ptr(dout), ptr(inp), ptr(weight), f32(stats),
                                      f32(stats) + N, N, C));
    }
    void matmulForward(At out, At inp, At weight, At bias, std::size_t rows, std::size_t C, std::size_t OC) override
    {
        same(*out.tensor, *inp.tensor);
        same(*out.tensor, *weight.tensor);
        const DType type = deviceType(out.tensor->dtype);
        const DType biasType = bias.present() ? deviceType(bias.tensor->dtype) : type;
        check(linearForward(m_context, type, biasType, ptr(out), ptr(inp), ptr(weight), ptr(bias), rows, C, OC));
    }
    void matmulBackward(At dinp, At dweight, At dbias, At dout, At inp, At weight, std::size_t rows, std::size_t C,
                        std::size_t OC) override
    {
        same(*dout.tensor, *inp.tensor);
        same(*dout.tensor, *weight.tensor);
        if (dinp.present())
            same(*dout.tensor, *dinp.tensor);
        check(linearBackward(m_context, deviceType(dout.tensor->dtype), ptr(dinp), f32(dweight), f32(dbias), ptr(dout),
                             ptr(inp), ptr(weight), rows, C, OC));
    }
    void ropeForward(const Tensor& x, const Tensor& cos, const Tensor& sin, std::size_t B, std::size_t T,
                     std::size_t NH, std::size_t HD, std::size_t rotaryDim) override
    {
        // In place: each thread reads its pair of elements before writing them.
        check(cuda::ropeForward(m_context, deviceType(x.dtype), ptr(x), ptr(x), f32(cos), f32(sin), B, T, NH, HD,
                                rotaryDim));
    }
    void ropeBackward(const Tensor& dinp, const Tensor& dout, const Tensor& cos, const Tensor& sin, std::size_t B,
                      std::size_t T, std::size_t NH, std::size_t HD, std::size_t rotaryDim) override
    {
        same(dinp, dout);
        check(cuda::ropeBackward(m_context, deviceType(dout.dtype), ptr(dinp), ptr(dout), f32(cos), f32(sin), B, T, NH,
                                 HD, rotaryDim));
    }
    void attentionForward(const Tensor& out, const Tensor& probs, const Tensor& q, const Tensor& k, const Tensor& v,
                          const cpu::AttentionShape& shape, double scale, At mask, At dropped) override
    {
        check(eagerAttentionForward(m_context, deviceType(q.dtype), ptr(out), ptr(probs), ptr(q), ptr(k), ptr(v),
                                    dims(shape), static_cast<float>(scale), maskBytes(mask), ptr(dropped)));
    }
    void attentionBackward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                           const Tensor& probs, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& dprobs,
                           const cpu::AttentionShape& shape, double scale, At mask, At dropped) override
    {
        check(eagerAttentionBackward(m_context, deviceType(q.dtype), ptr(dq), ptr(dk), ptr(dv), ptr(dprobs), ptr(dout),
                                     ptr(probs), ptr(q), ptr(k), ptr(v), dims(shape), static_cast<float>(scale),
                                     maskBytes(mask), ptr(dropped)));
    }
    void dropoutForward(At x, const Tensor& mask, std::size_t n, float p, std::uint64_t stream) override
    {
        if (mask.dtype != rt::DType::U8 || mask.numel < n)
            throw std::logic_error("cuda ops: the dropout mask must be a U8 tensor of n elements");
        check(cuda::dropoutForward(m_context, x.present() ? deviceType(x.tensor->dtype) : DType::f32, ptr(x),
                                   mutableBytes(mask), n, p, stream));
    }
    void dropoutBackward(const Tensor& dst, const Tensor& src, const Tensor& mask, std::size_t n, float p) override
    {
        same(dst, src);
        if (mask.dtype != rt::DType::U8 || mask.numel < n)
            throw std::logic_error("cuda ops: the dropout mask must be a U8 tensor of n elements");
        check(cuda::dropoutBackward(m_context, deviceType(dst.dtype), ptr(dst), ptr(src), bytes(mask), n, p));
    }
    void flashAttentionForward(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
                               const cpu::AttentionShape& shape, double scale) override
    {
        check(cuda::flashAttentionForward(m_context, deviceType(q.dtype), ptr(out), f32(lse), ptr(q), ptr(k), ptr(v),
                                          dims(shape), static_cast<float>(scale)));
    }
    void flashAttentionBackward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                                const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
                                const Tensor& delta, const cpu::AttentionShape& shape, double scale) override
    {
        check(cuda::flashAttentionBackward(m_context, deviceType(q.dtype), ptr(dq), ptr(dk), ptr(dv), f32(delta),
                                           ptr(dout), ptr(out), f32(lse), ptr(q), ptr(k), ptr(v), dims(shape),
                                           static_cast<float>(scale)));
    }
    void swigluForward(const Tensor& out, const Tensor& gate, const Tensor& up, std::size_t n) override
    {
        check(cuda::swigluForward(m_context, deviceType(out.dtype), ptr(out), ptr(gate), ptr(up), n));
    }
    void swigluBackward(const Tensor& dgate, const Tensor& dup, const Tensor& dout, const Tensor& gate,
                        const Tensor& up, std::size_t n) override
    {
        check(cuda::swigluBackward(m_context, deviceType(dout.dtype), ptr(dgate), ptr(dup), ptr(dout), ptr(gate),
                                   ptr(up), n));
    }
    void geluForward(const Tensor& out, const Tensor& inp, std::size_t n, bool tanh) override
    {
        check(activationForward(m_context, tanh ? Activation::geluTanh : Activation::gelu, deviceType(out.dtype),
                                ptr(out), ptr(inp), n));
    }
    void geluBackward(const Tensor& dinp, const Tensor& dout, const Tensor& inp, std::size_t n, bool tanh) override
    {
        check(activationBackward(m_context, tanh ? Activation::geluTanh : Activation::gelu, deviceType(dout.dtype),
                                 ptr(dinp), ptr(dout), ptr(inp), n));
    }
    void tanhForward(const Tensor& out, const Tensor& inp, std::size_t n) override
    {
        same(out, inp);
        check(cuda::tanhForward(m_context, deviceType(out.dtype), ptr(out), ptr(inp), n));
    }
    void tanhBackward(const Tensor& dinp, const Tensor& dout, const Tensor& out, std::size_t n) override
    {
        same(dinp, dout);
        same(dout, out);
        check(cuda::tanhBackward(m_context, deviceType(dout.dtype), ptr(dinp), ptr(dout), ptr(out), n));
    }
    void addRowToRows(const Tensor& out, At row, std::size_t rows, std::size_t C) override
    {
        check(cuda::addRowToRows(m_context, deviceType(out.dtype), deviceType(row.tensor->dtype), ptr(out), ptr(row),
                                 rows, C));
    }
    void sumRowsInto(At drow, const Tensor& dout, std::size_t rows, std::size_t C) override
    {
        check(cuda::sumRowsInto(m_context, deviceType(dout.dtype), deviceType(drow.tensor->dtype), ptr(drow),
                                ptr(dout), rows, C));
    }

    // LoRA: A, B fp32; x, y, saved in the activation dtype. cuBLASLt takes
    // both operands of a GEMM in one dtype, so under 16-bit activations A and
    // B are cast into the arena first, as torch autocast casts lora_A/lora_B's
    // fp32 weights for its bf16 matmuls (peft LoraLayer under autocast).
    void loraForward(const Tensor& saved, At y, const Tensor& x, const Tensor& A, const Tensor& B, std::size_t rows,
                     std::size_t in, std::size_t r, std::size_t out, float scale) override
    {
        const DType act = deviceType(x.dtype);
        const void* a = adapter(A, act, m_arena.loraA);
        // saved (rows, r) = scale · x (rows, in) · Aᵀ
        check(gemm(m_context, act, act, product(saved.buffer.data(), x.buffer.data(), false, a, true, rows, r, in, scale,
                                                0.0f)));
        if (!y.present())
            return;
        const void* b = adapter(B, act, m_arena.loraB);
        // y (rows, out) += saved (rows, r) · Bᵀ
        check(gemm(m_context, act, act, product(ptr(y), saved.buffer.data(), false, b, true, rows, out, r, 1.0f, 1.0f)));
    }
    void loraBackward(const Tensor& dx, const Tensor& dA, const Tensor& dB, const Tensor& dy, const Tensor& x,
                      const Tensor& saved, const Tensor& A, const Tensor& B, const Tensor& dSaved, std::size_t rows,
                      std::size_t in, std::size_t r, std::size_t out, float scale) override
    {
        const DType act = deviceType(x.dtype);
        const void* b = adapter(B, act, m_arena.loraB);
        // dB (out, r) += dyᵀ (out, rows) · saved (rows, r), fp32
        check(gemm(m_context, act, DType::f32,
                   product(f32(dB), dy.buffer.data(), true, saved.buffer.data(), false, out, r, rows, 1.0f, 1.0f)));
        // dSaved (rows, r) = dy (rows, out) · B (out, r)
        check(gemm(m_context, act, act, product(dSaved.buffer.data(), dy.buffer.data(), false, b, false, rows, r, out,
                                                1.0f, 0.0f)));
        // dA (r, in) += scale · dSavedᵀ (r, rows) · x (rows, in), fp32
        check(gemm(m_context, act, DType::f32, product(f32(dA), dSaved.buffer.data(), true, x.buffer.data(), false, r, in,
                                                       rows, scale, 1.0f)));
        // dx (rows, in) += scale · dSaved (rows, r) · A (r, in)
        const void* a = adapter(A, act, m_arena.loraA);
        check(gemm(m_context, act, act,
                   product(dx.buffer.data(), dSaved.buffer.data(), false, a, false, rows, in, r, scale, 1.0f)));
    }

    double crossEntropyForward(At lse, At logits, At targets, std::size_t rows, std::size_t V) override
    {
        auto* rowLoss = slot<float>(m_arena.rowLoss);
        auto* mean = slot<float>(m_arena.meanLoss);
        int* valid = slot<int>(m_arena.validCount);
        check(cuda::crossEntropyForward(m_context, deviceType(logits.tensor->dtype), f32(lse), rowLoss, ptr(logits),
                                        ints(targets), rows, V));
        check(crossEntropyMean(m_context, mean, valid, rowLoss, ints(targets), rows));
        float host = 0.0f;
        check(copyToHost(m_context, &host, mean, sizeof host));
        return host;
    }
    void crossEntropyBackward(At dlogits, At logits, At lse, At targets, std::size_t rows, std::size_t V,
                              double dloss) override
    {
        // Every target of the program is a real token: the mean is over `rows`.
        int* valid = slot<int>(m_arena.validCount);
        const int count = static_cast<int>(rows);
        check(copyToDevice(m_context, valid, &count, sizeof count));
        check(cuda::crossEntropyBackward(m_context, deviceType(logits.tensor->dtype), ptr(dlogits), ptr(logits),
                                         f32(lse), ints(targets), valid, rows, V, static_cast<float>(dloss)));
    }

    void nf4Dequantize(const Tensor& out, const Tensor& packed, const Tensor& absmax, std::size_t n) override
    {
        check(cuda::nf4Dequantize(m_context, deviceType(out.dtype), ptr(out), bytes(packed), f32(absmax), n));
    }
    void nf4DequantizeDouble(const Tensor& out, const Tensor& packed, const Tensor& absmaxCodes, const Tensor& absmax2,
                             const Tensor& offset, std::size_t n) override
    {
        Nf4DoubleQuant q;
        q.absmaxCodes = bytes(absmaxCodes);
        q.absmax2 = f32(absmax2);
        q.offset = offsetOf(offset);
        check(cuda::nf4DequantizeDouble(m_context, deviceType(out.dtype), ptr(out), bytes(packed), q, n));
    }

    void sgdStep(const Tensor& param, const Tensor& grad, At momentum, std::int64_t step,
                 const cpu::SgdConfig& c) override
    {
        check(cuda::sgdStep(m_context, f32(param), f32(grad), f32(momentum), param.numel, step,
                            SgdConfig{c.lr, c.momentum, c.weightDecay}));
    }
    void adamwStep(const Tensor& param, const Tensor& grad, const Tensor& m, const Tensor& v, std::int64_t step,
                   const cpu::AdamWConfig& c) override
    {
        check(cuda::adamwStep(m_context, f32(param), f32(grad), f32(m), f32(v), param.numel, step, adamw(c)));
    }
    void adamw8bitInit(const Tensor& m, const Tensor& mAbsmax, const Tensor& v, const Tensor& vAbsmax) override
    {
        check(cuda::adamw8bitInit(m_context, state(m, mAbsmax, v, vAbsmax), m.numel));
    }
    void adamw8bitStep(const Tensor& param, const Tensor& grad, const Tensor& m, const Tensor& mAbsmax, const Tensor& v,
                       const Tensor& vAbsmax, std::int64_t step, const cpu::AdamWConfig& c) override
    {
        check(cuda::adamw8bitStep(m_context, f32(param), f32(grad), state(m, mAbsmax, v, vAbsmax), param.numel, step,
                                  adamw(c)));
    }
    void lionStep(const Tensor& param, const Tensor& grad, const Tensor& m, const cpu::LionConfig& c) override
    {
        check(cuda::lionStep(m_context, f32(param), f32(grad), f32(m), param.numel,
                             LionConfig{c.lr, c.beta1, c.beta2, c.weightDecay}));
    }
    void adafactorStepFactored(const Tensor& param, const Tensor& grad, std::size_t rows, std::size_t cols,
                               const Tensor& r, const Tensor& c, std::int64_t step,
                               const cpu::AdafactorConfig& config) override
    {
        check(cuda::adafactorStepFactored(m_context, f32(param), f32(grad), rows, cols, f32(r), f32(c), nullptr, step,
                                          adafactor(config)));
    }
    void adafactorStepUnfactored(const Tensor& param, const Tensor& grad, const Tensor& v, std::int64_t step,
                                 const cpu::AdafactorConfig& config) override
    {
        check(cuda::adafactorStepUnfactored(m_context, f32(param), f32(grad), f32(v), nullptr, param.numel, step,
                                            adafactor(config)));
    }
    void lomoUpdate(const Tensor& param, const Tensor& grad, const cpu::LomoConfig& c) override
    {
        // The program's LOMO update is param -= lr·grad (no loss scale, clip or
        // decay: cpu::lomoFusedUpdate with those at their defaults), which is
        // plain SGD; then the gradient is zeroed as LOMO frees it.
        if (c.lossScale != 1.0f || c.clipValue != 0.0f || c.clipCoefficient != 1.0f || c.weightDecay != 0.0f)
            throw std::logic_error("cuda ops: LOMO with loss scaling, clipping or weight decay is not implemented");
        check(cuda::sgdStep(m_context, f32(param), f32(grad), nullptr, param.numel, 1, SgdConfig{c.lr, 0.0f, 0.0f}));
        check(fillZero(m_context, ptr(grad), grad.buffer.bytes()));
    }

    void startLossScaling(const cpu::GradScaler::Config& c) override
    {
        m_scaler = c;
        const int zero = 0;
        check(copyToDevice(m_context, slot<float>(m_arena.lossScale), &c.initScale, sizeof c.initScale));
        check(copyToDevice(m_context, slot<int>(m_arena.growthTracker), &zero, sizeof zero));
        check(fillZero(m_context, slot<float>(m_arena.foundInf), sizeof(float)));
    }
    float lossScale() override
    {
        float scale = 1.0f;
        check(copyToHost(m_context, &scale, slot<float>(m_arena.lossScale), sizeof scale));
        return scale;
    }
    void unscale(const Tensor& grad) override
    {
        check(unscaleAndCheck(m_context, f32(grad), grad.numel, slot<float>(m_arena.lossScale),
                              slot<float>(m_arena.foundInf)));
    }
    bool finishUnscale() override
    {
        float found = 0.0f;
        check(copyToHost(m_context, &found, slot<float>(m_arena.foundInf), sizeof found));
        check(updateLossScale(m_context, slot<float>(m_arena.lossScale), slot<int>(m_arena.growthTracker),
                              slot<float>(m_arena.foundInf), m_scaler.growthFactor, m_scaler.backoffFactor,
                              static_cast<int>(m_scaler.growthInterval)));
        check(fillZero(m_context, slot<float>(m_arena.foundInf), sizeof(float)));
        return found != 0.0f;
    }

private:
    static void same(const Tensor& a, const Tensor& b)
    {
        if (a.dtype != b.dtype)
            throw std::logic_error("cuda ops: operands of one kernel in different dtypes");
    }
    static AttentionDims dims(const cpu::AttentionShape& s)
    {
        return {s.B, s.T, s.NH, s.NKV, s.HD, s.dropout, s.dropoutStream, s.causal};
    }
    static AdamWConfig adamw(const cpu::AdamWConfig& c) { return {c.lr, c.beta1, c.beta2, c.eps, c.weightDecay}; }
    static AdafactorConfig adafactor(const cpu::AdafactorConfig& c)
    {
        AdafactorConfig a;
        a.lr = c.lr;
        a.eps1 = c.eps1;
        a.clipThreshold = c.clipThreshold;
        a.decayRate = c.decayRate;
        a.useBeta1 = c.beta1.has_value();
        a.beta1 = c.beta1.value_or(0.0f);
        a.weightDecay = c.weightDecay;
        return a;
    }
    static AdamW8bitState state(const Tensor& m, const Tensor& mAbsmax, const Tensor& v, const Tensor& vAbsmax)
    {
        return {mutableBytes(m), f32(mAbsmax), mutableBytes(v), f32(vAbsmax)};
    }
    // Row-major C (M, N) = alpha · op(A) (M, K) · op(B) (K, N) + beta · C
    // (GemmArgs' convention: an operand is stored transposed when its flag is set).
    static GemmArgs product(void* c, const void* a, bool transA, const void* b, bool transB, std::size_t M,
                            std::size_t N, std::size_t K, float alpha, float beta)
    {
        GemmArgs g;
        g.M = static_cast<std::int64_t>(M);
        g.N = static_cast<std::int64_t>(N);
        g.K = static_cast<std::int64_t>(K);
        g.A = a;
        g.transA = transA;
        g.lda = transA ? g.M : g.K;
        g.B = b;
        g.transB = transB;
        g.ldb = transB ? g.K : g.N;
        g.C = c;
        g.ldc = g.N;
        g.alpha = alpha;
        g.beta = beta;
        return g;
    }
    template <typename T>
    T* slot(std::size_t offset) const
    {
        return reinterpret_cast<T*>(static_cast<std::byte*>(m_scratch.data()) + offset);
    }
    // An fp32 adapter in the activation dtype: itself, or its copy in the arena.
    const void* adapter(const Tensor& w, DType act, std::size_t arenaSlot)
    {
        if (act == DType::f32)
            return f32(w);
        void* copy = slot<std::byte>(arenaSlot);
        check(castTensor(m_context, copy, act, f32(w), DType::f32, w.numel));
        return copy;
    }
    // The double-quantization offset: one float written once at load, read
    // back once per tensor (the dequantization kernel takes it by value).
    float offsetOf(const Tensor& offset)
    {
        const void* key = ptr(offset);
        auto it = m_offsets.find(key);
        if (it != m_offsets.end())
            return it->second;
        float value = 0.0f;
        check(copyToHost(m_context, &value, key, sizeof value));
        m_offsets.emplace(key, value);
        return value;
    }

    Context& m_context;
    Arena m_arena;
    DeviceBuffer m_scratch;
    cpu::GradScaler::Config m_scaler;
    std::unordered_map<const void*, float> m_offsets;
};

} // namespace

std::string cudaOpsUnsupported(const Scenario& s)
{
    // The device optimizers update fp32 parameters from fp32 gradients; the
    // program's pure bf16 mode keeps both in bf16.
    if (s.train.precision == Precision::Bf16 && s.train.peft.method == PeftMethod::None)
        return "pure bf16 training (the CUDA optimizers take fp32 parameters and gradients)";
    if (s.train.precision == Precision::Fp16Mixed && s.train.optimizer == Optimizer::Lomo)
        return "LOMO with fp16 loss scaling";
    if (s.mode != Mode::Train)
        return "inference";
    return {};
}

std::unique_ptr<rt::Ops> makeCudaOps(Context& context, const Scenario& scenario, CudaOpsInfo* info)
{
    auto ops = std::make_unique<CudaOps>(context, scenario);
    if (info)
        info->scratchBytes = ops->scratchBytes();
    return ops;
}

} // namespace headroom::cuda
