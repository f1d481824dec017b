// SPDX-License-Identifier: GPL-3.0-or-later
// The optimizers, the NF4 and 8-bit dequantization and the loss scaler of
// engine/cuda against the CPU reference (runtime/cpu) over several steps on
// random parameters and gradients. The CPU computes in double and rounds to
// fp32; the GPU computes in fp32, so fp32 tolerances apply. Dequantization is
// a table lookup times a scale: bit-exact in fp32.
#include "gpu_test.h"

#include "cuda/gradscaler.h"
#include "cuda/optimizers.h"
#include "cuda/quant.h"

#include "runtime/cpu/adafactor.h"
#include "runtime/cpu/adamw.h"
#include "runtime/cpu/adamw8bit.h"
#include "runtime/cpu/blockquant.h"
#include "runtime/cpu/gradscaler.h"
#include "runtime/cpu/lion.h"
#include "runtime/cpu/nf4.h"
#include "runtime/cpu/sgd.h"

namespace cu = headroom::cuda;
namespace cpu = headroom::cpu;
using gpu_test::DType;
using gpu_test::label;
using gpu_test::tolerance;

namespace {

constexpr int kSteps = 3;

struct Tensors {
    std::vector<float> param, grad;
    gpu_test::DeviceBuffer dParam, dGrad;
};

Tensors makeTensors(gpu_test::Suite& s, std::size_t n)
{
    Tensors t;
    t.param = s.random(n);
    t.dParam = s.upload(t.param, DType::f32);
    t.dGrad = s.zeros(n * 4);
    return t;
}

// A fresh gradient each step, on both sides.
void newGradient(gpu_test::Suite& s, Tensors& t)
{
    t.grad = s.random(t.param.size(), -0.5f, 0.5f);
    s.ok(t.dGrad.upload(t.grad.data(), t.grad.size() * 4), "gradient upload");
}

void testSgd(gpu_test::Suite& s)
{
    const std::size_t n = 3001;
    for (float momentum : {0.0f, 0.9f}) {
        Tensors t = makeTensors(s, n);
        std::vector<float> buffer(n, 0.0f);
        auto dBuffer = s.zeros(n * 4);
        const cpu::SgdConfig c{0.05f, momentum, 0.01f};
        const cu::SgdConfig g{c.lr, c.momentum, c.weightDecay};
        for (int step = 1; step <= kSteps; ++step) {
            newGradient(s, t);
            cpu::sgdStep(t.param, t.grad, momentum != 0.0f ? std::span<float>(buffer) : std::span<float>(), step, c);
            s.ok(cu::sgdStep(*s.context, t.dParam.as<float>(), t.dGrad.as<float>(), dBuffer.as<float>(), n, step, g),
                 "sgd");
        }
        const std::string what = momentum != 0.0f ? "sgd momentum" : "sgd";
        s.close(what + " param", s.download(t.dParam, n, DType::f32), t.param, tolerance(DType::f32));
        if (momentum != 0.0f)
            s.close(what + " buffer", s.download(dBuffer, n, DType::f32), buffer, tolerance(DType::f32));
    }
}

void testAdamW(gpu_test::Suite& s)
{
    const std::size_t n = 4099;
    Tensors t = makeTensors(s, n);
    std::vector<float> m(n, 0.0f), v(n, 0.0f);
    auto dM = s.zeros(n * 4), dV = s.zeros(n * 4);
    const cpu::AdamWConfig c{1e-2f, 0.9f, 0.999f, 1e-8f, 0.1f};
    const cu::AdamWConfig g{c.lr, c.beta1, c.beta2, c.eps, c.weightDecay};
    for (int step = 1; step <= kSteps; ++step) {
        newGradient(s, t);
        cpu::adamwStep(t.param, t.grad, m, v, step, c);
        s.ok(cu::adamwStep(*s.context, t.dParam.as<float>(), t.dGrad.as<float>(), dM.as<float>(), dV.as<float>(), n,
                           step, g),
             "adamw");
    }
    s.close("adamw param", s.download(t.dParam, n, DType::f32), t.param, tolerance(DType::f32));
    s.close("adamw exp_avg", s.download(dM, n, DType::f32), m, tolerance(DType::f32));
    s.close("adamw exp_avg_sq", s.download(dV, n, DType::f32), v, tolerance(DType::f32));
}

void testLion(gpu_test::Suite& s)
{
    const std::size_t n = 2049;
    Tensors t = makeTensors(s, n);
    std::vector<float> m(n, 0.0f);
    auto dM = s.zeros(n * 4);
    const cpu::LionConfig c{1e-3f, 0.9f, 0.99f, 0.1f};
    const cu::LionConfig g{c.lr, c.beta1, c.beta2, c.weightDecay};
    for (int step = 1; step <= kSteps; ++step) {
        newGradient(s, t);
        cpu::lionStep(t.param, t.grad, m, c);
        s.ok(cu::lionStep(*s.context, t.dParam.as<float>(), t.dGrad.as<float>(), dM.as<float>(), n, g), "lion");
    }
    s.close("lion param", s.download(t.dParam, n, DType::f32), t.param, tolerance(DType::f32));
    s.close("lion exp_avg", s.download(dM, n, DType::f32), m, tolerance(DType::f32));
}

void testAdafactor(gpu_test::Suite& s)
{
    const std::size_t rows = 67, cols = 130;
    for (bool withBeta1 : {false, true}) {
        cpu::AdafactorConfig c;
        c.lr = 1e-2f;
        c.weightDecay = 0.01f;
        if (withBeta1)
            c.beta1 = 0.9f;
        cu::AdafactorConfig g;
        g.lr = c.lr, g.eps1 = c.eps1, g.clipThreshold = c.clipThreshold, g.decayRate = c.decayRate;
        g.useBeta1 = withBeta1, g.beta1 = 0.9f, g.weightDecay = c.weightDecay;
        const std::string what = withBeta1 ? "adafactor (beta1)" : "adafactor";
        { // factored (a 2-D weight)
            Tensors t = makeTensors(s, rows * cols);
            std::vector<float> r(rows, 0.0f), col(cols, 0.0f), m(withBeta1 ? rows * cols : 0, 0.0f);
            auto dR = s.zeros(rows * 4), dC = s.zeros(cols * 4), dM = s.zeros(rows * cols * 4);
            for (int step = 1; step <= kSteps; ++step) {
                newGradient(s, t);
                cpu::adafactorStepFactored(t.param, t.grad, rows, cols, r, col, m, step, c);
                s.ok(cu::adafactorStepFactored(*s.context, t.dParam.as<float>(), t.dGrad.as<float>(), rows, cols,
                                               dR.as<float>(), dC.as<float>(), dM.as<float>(), step, g),
                     what);
            }
            s.close(what + " factored param", s.download(t.dParam, rows * cols, DType::f32), t.param,
                    tolerance(DType::f32, 5));
            s.close(what + " row state", s.download(dR, rows, DType::f32), r, tolerance(DType::f32, 5));
            s.close(what + " column state", s.download(dC, cols, DType::f32), col, tolerance(DType::f32, 5));
        }
        { // unfactored (a bias or norm weight)
            const std::size_t n = 777;
            Tensors t = makeTensors(s, n);
            std::vector<float> v(n, 0.0f), m(withBeta1 ? n : 0, 0.0f);
            auto dV = s.zeros(n * 4), dM = s.zeros(n * 4);
            for (int step = 1; step <= kSteps; ++step) {
                newGradient(s, t);
                cpu::adafactorStepUnfactored(t.param, t.grad, v, m, step, c);
                s.ok(cu::adafactorStepUnfactored(*s.context, t.dParam.as<float>(), t.dGrad.as<float>(),
                                                 dV.as<float>(), dM.as<float>(), n, step, g),
                     what);
            }
            s.close(what + " unfactored param", s.download(t.dParam, n, DType::f32), t.param,
                    tolerance(DType::f32, 5));
            s.close(what + " unfactored state", s.download(dV, n, DType::f32), v, tolerance(DType::f32, 5));
        }
    }
}

void testAdamW8bit(gpu_test::Suite& s)
{
    const std::size_t n = 256 * 9 + 77; // a short last block
    const std::size_t blocks = cpu::adamw8bitBlocks(n);
    Tensors t = makeTensors(s, n);
    std::vector<std::uint8_t> mCodes(n), vCodes(n);
    std::vector<float> mAbs(blocks), vAbs(blocks);
    const cpu::AdamW8bitState cpuState{mCodes, mAbs, vCodes, vAbs};
    cpu::adamw8bitInit(cpuState, n);
    auto dMc = s.zeros(n), dVc = s.zeros(n), dMa = s.zeros(blocks * 4), dVa = s.zeros(blocks * 4);
    const cu::AdamW8bitState gpuState{dMc.as<std::uint8_t>(), dMa.as<float>(), dVc.as<std::uint8_t>(),
                                      dVa.as<float>()};
    s.ok(cu::adamw8bitInit(*s.context, gpuState, n), "adamw8bit init");
    s.expect(s.downloadRaw<std::uint8_t>(dMc, n) == mCodes && s.downloadRaw<std::uint8_t>(dVc, n) == vCodes,
             "adamw8bit init: the codes of zero");
    const cpu::AdamWConfig c{1e-2f, 0.9f, 0.999f, 1e-8f, 0.01f};
    const cu::AdamWConfig g{c.lr, c.beta1, c.beta2, c.eps, c.weightDecay};
    for (int step = 1; step <= kSteps; ++step) {
        newGradient(s, t);
        cpu::adamw8bitStep(t.param, t.grad, cpuState, step, c);
        s.ok(cu::adamw8bitStep(*s.context, t.dParam.as<float>(), t.dGrad.as<float>(), gpuState, n, step, g),
             "adamw8bit");
        if (step == 1) {
            // From identical (zero) states, the GPU's fp32 update and the
            // CPU's double one can only round a value sitting on a code
            // boundary to the neighbouring code. (Later steps start from
            // states that may already differ by a code, so only the
            // parameters and absmax are compared after them.)
            const auto gm = s.downloadRaw<std::uint8_t>(dMc, n), gv = s.downloadRaw<std::uint8_t>(dVc, n);
            std::size_t far = 0, differ = 0;
            for (std::size_t i = 0; i < n; ++i) {
                differ += (gm[i] != mCodes[i]) + (gv[i] != vCodes[i]);
                far += (std::abs(int(gm[i]) - int(mCodes[i])) > 1) + (std::abs(int(gv[i]) - int(vCodes[i])) > 1);
            }
            s.expect(far == 0, "adamw8bit step 1 codes within one of the CPU's (" + std::to_string(differ) + " of " +
                                   std::to_string(2 * n) + " differ by one)");
        }
    }
    s.close("adamw8bit param", s.download(t.dParam, n, DType::f32), t.param, tolerance(DType::f32, 50));
    s.close("adamw8bit exp_avg absmax", s.download(dMa, blocks, DType::f32), mAbs, 1e-2);
    s.close("adamw8bit exp_avg_sq absmax", s.download(dVa, blocks, DType::f32), vAbs, 1e-2);
}

void testDequant(gpu_test::Suite& s)
{
    const std::size_t n = 64 * 300 + 31; // odd: the last byte holds one value
    const std::vector<float> weights = s.random(n, -0.1f, 0.1f);
    const std::size_t blocks = (n + cpu::kNf4BlockSize - 1) / cpu::kNf4BlockSize;
    std::vector<std::uint8_t> packed((n + 1) / 2);
    std::vector<float> absmax(blocks), expected(n);
    cpu::nf4Quantize(packed.data(), absmax.data(), weights.data(), n);
    cpu::nf4Dequantize(expected.data(), packed.data(), absmax.data(), n);
    auto dPacked = s.uploadRaw(packed), dAbsmax = s.uploadRaw(absmax);
    for (DType dt : gpu_test::allTypes()) {
        auto dOut = s.zeros(n * cu::dtypeSize(dt));
        s.ok(cu::nf4Dequantize(*s.context, dt, dOut.data(), dPacked.as<std::uint8_t>(), dAbsmax.as<float>(), n),
             "nf4");
        std::vector<float> rounded = expected;
        for (float& x : rounded)
            x = cu::roundToDType(x, dt);
        s.expect(s.download(dOut, n, dt) == rounded, label("nf4 dequantize bit-exact", dt));
    }
    // Double quantization of the absmax values.
    const std::size_t blocks2 = (blocks + cpu::kNf4AbsmaxBlockSize - 1) / cpu::kNf4AbsmaxBlockSize;
    std::vector<std::uint8_t> codes(blocks);
    std::vector<float> absmax2(blocks2), absmaxBack(blocks), expectedDq(n);
    float offset = 0.0f;
    cpu::nf4DoubleQuantizeAbsmax(codes.data(), absmax2.data(), offset, absmax.data(), blocks);
    cpu::nf4DoubleDequantizeAbsmax(absmaxBack.data(), codes.data(), absmax2.data(), offset, blocks);
    cpu::nf4Dequantize(expectedDq.data(), packed.data(), absmaxBack.data(), n);
    auto dCodes = s.uploadRaw(codes), dAbsmax2 = s.uploadRaw(absmax2);
    auto dOut = s.zeros(n * 4);
    const cu::Nf4DoubleQuant quant{dCodes.as<std::uint8_t>(), dAbsmax2.as<float>(), offset};
    s.ok(cu::nf4DequantizeDouble(*s.context, DType::f32, dOut.data(), dPacked.as<std::uint8_t>(), quant, n), "nf4-dq");
    // One fp32 multiply-add for the absmax (map·absmax2 + offset) may be fused
    // on the GPU: within a few ulp, not bit-exact.
    s.close("nf4 double-quant dequantize", s.download(dOut, n, DType::f32), expectedDq, 1e-6);

    // 8-bit blockwise with the signed dynamic map.
    const std::vector<float> values = s.random(5000);
    std::vector<std::uint8_t> codes8(values.size());
    std::vector<float> absmax8((values.size() + 255) / 256), back(values.size());
    cpu::quantizeBlockwise(codes8.data(), absmax8.data(), values.data(), values.size(), cpu::dynamicMapSigned());
    cpu::dequantizeBlockwise(back.data(), codes8.data(), absmax8.data(), values.size(), cpu::dynamicMapSigned());
    auto dCodes8 = s.uploadRaw(codes8), dAbsmax8 = s.uploadRaw(absmax8), dBack = s.zeros(values.size() * 4);
    s.ok(cu::dequantizeBlockwise(*s.context, dBack.as<float>(), dCodes8.as<std::uint8_t>(), dAbsmax8.as<float>(),
                                 values.size()),
         "blockwise dequantize");
    s.expect(s.download(dBack, values.size(), DType::f32) == back, "8-bit blockwise dequantize bit-exact");
}

void testGradScaler(gpu_test::Suite& s)
{
    cpu::GradScaler::Config config;
    config.growthInterval = 2;
    cpu::GradScaler scaler(config);
    const float initScale = config.initScale;
    const int zero = 0;
    auto dScale = s.uploadRaw(std::vector<float>{initScale}), dTracker = s.uploadRaw(std::vector<int>{zero});
    auto dFound = s.zeros(4);
    const std::size_t n = 1000;
    // clean, clean (the scale grows), overflow (it backs off), clean.
    for (int step = 0; step < 4; ++step) {
        std::vector<float> grads = s.random(n, -1000.0f, 1000.0f);
        if (step == 2)
            grads[n / 2] = INFINITY;
        auto dGrads = s.upload(grads, DType::f32);
        s.ok(dFound.zero(), "zero found_inf");
        s.ok(cu::unscaleAndCheck(*s.context, dGrads.as<float>(), n, dScale.as<float>(), dFound.as<float>()),
             "unscale");
        s.ok(cu::updateLossScale(*s.context, dScale.as<float>(), dTracker.as<int>(), dFound.as<float>(),
                                 config.growthFactor, config.backoffFactor, static_cast<int>(config.growthInterval)),
             "update scale");
        const bool found = scaler.unscale(grads);
        scaler.update(found);
        const std::string what = "loss scaling step " + std::to_string(step + 1);
        s.expect((s.downloadRaw<float>(dFound, 1)[0] != 0.0f) == found, what + ": found_inf");
        const auto got = s.download(dGrads, n, DType::f32);
        bool same = true;
        for (std::size_t i = 0; i < n; ++i)
            same = same && (got[i] == grads[i] || (std::isinf(got[i]) && std::isinf(grads[i])));
        s.expect(same, what + ": unscaled gradients bit-exact");
        s.expect(s.downloadRaw<float>(dScale, 1)[0] == scaler.scale(), what + ": scale");
        s.expect(s.downloadRaw<int>(dTracker, 1)[0] == scaler.growthTracker(), what + ": growth tracker");
    }
}

} // namespace

int main()
{
    gpu_test::Suite suite;
    if (const int code = suite.start("gpu_optim"))
        return code;
    testSgd(suite);
    testAdamW(suite);
    testLion(suite);
    testAdafactor(suite);
    testAdamW8bit(suite);
    testDequant(suite);
    testGradScaler(suite);
    return suite.finish();
}
