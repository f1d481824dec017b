// SPDX-License-Identifier: GPL-3.0-or-later
// Every elementwise, norm, embedding, RoPE, GEMM and cross-entropy kernel of
// engine/cuda against the CPU reference (engine/runtime/cpu, evaluated in
// double) on fresh random inputs, for fp32, bf16 and fp16 storage. Inputs are
// rounded to the dtype first, so both sides see the same numbers; the
// tolerance (gpu_test.h) covers the GPU's fp32 arithmetic and its one
// rounding of each output to the dtype.
#include "gpu_test.h"

#include "cuda/crossentropy.h"
#include "cuda/elementwise.h"
#include "cuda/embedding.h"
#include "cuda/gemm.h"
#include "cuda/norms.h"
#include "cuda/rope.h"

#include "runtime/cpu/activations.h"
#include "runtime/cpu/crossentropy.h"
#include "runtime/cpu/embedding.h"
#include "runtime/cpu/layernorm.h"
#include "runtime/cpu/matmul.h"
#include "runtime/cpu/rmsnorm.h"
#include "runtime/cpu/rope.h"

namespace cu = headroom::cuda;
namespace cpu = headroom::cpu;
using gpu_test::DType;
using gpu_test::label;
using gpu_test::narrow;
using gpu_test::tolerance;
using gpu_test::wide;

namespace {


void testCasts(gpu_test::Suite& s)
{
    // fp32 values across many binades, including fp16 subnormals and overflow.
    std::vector<float> values = s.random(4096, -4.0f, 4.0f);
    for (std::size_t i = 0; i < values.size(); i += 7)
        values[i] = std::ldexp(values[i], static_cast<int>(i % 40) - 28);
    values.push_back(70000.0f);
    values.push_back(-1e-8f);
    const std::size_t n = values.size();
    for (DType to : gpu_test::allTypes()) {
        auto in = s.upload(values, DType::f32);
        auto out = s.zeros(n * cu::dtypeSize(to));
        s.ok(cu::castTensor(*s.context, out.data(), to, in.data(), DType::f32, n), label("cast", to));
        const std::vector<float> got = s.download(out, n, to);
        std::size_t mismatches = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const float expected = cu::roundToDType(values[i], to);
            if (!(got[i] == expected || (std::isnan(got[i]) && std::isnan(expected))))
                ++mismatches;
        }
        // The host rounding (dtype.cpp) and the device intrinsics agree bit for bit.
        s.expect(mismatches == 0, label("cast fp32 -> dtype matches host rounding", to) + ": " +
                                      std::to_string(mismatches) + " mismatches");
    }
}

void testActivations(gpu_test::Suite& s)
{
    const std::size_t n = 5000;
    using Fwd = void (*)(double*, const double*, std::size_t);
    using Bwd = void (*)(double*, const double*, const double*, std::size_t);
    struct Case {
        cu::Activation act;
        const char* name;
        Fwd fwd;
        Bwd bwd;
    };
    const Case cases[] = {
        {cu::Activation::silu, "silu", cpu::siluForward<double>, cpu::siluBackward<double>},
        {cu::Activation::gelu, "gelu", cpu::geluForward<double>, cpu::geluBackward<double>},
        {cu::Activation::geluTanh, "gelu-tanh", cpu::geluTanhForward<double>, cpu::geluTanhBackward<double>},
    };
    for (DType dt : gpu_test::allTypes()) {
        for (const Case& c : cases) {
            const auto x = s.randomIn(n, dt, -5.0f, 5.0f), dout = s.randomIn(n, dt), dinp0 = s.randomIn(n, dt);
            auto dx = s.upload(x, dt), ddout = s.upload(dout, dt), ddinp = s.upload(dinp0, dt);
            auto dout_ = s.zeros(n * cu::dtypeSize(dt));
            s.ok(cu::activationForward(*s.context, c.act, dt, dout_.data(), dx.data(), n), c.name);
            s.ok(cu::activationBackward(*s.context, c.act, dt, ddinp.data(), ddout.data(), dx.data(), n), c.name);
            std::vector<double> out(n), dinp = wide(dinp0);
            const auto xd = wide(x), doutd = wide(dout);
            c.fwd(out.data(), xd.data(), n);
            c.bwd(dinp.data(), doutd.data(), xd.data(), n);
            s.close(label(std::string(c.name) + " forward", dt), s.download(dout_, n, dt), narrow(out), tolerance(dt));
            s.close(label(std::string(c.name) + " backward", dt), s.download(ddinp, n, dt), narrow(dinp),
                    tolerance(dt));
        }
        const auto gate = s.randomIn(n, dt, -4.0f, 4.0f), up = s.randomIn(n, dt, -2.0f, 2.0f);
        const auto dout = s.randomIn(n, dt), dgate0 = s.randomIn(n, dt), dup0 = s.randomIn(n, dt);
        auto dg = s.upload(gate, dt), du = s.upload(up, dt), dd = s.upload(dout, dt);
        auto ddg = s.upload(dgate0, dt), ddu = s.upload(dup0, dt), dout_ = s.zeros(n * cu::dtypeSize(dt));
        s.ok(cu::swigluForward(*s.context, dt, dout_.data(), dg.data(), du.data(), n), "swiglu");
        s.ok(cu::swigluBackward(*s.context, dt, ddg.data(), ddu.data(), dd.data(), dg.data(), du.data(), n), "swiglu");
        std::vector<double> out(n), dgate = wide(dgate0), dup = wide(dup0);
        const auto gd = wide(gate), ud = wide(up), odd = wide(dout);
        cpu::swigluForward<double>(out.data(), gd.data(), ud.data(), n);
        cpu::swigluBackward<double>(dgate.data(), dup.data(), odd.data(), gd.data(), ud.data(), n);
        s.close(label("swiglu forward", dt), s.download(dout_, n, dt), narrow(out), tolerance(dt));
        s.close(label("swiglu backward dgate", dt), s.download(ddg, n, dt), narrow(dgate), tolerance(dt));
        s.close(label("swiglu backward dup", dt), s.download(ddu, n, dt), narrow(dup), tolerance(dt));
    }
}

void testEmbedding(gpu_test::Suite& s)
{
    const std::size_t B = 3, T = 11, C = 72, V = 41;
    std::uniform_int_distribution<std::int32_t> token(0, static_cast<std::int32_t>(V) - 1);
    for (DType dt : gpu_test::allTypes()) {
        for (bool positions : {false, true}) {
            std::vector<std::int32_t> tokens(B * T);
            for (auto& t : tokens)
                t = token(s.rng);
            tokens[3] = tokens[7]; // a repeated token: its gradient rows add up
            const auto wte = s.randomIn(V * C, dt), wpe = s.randomIn(T * C, dt), dout = s.randomIn(B * T * C, dt);
            auto dTokens = s.uploadRaw(tokens);
            auto dWte = s.upload(wte, dt), dWpe = s.upload(wpe, dt), dDout = s.upload(dout, dt);
            auto dOut = s.zeros(B * T * C * cu::dtypeSize(dt));
            auto dDwte = s.zeros(V * C * 4), dDwpe = s.zeros(T * C * 4), bad = s.zeros(sizeof(int));
            const void* wpePtr = positions ? dWpe.data() : nullptr;
            s.ok(cu::embeddingForward(*s.context, dt, dOut.data(), dTokens.as<std::int32_t>(), dWte.data(), wpePtr, B,
                                      T, C, V, bad.as<int>()),
                 "embedding forward");
            s.ok(cu::embeddingBackward(*s.context, dt, dDwte.as<float>(), positions ? dDwpe.as<float>() : nullptr,
                                       dDout.data(), dTokens.as<std::int32_t>(), B, T, C, V),
                 "embedding backward");
            std::vector<double> out(B * T * C), dwte(V * C, 0.0), dwpe(T * C, 0.0);
            const auto wted = wide(wte), wped = wide(wpe), doutd = wide(dout);
            cpu::embeddingForward<double>(out.data(), tokens.data(), wted.data(), positions ? wped.data() : nullptr, B,
                                          T, C, V);
            cpu::embeddingBackward<double>(dwte.data(), positions ? dwpe.data() : nullptr, doutd.data(), tokens.data(),
                                           B, T, C, V);
            const std::string what = positions ? "embedding+positions" : "embedding";
            s.close(label(what + " forward", dt), s.download(dOut, B * T * C, dt), narrow(out), tolerance(dt));
            s.close(label(what + " dwte", dt), s.download(dDwte, V * C, DType::f32), narrow(dwte),
                    tolerance(DType::f32));
            if (positions)
                s.close(label(what + " dwpe", dt), s.download(dDwpe, T * C, DType::f32), narrow(dwpe),
                        tolerance(DType::f32));
            s.expect(s.downloadRaw<int>(bad, 1)[0] == 0, label(what + ": no bad token flagged", dt));
        }
    }
    // A token outside [0, V) is flagged, not a crash.
    std::vector<std::int32_t> tokens = {0, static_cast<std::int32_t>(V)};
    auto dTokens = s.uploadRaw(tokens);
    auto dWte = s.upload(s.random(V * C), DType::f32), dOut = s.zeros(2 * C * 4), bad = s.zeros(sizeof(int));
    s.ok(cu::embeddingForward(*s.context, DType::f32, dOut.data(), dTokens.as<std::int32_t>(), dWte.data(), nullptr,
                              1, 2, C, V, bad.as<int>()),
         "embedding bad token");
    s.expect(s.downloadRaw<int>(bad, 1)[0] == 1, "embedding: token V flagged");
}

void testNorms(gpu_test::Suite& s)
{
    const std::size_t N = 37, C = 300;
    const float eps = 1e-5f;
    for (DType dt : gpu_test::allTypes()) {
        const auto x = s.randomIn(N * C, dt, -2.0f, 2.0f), w = s.randomIn(C, dt, 0.5f, 1.5f);
        const auto b = s.randomIn(C, dt), dout = s.randomIn(N * C, dt), dinp0 = s.randomIn(N * C, dt);
        const auto xd = wide(x), wd = wide(w), bd = wide(b), doutd = wide(dout);
        auto dX = s.upload(x, dt), dW = s.upload(w, dt), dB = s.upload(b, dt), dDout = s.upload(dout, dt);
        {
            auto dOut = s.zeros(N * C * cu::dtypeSize(dt)), dRstd = s.zeros(N * 4), dDinp = s.upload(dinp0, dt);
            auto dDw = s.zeros(C * 4);
            s.ok(cu::rmsnormForward(*s.context, dt, dOut.data(), dRstd.as<float>(), dX.data(), dW.data(), N, C, eps),
                 "rmsnorm forward");
            s.ok(cu::rmsnormBackward(*s.context, dt, dDinp.data(), dDw.as<float>(), dDout.data(), dX.data(),
                                     dW.data(), dRstd.as<float>(), N, C),
                 "rmsnorm backward");
            std::vector<double> out(N * C), rstd(N), dinp = wide(dinp0), dw(C, 0.0);
            cpu::rmsnormForward<double>(out.data(), rstd.data(), xd.data(), wd.data(), N, C, eps);
            cpu::rmsnormBackward<double>(dinp.data(), dw.data(), doutd.data(), xd.data(), wd.data(), rstd.data(), N,
                                         C);
            s.close(label("rmsnorm forward", dt), s.download(dOut, N * C, dt), narrow(out), tolerance(dt));
            s.close(label("rmsnorm rstd", dt), s.download(dRstd, N, DType::f32), narrow(rstd), tolerance(DType::f32));
            s.close(label("rmsnorm dinp", dt), s.download(dDinp, N * C, dt), narrow(dinp), tolerance(dt));
            s.close(label("rmsnorm dweight", dt), s.download(dDw, C, DType::f32), narrow(dw),
                    tolerance(DType::f32, 5));
        }
        for (bool withBias : {true, false}) {
            auto dOut = s.zeros(N * C * cu::dtypeSize(dt)), dMean = s.zeros(N * 4), dRstd = s.zeros(N * 4);
            auto dDinp = s.upload(dinp0, dt), dDw = s.zeros(C * 4), dDb = s.zeros(C * 4);
            s.ok(cu::layernormForward(*s.context, dt, dOut.data(), dMean.as<float>(), dRstd.as<float>(), dX.data(),
                                      dW.data(), withBias ? dB.data() : nullptr, N, C, eps),
                 "layernorm forward");
            s.ok(cu::layernormBackward(*s.context, dt, dDinp.data(), dDw.as<float>(), dDb.as<float>(), dDout.data(),
                                       dX.data(), dW.data(), dMean.as<float>(), dRstd.as<float>(), N, C),
                 "layernorm backward");
            std::vector<double> out(N * C), mean(N), rstd(N), dinp = wide(dinp0), dw(C, 0.0), db(C, 0.0);
            cpu::layernormForward<double>(out.data(), mean.data(), rstd.data(), xd.data(), wd.data(),
                                          withBias ? bd.data() : nullptr, N, C, eps);
            cpu::layernormBackward<double>(dinp.data(), dw.data(), db.data(), doutd.data(), xd.data(), wd.data(),
                                           mean.data(), rstd.data(), N, C);
            const std::string what = withBias ? "layernorm" : "layernorm (no bias)";
            s.close(label(what + " forward", dt), s.download(dOut, N * C, dt), narrow(out), tolerance(dt));
            s.close(label(what + " mean", dt), s.download(dMean, N, DType::f32), narrow(mean), tolerance(DType::f32));
            s.close(label(what + " rstd", dt), s.download(dRstd, N, DType::f32), narrow(rstd), tolerance(DType::f32));
            s.close(label(what + " dinp", dt), s.download(dDinp, N * C, dt), narrow(dinp), tolerance(dt));
            s.close(label(what + " dweight", dt), s.download(dDw, C, DType::f32), narrow(dw), tolerance(DType::f32, 5));
            s.close(label(what + " dbias", dt), s.download(dDb, C, DType::f32), narrow(db), tolerance(DType::f32, 5));
        }
    }
}

void testRope(gpu_test::Suite& s)
{
    const std::size_t B = 2, T = 67, NH = 3, HD = 64;
    const double theta = 500000.0; // Llama 3's rope_theta
    for (std::size_t rotaryDim : {HD, HD / 4}) { // full, and GPT-NeoX-style partial_rotary_factor 0.25
        const std::size_t half = rotaryDim / 2;
        auto dCos = s.zeros(T * half * 4), dSin = s.zeros(T * half * 4);
        s.ok(cu::ropeTable(*s.context, dCos.as<float>(), dSin.as<float>(), T, rotaryDim, theta), "rope table");
        std::vector<double> cos(T * half), sin(T * half);
        cpu::ropeTable<double>(cos.data(), sin.data(), T, rotaryDim, theta);
        s.close("rope table cos", s.download(dCos, T * half, DType::f32), narrow(cos), tolerance(DType::f32));
        s.close("rope table sin", s.download(dSin, T * half, DType::f32), narrow(sin), tolerance(DType::f32));
        for (DType dt : gpu_test::allTypes()) {
            const std::size_t n = B * T * NH * HD;
            const auto x = s.randomIn(n, dt), dout = s.randomIn(n, dt), dinp0 = s.randomIn(n, dt);
            auto dX = s.upload(x, dt), dDout = s.upload(dout, dt), dDinp = s.upload(dinp0, dt);
            auto dOut = s.zeros(n * cu::dtypeSize(dt));
            s.ok(cu::ropeForward(*s.context, dt, dOut.data(), dX.data(), dCos.as<float>(), dSin.as<float>(), B, T, NH,
                                 HD, rotaryDim),
                 "rope forward");
            s.ok(cu::ropeBackward(*s.context, dt, dDinp.data(), dDout.data(), dCos.as<float>(), dSin.as<float>(), B,
                                  T, NH, HD, rotaryDim),
                 "rope backward");
            std::vector<double> out(n), dinp = wide(dinp0);
            const auto xd = wide(x), doutd = wide(dout);
            cpu::ropeForward<double>(out.data(), xd.data(), cos.data(), sin.data(), B, T, NH, HD, rotaryDim);
            cpu::ropeBackward<double>(dinp.data(), doutd.data(), cos.data(), sin.data(), B, T, NH, HD, rotaryDim);
            const std::string what = rotaryDim == HD ? "rope" : "rope (partial)";
            s.close(label(what + " forward", dt), s.download(dOut, n, dt), narrow(out), tolerance(dt));
            s.close(label(what + " backward", dt), s.download(dDinp, n, dt), narrow(dinp), tolerance(dt));
            // In place, as the step program applies it to q and k.
            s.ok(cu::ropeForward(*s.context, dt, dX.data(), dX.data(), dCos.as<float>(), dSin.as<float>(), B, T, NH,
                                 HD, rotaryDim),
                 "rope in place");
            s.close(label(what + " in place", dt), s.download(dX, n, dt), narrow(out), tolerance(dt));
        }
    }
}

void testLinear(gpu_test::Suite& s)
{
    const std::size_t rows = 45, C = 96, OC = 136;
    for (DType dt : gpu_test::allTypes()) {
        const auto x = s.randomIn(rows * C, dt), w = s.randomIn(OC * C, dt, -0.2f, 0.2f), b = s.randomIn(OC, dt);
        const auto dout = s.randomIn(rows * OC, dt), dinp0 = s.randomIn(rows * C, dt);
        const auto dw0 = s.random(OC * C), db0 = s.random(OC);
        auto dX = s.upload(x, dt), dW = s.upload(w, dt), dB = s.upload(b, dt), dDout = s.upload(dout, dt);
        auto dOut = s.zeros(rows * OC * cu::dtypeSize(dt)), dDinp = s.upload(dinp0, dt);
        auto dDw = s.upload(dw0, DType::f32), dDb = s.upload(db0, DType::f32);
        s.ok(cu::linearForward(*s.context, dt, dOut.data(), dX.data(), dW.data(), dB.data(), rows, C, OC),
             "linear forward");
        s.ok(cu::linearBackward(*s.context, dt, dDinp.data(), dDw.as<float>(), dDb.as<float>(), dDout.data(),
                                dX.data(), dW.data(), rows, C, OC),
             "linear backward");
        std::vector<double> out(rows * OC), dinp = wide(dinp0), dw = wide(dw0), db = wide(db0);
        const auto xd = wide(x), wd = wide(w), bd = wide(b), doutd = wide(dout);
        cpu::matmulForward<double>(out.data(), xd.data(), wd.data(), bd.data(), rows, C, OC);
        cpu::matmulBackward<double>(dinp.data(), dw.data(), db.data(), doutd.data(), xd.data(), wd.data(), rows, C, OC);
        s.close(label("linear forward", dt), s.download(dOut, rows * OC, dt), narrow(out), tolerance(dt));
        s.close(label("linear dinp", dt), s.download(dDinp, rows * C, dt), narrow(dinp), tolerance(dt));
        // fp32 master gradient: no rounding to dtype, only fp32 accumulation.
        s.close(label("linear dweight (fp32)", dt), s.download(dDw, OC * C, DType::f32), narrow(dw),
                tolerance(DType::f32, 5));
        s.close(label("linear dbias (fp32)", dt), s.download(dDb, OC, DType::f32), narrow(db),
                tolerance(DType::f32, 5));
    }
}

void testCrossEntropy(gpu_test::Suite& s)
{
    const std::size_t N = 19, V = 1003;
    std::uniform_int_distribution<std::int32_t> target(0, static_cast<std::int32_t>(V) - 1);
    for (DType dt : gpu_test::allTypes()) {
        std::vector<std::int32_t> targets(N);
        for (auto& t : targets)
            t = target(s.rng);
        targets[4] = cpu::kIgnoreIndex;
        const auto logits = s.randomIn(N * V, dt, -6.0f, 6.0f);
        auto dLogits = s.upload(logits, dt), dTargets = s.uploadRaw(targets);
        auto dLse = s.zeros(N * 4), dRow = s.zeros(N * 4), dMean = s.zeros(4), dCount = s.zeros(4);
        auto dGrad = s.zeros(N * V * cu::dtypeSize(dt)), bad = s.zeros(sizeof(int));
        // Chunked: two row ranges, as a chunked loss would call it.
        const std::size_t split = 8;
        const std::size_t bytes = cu::dtypeSize(dt);
        s.ok(cu::crossEntropyForward(*s.context, dt, dLse.as<float>(), dRow.as<float>(), dLogits.data(),
                                     dTargets.as<std::int32_t>(), split, V, bad.as<int>()),
             "cross-entropy chunk 1");
        s.ok(cu::crossEntropyForward(*s.context, dt, dLse.as<float>() + split, dRow.as<float>() + split,
                                     static_cast<char*>(dLogits.data()) + split * V * bytes,
                                     dTargets.as<std::int32_t>() + split, N - split, V, bad.as<int>()),
             "cross-entropy chunk 2");
        s.ok(cu::crossEntropyMean(*s.context, dMean.as<float>(), dCount.as<int>(), dRow.as<float>(),
                                  dTargets.as<std::int32_t>(), N),
             "cross-entropy mean");
        const float dloss = 1.7f;
        s.ok(cu::crossEntropyBackward(*s.context, dt, dGrad.data(), dLogits.data(), dLse.as<float>(),
                                      dTargets.as<std::int32_t>(), dCount.as<int>(), N, V, dloss),
             "cross-entropy backward");
        std::vector<double> lse(N), grad(N * V, 0.0);
        const auto logitsd = wide(logits);
        const double mean = cpu::crossEntropyForward<double>(lse.data(), logitsd.data(), targets.data(), N, V);
        cpu::crossEntropyBackward<double>(grad.data(), logitsd.data(), lse.data(), targets.data(), N, V, dloss);
        s.close(label("cross-entropy lse", dt), s.download(dLse, N, DType::f32), narrow(lse), tolerance(DType::f32));
        s.close(label("cross-entropy mean", dt), s.download(dMean, 1, DType::f32), {static_cast<float>(mean)},
                tolerance(DType::f32));
        s.expect(s.downloadRaw<int>(dCount, 1)[0] == static_cast<int>(cpu::countTargets(targets.data(), N, V)),
                 label("cross-entropy valid count", dt));
        s.close(label("cross-entropy backward", dt), s.download(dGrad, N * V, dt), narrow(grad), tolerance(dt));
        s.expect(s.downloadRaw<int>(bad, 1)[0] == 0, label("cross-entropy: no bad target", dt));
    }
}

} // namespace

int main()
{
    gpu_test::Suite suite;
    if (const int code = suite.start("gpu_kernels"))
        return code;
    testCasts(suite);
    testActivations(suite);
    testEmbedding(suite);
    testNorms(suite);
    testRope(suite);
    testLinear(suite);
    testCrossEntropy(suite);
    return suite.finish();
}
