// SPDX-License-Identifier: GPL-3.0-or-later
// The optimizer state of the step program and its update, one parameter at
// a time, in place (no foreach temporary: profile.cpp makeHeadroom).
#include "runtime/step/trainerimpl.h"

#include "runtime/cpu/adafactor.h"
#include "runtime/cpu/adamw.h"
#include "runtime/cpu/adamw8bit.h"
#include "runtime/cpu/lion.h"
#include "runtime/cpu/sgd.h"

#include <span>

namespace headroom::rt {

namespace {

// bitsandbytes Optimizer8bit keeps 32-bit state for tensors under 4096
// elements (min_8bit_size), and HF Trainer registers embeddings for 32-bit
// state (trainer.py create_optimizer, manager.register_module_override).
constexpr std::size_t kMin8bitSize = 4096;

bool eightBit(const Param& p) { return p.numel() >= kMin8bitSize && !p.isEmbedding; }

} // namespace

void Trainer::Impl::allocateOptimizerState()
{
    const Optimizer o = scenario.train.optimizer;
    forEachTrainable([&](Param& p, std::size_t, const char*, const char* name) {
        auto state = [&](DType dtype, std::size_t n) {
            p.state.push_back(makeTensor(alloc, name, Category::OptimizerState, dtype, n));
        };
        const std::size_t n = p.numel();
        switch (o) {
        case Optimizer::Sgd:
        case Optimizer::Lomo: break;
        case Optimizer::SgdMomentum:
        case Optimizer::Lion: state(prec.state, n); break;
        case Optimizer::AdamW:
            state(prec.state, n);
            state(prec.state, n);
            break;
        case Optimizer::AdamW8bit:
            if (eightBit(p)) {
                // Two uint8 code tensors and one fp32 absmax per block of 256 each (bnb blockwise, block 256).
                const std::size_t blocks = cpu::adamw8bitBlocks(n);
                state(DType::U8, n);
                state(DType::F32, blocks);
                state(DType::U8, n);
                state(DType::F32, blocks);
                ops.adamw8bitInit(p.state[0], p.state[1], p.state[2], p.state[3]);
            } else {
                state(DType::F32, n);
                state(DType::F32, n);
            }
            break;
        case Optimizer::Adafactor:
            // Factored second moment for matrices (row and column statistics),
            // a full one for vectors; no first moment (HF Adafactor beta1=None).
            if (p.isMatrix) {
                state(prec.state, p.rows);
                state(prec.state, p.cols);
            } else {
                state(prec.state, n);
            }
            break;
        default: throw std::logic_error("optimizer not supported by the step program");
        }
    });
}

void Trainer::Impl::fusedUpdate(std::size_t layer)
{
    // LOMO: the update fused into backward; the gradient is freed at once.
    cpu::LomoConfig config;
    config.lr = options.learningRate;
    forEachTrainable([&](Param& p, std::size_t l, const char*, const char*) {
        if (l != layer || p.grad.empty())
            return;
        if (options.captureGradients)
            capture(p, l);
        ops.lomoUpdate(p.value, p.grad, config);
        p.grad.release();
    });
}

bool Trainer::Impl::optimizerStep()
{
    const Optimizer o = scenario.train.optimizer;
    const float lr = options.learningRate;
    bool foundInf = false;
    if (prec.lossScaling) {
        // GradScaler.unscale_ over every gradient, then skip the step on inf/NaN.
        forEachTrainable([&](Param& p, std::size_t, const char*, const char*) { ops.unscale(p.grad); });
        foundInf = ops.finishUnscale();
    }
    lastStepSkipped = foundInf;
    auto update = [&](Param& p) {
        ++p.step;
        switch (o) {
        case Optimizer::Sgd: ops.sgdStep(p.value, p.grad, At{}, p.step, {lr, 0.0f, 0.0f}); break;
        case Optimizer::SgdMomentum: ops.sgdStep(p.value, p.grad, p.state[0], p.step, {lr, 0.9f, 0.0f}); break;
        case Optimizer::AdamW: ops.adamwStep(p.value, p.grad, p.state[0], p.state[1], p.step, cpu::AdamWConfig{lr}); break;
        case Optimizer::AdamW8bit:
            if (p.state[0].dtype == DType::U8)
                ops.adamw8bitStep(p.value, p.grad, p.state[0], p.state[1], p.state[2], p.state[3], p.step,
                                  cpu::AdamWConfig{lr});
            else
                ops.adamwStep(p.value, p.grad, p.state[0], p.state[1], p.step, cpu::AdamWConfig{lr});
            break;
        case Optimizer::Lion: {
            cpu::LionConfig config;
            config.lr = lr / 3.0f; // Lion paper §5: a learning rate 3-10x smaller than AdamW's
            ops.lionStep(p.value, p.grad, p.state[0], config);
            break;
        }
        case Optimizer::Adafactor: {
            cpu::AdafactorConfig config;
            config.lr = lr;
            if (p.isMatrix)
                ops.adafactorStepFactored(p.value, p.grad, p.rows, p.cols, p.state[0], p.state[1], p.step, config);
            else
                ops.adafactorStepUnfactored(p.value, p.grad, p.state[0], p.step, config);
            break;
        }
        default: break;
        }
    };
    forEachTrainable([&](Param& p, std::size_t, const char*, const char*) {
        if (!foundInf)
            update(p);
        p.grad.release();
    });
    return !foundInf;
}

} // namespace headroom::rt
