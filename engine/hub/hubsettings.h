// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where the Hub is, who we are to it, where its files are cached and how long
// to wait: read from the environment variables huggingface_hub reads
// (constants.py, utils/_auth.py), so a machine set up for transformers is set
// up for Headroom. docs/hub.md lists them.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace headroom {

struct HubSettings {
    std::string endpoint = "https://huggingface.co"; // HF_ENDPOINT, trailing '/' removed
    // The access token (HF_TOKEN...). A secret: it goes into the Authorization
    // header and nowhere else; errors name tokenSource, never the token.
    std::string token;
    std::string tokenSource; // "HF_TOKEN", "the token file /home/u/.cache/huggingface/token"
    std::string cacheDir;    // HF_HUB_CACHE, else $HF_HOME/hub
    bool offline = false;    // HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) true
    // HF_HUB_DOWNLOAD_TIMEOUT: seconds to connect, and the longest stall in an
    // answer (huggingface_hub's default, 10).
    long timeoutSeconds = 10;
    long totalTimeoutSeconds = 120; // one request, start to end, however it trickles
    long maxRedirects = 10;
    // The most bytes taken for config.json, the index or one safetensors
    // header: far above real ones (DeepSeek-V3's index, ~9 MB), far below
    // what would hurt.
    std::uint64_t maxJsonBytes = 32ull << 20;
};

// Looks an environment variable up: nullopt when unset. Tests pass their own.
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;
EnvLookup processEnvironment();

// From the environment, as huggingface_hub reads it:
// - HF_ENDPOINT (default https://huggingface.co);
// - the token: HF_TOKEN, else HUGGING_FACE_HUB_TOKEN, else the file
//   HF_TOKEN_PATH or $HF_HOME/token; newlines and surrounding spaces removed,
//   empty meaning none;
// - HF_HOME (default $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface),
//   HF_HUB_CACHE (default $HF_HOME/hub; the older HUGGINGFACE_HUB_CACHE too),
//   a leading ~ expanded;
// - HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE: 1, ON, YES or TRUE, any case;
// - HF_HUB_DOWNLOAD_TIMEOUT: whole or fractional seconds above 0 (else the default).
HubSettings hubSettingsFromEnvironment(const EnvLookup& env = processEnvironment());

// huggingface_hub's _is_true: "1", "ON", "YES", "TRUE" in any case.
bool isTrueSetting(const std::optional<std::string>& value);

} // namespace headroom
