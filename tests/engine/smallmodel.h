// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The small Llama-like models the planner tests derive their numbers on,
// imported from a config.json as a user's would be (model/hfconfig.h).
#include "model/hfconfig.h"
#include "plan/scenario.h"

#include <QtTest>

#include <nlohmann/json.hpp>

namespace headroom::testing {

struct SmallModelShape {
    const char* type = "llama"; // config.json model_type
    Bytes hidden = 256, layers = 4, heads = 8, kvHeads = 2, intermediate = 704, vocab = 1000;
    bool tied = false;
};

inline ModelSpec smallModel(const SmallModelShape& m = {})
{
    const nlohmann::json config{{"model_type", m.type},           {"hidden_size", m.hidden},
                                {"num_hidden_layers", m.layers},  {"num_attention_heads", m.heads},
                                {"num_key_value_heads", m.kvHeads}, {"intermediate_size", m.intermediate},
                                {"vocab_size", m.vocab},          {"tie_word_embeddings", m.tied}};
    Result<ModelSpec> spec = modelSpecFromHfConfigText(config.dump());
    if (!spec)
        qFatal("config did not import: %s", spec.error().detail.c_str());
    return spec.value();
}

// The default small model trained in pure bf16 with AdamW on `gpus` H100s:
// micro-batch 2 x 128 tokens, one micro-batch, flash attention, no KV cache
// (the layout search's and the step-time model's tests, test_layoutsearch.cpp
// and test_steptime.cpp).
inline Scenario smallScenario(std::uint64_t gpus)
{
    Scenario sc;
    sc.model = smallModel();
    sc.train.precision = Precision::Bf16; // pure bf16: 2-byte activations, gradients and gathers
    sc.train.optimizer = Optimizer::AdamW;
    sc.train.microBatch = 2;
    sc.train.seqLen = 128;
    sc.train.gradAccum = 1;
    sc.train.attention = Attention::Flash;
    sc.train.useCache = UseCache::Off;
    sc.hardware.gpu = "h100-sxm-80gb";
    sc.hardware.count = gpus;
    return sc;
}

} // namespace headroom::testing
