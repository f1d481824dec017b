// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A model from the Hugging Face Hub without its weights: config.json for the
// architecture, then model.safetensors.index.json (or a single
// model.safetensors) and the header of each shard, read with HTTP range
// requests, for the exact stored parameter count and dtypes. Files already
// in the Hugging Face cache are used as they are; what is fetched is put
// there, in huggingface_hub's layout (hubcache.h). docs/hub.md.
#include "core/result.h"
#include "hub/httptransport.h"
#include "hub/hubid.h"
#include "hub/hubsettings.h"
#include "model/modelfolder.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

struct HubProgress {
    std::string file;      // the file being read ("config.json", a shard's name)
    std::size_t done = 0;  // files finished
    std::size_t total = 0; // files known so far (the shards are known once the index is read)
};

struct HubFetchControl {
    const std::atomic<bool>* cancel = nullptr;          // set from another thread: Error Cancelled soon after
    std::function<void(const HubProgress&)> onProgress; // called on the fetching thread
};

struct HubModelInfo {
    // spec: origin "hub", id the repository; the stored counts as a model
    // folder's (storedParameters 0 when the repository has no safetensors).
    ModelFolderInfo model;
    HubModelRef ref;
    std::string commit;               // the commit the files came from
    bool countsKnown = false;         // every safetensors header was read
    std::vector<std::string> fetched; // files asked of the network; empty: all from the cache
    std::vector<std::string> notes;   // what the user should know: no safetensors, an unwritable cache...
};

// The limits on what the index may ask for.
inline constexpr std::size_t kMaxHubShards = 1000;
// The first range asked of a shard: most headers fit (a 7B model's is ~25 KB).
inline constexpr std::uint64_t kFirstHeaderRange = 64 * 1024;

// With `transport` nullptr only the cache answers: with settings.offline
// that is HF_HUB_OFFLINE; without it, Error HubUnavailable (a build without
// libcurl). Errors: those of hubresponse.h and httptransport.h, HubOffline
// (offline and not in the cache), the config.json errors of hfconfig.h
// (UnknownModelType...), MalformedSafetensors, ResponseTooLarge, Cancelled.
// Details name the repository and the file; the token appears in none of
// them, nor in the notes.
Result<HubModelInfo> fetchHubModel(const HubModelRef& ref, const HubSettings& settings, HttpTransport* transport,
                                   const HubFetchControl& control = {});

// "ORG/NAME[@REVISION]" with the settings of the environment and this build's transport.
Result<HubModelInfo> importHubModel(std::string_view id, const HubFetchControl& control = {});

// `text` with every occurrence of `secret` replaced by "[token]".
std::string redacted(std::string text, const std::string& secret);

} // namespace headroom
