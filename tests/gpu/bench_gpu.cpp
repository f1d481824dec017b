// SPDX-License-Identifier: GPL-3.0-or-later
// Speed of the CUDA engine's matrix products and attention at the shapes of a
// Llama 3.2 1B training step (hidden 2048, MLP 8192, 32 query / 8 KV heads of
// 64, vocabulary 128256; meta-llama/Llama-3.2-1B config.json), batch 1,
// sequence 2048, bf16. Not a test: scripts/gpu-check.sh runs it and stores the
// JSON it prints. The reference "peak" is the best throughput our gemm()
// reaches on a large square bf16 product (8192³), i.e. what cuBLASLt itself
// delivers on this device; each layer's product is reported as a fraction of it.
// Operands are zero-filled: tensor-core throughput does not depend on the
// values, but power draw (and so clocks) can, so read the numbers as an upper bound.
#include "cuda/attention.h"
#include "cuda/context.h"
#include "cuda/device.h"
#include "cuda/flashattentiontc.h"
#include "cuda/gemm.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace cu = headroom::cuda;

namespace {

// Median-free simple timing: warm up, then the mean of `repeats` runs, each
// synchronised (the host clock around a stream synchronise).
double secondsPer(cu::Context& context, const std::function<cu::Status()>& body, int repeats = 10)
{
    for (int i = 0; i < 2; ++i)
        if (!body().ok())
            return NAN;
    if (!context.synchronize().ok())
        return NAN;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < repeats; ++i)
        if (!body().ok())
            return NAN;
    if (!context.synchronize().ok())
        return NAN;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repeats;
}

// JSON has no NaN: a failed measurement is null.
std::string num(double value, int decimals = 2)
{
    if (!std::isfinite(value))
        return "null";
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

} // namespace

int main()
{
    const auto devices = cu::listDevices();
    if (!devices.ok()) {
        std::fprintf(stderr, "bench_gpu: %s\n", devices.status().message().c_str());
        return 77;
    }
    auto created = cu::Context::create(0);
    if (!created.ok()) {
        std::fprintf(stderr, "bench_gpu: %s\n", created.status().message().c_str());
        return 1;
    }
    cu::Context& cx = *created.value();
    const cu::DType dt = cu::DType::bf16;
    const std::size_t rows = 2048;
    struct Shape {
        const char* name;
        std::size_t C, OC;
    };
    const Shape shapes[] = {{"q_proj", 2048, 2048}, {"k_proj", 2048, 512},  {"o_proj", 2048, 2048},
                            {"gate_proj", 2048, 8192}, {"down_proj", 8192, 2048}, {"lm_head", 2048, 128256}};
    const std::size_t maxIn = 8192, maxOut = 128256;
    auto inp = cu::DeviceBuffer::zeros(rows * maxIn * 2), out = cu::DeviceBuffer::zeros(rows * maxOut * 2);
    auto weight = cu::DeviceBuffer::zeros(maxOut * 2048 * 2), dweight = cu::DeviceBuffer::zeros(maxOut * 2048 * 4);
    if (!inp.ok() || !out.ok() || !weight.ok() || !dweight.ok()) {
        std::fprintf(stderr, "bench_gpu: allocation failed\n");
        return 1;
    }
    // The reference: a square 8192³ bf16 GEMM.
    const std::size_t S = 8192;
    auto a = cu::DeviceBuffer::zeros(S * S * 2), b = cu::DeviceBuffer::zeros(S * S * 2),
         c = cu::DeviceBuffer::zeros(S * S * 2);
    double peak = NAN;
    if (a.ok() && b.ok() && c.ok()) {
        cu::GemmArgs g;
        g.M = g.N = g.K = static_cast<std::int64_t>(S);
        g.A = a.value().data(), g.lda = g.K;
        g.B = b.value().data(), g.ldb = g.N;
        g.C = c.value().data(), g.ldc = g.N;
        const double s = secondsPer(cx, [&] { return cu::gemm(cx, dt, dt, g); });
        peak = 2.0 * double(S) * double(S) * double(S) / s / 1e12;
    }
    std::printf("{\n  \"schema\": \"headroom.gpu-bench/1\",\n  \"device\": \"%s\",\n  \"dtype\": \"bf16\",\n",
                devices.value().front().name.c_str());
    std::printf("  \"square_8192_tflops\": %s,\n  \"linear\": [\n", num(peak).c_str());
    bool first = true;
    for (const Shape& sh : shapes) {
        const double flops = 2.0 * double(rows) * double(sh.C) * double(sh.OC);
        const double fwd = secondsPer(cx, [&] {
            return cu::linearForward(cx, dt, out.value().data(), inp.value().data(), weight.value().data(), nullptr,
                                     rows, sh.C, sh.OC);
        });
        const double bwd = secondsPer(cx, [&] {
            return cu::linearBackward(cx, dt, inp.value().data(), dweight.value().as<float>(), nullptr,
                                      out.value().data(), inp.value().data(), weight.value().data(), rows, sh.C,
                                      sh.OC);
        });
        std::printf("%s    {\"name\": \"%s\", \"rows\": %zu, \"in\": %zu, \"out\": %zu, \"forward_tflops\": %s, "
                    "\"backward_tflops\": %s, \"forward_of_peak\": %s, \"backward_of_peak\": %s}",
                    first ? "" : ",\n", sh.name, rows, sh.C, sh.OC, num(flops / fwd / 1e12).c_str(),
                    num(2 * flops / bwd / 1e12).c_str(), num(flops / fwd / 1e12 / peak, 3).c_str(),
                    num(2 * flops / bwd / 1e12 / peak, 3).c_str());
        first = false;
    }
    std::printf("\n  ],\n");
    // Attention of one layer: B 1, T 2048, 32 heads, 8 KV heads, HD 64.
    const cu::AttentionDims dims{1, 2048, 32, 8, 64};
    const std::size_t nq = 2048 * 32 * 64, nkv = 2048 * 8 * 64, natt = 32ull * 2048 * 2048;
    auto q = cu::DeviceBuffer::zeros(nq * 2), k = cu::DeviceBuffer::zeros(nkv * 2), v = cu::DeviceBuffer::zeros(nkv * 2);
    auto o = cu::DeviceBuffer::zeros(nq * 2), dq = cu::DeviceBuffer::zeros(nq * 2), dk = cu::DeviceBuffer::zeros(nkv * 2);
    auto dv = cu::DeviceBuffer::zeros(nkv * 2), lse = cu::DeviceBuffer::zeros(32 * 2048 * 4);
    auto delta = cu::DeviceBuffer::zeros(32 * 2048 * 4), att = cu::DeviceBuffer::zeros(natt * 2),
         datt = cu::DeviceBuffer::zeros(natt * 2);
    const float scale = 0.125f;
    const double flashFwd = secondsPer(cx, [&] {
        return cu::flashAttentionForward(cx, dt, o.value().data(), lse.value().as<float>(), q.value().data(),
                                         k.value().data(), v.value().data(), dims, scale);
    });
    // The tensor-core forward (flashattentiontc.cu) on the same shape;
    // fused_forward above is the kernel the environment selects (tensor cores
    // by default, HEADROOM_FUSED_ATTENTION=fma the fp32 one),
    // fused_forward_fma the fp32 one always.
    const bool tcEligible = cu::flashAttentionTensorCoreEligible(cx, dt, dims);
    cu::setFusedAttentionKernelForTests(cu::FusedAttentionKernel::fma);
    const double flashFwdFma = secondsPer(cx, [&] {
        return cu::flashAttentionForward(cx, dt, o.value().data(), lse.value().as<float>(), q.value().data(),
                                         k.value().data(), v.value().data(), dims, scale);
    });
    cu::setFusedAttentionKernelForTests(cu::FusedAttentionKernel::tensorCores);
    const double flashFwdTc = !tcEligible ? NAN : secondsPer(cx, [&] {
        return cu::flashAttentionForward(cx, dt, o.value().data(), lse.value().as<float>(), q.value().data(),
                                         k.value().data(), v.value().data(), dims, scale);
    });
    cu::setFusedAttentionKernelForTests(cu::FusedAttentionKernel::fromEnvironment);
    const double flashBwd = secondsPer(cx, [&] {
        return cu::flashAttentionBackward(cx, dt, dq.value().data(), dk.value().data(), dv.value().data(),
                                          delta.value().as<float>(), o.value().data(), o.value().data(),
                                          lse.value().as<float>(), q.value().data(), k.value().data(),
                                          v.value().data(), dims, scale);
    });
    // Both fused backwards on the same shape: fused_backward above is the
    // one the environment selects (the WMMA one by default,
    // HEADROOM_FUSED_ATTENTION_BACKWARD=fma the fp32 one), fused_backward_fma
    // the fp32 one always, fused_backward_tc the WMMA one
    // (flashattentiontcbackward.cu; null where not eligible).
    const auto fusedBackward = [&] {
        return cu::flashAttentionBackward(cx, dt, dq.value().data(), dk.value().data(), dv.value().data(),
                                          delta.value().as<float>(), o.value().data(), o.value().data(),
                                          lse.value().as<float>(), q.value().data(), k.value().data(),
                                          v.value().data(), dims, scale);
    };
    cu::setFusedAttentionBackwardKernelForTests(cu::FusedAttentionKernel::fma);
    const double flashBwdFma = secondsPer(cx, fusedBackward);
    cu::setFusedAttentionBackwardKernelForTests(cu::FusedAttentionKernel::tensorCores);
    const double flashBwdTc = !tcEligible ? NAN : secondsPer(cx, fusedBackward);
    cu::setFusedAttentionBackwardKernelForTests(cu::FusedAttentionKernel::fromEnvironment);
    const double eagerFwd = secondsPer(cx, [&] {
        return cu::eagerAttentionForward(cx, dt, o.value().data(), att.value().data(), q.value().data(),
                                         k.value().data(), v.value().data(), dims, scale);
    });
    const double eagerBwd = secondsPer(cx, [&] {
        return cu::eagerAttentionBackward(cx, dt, dq.value().data(), dk.value().data(), dv.value().data(),
                                          datt.value().data(), o.value().data(), att.value().data(), q.value().data(),
                                          k.value().data(), v.value().data(), dims, scale);
    });
    std::printf("  \"attention_b1_t2048_h32_kv8_hd64_ms\": {\"fused_forward\": %s, \"fused_forward_fma\": %s, "
                "\"fused_forward_tc\": %s, \"fused_backward\": %s, \"fused_backward_fma\": %s, "
                "\"fused_backward_tc\": %s, \"eager_forward\": %s, \"eager_backward\": %s}\n}\n",
                num(flashFwd * 1e3, 3).c_str(), num(flashFwdFma * 1e3, 3).c_str(), num(flashFwdTc * 1e3, 3).c_str(),
                num(flashBwd * 1e3, 3).c_str(), num(flashBwdFma * 1e3, 3).c_str(), num(flashBwdTc * 1e3, 3).c_str(),
                num(eagerFwd * 1e3, 3).c_str(), num(eagerBwd * 1e3, 3).c_str());
    return 0;
}
