// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The kernels of the training step, as a backend provides them.
//
// The step program (runtime/step/) decides what is allocated, when, and under
// which tensor-table row; it never touches tensor memory itself. A backend's
// Ops compute on those tensors: the CPU backend's run the reference kernels
// of runtime/cpu/ on host memory, the CUDA backend's run engine/cuda/ on
// device memory (the tracking allocator's Storage). So both backends run one
// program, and the CPU agreement suite proves the allocation sequence of both
// (docs/runtime.md, "One program, two backends").
//
// Conventions (as the CPU reference kernels and engine/cuda/dtype.h):
// - a tensor is stored in its own dtype; arithmetic is fp32 or better and
//   each output is rounded once to its dtype per call;
// - backward calls ADD into their gradient outputs (buffers start at zero);
// - an absent optional argument is a default At{} (or an empty tensor);
// - a kernel needs no memory beyond its arguments of the size of a tensor
//   row; what it needs (a row of scores, a block of statistics) is scratch
//   of registers, shared memory or a small fixed arena, outside the table.
#include "runtime/cpu/adafactor.h"
#include "runtime/cpu/adamw.h"
#include "runtime/cpu/attention.h"
#include "runtime/cpu/gradscaler.h"
#include "runtime/cpu/lion.h"
#include "runtime/cpu/sgd.h"
#include "runtime/tensor.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace headroom::rt {

// A tensor from an element offset on: a row block of a fused weight (GPT-2's
// c_attn), a slice of rows (chunked cross-entropy).
struct At {
    const Tensor* tensor = nullptr;
    std::size_t offset = 0; // elements

    At() = default;
    At(const Tensor& t, std::size_t elementOffset = 0) : tensor(&t), offset(elementOffset) {} // NOLINT: implicit on purpose
    bool present() const { return tensor != nullptr && !tensor->empty(); }
};

class Ops {
public:
    virtual ~Ops() = default;
    virtual std::string name() const = 0; // "cpu", "cuda"

    // --- memory -----------------------------------------------------------
    // dst[i] = values[i] rounded to dst's dtype (F32, BF16 or F16 tensors).
    virtual void upload(At dst, std::span<const float> values) = 0;
    // Raw bytes into a tensor (I32 tokens, U8 codes), from its start.
    virtual void uploadRaw(const Tensor& dst, const void* bytes, Bytes count) = 0;
    // Every element as fp32 (F32, BF16, F16 tensors).
    virtual std::vector<float> download(const Tensor& t) = 0;
    virtual void zero(At dst, std::size_t n) = 0;
    // dst = src rounded to dst's dtype (the 16-bit weight copies of autocast).
    virtual void cast(const Tensor& dst, const Tensor& src) = 0;
    // y[i] += x[i] (the residual adds).
    virtual void addInPlace(const Tensor& y, const Tensor& x, std::size_t n) = 0;
    // Waits for queued work (step timing). The CPU's work is never queued.
    virtual void synchronize() {}

    // --- the model --------------------------------------------------------
    // cos, sin (T, HD/2) fp32: RoPE angles t·θ^(−2i/HD) (cpu/rope.h); HD is
    // the rotary dimension (the head's, or the rotated part of it).
    virtual void ropeTable(const Tensor& cos, const Tensor& sin, std::size_t T, std::size_t HD, double theta) = 0;
    // out (B·T, C) = wte[tokens] (+ wpe[t]); wpe absent for RoPE models.
    virtual void embeddingForward(const Tensor& out, const Tensor& tokens, const Tensor& wte, At wpe, std::size_t B,
                                  std::size_t T, std::size_t C, std::size_t V) = 0;
    virtual void embeddingBackward(At dwte, At dwpe, const Tensor& dout, const Tensor& tokens, std::size_t B,
                                   std::size_t T, std::size_t C, std::size_t V) = 0;
    // rstd (N) fp32 saved.
    virtual void rmsnormForward(const Tensor& out, const Tensor& rstd, const Tensor& inp, const Tensor& weight,
                                std::size_t N, std::size_t C, double eps) = 0;
    virtual void rmsnormBackward(const Tensor& dinp, const Tensor& dweight, const Tensor& dout, const Tensor& inp,
                                 const Tensor& weight, const Tensor& rstd, std::size_t N, std::size_t C) = 0;
    // stats (2N) fp32 saved: the mean of each row, then its rstd.
    virtual void layernormForward(const Tensor& out, const Tensor& stats, const Tensor& inp, const Tensor& weight,
                                  At bias, std::size_t N, std::size_t C, double eps) = 0;
    virtual void layernormBackward(const Tensor& dinp, const Tensor& dweight, At dbias, const Tensor& dout,
                                   const Tensor& inp, const Tensor& weight, const Tensor& stats, std::size_t N,
                                   std::size_t C) = 0;
    // out (rows, OC) = inp (rows, C) · weight (OC, C)ᵀ (+ bias (OC)).
    virtual void matmulForward(At out, At inp, At weight, At bias, std::size_t rows, std::size_t C,
                               std::size_t OC) = 0;
    // dinp += dout · weight, dweight += doutᵀ · inp, dbias += column sums of dout.
    virtual void matmulBackward(At dinp, At dweight, At dbias, At dout, At inp, At weight, std::size_t rows,
                                std::size_t C, std::size_t OC) = 0;
    // x (B, T, NH, HD) rotated in place by the table over the first
    // rotaryDim elements of each head (rotaryDim = HD: all of it; GPT-NeoX's
    // partial rotary less, cpu/rope.h); the table is (T, rotaryDim/2).
    virtual void ropeForward(const Tensor& x, const Tensor& cos, const Tensor& sin, std::size_t B, std::size_t T,
                             std::size_t NH, std::size_t HD, std::size_t rotaryDim) = 0;
    virtual void ropeBackward(const Tensor& dinp, const Tensor& dout, const Tensor& cos, const Tensor& sin,
                              std::size_t B, std::size_t T, std::size_t NH, std::size_t HD, std::size_t rotaryDim) = 0;
    // Eager causal attention: probs (B, NH, T, T) kept for backward. With
    // attention dropout (shape.dropout > 0) also the 1-byte mask (U8) and the
    // dropped probabilities P·M/(1−p) (activation dtype) the value matmul
    // reads, both (B, NH, T, T) and kept, as torch's eager attention keeps them.
    virtual void attentionForward(const Tensor& out, const Tensor& probs, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const cpu::AttentionShape& shape, double scale, At mask = {},
                                  At dropped = {}) = 0;
    // dprobs (B, NH, T, T) in the activation dtype is room for dP and dS, a
    // temporary of the layer's backward as in torch's eager attention.
    virtual void attentionBackward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                                   const Tensor& probs, const Tensor& q, const Tensor& k, const Tensor& v,
                                   const Tensor& dprobs, const cpu::AttentionShape& shape, double scale,
                                   At mask = {}, At dropped = {}) = 0;
    // Fused O(T)-memory attention: lse (B, NH, T) fp32 kept for backward.
    // Attention dropout draws its mask from shape.dropoutStream in both
    // directions and keeps none (cpu/flashattention.h).
    virtual void flashAttentionForward(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                                       const Tensor& v, const cpu::AttentionShape& shape, double scale) = 0;
    // delta (B, NH, T) fp32 is room for rowsum(dout · out), a temporary of
    // the layer's backward as in FlashAttention-2's backward (Alg. 2, line 4).
    virtual void flashAttentionBackward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                                        const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                                        const Tensor& v, const Tensor& delta, const cpu::AttentionShape& shape,
                                        double scale) = 0;
    // out = SiLU(gate) · up.
    virtual void swigluForward(const Tensor& out, const Tensor& gate, const Tensor& up, std::size_t n) = 0;
    virtual void swigluBackward(const Tensor& dgate, const Tensor& dup, const Tensor& dout, const Tensor& gate,
                                const Tensor& up, std::size_t n) = 0;
    // Dropout (cpu/dropout.h): mask (U8, n) = the draws of `stream`; when x is
    // present, x = x·mask/(1−p) in place.
    virtual void dropoutForward(At x, const Tensor& mask, std::size_t n, float p, std::uint64_t stream) = 0;
    // dst = src·mask/(1−p) (written, not added); dst may be src.
    virtual void dropoutBackward(const Tensor& dst, const Tensor& src, const Tensor& mask, std::size_t n,
                                 float p) = 0;
    // GELU, the tanh approximation when `tanh` (transformers "gelu_new").
    virtual void geluForward(const Tensor& out, const Tensor& inp, std::size_t n, bool tanh) = 0;
    virtual void geluBackward(const Tensor& dinp, const Tensor& dout, const Tensor& inp, std::size_t n,
                              bool tanh) = 0;

    // tanh (BERT's pooler, modeling_bert.py BertPooler); out may be inp. The
    // backward reads the forward's output: dinp += dout·(1 − out²).
    virtual void tanhForward(const Tensor& out, const Tensor& inp, std::size_t n) = 0;
    virtual void tanhBackward(const Tensor& dinp, const Tensor& dout, const Tensor& out, std::size_t n) = 0;
    // out (rows, C) += row (C) on every row; drow (C) += the column sums of
    // dout (rows, C) (cpu/rowbroadcast.h: BERT's token type embedding).
    virtual void addRowToRows(const Tensor& out, At row, std::size_t rows, std::size_t C) = 0;
    virtual void sumRowsInto(At drow, const Tensor& dout, std::size_t rows, std::size_t C) = 0;

    // LoRA on one linear (PEFT LoraLayer: y = base(x) + scale·B(A(x))); A (r, in)
    // and B (out, r) fp32. saved (rows, r) = scale · x Aᵀ; then y += saved Bᵀ
    // when y is present (a recompute that only needs `saved` passes none).
    virtual void loraForward(const Tensor& saved, At y, const Tensor& x, const Tensor& A, const Tensor& B,
                             std::size_t rows, std::size_t in, std::size_t r, std::size_t out, float scale) = 0;
    // dB += dyᵀ saved; dSaved = dy B into `dSaved` (rows, r, zeroed), then
    // dA += scale · dSavedᵀ x and dx += scale · dSaved A.
    virtual void loraBackward(const Tensor& dx, const Tensor& dA, const Tensor& dB, const Tensor& dy,
                              const Tensor& x, const Tensor& saved, const Tensor& A, const Tensor& B,
                              const Tensor& dSaved, std::size_t rows, std::size_t in, std::size_t r, std::size_t out,
                              float scale) = 0;

    // Cross-entropy over `rows` rows of logits (rows, V) against targets
    // (I32): lse (rows) fp32 saved, the mean loss returned (it waits for the
    // device). Backward: dlogits += dloss/rows · (softmax − onehot).
    virtual double crossEntropyForward(At lse, At logits, At targets, std::size_t rows, std::size_t V) = 0;
    virtual void crossEntropyBackward(At dlogits, At logits, At lse, At targets, std::size_t rows, std::size_t V,
                                      double dloss) = 0;

    // QLoRA: NF4 codes (two per byte) with an fp32 absmax per block of 64 into
    // out (its dtype); with double quantization the absmax is 8-bit codes,
    // an fp32 absmax per 256 of them and one fp32 offset (QLoRA §2-3).
    virtual void nf4Dequantize(const Tensor& out, const Tensor& packed, const Tensor& absmax, std::size_t n) = 0;
    virtual void nf4DequantizeDouble(const Tensor& out, const Tensor& packed, const Tensor& absmaxCodes,
                                     const Tensor& absmax2, const Tensor& offset, std::size_t n) = 0;

    // --- optimizers: param and grad in the master dtype, state as allocated
    virtual void sgdStep(const Tensor& param, const Tensor& grad, At momentum, std::int64_t step,
                         const cpu::SgdConfig& config) = 0;
    virtual void adamwStep(const Tensor& param, const Tensor& grad, const Tensor& expAvg, const Tensor& expAvgSq,
                           std::int64_t step, const cpu::AdamWConfig& config) = 0;
    // bitsandbytes blockwise 8-bit AdamW: two U8 code tensors (n) and two
    // fp32 absmax tensors (one per block of 256).
    virtual void adamw8bitInit(const Tensor& expAvgCodes, const Tensor& expAvgAbsmax, const Tensor& expAvgSqCodes,
                               const Tensor& expAvgSqAbsmax) = 0;
    virtual void adamw8bitStep(const Tensor& param, const Tensor& grad, const Tensor& expAvgCodes,
                               const Tensor& expAvgAbsmax, const Tensor& expAvgSqCodes, const Tensor& expAvgSqAbsmax,
                               std::int64_t step, const cpu::AdamWConfig& config) = 0;
    virtual void lionStep(const Tensor& param, const Tensor& grad, const Tensor& expAvg,
                          const cpu::LionConfig& config) = 0;
    virtual void adafactorStepFactored(const Tensor& param, const Tensor& grad, std::size_t rows, std::size_t cols,
                                       const Tensor& rowState, const Tensor& colState, std::int64_t step,
                                       const cpu::AdafactorConfig& config) = 0;
    virtual void adafactorStepUnfactored(const Tensor& param, const Tensor& grad, const Tensor& expAvgSq,
                                         std::int64_t step, const cpu::AdafactorConfig& config) = 0;
    // LOMO's update fused into backward: param -= lr·grad, grad zeroed.
    virtual void lomoUpdate(const Tensor& param, const Tensor& grad, const cpu::LomoConfig& config) = 0;

    // --- fp16 loss scaling (torch.amp.GradScaler) ---------------------------
    virtual void startLossScaling(const cpu::GradScaler::Config& config) = 0;
    virtual float lossScale() = 0;
    // grad (fp32) *= 1/scale; remembers whether any element was inf or NaN.
    virtual void unscale(const Tensor& grad) = 0;
    // After every gradient was unscaled: whether one overflowed (the step is
    // then skipped); updates the scale (_amp_update_scale_) and forgets.
    virtual bool finishUnscale() = 0;
};

// The reference kernels of runtime/cpu on host memory.
std::unique_ptr<Ops> makeCpuOps();

} // namespace headroom::rt
