// SPDX-License-Identifier: GPL-3.0-or-later
// Chunked cross-entropy: the lm_head and the loss run over `loss_chunks`
// slices of the tokens, so only one slice of logits (and of their gradient)
// exists at a time (torchtune's CEWithChunkedOutputLoss bounds the same
// tensors; here the head matmul is chunked too). The forward keeps only the
// fp32 log-sum-exp per token; the backward recomputes each slice's logits and
// runs the head's backward for that slice at once.
#include "runtime/step/trainerimpl.h"

#include <algorithm>

namespace headroom::rt {

namespace {

// Slice c of N rows in `chunks` slices, sizes N/chunks or one more (as
// crossentropy.cpp splits its chunks).
std::size_t chunkBegin(std::size_t N, std::size_t chunks, std::size_t c)
{
    return N / chunks * c + std::min(c, N % chunks);
}

} // namespace

double Trainer::Impl::chunkedLossForward()
{
    const std::size_t chunks = scenario.train.lossChunks;
    const std::size_t rows = (d.N + chunks - 1) / chunks; // the largest slice
    makeHeadCopy();
    lossLse = makeTensor(alloc, row::kLossLse, Category::Logits, DType::F32, d.N);
    Tensor slice = makeTensor(alloc, row::kChunkLogits, Category::Logits, prec.act, rows * d.V);
    double sum = 0;
    for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t b = chunkBegin(d.N, chunks, c), n = chunkBegin(d.N, chunks, c + 1) - b;
        if (n == 0)
            continue;
        ops.matmulForward(slice, At(finalOut, b * d.C), headWeight(), At{}, n, d.C, d.V);
        // Every target is a real next token (no ignore index): the slice mean times its size is its sum.
        sum += ops.crossEntropyForward(At(lossLse, b), slice, At(targets, b), n, d.V) * double(n);
    }
    slice.release();
    headCopy.release();
    return sum / double(d.N);
}

void Trainer::Impl::chunkedLossBackward(double dloss)
{
    const std::size_t chunks = scenario.train.lossChunks;
    const std::size_t rows = (d.N + chunks - 1) / chunks;
    if (accum == 1)
        allocateGrads(Phase::HeadBwd, 0); // the lm_head's gradient is written here
    makeHeadCopy();
    headGradIn = makeTensor(alloc, row::kHeadGradIn, Category::Temporaries, prec.act, d.N * d.C);
    Tensor slice = makeTensor(alloc, row::kChunkLogits, Category::Logits, prec.act, rows * d.V);
    Tensor sliceGrad = makeTensor(alloc, row::kChunkGrad, Category::Logits, prec.act, rows * d.V);
    for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t b = chunkBegin(d.N, chunks, c), n = chunkBegin(d.N, chunks, c + 1) - b;
        if (n == 0)
            continue;
        ops.matmulForward(slice, At(finalOut, b * d.C), headWeight(), At{}, n, d.C, d.V);
        ops.zero(sliceGrad, n * d.V);
        // The mean over all tokens: this slice's share is n / N of dloss.
        ops.crossEntropyBackward(sliceGrad, slice, At(lossLse, b), At(targets, b), n, d.V,
                                 dloss * double(n) / double(d.N));
        ops.matmulBackward(At(headGradIn, b * d.C), headGrad(), At{}, sliceGrad, At(finalOut, b * d.C), headWeight(), n,
                           d.C, d.V);
    }
    slice.release();
    sliceGrad.release();
    lossLse.release();
    headCopy.release();
}

} // namespace headroom::rt
