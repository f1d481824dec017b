// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include "core/result.h"
#include "model/modelspec.h"

#include <string>

namespace headroom::cli {

// --model ID: a catalog id is answered by the catalog, offline; an
// ORG/NAME[@REVISION] the catalog does not hold is read from the Hugging Face
// Hub or its cache (engine/hub/hubclient.h). What the user should know
// (no safetensors, an unwritable cache) goes to stderr as notes.
Result<ModelSpec> catalogOrHubModel(const std::string& id);

} // namespace headroom::cli
