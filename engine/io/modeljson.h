// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The "model" node of a scenario file (io/scenariofile.h), read and written:
//   {"preset": id} | {"config": {...config.json...}, "id"?} | {"size": "13B"}
//   | {"model_dir": path} | {"spec": {...every ModelSpec field...}},
// each with an optional "head" and "num_labels".
#include "core/result.h"
#include "model/modelspec.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace headroom {

// Never throws. Errors name the JSON path ("model.spec.hidden: ...").
Result<ModelSpec> modelFromJson(const nlohmann::json& modelNode);

// The same for a node at `path` of a document; a relative model_dir is
// relative to `baseDir` (the scenario file's folder; empty: the working
// directory). May throw nlohmann::json::exception on input the checks miss;
// callers guard (jsonfields::guarded).
Result<ModelSpec> modelNodeFromJson(const nlohmann::json& node, const std::string& path,
                                    const std::filesystem::path& baseDir);

// A catalog preset exactly as the catalog has it is written by name
// ({"preset": id}); anything else, an edited preset included, as the full
// spec, so the file reads back to an equal model without the original files.
nlohmann::ordered_json modelToJson(const ModelSpec& model);

} // namespace headroom
