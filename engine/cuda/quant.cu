// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuda/contextimpl.cuh"
#include "cuda/quant.h"
#include "cuda/tables.h"

namespace headroom::cuda {

namespace {

using detail::store;

template <typename T>
__global__ void nf4DequantizeKernel(T* out, const std::uint8_t* packed, const float* absmax,
                                    const std::uint8_t* absmaxCodes, const float* absmax2, float offset,
                                    std::size_t absmaxBlockSize, std::size_t n, std::size_t blockSize,
                                    const float* tables)
{
    const float* nf4 = tables + kNf4Offset;
    const float* signedMap = tables + kSignedMapOffset;
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const std::uint8_t byte = packed[i / 2];
        const unsigned index = (i % 2 == 0) ? (byte >> 4) : (byte & 0x0Fu);
        const std::size_t block = i / blockSize;
        const float scale = absmaxCodes ? signedMap[absmaxCodes[block]] * absmax2[block / absmaxBlockSize] + offset
                                        : absmax[block];
        out[i] = store<T>(nf4[index] * scale);
    }
}

__global__ void dequantizeBlockwiseKernel(float* out, const std::uint8_t* codes, const float* absmax, std::size_t n,
                                          std::size_t blockSize, const float* map)
{
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x)
        out[i] = map[codes[i]] * absmax[i / blockSize];
}

Status launchNf4(Context& context, DType dtype, void* out, const std::uint8_t* packed, const float* absmax,
                 const Nf4DoubleQuant* quant, std::size_t n, std::size_t blockSize)
{
    if (n == 0 || blockSize == 0 || (quant && quant->absmaxBlockSize == 0))
        return detail::invalid("NF4: sizes must be positive");
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using E = decltype(tag);
        nf4DequantizeKernel<E><<<detail::gridFor(n), 256, 0, streamOf(context)>>>(
            static_cast<E*>(out), packed, absmax, quant ? quant->absmaxCodes : nullptr,
            quant ? quant->absmax2 : nullptr, quant ? quant->offset : 0.0f, quant ? quant->absmaxBlockSize : 1, n,
            blockSize, context.impl().tables);
        HR_LAUNCHED();
        return {};
    });
}

} // namespace

Status nf4Dequantize(Context& context, DType dtype, void* out, const std::uint8_t* packed, const float* absmax,
                     std::size_t n, std::size_t blockSize)
{
    return launchNf4(context, dtype, out, packed, absmax, nullptr, n, blockSize);
}

Status nf4DequantizeDouble(Context& context, DType dtype, void* out, const std::uint8_t* packed,
                           const Nf4DoubleQuant& quant, std::size_t n, std::size_t blockSize)
{
    return launchNf4(context, dtype, out, packed, nullptr, &quant, n, blockSize);
}

Status dequantizeBlockwise(Context& context, float* out, const std::uint8_t* codes, const float* absmax,
                           std::size_t n, bool signedMap, std::size_t blockSize)
{
    if (n == 0 || blockSize == 0)
        return detail::invalid("blockwise dequantization: sizes must be positive");
    const float* map = context.impl().tables + (signedMap ? kSignedMapOffset : kUnsignedMapOffset);
    dequantizeBlockwiseKernel<<<detail::gridFor(n), 256, 0, streamOf(context)>>>(out, codes, absmax, n, blockSize,
                                                                                 map);
    HR_LAUNCHED();
    return {};
}

} // namespace headroom::cuda
