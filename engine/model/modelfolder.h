// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A local Hugging Face model folder: config.json for the architecture, the
// *.safetensors headers for the exact stored parameter count and dtypes.
#include "core/result.h"
#include "model/modelspec.h"
#include "model/safetensors.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace headroom {

struct ModelFolderInfo {
    ModelSpec spec;                                   // origin "model-folder", checkpointParameters set
    std::uint64_t storedParameters = 0;               // sum over all tensors of all shards
    std::map<std::string, std::uint64_t> elementsByDtype;
    std::uint64_t shardCount = 0;
};

// Errors: FileNotFound (no such folder, or no config.json in it), the
// config.json errors of hfconfig.h, the header errors of safetensors.h.
// A folder without *.safetensors files still imports (storedParameters 0).
Result<ModelFolderInfo> importModelFolder(const std::string& directory);

// The sums over shards, shared with the Hub import (engine/hub): add each
// shard's header, then finish, which sets spec.checkpointParameters and
// spec.checkpointDtype; Overflow (naming `where`) when the shards hold more
// than 2^64 elements.
void addStoredShard(ModelFolderInfo& info, const SafetensorsHeader& header);
std::optional<Error> finishStoredCounts(ModelFolderInfo& info, const std::string& where);

} // namespace headroom
