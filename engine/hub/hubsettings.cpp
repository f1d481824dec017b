// SPDX-License-Identifier: GPL-3.0-or-later
#include "hub/hubsettings.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>

namespace headroom {

namespace {

std::optional<std::string> nonEmpty(const EnvLookup& env, const char* name)
{
    std::optional<std::string> v = env(name);
    if (v && v->empty())
        return std::nullopt;
    return v;
}

// "~/x" -> "$HOME/x" (os.path.expanduser, the part that matters on Linux).
std::string expandHome(const std::string& path, const EnvLookup& env)
{
    if (path.empty() || path[0] != '~' || (path.size() > 1 && path[1] != '/'))
        return path;
    const std::optional<std::string> home = nonEmpty(env, "HOME");
    return home ? *home + path.substr(1) : path;
}

// utils/_auth.py _clean_token: "\r" and "\n" removed, then spaces stripped.
std::string cleanToken(std::string token)
{
    token.erase(std::remove_if(token.begin(), token.end(), [](char c) { return c == '\r' || c == '\n'; }), token.end());
    const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
    token.erase(token.begin(), std::find_if_not(token.begin(), token.end(), space));
    token.erase(std::find_if_not(token.rbegin(), token.rend(), space).base(), token.end());
    return token;
}

} // namespace

EnvLookup processEnvironment()
{
    return [](const char* name) -> std::optional<std::string> {
        const char* value = std::getenv(name);
        return value ? std::optional<std::string>(value) : std::nullopt;
    };
}

bool isTrueSetting(const std::optional<std::string>& value)
{
    if (!value)
        return false;
    std::string upper = *value;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    return upper == "1" || upper == "ON" || upper == "YES" || upper == "TRUE";
}

HubSettings hubSettingsFromEnvironment(const EnvLookup& env)
{
    HubSettings s;
    if (auto endpoint = nonEmpty(env, "HF_ENDPOINT")) {
        s.endpoint = *endpoint;
        while (!s.endpoint.empty() && s.endpoint.back() == '/')
            s.endpoint.pop_back();
    }

    std::string home;
    if (auto hfHome = nonEmpty(env, "HF_HOME"))
        home = expandHome(*hfHome, env);
    else if (auto xdg = nonEmpty(env, "XDG_CACHE_HOME"))
        home = expandHome(*xdg, env) + "/huggingface";
    else
        home = expandHome("~/.cache/huggingface", env);
    if (auto cache = nonEmpty(env, "HF_HUB_CACHE"))
        s.cacheDir = expandHome(*cache, env);
    else if (auto legacy = nonEmpty(env, "HUGGINGFACE_HUB_CACHE"))
        s.cacheDir = expandHome(*legacy, env);
    else
        s.cacheDir = home + "/hub";

    for (const char* name : {"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"}) {
        if (auto token = env(name)) {
            s.token = cleanToken(*token);
            if (!s.token.empty()) {
                s.tokenSource = name;
                break;
            }
        }
    }
    if (s.token.empty()) {
        const auto path = nonEmpty(env, "HF_TOKEN_PATH");
        const std::string file = path ? expandHome(*path, env) : home + "/token";
        std::ifstream in(file, std::ios::binary);
        if (in) {
            // A token is a few dozen characters; a huge file is not a token file.
            std::string text;
            text.resize(4096);
            in.read(text.data(), static_cast<std::streamsize>(text.size()));
            text.resize(static_cast<std::size_t>(in.gcount()));
            s.token = cleanToken(text);
            if (!s.token.empty())
                s.tokenSource = "the token file " + file;
        }
    }

    // constants.py: HF_HUB_OFFLINE, or TRANSFORMERS_OFFLINE only when the first is unset or empty.
    const std::optional<std::string> hubOffline = nonEmpty(env, "HF_HUB_OFFLINE");
    s.offline = isTrueSetting(hubOffline ? hubOffline : env("TRANSFORMERS_OFFLINE"));
    if (auto timeout = nonEmpty(env, "HF_HUB_DOWNLOAD_TIMEOUT")) {
        char* end = nullptr;
        const double seconds = std::strtod(timeout->c_str(), &end);
        if (end == timeout->c_str() + timeout->size() && std::isfinite(seconds) && seconds > 0 && seconds < 86400)
            s.timeoutSeconds = std::max(1L, std::lround(std::ceil(seconds)));
    }
    return s;
}

} // namespace headroom
