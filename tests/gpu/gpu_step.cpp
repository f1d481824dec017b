// SPDX-License-Identifier: GPL-3.0-or-later
// The whole training step on the GPU against the same step on the CPU: the
// step program (runtime/step) runs on the CUDA Ops with device memory and on
// the CPU Ops with host memory, from the same seed and the same tokens, for
// two steps; the losses of both steps and every gradient of the first must
// agree within the tolerance of the activation dtype, and the tracking allocator
// must count the same bytes at every event on both.
//
// The fused attention runs its fp32 kernels (forward and backward) here, the
// arithmetic the CPU step mirrors. The tensor-core forward (the engine's default where
// eligible) rounds the probabilities to the activation dtype before P·V, as
// FlashAttention-2 does; with it, this test failed 2 of 549 checks on an
// H200 (2026-11-26, seed 1715759738: one bf16 gate_proj gradient 0.0659
// apart against 0.06). The tensor-core backward (also the default) rounds P
// and dS the same way. Both kernels' own errors are checked against the
// double-precision reference in gpu_attention.
#include "gpu_test.h"

#include <cmath>
#include <functional>

#include "cuda/cudaops.h"
#include "cuda/devicestorage.h"
#include "cuda/flashattentiontc.h"
#include "plan/sweep.h"
#include "runtime/cpu/trainer.h"
#include "runtime/step/trainer.h"

#include "../runtime/runtime_testmodels.h"

namespace rt = headroom::rt;
using headroom::Scenario;

namespace {

struct Outcome {
    std::vector<double> losses;
    std::vector<std::pair<std::string, std::vector<float>>> gradients;
    std::vector<headroom::CategoryBytes> events;
};

std::vector<std::int32_t> tokens(std::size_t count, std::uint64_t vocab, std::uint32_t seed)
{
    std::mt19937 rng(seed);
    std::vector<std::int32_t> t(count);
    for (auto& v : t)
        v = static_cast<std::int32_t>(rng() % vocab);
    return t;
}

// The root mean square over every gradient value of a step.
double gradientRms(const std::vector<std::pair<std::string, std::vector<float>>>& gradients)
{
    double sumSq = 0.0;
    std::size_t n = 0;
    for (const auto& [name, values] : gradients) {
        for (float v : values)
            sumSq += double(v) * double(v);
        n += values.size();
    }
    return n == 0 ? 0.0 : std::sqrt(sumSq / double(n));
}

Outcome run(const Scenario& s, rt::Ops& ops, rt::Storage* storage, std::uint32_t seed)
{
    Outcome o;
    rt::TrackingAllocator allocator(headroom::buildEvents(headroom::Mode::Train, s.model.layers).size());
    allocator.setStorage(storage);
    {
        rt::TrainerOptions options;
        options.captureGradients = true;
        rt::Trainer trainer(s, allocator, ops, options);
        const auto t = tokens(trainer.tokensPerStep(), s.model.vocab, seed);
        // The gradients compared are the first step's: a first AdamW (or
        // Lion) update is about lr x sign(g), so gradients that rounding
        // leaves near zero become weights lr apart, and the second step's
        // gradients differ far beyond the dtype's rounding. Measured on the
        // CPU alone (tiny Llama, bf16 mixed, checkpointed; eager against
        // fused attention, which differ only in rounding): step-1 gradients
        // 0.0275 apart by close()'s measure, step-2 0.227 after AdamW and
        // 0.030 after SGD. On the H200 (2026-11-25) every failure of this
        // test was a step-2 gradient. The second step's loss is still compared.
        for (int step = 0; step < 2; ++step) {
            o.losses.push_back(trainer.step(t).loss);
            if (step == 0)
                o.gradients = trainer.capturedGradients();
        }
    }
    o.events = allocator.eventBytes();
    return o;
}

// The activation dtype's tolerance (gpu_test.h), widened for a whole step:
// dozens of roundings in a chain, and fp32 atomics in the parameter gradients.
double stepTolerance(headroom::Precision p)
{
    switch (p) {
    case headroom::Precision::Fp32: return 1e-3;
    case headroom::Precision::Fp16Mixed: return 3e-2;
    default: return 6e-2;
    }
}

} // namespace

int main()
{
    gpu_test::Suite suite;
    if (int code = suite.start("gpu_step"); code != 0)
        return code;
    headroom::cuda::setFusedAttentionKernelForTests(headroom::cuda::FusedAttentionKernel::fma);
    headroom::cuda::setFusedAttentionBackwardKernelForTests(headroom::cuda::FusedAttentionKernel::fma);
    using namespace headroom;
    std::vector<std::pair<std::string, Scenario>> cases;
    auto add = [&](const char* name, const std::function<void(Scenario&)>& change) {
        Scenario s = testing::tinyScenario();
        s.model = testing::tinyLlama(2, 64, 4, 2, 96, 101);
        s.train.seqLen = 24;
        change(s);
        cases.emplace_back(name, s);
    };
    add("llama fp32 eager adamw", [](Scenario&) {});
    add("llama fp32 fused sgd-momentum", [](Scenario& s) {
        s.train.attention = Attention::Sdpa;
        s.train.optimizer = Optimizer::SgdMomentum;
    });
    add("llama bf16 mixed fused checkpointed adamw", [](Scenario& s) {
        s.train.precision = Precision::Bf16Mixed;
        s.train.attention = Attention::Sdpa;
        s.train.checkpointing = Checkpointing::Full;
    });
    add("llama fp16 mixed eager accumulation lion", [](Scenario& s) {
        s.train.precision = Precision::Fp16Mixed;
        s.train.gradAccum = 2;
        s.train.optimizer = Optimizer::Lion;
    });
    add("llama bf16 mixed chunked loss adafactor", [](Scenario& s) {
        s.train.precision = Precision::Bf16Mixed;
        s.train.chunkedCrossEntropy = true;
        s.train.lossChunks = 3;
        s.train.optimizer = Optimizer::Adafactor;
    });
    add("llama fp32 adamw 8-bit", [](Scenario& s) { s.train.optimizer = Optimizer::AdamW8bit; });
    add("llama bf16 mixed lomo", [](Scenario& s) {
        s.train.precision = Precision::Bf16Mixed;
        s.train.optimizer = Optimizer::Lomo;
    });
    add("llama lora bf16 mixed", [](Scenario& s) {
        s.train.precision = Precision::Bf16Mixed;
        s.train.peft.method = PeftMethod::Lora;
        s.train.peft.rank = 4;
        s.train.peft.alpha = 8;
        s.train.peft.targets = {"all-linear"};
    });
    add("llama qlora nf4 double quant bf16 mixed", [](Scenario& s) {
        s.train.precision = Precision::Bf16Mixed;
        s.train.attention = Attention::Sdpa;
        s.train.peft.method = PeftMethod::Qlora;
        s.train.weightQuant = WeightQuant::Nf4DoubleQuant;
        s.train.peft.rank = 4;
        s.train.peft.alpha = 16;
        s.train.peft.targets = {"all-linear"};
    });
    add("gpt2 fp32 eager", [](Scenario& s) { s.model = testing::tinyGpt2(2, 64, 4, 128, 101, 32); });
    add("gpt2 bf16 mixed fused checkpointed", [](Scenario& s) {
        s.model = testing::tinyGpt2(2, 64, 4, 128, 101, 32);
        s.train.precision = Precision::Bf16Mixed;
        s.train.attention = Attention::Sdpa;
        s.train.checkpointing = Checkpointing::Full;
    });
    // Dropout: the masks are the same draws on both sides (runtime/cpu/dropoutrng.h).
    add("gpt2 fp32 eager dropout", [](Scenario& s) {
        s.model = testing::tinyGpt2(2, 64, 4, 128, 101, 32);
        s.model.dropout = 0.1;
    });
    add("gpt2 bf16 mixed fused dropout checkpointed", [](Scenario& s) {
        s.model = testing::tinyGpt2(2, 64, 4, 128, 101, 32);
        s.model.dropout = 0.1;
        s.train.precision = Precision::Bf16Mixed;
        s.train.attention = Attention::Flash;
        s.train.checkpointing = Checkpointing::Full;
    });
    add("neox fp32 eager dropout", [](Scenario& s) {
        s.model = testing::tinyNeoX(2, 64, 4, 128, 101);
        s.model.dropout = 0.1;
    });
    add("neox bf16 mixed fused checkpointed", [](Scenario& s) {
        s.model = testing::tinyNeoX(2, 64, 4, 128, 101);
        s.train.precision = Precision::Bf16Mixed;
        s.train.attention = Attention::Flash;
        s.train.checkpointing = Checkpointing::Full;
    });
    add("bert classifier fp32 eager dropout", [](Scenario& s) {
        s.model = testing::tinyBert(2, 64, 4, 128, 101, 32, 3);
        s.model.dropout = 0.1;
    });
    add("bert masked lm bf16 mixed eager dropout", [](Scenario& s) {
        s.model = testing::tinyBertMlm(2, 64, 4, 128, 101, 32);
        s.model.dropout = 0.1;
        s.train.precision = Precision::Bf16Mixed;
    });
    add("bert classifier bf16 mixed fused checkpointed dropout", [](Scenario& s) {
        s.model = testing::tinyBert(2, 64, 4, 128, 101, 32, 3);
        s.model.dropout = 0.1;
        s.train.precision = Precision::Bf16Mixed;
        s.train.attention = Attention::Flash;
        s.train.checkpointing = Checkpointing::Full;
    });

    for (const auto& [name, s] : cases) {
        if (auto gap = rt::programUnsupported(s) + cuda::cudaOpsUnsupported(s); !gap.empty()) {
            std::printf("FAIL %s: not supported: %s\n", name.c_str(), gap.c_str());
            ++suite.failures;
            continue;
        }
        try {
            auto cpuOps = rt::makeCpuOps();
            const Outcome cpu = run(s, *cpuOps, nullptr, suite.seed);
            auto gpuOps = cuda::makeCudaOps(*suite.context, s);
            cuda::DeviceStorage storage(*suite.context);
            const Outcome gpu = run(s, *gpuOps, &storage, suite.seed);
            const double tol = stepTolerance(s.train.precision);
            for (std::size_t i = 0; i < cpu.losses.size(); ++i)
                suite.close(name + ": loss of step " + std::to_string(i + 1), {float(gpu.losses[i])},
                            {float(cpu.losses[i])}, tol);
            if (cpu.gradients.size() != gpu.gradients.size()) {
                std::printf("FAIL %s: %zu gradients on the CPU, %zu on the GPU\n", name.c_str(), cpu.gradients.size(),
                            gpu.gradients.size());
                ++suite.failures;
            }
            // A gradient that is exactly zero in exact arithmetic keeps only
            // rounding residue, whose own rms is no scale: BERT's key bias
            // adds q·b_k to every score of a softmax row, which the softmax
            // ignores, so its gradient is a cancelling sum (measured on the
            // H200, 2026-11-26: 1e-13 against 1e-14 in fp32). Such tensors are
            // compared on a floor of 1e-3 of the step's gradient rms instead.
            const double floor = 1e-3 * gradientRms(cpu.gradients);
            for (std::size_t g = 0; g < cpu.gradients.size() && g < gpu.gradients.size(); ++g)
                suite.close(name + ": gradient " + cpu.gradients[g].first, gpu.gradients[g].second,
                            cpu.gradients[g].second, tol, floor);
            suite.expect(cpu.events == gpu.events, name + ": the allocator counts the same bytes at every event");
        } catch (const std::exception& e) {
            std::printf("FAIL %s: %s\n", name.c_str(), e.what());
            ++suite.failures;
        }
    }
    return suite.finish();
}
