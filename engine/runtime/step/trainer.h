// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The training step program: ordinary training code for Llama-family,
// GPT-2 and GPT-NeoX decoders and BERT encoders (masked LM or sequence
// classifier) that allocates every buffer through the tracking allocator
// under the name of its tensor-table row, marks the planner's events, and
// leaves the arithmetic to a backend's Ops (runtime/ops.h). The headroom
// profile's rows (plan/headroomrows.cpp) describe the same program from
// formulas; the agreement suite compares the two (docs/runtime.md).
#include "plan/scenario.h"
#include "runtime/ops.h"
#include "runtime/tensor.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace headroom::rt {

// Empty when the step program runs this scenario; else what it does not
// support yet, in words ("family gpt_neox", "optimizer galore"...).
std::string programUnsupported(const Scenario& scenario);

struct TrainerOptions {
    std::uint64_t seed = 1;
    float learningRate = 3e-3f;
    // Test hook: copy every gradient (fp32) just before the optimizer step.
    bool captureGradients = false;
    // fp16 mixed: the GradScaler's initial scale (torch's default 2^16).
    float initialLossScale = 65536.0f;
};

struct StepResult {
    double loss = 0;           // mean over the micro-batches
    bool skipped = false;      // fp16: a gradient overflowed, the update was skipped
    float lossScale = 1.0f;    // fp16: the scale used for this step
};

// A parameter of the model, for tests: its values are read and written
// through the Ops (upload / download).
struct ParameterRef {
    std::string name;
    Tensor* value = nullptr;
};

// Called as each event begins: (event index, micro-batch).
using EventCallback = std::function<void(std::size_t event, std::uint64_t microBatch)>;

class Trainer {
public:
    // Allocates the persistent state (weights, optimizer state) in the Load
    // event. The scenario must pass programUnsupported(); `ops` outlives the trainer.
    Trainer(const Scenario& scenario, TrackingAllocator& allocator, Ops& ops, const TrainerOptions& options = {});
    ~Trainer();
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    // Tokens one step needs: grad_accum x micro_batch x (seq_len + 1) (inputs and next-token targets).
    std::size_t tokensPerStep() const;
    // One optimizer step over the micro-batches.
    StepResult step(const std::vector<std::int32_t>& tokens, const EventCallback& onEvent = {});
    // Forward only, for finite differences (runs the forward events).
    double loss(const std::vector<std::int32_t>& tokens);

    std::vector<ParameterRef> parameters();
    // With captureGradients: name and fp32 values of each gradient of the last step.
    const std::vector<std::pair<std::string, std::vector<float>>>& capturedGradients() const;
    Ops& ops();

    struct Impl;

private:
    std::unique_ptr<Impl> m_impl;
};

} // namespace headroom::rt
