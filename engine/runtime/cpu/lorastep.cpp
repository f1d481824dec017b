// SPDX-License-Identifier: GPL-3.0-or-later
// LoRA adapters on a frozen base (PEFT LoraLayer: y = base(x) + scale * B(A(x)),
// scale = alpha / rank) and the NF4 storage of a QLoRA base (QLoRA §2-3:
// blocks of 64, optional double quantization of the absmax in blocks of 256).
#include "runtime/cpu/trainerimpl.h"

#include "runtime/cpu/matmul.h"
#include "runtime/cpu/nf4.h"
#include "runtime/cpu/parallel.h"

namespace headroom::rt {

void CpuTrainer::Impl::quantizeWeight(Param& p, const std::vector<float>& values)
{
    const std::size_t n = p.numel();
    const std::size_t blocks = (n + cpu::kNf4BlockSize - 1) / cpu::kNf4BlockSize;
    p.qPacked = makeTensor(alloc, row::kWeightsLayer, Category::Weights, DType::U8, (n + 1) / 2);
    // The fp32 absmax of each block is kernel scratch when it is double-quantised.
    std::vector<float> absmax(blocks);
    cpu::nf4Quantize(p.qPacked.u8(), absmax.data(), values.data(), n);
    if (quant == WeightQuant::Nf4) {
        p.qAbsmax = makeTensor(alloc, row::kWeightsLayer, Category::Weights, DType::F32, blocks);
        std::copy(absmax.begin(), absmax.end(), p.qAbsmax.f32());
        return;
    }
    const std::size_t blocks2 = (blocks + cpu::kNf4AbsmaxBlockSize - 1) / cpu::kNf4AbsmaxBlockSize;
    p.qAbsmax = makeTensor(alloc, row::kWeightsLayer, Category::Weights, DType::U8, blocks);
    p.qAbsmax2 = makeTensor(alloc, row::kWeightsLayer, Category::Weights, DType::F32, blocks2);
    p.qOffset = makeTensor(alloc, row::kWeightsLayer, Category::Weights, DType::F32, 1);
    cpu::nf4DoubleQuantizeAbsmax(p.qAbsmax.u8(), p.qAbsmax2.f32(), p.qOffset.f32()[0], absmax.data(), blocks);
}

void CpuTrainer::Impl::dequantizeWeight(const Param& p, const Tensor& out) const
{
    const std::size_t n = p.numel();
    F32View y(out, F32View::Write);
    if (quant == WeightQuant::Nf4) {
        cpu::nf4Dequantize(y.data(), p.qPacked.u8(), p.qAbsmax.f32(), n);
        return;
    }
    std::vector<float> absmax(p.qAbsmax.numel); // kernel scratch, as in quantizeWeight
    cpu::nf4DoubleDequantizeAbsmax(absmax.data(), p.qAbsmax.u8(), p.qAbsmax2.f32(), p.qOffset.f32()[0], absmax.size());
    cpu::nf4Dequantize(y.data(), p.qPacked.u8(), absmax.data(), n);
}

void CpuTrainer::Impl::loraForward(std::size_t l, LayerParam p, const float* x, float* y, LayerSaves& s)
{
    if (!targeted(l, p))
        return;
    const Param& A = loraA[l][p];
    const Param& B = loraB[l][p];
    const std::size_t in = A.cols, out = B.rows, r = rank;
    {
        // Saved: scale * x A^T, so that y += saved B^T and dB = dy^T saved exactly.
        F32View a(s.loraOut[p], F32View::Write);
        cpu::matmulForward(a.data(), x, A.value.f32(), static_cast<const float*>(nullptr), d.N, in, r);
        for (std::size_t i = 0; i < d.N * r; ++i)
            a.data()[i] *= loraScale;
    }
    if (!y)
        return;
    F32View a(s.loraOut[p], F32View::Read);
    const float* b = B.value.f32();
    cpu::parallelFor(d.N, out * r, [&](std::size_t n) {
        for (std::size_t o = 0; o < out; ++o) {
            double acc = 0;
            for (std::size_t k = 0; k < r; ++k)
                acc += double(a.data()[n * r + k]) * double(b[o * r + k]);
            y[n * out + o] = static_cast<float>(double(y[n * out + o]) + acc);
        }
    });
}

void CpuTrainer::Impl::loraBackward(std::size_t l, LayerParam p, const float* dy, const float* x, float* dx,
                                    const LayerSaves& s)
{
    if (!targeted(l, p))
        return;
    Param& A = loraA[l][p];
    Param& B = loraB[l][p];
    const std::size_t in = A.cols, out = B.rows, r = rank;
    Tensor dA = makeTensor(alloc, row::kLayerBwd, Category::Temporaries, prec.act, d.N * r);
    F32View da(dA, F32View::ReadWrite), a(s.loraOut[p], F32View::Read);
    // d(saved) = dy B and dB = dy^T saved; then d(x A^T) = scale * d(saved).
    cpu::matmulBackward(da.data(), B.grad.f32(), static_cast<float*>(nullptr), dy, a.data(), B.value.f32(), d.N, r, out);
    for (std::size_t i = 0; i < d.N * r; ++i)
        da.data()[i] *= loraScale;
    cpu::matmulBackward(dx, A.grad.f32(), static_cast<float*>(nullptr), da.data(), x, A.value.f32(), d.N, in, r);
}

} // namespace headroom::rt
