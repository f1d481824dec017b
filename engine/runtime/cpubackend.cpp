// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU backend (the step program on the CPU Ops) and the step loop every
// backend shares: steps on the bundled corpus, progress, timeout, timing,
// and what the tracking allocator measured.
#include "runtime/backend.h"

#include "plan/sweep.h"
#include "runtime/cpu/parallel.h"
#include "runtime/cpu/trainer.h"
#include "runtime/ops.h"
#include "runtime/validate.h"

#include <chrono>
#include <random>

namespace headroom::rt {

namespace {

struct Timeout : std::runtime_error {
    using std::runtime_error::runtime_error;
};

const char* progressPhase(Phase p)
{
    switch (p) {
    case Phase::Load: return "setup";
    case Phase::EmbedFwd:
    case Phase::LayerFwd:
    case Phase::HeadFwd: return "forward";
    case Phase::LossFwd:
    case Phase::LossBwd: return "loss";
    case Phase::HeadBwd:
    case Phase::LayerBwd:
    case Phase::EmbedBwd: return "backward";
    case Phase::OptimizerStep: return "optimizer";
    case Phase::Decode: return "forward";
    }
    return "forward";
}

// Byte-level tokens: each byte of the corpus, folded into the vocabulary.
std::vector<std::int32_t> batchTokens(std::size_t count, std::size_t offset, std::uint64_t vocab, bool synthetic,
                                      std::mt19937_64& rng)
{
    std::vector<std::int32_t> tokens(count);
    const std::string& text = bundledCorpus();
    std::uniform_int_distribution<std::uint64_t> uniform(0, vocab - 1);
    for (std::size_t i = 0; i < count; ++i) {
        const auto byte = static_cast<unsigned char>(text[(offset + i) % text.size()]);
        tokens[i] = static_cast<std::int32_t>(synthetic ? uniform(rng) : byte % vocab);
    }
    return tokens;
}

class CpuBackend : public Backend {
public:
    std::string name() const override { return "cpu"; }
    std::string device() const override { return "CPU (" + std::to_string(cpu::threadCount()) + " threads)"; }
    std::string unsupported(const Scenario& s) const override { return cpuUnsupported(s); }
    Bytes capacityBytes() const override { return kCpuBackendByteLimit; }
    std::uint64_t extrapolationLayers() const override { return 2; }

    Measurement run(const Scenario& s, const RunOptions& o) override
    {
        TrackingAllocator allocator(buildEvents(Mode::Train, s.model.layers).size());
        auto ops = makeCpuOps();
        Measurement m = runTrainingSteps(s, o, *ops, allocator);
        m.device = device();
        return m;
    }
};

} // namespace

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

Measurement runTrainingSteps(const Scenario& s, const RunOptions& o, Ops& ops, TrackingAllocator& allocator,
                             const std::function<bool(const std::exception&)>& isOutOfMemory)
{
    Measurement m;
    const std::vector<Event> events = buildEvents(Mode::Train, s.model.layers);
    std::vector<std::string> labels;
    labels.reserve(events.size());
    for (const Event& e : events)
        labels.push_back(eventLabel(e));
    allocator.setEventLabels(labels);
    allocator.setCapacity(o.capacityBytes);
    if (o.injectOutOfMemory)
        allocator.failFirstAllocationOf(Category::Activations);
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    std::uint64_t currentStep = 1;
    const std::uint64_t accum = s.train.gradAccum;
    auto report = [&](const char* phase, const std::string& event, double fraction) {
        if (o.progress)
            o.progress(Progress{fraction, phase, event, currentStep, o.steps});
    };
    auto fail = [&](const char* status, const std::string& message) {
        if (allocator.inEvent())
            allocator.endEvent();
        m.status = status;
        m.message = message;
    };
    try {
        report("setup", labels[0], 0.0);
        TrainerOptions to;
        to.seed = o.seed;
        Trainer trainer(s, allocator, ops, to);
        std::mt19937_64 rng(o.seed);
        std::vector<double> seconds;
        const double perStep = 1.0 / double(o.steps);
        for (currentStep = 1; currentStep <= o.steps; ++currentStep) {
            const auto tokens = batchTokens(trainer.tokensPerStep(), (currentStep - 1) * trainer.tokensPerStep(),
                                            s.model.vocab, o.syntheticData, rng);
            ops.synchronize(); // the step's time starts with nothing queued
            const auto t0 = std::chrono::steady_clock::now();
            auto onEvent = [&](std::size_t e, std::uint64_t micro) {
                if (o.timeoutSeconds > 0 && elapsed() > o.timeoutSeconds)
                    throw Timeout("timed out after " + std::to_string(o.timeoutSeconds) + " s in " + labels[e]);
                const double within = (double(micro) + double(e) / double(events.size())) / double(accum);
                report(currentStep == 1 && o.steps > 1 ? "warmup" : progressPhase(events[e].phase), labels[e],
                       (double(currentStep - 1) + within) * perStep);
            };
            const StepResult r = trainer.step(tokens, onEvent);
            ops.synchronize(); // and ends when the device is done
            seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            m.losses.push_back(r.loss);
            if (r.skipped)
                m.notes.push_back("step " + std::to_string(currentStep) + ": fp16 gradients overflowed at loss scale " +
                                  std::to_string(r.lossScale) + "; the update was skipped (GradScaler)");
        }
        double total = 0;
        for (std::size_t i = seconds.size() > 1 ? 1 : 0; i < seconds.size(); ++i)
            total += seconds[i];
        m.stepSeconds = total / double(seconds.size() > 1 ? seconds.size() - 1 : 1);
        const double tokens = double(accum * s.train.microBatch * s.train.seqLen);
        m.tokensPerSecond = m.stepSeconds > 0 ? tokens / m.stepSeconds : 0;
        currentStep = o.steps;
        report("done", labels.back(), 1.0);
    } catch (const OutOfMemory& e) {
        fail("out_of_memory", e.what());
    } catch (const Timeout& e) {
        fail("error", e.what());
    } catch (const std::exception& e) {
        fail(isOutOfMemory && isOutOfMemory(e) ? "out_of_memory" : "error",
             std::string(isOutOfMemory && isOutOfMemory(e) ? "device out of memory in " : "failed in ") +
                 (allocator.inEvent() ? labels[allocator.currentEvent()] : std::string("setup")) + ": " + e.what());
    }
    m.peakBytes = allocator.peakBytes();
    m.peakEvent = allocator.peakEvent();
    m.peakCategories = allocator.peakCategories();
    m.eventBytes = allocator.eventBytes();
    m.eventTensors = allocator.eventTensors();
    m.eventSeen = allocator.eventSeen();
    m.records = allocator.records();
    return m;
}

} // namespace headroom::rt
