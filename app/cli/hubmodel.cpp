// SPDX-License-Identifier: GPL-3.0-or-later
#include "hubmodel.h"

#include "hub/hubclient.h"
#include "model/catalog.h"

#include <iostream>

namespace headroom::cli {

Result<ModelSpec> catalogOrHubModel(const std::string& id)
{
    Result<ModelSpec> preset = presetModel(id);
    if (preset || preset.error().code != ErrorCode::UnknownModel || !looksLikeHubId(id))
        return preset;
    Result<HubModelInfo> hub = importHubModel(id);
    if (!hub)
        return hub.error();
    for (const std::string& note : hub->notes)
        std::cerr << "headroom-cli: note: " << note << "\n";
    return hub->model.spec;
}

} // namespace headroom::cli
