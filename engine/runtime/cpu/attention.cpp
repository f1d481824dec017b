// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtime/cpu/attention.h"

#include "runtime/cpu/dropoutrng.h"
#include "runtime/cpu/parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace headroom::cpu {

double defaultAttentionScale(std::size_t HD)
{
    return 1.0 / std::sqrt(double(HD));
}

void checkAttentionShape(const AttentionShape& shape)
{
    if (shape.B == 0 || shape.T == 0 || shape.NH == 0 || shape.NKV == 0 || shape.HD == 0)
        throw std::invalid_argument("attention: every size must be positive");
    if (shape.NH % shape.NKV != 0)
        throw std::invalid_argument("attention: the KV heads must divide the query heads");
}

namespace {

void checkDropoutBuffers(const AttentionShape& shape, const void* mask, const void* dropped)
{
    if (shape.dropout > 0 && (mask == nullptr || dropped == nullptr))
        throw std::invalid_argument("attention: dropout needs the mask and the dropped probabilities");
}

} // namespace

template <typename Real>
void attentionForward(Real* out, Real* att, const Real* q, const Real* k, const Real* v, const AttentionShape& shape,
                      double scale, std::uint8_t* mask, Real* dropped)
{
    checkAttentionShape(shape);
    checkDropoutBuffers(shape, mask, dropped);
    const bool dropout = shape.dropout > 0;
    const std::uint32_t threshold = dropoutThreshold(shape.dropout);
    const double keepScale = dropoutScale(shape.dropout);
    const std::size_t B = shape.B, T = shape.T, NH = shape.NH, NKV = shape.NKV, HD = shape.HD;
    const std::size_t group = NH / NKV;
    // One (b, h, t) query row per item.
    parallelForRanges(B * NH * T, T * HD * 2, [&](std::size_t begin, std::size_t end) {
        std::vector<double> scores(T);
        std::vector<double> acc(HD);
        for (std::size_t row = begin; row < end; ++row) {
            const std::size_t t = row % T;
            const std::size_t h = (row / T) % NH;
            const std::size_t b = row / (T * NH);
            const std::size_t kvh = h / group;
            const Real* qt = q + ((b * T + t) * NH + h) * HD;
            const std::size_t keys = keyEnd(shape, t);
            double maxScore = -std::numeric_limits<double>::infinity();
            for (std::size_t s = 0; s < keys; ++s) {
                const Real* ks = k + ((b * T + s) * NKV + kvh) * HD;
                double dot = 0.0;
                for (std::size_t i = 0; i < HD; ++i)
                    dot += double(qt[i]) * double(ks[i]);
                scores[s] = dot * scale;
                maxScore = std::max(maxScore, scores[s]);
            }
            double sum = 0.0;
            for (std::size_t s = 0; s < keys; ++s) {
                scores[s] = std::exp(scores[s] - maxScore);
                sum += scores[s];
            }
            const std::size_t rowStart = ((b * NH + h) * T + t) * T;
            Real* p = att + rowStart;
            std::fill(acc.begin(), acc.end(), 0.0);
            for (std::size_t s = 0; s < keys; ++s) {
                double prob = scores[s] / sum;
                p[s] = static_cast<Real>(prob);
                if (dropout) {
                    const bool keep = dropoutKeep(shape.dropoutStream, rowStart + s, threshold);
                    mask[rowStart + s] = keep ? 1 : 0;
                    prob = keep ? prob * keepScale : 0.0;
                    dropped[rowStart + s] = static_cast<Real>(prob);
                }
                const Real* vs = v + ((b * T + s) * NKV + kvh) * HD;
                for (std::size_t i = 0; i < HD; ++i)
                    acc[i] += prob * double(vs[i]);
            }
            for (std::size_t s = keys; s < T; ++s) {
                p[s] = Real(0);
                if (dropout) {
                    mask[rowStart + s] = 0;
                    dropped[rowStart + s] = Real(0);
                }
            }
            Real* o = out + ((b * T + t) * NH + h) * HD;
            for (std::size_t i = 0; i < HD; ++i)
                o[i] = static_cast<Real>(acc[i]);
        }
    });
}

template <typename Real>
void attentionBackward(Real* dq, Real* dk, Real* dv, const Real* dout, const Real* att, const Real* q, const Real* k,
                       const Real* v, const AttentionShape& shape, double scale, const std::uint8_t* mask,
                       const Real* dropped)
{
    checkAttentionShape(shape);
    checkDropoutBuffers(shape, mask, dropped);
    const bool dropout = shape.dropout > 0;
    const double keepScale = dropoutScale(shape.dropout);
    const std::size_t B = shape.B, T = shape.T, NH = shape.NH, NKV = shape.NKV, HD = shape.HD;
    const std::size_t group = NH / NKV;
    // One (b, KV head) per item: it owns dk and dv of that head (summed in
    // double over its query heads and rows, then added once) and dq of its
    // query heads, so threads never write the same element.
    parallelForRanges(B * NKV, group * T * T * HD * 4, [&](std::size_t begin, std::size_t end) {
        std::vector<double> dkAcc(T * HD);
        std::vector<double> dvAcc(T * HD);
        std::vector<double> dp(T);
        std::vector<double> dqAcc(HD);
        for (std::size_t item = begin; item < end; ++item) {
            const std::size_t b = item / NKV;
            const std::size_t kvh = item % NKV;
            std::fill(dkAcc.begin(), dkAcc.end(), 0.0);
            std::fill(dvAcc.begin(), dvAcc.end(), 0.0);
            for (std::size_t h = kvh * group; h < (kvh + 1) * group; ++h) {
                for (std::size_t t = 0; t < T; ++t) {
                    const std::size_t rowStart = ((b * NH + h) * T + t) * T;
                    const Real* p = att + rowStart;
                    // The value matmul read the dropped probabilities.
                    const Real* pv = dropout ? dropped + rowStart : p;
                    const Real* dy = dout + ((b * T + t) * NH + h) * HD;
                    const Real* qt = q + ((b * T + t) * NH + h) * HD;
                    const std::size_t keys = keyEnd(shape, t);
                    double pDotDp = 0.0;
                    for (std::size_t s = 0; s < keys; ++s) {
                        const Real* vs = v + ((b * T + s) * NKV + kvh) * HD;
                        double d = 0.0;
                        for (std::size_t i = 0; i < HD; ++i) {
                            d += double(dy[i]) * double(vs[i]);
                            dvAcc[s * HD + i] += double(pv[s]) * double(dy[i]);
                        }
                        if (dropout)
                            d = mask[rowStart + s] ? d * keepScale : 0.0;
                        dp[s] = d;
                        pDotDp += double(p[s]) * d;
                    }
                    std::fill(dqAcc.begin(), dqAcc.end(), 0.0);
                    for (std::size_t s = 0; s < keys; ++s) {
                        const double ds = double(p[s]) * (dp[s] - pDotDp) * scale;
                        const Real* ks = k + ((b * T + s) * NKV + kvh) * HD;
                        for (std::size_t i = 0; i < HD; ++i) {
                            dqAcc[i] += ds * double(ks[i]);
                            dkAcc[s * HD + i] += ds * double(qt[i]);
                        }
                    }
                    Real* dqt = dq + ((b * T + t) * NH + h) * HD;
                    for (std::size_t i = 0; i < HD; ++i)
                        dqt[i] = static_cast<Real>(double(dqt[i]) + dqAcc[i]);
                }
            }
            for (std::size_t s = 0; s < T; ++s) {
                Real* dks = dk + ((b * T + s) * NKV + kvh) * HD;
                Real* dvs = dv + ((b * T + s) * NKV + kvh) * HD;
                for (std::size_t i = 0; i < HD; ++i) {
                    dks[i] = static_cast<Real>(double(dks[i]) + dkAcc[s * HD + i]);
                    dvs[i] = static_cast<Real>(double(dvs[i]) + dvAcc[s * HD + i]);
                }
            }
        }
    });
}

template void attentionForward<float>(float*, float*, const float*, const float*, const float*,
                                      const AttentionShape&, double, std::uint8_t*, float*);
template void attentionForward<double>(double*, double*, const double*, const double*, const double*,
                                       const AttentionShape&, double, std::uint8_t*, double*);
template void attentionBackward<float>(float*, float*, float*, const float*, const float*, const float*,
                                       const float*, const float*, const AttentionShape&, double,
                                       const std::uint8_t*, const float*);
template void attentionBackward<double>(double*, double*, double*, const double*, const double*, const double*,
                                        const double*, const double*, const AttentionShape&, double,
                                        const std::uint8_t*, const double*);

} // namespace headroom::cpu
