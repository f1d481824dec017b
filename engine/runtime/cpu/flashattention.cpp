// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtime/cpu/flashattention.h"

#include "runtime/cpu/dropoutrng.h"
#include "runtime/cpu/parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace headroom::cpu {

namespace {

void checkKeyTile(std::size_t keyTile)
{
    if (keyTile == 0)
        throw std::invalid_argument("attention: the key tile must be positive");
}

} // namespace

template <typename Real>
void flashAttentionForward(Real* out, Real* lse, const Real* q, const Real* k, const Real* v,
                           const AttentionShape& shape, double scale, std::size_t keyTile)
{
    checkAttentionShape(shape);
    checkKeyTile(keyTile);
    const std::size_t B = shape.B, T = shape.T, NH = shape.NH, NKV = shape.NKV, HD = shape.HD;
    const std::size_t group = NH / NKV;
    const bool dropout = shape.dropout > 0;
    const std::uint32_t threshold = dropoutThreshold(shape.dropout);
    const double keepScale = dropoutScale(shape.dropout);
    parallelForRanges(B * NH * T, T * HD * 2, [&](std::size_t begin, std::size_t end) {
        std::vector<double> tileScores(keyTile);
        std::vector<double> acc(HD);
        for (std::size_t row = begin; row < end; ++row) {
            const std::size_t t = row % T;
            const std::size_t h = (row / T) % NH;
            const std::size_t b = row / (T * NH);
            const std::size_t kvh = h / group;
            const Real* qt = q + ((b * T + t) * NH + h) * HD;
            double runningMax = -std::numeric_limits<double>::infinity();
            double runningSum = 0.0; // sum of exp(score − runningMax) so far
            std::fill(acc.begin(), acc.end(), 0.0); // sum of exp(score − runningMax)·v so far
            const std::size_t keys = keyEnd(shape, t); // causal: keys s <= t; an encoder's: all
            for (std::size_t s0 = 0; s0 < keys; s0 += keyTile) {
                const std::size_t s1 = std::min(s0 + keyTile, keys);
                double tileMax = -std::numeric_limits<double>::infinity();
                for (std::size_t s = s0; s < s1; ++s) {
                    const Real* ks = k + ((b * T + s) * NKV + kvh) * HD;
                    double dot = 0.0;
                    for (std::size_t i = 0; i < HD; ++i)
                        dot += double(qt[i]) * double(ks[i]);
                    tileScores[s - s0] = dot * scale;
                    tileMax = std::max(tileMax, tileScores[s - s0]);
                }
                const double newMax = std::max(runningMax, tileMax);
                // exp(−inf) = 0 on the first tile: nothing summed yet to rescale.
                const double rescale = std::exp(runningMax - newMax);
                runningSum *= rescale;
                for (std::size_t i = 0; i < HD; ++i)
                    acc[i] *= rescale;
                for (std::size_t s = s0; s < s1; ++s) {
                    double e = std::exp(tileScores[s - s0] - newMax);
                    runningSum += e; // the normaliser counts every key, dropped or not
                    if (dropout)
                        e = dropoutKeep(shape.dropoutStream, ((b * NH + h) * T + t) * T + s, threshold) ? e * keepScale
                                                                                                       : 0.0;
                    const Real* vs = v + ((b * T + s) * NKV + kvh) * HD;
                    for (std::size_t i = 0; i < HD; ++i)
                        acc[i] += e * double(vs[i]);
                }
                runningMax = newMax;
            }
            Real* o = out + ((b * T + t) * NH + h) * HD;
            for (std::size_t i = 0; i < HD; ++i)
                o[i] = static_cast<Real>(acc[i] / runningSum);
            lse[(b * NH + h) * T + t] = static_cast<Real>(runningMax + std::log(runningSum));
        }
    });
}

template <typename Real>
void flashAttentionBackward(Real* dq, Real* dk, Real* dv, const Real* dout, const Real* out, const Real* lse,
                            const Real* q, const Real* k, const Real* v, const AttentionShape& shape, double scale,
                            std::size_t keyTile)
{
    checkAttentionShape(shape);
    checkKeyTile(keyTile);
    const std::size_t B = shape.B, T = shape.T, NH = shape.NH, NKV = shape.NKV, HD = shape.HD;
    const std::size_t group = NH / NKV;
    const bool dropout = shape.dropout > 0;
    const std::uint32_t threshold = dropoutThreshold(shape.dropout);
    const double keepScale = dropoutScale(shape.dropout);
    // One (b, KV head) per item, as attentionBackward: it owns dk, dv of that
    // head and dq of its query heads.
    parallelForRanges(B * NKV, group * T * T * HD * 4, [&](std::size_t begin, std::size_t end) {
        std::vector<double> rowDot(group * T);    // D[h,t] = dout_t·out_t
        std::vector<double> dqAcc(group * T * HD); // dq of the group, summed over key tiles
        std::vector<double> dkTile(keyTile * HD);
        std::vector<double> dvTile(keyTile * HD);
        for (std::size_t item = begin; item < end; ++item) {
            const std::size_t b = item / NKV;
            const std::size_t kvh = item % NKV;
            const std::size_t h0 = kvh * group;
            for (std::size_t g = 0; g < group; ++g) {
                for (std::size_t t = 0; t < T; ++t) {
                    const std::size_t offset = ((b * T + t) * NH + h0 + g) * HD;
                    double d = 0.0;
                    for (std::size_t i = 0; i < HD; ++i)
                        d += double(dout[offset + i]) * double(out[offset + i]);
                    rowDot[g * T + t] = d;
                }
            }
            std::fill(dqAcc.begin(), dqAcc.end(), 0.0);
            for (std::size_t s0 = 0; s0 < T; s0 += keyTile) {
                const std::size_t s1 = std::min(s0 + keyTile, T);
                std::fill(dkTile.begin(), dkTile.end(), 0.0);
                std::fill(dvTile.begin(), dvTile.end(), 0.0);
                for (std::size_t g = 0; g < group; ++g) {
                    const std::size_t h = h0 + g;
                    // Causal: rows t >= s0 see this tile; an encoder's every row.
                    for (std::size_t t = shape.causal ? s0 : 0; t < T; ++t) {
                        const Real* qt = q + ((b * T + t) * NH + h) * HD;
                        const Real* dy = dout + ((b * T + t) * NH + h) * HD;
                        const double rowLse = lse[(b * NH + h) * T + t];
                        const double D = rowDot[g * T + t];
                        double* dqt = dqAcc.data() + (g * T + t) * HD;
                        for (std::size_t s = s0; s < std::min(s1, keyEnd(shape, t)); ++s) {
                            const Real* ks = k + ((b * T + s) * NKV + kvh) * HD;
                            const Real* vs = v + ((b * T + s) * NKV + kvh) * HD;
                            double score = 0.0;
                            double dp = 0.0;
                            for (std::size_t i = 0; i < HD; ++i) {
                                score += double(qt[i]) * double(ks[i]);
                                dp += double(dy[i]) * double(vs[i]);
                            }
                            const double p = std::exp(score * scale - rowLse);
                            double pv = p; // the weight the forward gave v_s
                            if (dropout) {
                                const bool keep = dropoutKeep(shape.dropoutStream, ((b * NH + h) * T + t) * T + s,
                                                              threshold);
                                pv = keep ? p * keepScale : 0.0;
                                dp = keep ? dp * keepScale : 0.0;
                            }
                            const double ds = p * (dp - D) * scale;
                            double* dks = dkTile.data() + (s - s0) * HD;
                            double* dvs = dvTile.data() + (s - s0) * HD;
                            for (std::size_t i = 0; i < HD; ++i) {
                                dvs[i] += pv * double(dy[i]);
                                dqt[i] += ds * double(ks[i]);
                                dks[i] += ds * double(qt[i]);
                            }
                        }
                    }
                }
                for (std::size_t s = s0; s < s1; ++s) {
                    Real* dks = dk + ((b * T + s) * NKV + kvh) * HD;
                    Real* dvs = dv + ((b * T + s) * NKV + kvh) * HD;
                    for (std::size_t i = 0; i < HD; ++i) {
                        dks[i] = static_cast<Real>(double(dks[i]) + dkTile[(s - s0) * HD + i]);
                        dvs[i] = static_cast<Real>(double(dvs[i]) + dvTile[(s - s0) * HD + i]);
                    }
                }
            }
            for (std::size_t g = 0; g < group; ++g) {
                for (std::size_t t = 0; t < T; ++t) {
                    Real* dqt = dq + ((b * T + t) * NH + h0 + g) * HD;
                    for (std::size_t i = 0; i < HD; ++i)
                        dqt[i] = static_cast<Real>(double(dqt[i]) + dqAcc[(g * T + t) * HD + i]);
                }
            }
        }
    });
}

template void flashAttentionForward<float>(float*, float*, const float*, const float*, const float*,
                                           const AttentionShape&, double, std::size_t);
template void flashAttentionForward<double>(double*, double*, const double*, const double*, const double*,
                                            const AttentionShape&, double, std::size_t);
template void flashAttentionBackward<float>(float*, float*, float*, const float*, const float*, const float*,
                                            const float*, const float*, const float*, const AttentionShape&, double,
                                            std::size_t);
template void flashAttentionBackward<double>(double*, double*, double*, const double*, const double*,
                                             const double*, const double*, const double*, const double*,
                                             const AttentionShape&, double, std::size_t);

} // namespace headroom::cpu
