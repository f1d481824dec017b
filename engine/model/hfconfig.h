// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Hugging Face config.json -> ModelSpec, for every supported model_type.
#include "core/result.h"
#include "model/modelspec.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

// The model_type strings we read ("llama", "mistral", "qwen2", "qwen3",
// "mixtral", "gemma", "gemma2", "phi3", "gpt2", "gpt_neox", "gpt_bigcode", "bert", "llama4_text",
// "llama4"...).
const std::vector<std::string>& supportedModelTypes();

// Errors: MissingField (names the key), UnknownModelType (names the type and
// lists the supported ones), InvalidArgument (a size that is zero, negative,
// not an integer, absurdly large, or inconsistent such as heads not dividing
// hidden). spec.origin is set to "config.json"; spec.id to `id`.
Result<ModelSpec> modelSpecFromHfConfig(const nlohmann::json& config, const std::string& id = "custom");
Result<ModelSpec> modelSpecFromHfConfigText(std::string_view text, const std::string& id = "custom");
Result<ModelSpec> modelSpecFromConfigFile(const std::string& path);

} // namespace headroom
