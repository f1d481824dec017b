// SPDX-License-Identifier: GPL-3.0-or-later
// The optimizer state of the CPU trainer and its update, one parameter at a
// time, in place (no foreach temporary: profile.cpp makeHeadroom).
#include "runtime/cpu/trainerimpl.h"

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

std::span<float> span(F32View& v, std::size_t n) { return {v.data(), n}; }

} // namespace

void CpuTrainer::Impl::allocateOptimizerState()
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
                cpu::adamw8bitInit({{p.state[0].u8(), n}, {p.state[1].f32(), blocks}, {p.state[2].u8(), n},
                                    {p.state[3].f32(), blocks}},
                                   n);
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
        default: throw std::logic_error("optimizer not supported by the cpu backend");
        }
    });
}

void CpuTrainer::Impl::fusedUpdate(std::size_t layer)
{
    // LOMO: the update fused into backward; the gradient is freed at once.
    cpu::LomoConfig config;
    config.lr = options.learningRate;
    forEachTrainable([&](Param& p, std::size_t l, const char*, const char*) {
        if (l != layer || p.grad.empty())
            return;
        if (options.captureGradients) {
            std::vector<float> g(p.numel());
            for (std::size_t i = 0; i < g.size(); ++i)
                g[i] = loadElement(p.grad, i);
            captured.emplace_back((l == std::size_t(-1) ? "" : "layers." + std::to_string(l) + ".") + p.name, std::move(g));
        }
        F32View w(p.value, F32View::ReadWrite), g(p.grad, F32View::ReadWrite);
        cpu::lomoFusedUpdate(span(w, p.numel()), span(g, p.numel()), config);
        p.grad.release();
    });
}

bool CpuTrainer::Impl::optimizerStep()
{
    const Optimizer o = scenario.train.optimizer;
    const float lr = options.learningRate;
    bool foundInf = false;
    if (scaler) {
        // GradScaler.unscale_ over every gradient, then skip the step on inf/NaN.
        forEachTrainable([&](Param& p, std::size_t, const char*, const char*) {
            foundInf = scaler->unscale({p.grad.f32(), p.numel()}) || foundInf;
        });
        scaler->update(foundInf);
    }
    lastStepSkipped = foundInf;
    auto update = [&](Param& p) {
        const std::size_t n = p.numel();
        ++p.step;
        F32View w(p.value, F32View::ReadWrite), g(p.grad, F32View::Read);
        std::span<const float> grad{g.data(), n};
        switch (o) {
        case Optimizer::Sgd: cpu::sgdStep(span(w, n), grad, {}, p.step, {lr, 0.0f, 0.0f}); break;
        case Optimizer::SgdMomentum: {
            F32View m(p.state[0], F32View::ReadWrite);
            cpu::sgdStep(span(w, n), grad, span(m, n), p.step, {lr, 0.9f, 0.0f});
            break;
        }
        case Optimizer::AdamW: {
            F32View m(p.state[0], F32View::ReadWrite), v(p.state[1], F32View::ReadWrite);
            cpu::adamwStep(span(w, n), grad, span(m, n), span(v, n), p.step, cpu::AdamWConfig{lr});
            break;
        }
        case Optimizer::AdamW8bit:
            if (p.state[0].dtype == DType::U8) {
                const std::size_t blocks = cpu::adamw8bitBlocks(n);
                cpu::adamw8bitStep(span(w, n), grad,
                                   {{p.state[0].u8(), n}, {p.state[1].f32(), blocks}, {p.state[2].u8(), n},
                                    {p.state[3].f32(), blocks}},
                                   p.step, cpu::AdamWConfig{lr});
            } else {
                cpu::adamwStep(span(w, n), grad, {p.state[0].f32(), n}, {p.state[1].f32(), n}, p.step,
                               cpu::AdamWConfig{lr});
            }
            break;
        case Optimizer::Lion: {
            F32View m(p.state[0], F32View::ReadWrite);
            cpu::LionConfig config;
            config.lr = lr / 3.0f; // Lion paper §5: a learning rate 3-10x smaller than AdamW's
            cpu::lionStep(span(w, n), grad, span(m, n), config);
            break;
        }
        case Optimizer::Adafactor: {
            cpu::AdafactorConfig config;
            config.lr = lr;
            if (p.isMatrix) {
                F32View r(p.state[0], F32View::ReadWrite), c(p.state[1], F32View::ReadWrite);
                cpu::adafactorStepFactored(span(w, n), grad, p.rows, p.cols, span(r, p.rows), span(c, p.cols), {},
                                           p.step, config);
            } else {
                F32View v(p.state[0], F32View::ReadWrite);
                cpu::adafactorStepUnfactored(span(w, n), grad, span(v, n), {}, p.step, config);
            }
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
