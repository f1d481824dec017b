// SPDX-License-Identifier: GPL-3.0-or-later
// LoRA adapters on a frozen base (PEFT LoraLayer: y = base(x) + scale * B(A(x)),
// scale = alpha / rank) and the NF4 storage of a QLoRA base (QLoRA §2-3:
// blocks of 64, optional double quantization of the absmax in blocks of 256).
#include "runtime/step/trainerimpl.h"

#include "runtime/cpu/nf4.h"

namespace headroom::rt {

void Trainer::Impl::quantizeWeight(Param& p, const std::vector<float>& values)
{
    const std::size_t n = p.numel();
    const std::size_t blocks = (n + cpu::kNf4BlockSize - 1) / cpu::kNf4BlockSize;
    p.qPacked = makeTensor(alloc, row::kWeightsLayer, Category::Weights, DType::U8, (n + 1) / 2);
    // Quantised on the host (as bitsandbytes quantises a checkpoint once at load), then uploaded.
    std::vector<std::uint8_t> packed((n + 1) / 2);
    std::vector<float> absmax(blocks);
    cpu::nf4Quantize(packed.data(), absmax.data(), values.data(), n);
    ops.uploadRaw(p.qPacked, packed.data(), packed.size());
    if (quant == WeightQuant::Nf4) {
        p.qAbsmax = makeTensor(alloc, row::kWeightsLayer, Category::Weights, DType::F32, blocks);
        ops.upload(p.qAbsmax, absmax);
        return;
    }
    const std::size_t blocks2 = (blocks + cpu::kNf4AbsmaxBlockSize - 1) / cpu::kNf4AbsmaxBlockSize;
    p.qAbsmax = makeTensor(alloc, row::kWeightsLayer, Category::Weights, DType::U8, blocks);
    p.qAbsmax2 = makeTensor(alloc, row::kWeightsLayer, Category::Weights, DType::F32, blocks2);
    p.qOffset = makeTensor(alloc, row::kWeightsLayer, Category::Weights, DType::F32, 1);
    std::vector<std::uint8_t> codes(blocks);
    std::vector<float> absmax2(blocks2);
    float offset = 0.0f;
    cpu::nf4DoubleQuantizeAbsmax(codes.data(), absmax2.data(), offset, absmax.data(), blocks);
    ops.uploadRaw(p.qAbsmax, codes.data(), codes.size());
    ops.upload(p.qAbsmax2, absmax2);
    ops.upload(p.qOffset, std::span<const float>(&offset, 1));
}

void Trainer::Impl::dequantizeWeight(const Param& p, const Tensor& out) const
{
    if (quant == WeightQuant::Nf4)
        ops.nf4Dequantize(out, p.qPacked, p.qAbsmax, p.numel());
    else
        ops.nf4DequantizeDouble(out, p.qPacked, p.qAbsmax, p.qAbsmax2, p.qOffset, p.numel());
}

void Trainer::Impl::loraForward(std::size_t l, LayerParam p, const Tensor& x, At y, LayerSaves& s)
{
    if (!targeted(l, p))
        return;
    const Param& A = loraA[l][p];
    const Param& B = loraB[l][p];
    ops.loraForward(s.loraOut[p], y, x, A.value, B.value, d.N, A.cols, rank, B.rows, loraScale);
}

void Trainer::Impl::loraBackward(std::size_t l, LayerParam p, const Tensor& dy, const Tensor& x, const Tensor& dx,
                                 const LayerSaves& s)
{
    if (!targeted(l, p))
        return;
    Param& A = loraA[l][p];
    Param& B = loraB[l][p];
    Tensor dSaved = makeTensor(alloc, row::kLayerBwd, Category::Temporaries, prec.act, d.N * rank);
    ops.loraBackward(dx, A.grad, B.grad, dy, x, s.loraOut[p], A.value, B.value, dSaved, d.N, A.cols, rank, B.rows,
                     loraScale);
}

} // namespace headroom::rt
