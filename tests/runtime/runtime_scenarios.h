// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The agreement suite's randomised small scenarios (every option the step
// program runs), shared by the CPU suite (tests/runtime/test_runtime_agreement.cpp)
// and the GPU one (tests/gpu/gpu_agreement.cpp). Qt-free.
#include "plan/scenario.h"
#include "runtime_testmodels.h"

#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace headroom::testing {

inline std::string describe(const Scenario& s)
{
    const ModelSpec& m = s.model;
    std::ostringstream out;
    out << familyName(m.family) << " L" << m.layers << " h" << m.hidden << " heads" << m.heads << "/" << m.kvHeads << " i" << m.intermediate
        << " V" << m.vocab << (m.tieEmbeddings ? " tied" : "") << (m.qkvBias ? " qkv-bias" : "")
        << (m.attnOutBias ? " o-bias" : "") << " b" << s.train.microBatch << " s" << s.train.seqLen << " acc"
        << s.train.gradAccum << " " << precisionName(s.train.precision) << " " << optimizerName(s.train.optimizer)
        << " ckpt " << checkpointingName(s.train.checkpointing) << " " << peftMethodName(s.train.peft.method) << " "
        << weightQuantName(s.train.weightQuant) << " r" << s.train.peft.rank;
    if (s.train.checkpointing == Checkpointing::EveryK)
        out << s.train.checkpointEvery;
    out << " " << attentionName(s.train.attention);
    if (s.train.chunkedCrossEntropy)
        out << " chunked-ce " << s.train.lossChunks;
    if (m.dropout > 0)
        out << " dropout " << m.dropout;
    if (m.rotaryFraction < 1)
        out << " rotary " << m.rotaryFraction;
    if (m.classifier())
        out << " classifier " << m.numLabels << " labels";
    return out.str();
}

// The step options both random families draw, in this order (the draws
// decide which scenarios the suites run): batch shape, accumulation, and
// every precision, optimizer, attention form and checkpointing by
// construction (index-driven), plus random mixing.
template <class Pick>
void drawStepOptions(Scenario& s, std::size_t index, Pick& pick)
{
    s.train.microBatch = pick(1, 3);
    s.train.seqLen = pick(2, 20);
    s.train.gradAccum = pick(0, 2) == 0 ? pick(2, 3) : 1;
    const Precision precisions[] = {Precision::Fp32, Precision::Bf16Mixed, Precision::Bf16, Precision::Fp16Mixed};
    const Optimizer optimizers[] = {Optimizer::Sgd,  Optimizer::SgdMomentum, Optimizer::AdamW, Optimizer::AdamW8bit,
                                    Optimizer::Lion, Optimizer::Adafactor,   Optimizer::Lomo};
    const Attention attentions[] = {Attention::Eager, Attention::Sdpa, Attention::Flash};
    const Checkpointing checkpointing[] = {Checkpointing::None, Checkpointing::Full, Checkpointing::EveryK};
    s.train.precision = precisions[index % 4];
    s.train.optimizer = optimizers[(index / 4 + pick(0, 6)) % 7];
    s.train.attention = attentions[pick(0, 2)];
    s.train.checkpointing = checkpointing[(index + pick(0, 2)) % 3];
    s.train.checkpointEvery = pick(2, 3);
}

// What the optimizer drawn asks of the rest.
template <class Pick>
void fitStepOptions(Scenario& s, Pick& pick)
{
    // LOMO updates inside backward: no accumulation, no fp16 loss scaling (rejected: see below).
    if (s.train.optimizer == Optimizer::Lomo) {
        s.train.gradAccum = 1;
        if (s.train.precision == Precision::Fp16Mixed)
            s.train.precision = Precision::Bf16;
    }
    // 8-bit AdamW's blockwise state only applies from 4096 elements: make some tensors that big.
    if (s.train.optimizer == Optimizer::AdamW8bit && pick(0, 1) == 1) {
        s.model.intermediate = 4096 / s.model.hidden + pick(0, 40);
        s.model.vocab = 4096 / s.model.hidden + pick(1, 40);
    }
}

inline Scenario randomScenario(std::mt19937_64& rng, std::size_t index)
{
    auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
        return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
    };
    Scenario s = tinyScenario();
    const std::uint64_t kvHeads = pick(1, 2);
    const std::uint64_t heads = kvHeads * pick(1, 3);
    const std::uint64_t headDim = 2 * pick(1, 4);
    s.model = tinyLlama(pick(1, 4), heads * headDim, heads, kvHeads, pick(4, 40), pick(16, 80));
    s.model.tieEmbeddings = pick(0, 1) == 1;
    s.model.qkvBias = pick(0, 1) == 1;
    s.model.attnOutBias = pick(0, 3) == 0;
    // A quarter of the scenarios are GPT-2 models (multi-head attention, fixed biases).
    if (pick(0, 3) == 0) {
        s.model = tinyGpt2(pick(1, 4), heads * headDim, heads, pick(4, 40), pick(16, 80), 20 + pick(0, 8));
        s.model.tieEmbeddings = pick(0, 3) != 0;
        s.model.hiddenAct = pick(0, 1) ? "gelu_new" : "gelu";
    } else if (pick(0, 3) == 0) {
        // And some GPT-NeoX models (parallel residual, partial rotary over an even part of the head).
        const std::uint64_t neoxHeadDim = 4 * pick(1, 2);
        s.model = tinyNeoX(pick(1, 4), heads * neoxHeadDim, heads, pick(4, 40), pick(16, 80));
        s.model.tieEmbeddings = pick(0, 3) == 0;
        s.model.rotaryFraction = pick(0, 1) ? 0.5 : 1.0;
        s.model.qkvBias = s.model.attnOutBias = pick(0, 3) != 0;
    }
    drawStepOptions(s, index, pick);
    s.train.chunkedCrossEntropy = pick(0, 2) == 0;
    s.train.lossChunks = pick(1, 8);
    // A third of the scenarios train LoRA adapters, half of those over an NF4 base (QLoRA).
    const std::uint64_t peft = pick(0, 5);
    if (peft >= 4 && s.model.family == Family::Llama) {
        s.train.peft.method = peft == 4 ? PeftMethod::Lora : PeftMethod::Qlora;
        s.train.weightQuant = peft == 4 ? WeightQuant::None : (pick(0, 1) ? WeightQuant::Nf4 : WeightQuant::Nf4DoubleQuant);
        s.train.peft.rank = pick(1, 4);
        s.train.peft.alpha = double(pick(1, 16));
        s.train.peft.dropout = 0;
        const std::vector<std::string> targets[] = {{}, {"all-linear"}, {"o_proj", "down_proj"}, {"k_proj", "gate_proj", "up_proj"}};
        s.train.peft.targets = targets[pick(0, 3)];
    }
    // A third of the scenarios train with dropout (attention dropout in Llama
    // models; embedding, attention and residual dropout in GPT-2 ones).
    if (pick(0, 2) == 0)
        s.model.dropout = 0.1;
    fitStepOptions(s, pick);
    return s;
}

// A BERT masked LM or sequence classifier (BertForMaskedLM, BertForSequenceClassification) over the options
// the step program runs for it: every precision, optimizer, attention form and
// checkpointing, accumulation, dropout on or off. Kept apart from
// randomScenario so that its draws (and the GPU suite's scenarios) stay as they were.
inline Scenario randomBertScenario(std::mt19937_64& rng, std::size_t index)
{
    auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
        return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
    };
    Scenario s = tinyScenario();
    const std::uint64_t heads = pick(1, 3), headDim = 2 * pick(1, 4);
    s.model = tinyBert(pick(1, 3), heads * headDim, heads, pick(4, 40), pick(16, 80), 20 + pick(0, 8), pick(2, 5));
    if (index % 2 == 1) {
        s.model.head = ModelHead::LanguageModel;
        s.model.hfClass = "BertForMaskedLM";
        s.model.numLabels = 0;
        s.model.tieEmbeddings = true;
    }
    s.model.hiddenAct = pick(0, 3) == 0 ? "gelu_new" : "gelu";
    s.model.dropout = pick(0, 1) == 0 ? 0.1 : 0.0;
    drawStepOptions(s, index, pick);
    fitStepOptions(s, pick);
    return s;
}

} // namespace headroom::testing
