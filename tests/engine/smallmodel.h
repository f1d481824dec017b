// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The small Llama-like models the planner tests derive their numbers on,
// imported from a config.json as a user's would be (model/hfconfig.h).
#include "model/hfconfig.h"

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

} // namespace headroom::testing
