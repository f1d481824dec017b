// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtime/cpu/activations.h"

#include "runtime/cpu/parallel.h"

#include <cmath>
#include <numbers>

namespace headroom::cpu {

namespace {

constexpr std::size_t kWorkPerElement = 40; // an exp/erf/tanh and a few flops

double sigmoid(double x)
{
    return 1.0 / (1.0 + std::exp(-x));
}

double silu(double x)
{
    return x * sigmoid(x);
}

double siluDerivative(double x)
{
    const double s = sigmoid(x);
    return s * (1.0 + x * (1.0 - s));
}

double gelu(double x)
{
    return 0.5 * x * (1.0 + std::erf(x * (1.0 / std::numbers::sqrt2)));
}

double geluDerivative(double x)
{
    const double cdf = 0.5 * (1.0 + std::erf(x * (1.0 / std::numbers::sqrt2)));
    const double pdf = std::exp(-0.5 * x * x) * (std::numbers::inv_sqrtpi / std::numbers::sqrt2);
    return cdf + x * pdf;
}

constexpr double kSqrt2OverPi = std::numbers::sqrt2 * std::numbers::inv_sqrtpi; // √(2/π)
constexpr double kGeluTanhCubic = 0.044715;

double geluTanh(double x)
{
    const double u = kSqrt2OverPi * (x + kGeluTanhCubic * x * x * x);
    return 0.5 * x * (1.0 + std::tanh(u));
}

double geluTanhDerivative(double x)
{
    const double u = kSqrt2OverPi * (x + kGeluTanhCubic * x * x * x);
    const double th = std::tanh(u);
    const double du = kSqrt2OverPi * (1.0 + 3.0 * kGeluTanhCubic * x * x);
    return 0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * du;
}

template <typename Real, typename F>
void mapForward(Real* out, const Real* inp, std::size_t n, F f)
{
    parallelForRanges(n, kWorkPerElement, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            out[i] = static_cast<Real>(f(double(inp[i])));
    });
}

template <typename Real, typename F>
void mapBackward(Real* dinp, const Real* dout, const Real* inp, std::size_t n, F derivative)
{
    parallelForRanges(n, kWorkPerElement, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            dinp[i] = static_cast<Real>(double(dinp[i]) + double(dout[i]) * derivative(double(inp[i])));
    });
}

} // namespace

template <typename Real>
void siluForward(Real* out, const Real* inp, std::size_t n)
{
    mapForward(out, inp, n, silu);
}

template <typename Real>
void siluBackward(Real* dinp, const Real* dout, const Real* inp, std::size_t n)
{
    mapBackward(dinp, dout, inp, n, siluDerivative);
}

template <typename Real>
void geluForward(Real* out, const Real* inp, std::size_t n)
{
    mapForward(out, inp, n, gelu);
}

template <typename Real>
void geluBackward(Real* dinp, const Real* dout, const Real* inp, std::size_t n)
{
    mapBackward(dinp, dout, inp, n, geluDerivative);
}

template <typename Real>
void geluTanhForward(Real* out, const Real* inp, std::size_t n)
{
    mapForward(out, inp, n, geluTanh);
}

template <typename Real>
void geluTanhBackward(Real* dinp, const Real* dout, const Real* inp, std::size_t n)
{
    mapBackward(dinp, dout, inp, n, geluTanhDerivative);
}

template <typename Real>
void tanhForward(Real* out, const Real* inp, std::size_t n)
{
    mapForward(out, inp, n, [](double x) { return std::tanh(x); });
}

template <typename Real>
void tanhBackward(Real* dinp, const Real* dout, const Real* out, std::size_t n)
{
    // mapBackward's derivative is a function of its third array: here the output y, d tanh = 1 − y².
    mapBackward(dinp, dout, out, n, [](double y) { return 1.0 - y * y; });
}

template <typename Real>
void swigluForward(Real* out, const Real* gate, const Real* up, std::size_t n)
{
    parallelForRanges(n, kWorkPerElement, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            out[i] = static_cast<Real>(silu(double(gate[i])) * double(up[i]));
    });
}

template <typename Real>
void swigluBackward(Real* dgate, Real* dup, const Real* dout, const Real* gate, const Real* up, std::size_t n)
{
    parallelForRanges(n, kWorkPerElement, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const double g = gate[i];
            const double dy = dout[i];
            if (dgate)
                dgate[i] = static_cast<Real>(double(dgate[i]) + dy * double(up[i]) * siluDerivative(g));
            if (dup)
                dup[i] = static_cast<Real>(double(dup[i]) + dy * silu(g));
        }
    });
}

#define HEADROOM_INSTANTIATE_ACTIVATIONS(Real)                                                                     \
    template void siluForward<Real>(Real*, const Real*, std::size_t);                                              \
    template void siluBackward<Real>(Real*, const Real*, const Real*, std::size_t);                                \
    template void geluForward<Real>(Real*, const Real*, std::size_t);                                              \
    template void geluBackward<Real>(Real*, const Real*, const Real*, std::size_t);                                \
    template void geluTanhForward<Real>(Real*, const Real*, std::size_t);                                          \
    template void geluTanhBackward<Real>(Real*, const Real*, const Real*, std::size_t);                            \
    template void tanhForward<Real>(Real*, const Real*, std::size_t);                                              \
    template void tanhBackward<Real>(Real*, const Real*, const Real*, std::size_t);                                \
    template void swigluForward<Real>(Real*, const Real*, const Real*, std::size_t);                               \
    template void swigluBackward<Real>(Real*, Real*, const Real*, const Real*, const Real*, std::size_t);

HEADROOM_INSTANTIATE_ACTIVATIONS(float)
HEADROOM_INSTANTIATE_ACTIVATIONS(double)
#undef HEADROOM_INSTANTIATE_ACTIVATIONS

} // namespace headroom::cpu
