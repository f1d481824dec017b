// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The typed reader of a config.json object that every model_type's reader
// in hfconfig.cpp and hfconfigllama4.cpp shares (internal to those files).
#include "core/result.h"
#include "model/modelspec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace headroom::detail {

using nlohmann::json;

// modelspec.h: the bounds a scenario's "spec" reads back too.
constexpr std::uint64_t kMaxDimension = kMaxModelDimension;
constexpr std::uint64_t kMaxLayers = kMaxModelLayers;

inline std::string quoted(const std::string& key) { return "\"" + key + "\""; }

// Reads typed values out of a config object. The first problem is kept and
// reported; reading goes on with neutral values so one pass fills the spec.
class ConfigReader {
public:
    explicit ConfigReader(const json& config) : m_config(config) {}
    // A reader of a nested object (Gemma3Config's "text_config"): its keys are
    // named "text_config.hidden_size" in messages, and its first problem is
    // handed to `parent`.
    ConfigReader(const json& config, std::string prefix) : m_config(config), m_prefix(std::move(prefix)) {}

    const std::optional<Error>& error() const { return m_error; }
    bool has(const std::string& key) const { return m_config.contains(key); }

    // The value of `key`, or nullptr when it is absent or null (None).
    const json* find(const std::string& key) const
    {
        const auto it = m_config.find(key);
        return it == m_config.end() || it->is_null() ? nullptr : &*it;
    }

    // A positive integer no larger than `limit`. Without a fallback the key is required.
    std::uint64_t size(const std::string& key, std::uint64_t limit, std::optional<std::uint64_t> fallback = {})
    {
        const json* v = find(key);
        if (!v) {
            if (fallback)
                return *fallback;
            fail(ErrorCode::MissingField, "config.json has no " + name(key) + " (a positive integer)");
            return 1;
        }
        const std::string shown = name(key) + " is " + v->dump();
        if (!v->is_number()) {
            fail(ErrorCode::MissingField, shown + "; expected a positive integer");
            return 1;
        }
        // Within the limits a double holds every integer exactly, so one
        // check covers nlohmann's unsigned, signed (negative) and float
        // numbers; 4096.0 is accepted, 0.5, 1e30 and NaN are not.
        const double d = v->get<double>();
        if (v->is_number_float() && !(std::isfinite(d) && d == std::floor(d))) {
            fail(ErrorCode::InvalidArgument, shown + "; it must be an integer");
            return 1;
        }
        if (d < 1.0 || d > static_cast<double>(limit)) {
            fail(ErrorCode::InvalidArgument,
                 shown + "; it must be a positive integer no larger than " + std::to_string(limit));
            return 1;
        }
        return static_cast<std::uint64_t>(d);
    }
    // A count that may be 0 (DeepSeek-V3's first_k_dense_replace), no larger than `limit`.
    std::uint64_t count(const std::string& key, std::uint64_t limit, std::uint64_t fallback)
    {
        const json* v = find(key);
        if (v && v->is_number() && v->get<double>() == 0.0)
            return 0;
        return size(key, limit, fallback);
    }
    std::uint64_t dimension(const std::string& key, std::optional<std::uint64_t> fallback = {})
    {
        return size(key, kMaxDimension, fallback);
    }

    bool flag(const std::string& key, bool fallback) { return typed(key, fallback, &json::is_boolean, "true or false"); }
    std::string text(const std::string& key, const std::string& fallback)
    {
        return typed(key, fallback, &json::is_string, "a string");
    }

    // A dropout probability in [0, 1].
    double probability(const std::string& key, double fallback)
    {
        const json* v = find(key);
        if (!v)
            return fallback;
        if (!v->is_number()) {
            fail(ErrorCode::MissingField, name(key) + " is " + v->dump() + "; expected a number");
            return fallback;
        }
        const double p = v->get<double>();
        if (!(p >= 0.0 && p <= 1.0)) {
            fail(ErrorCode::InvalidArgument, name(key) + " is " + v->dump() + "; a dropout must lie in [0, 1]");
            return fallback;
        }
        return p;
    }
    // A fraction in (0, 1] (GPT-NeoX's rotary_pct, partial_rotary_factor).
    double fraction(const std::string& key, double fallback)
    {
        const json* v = find(key);
        if (!v)
            return fallback;
        const double f = v->is_number() ? v->get<double>() : -1.0;
        if (!(f > 0.0 && f <= 1.0)) {
            fail(ErrorCode::InvalidArgument, name(key) + " is " + v->dump() + "; expected a fraction in (0, 1]");
            return fallback;
        }
        return f;
    }
    // A setting that is on when it holds a positive number and off when it is
    // null (transformers' convention for optional caps such as softcapping).
    bool positiveOrNull(const std::string& key, bool fallback)
    {
        if (!has(key))
            return fallback;
        const json* v = find(key);
        if (!v) // null
            return false;
        if (!v->is_number()) {
            fail(ErrorCode::MissingField, name(key) + " is " + v->dump() + "; expected a number or null");
            return fallback;
        }
        return v->get<double>() > 0;
    }
    double maxProbability(std::initializer_list<std::string> keys, double fallback)
    {
        double p = 0.0;
        for (const std::string& key : keys)
            p = std::max(p, probability(key, fallback));
        return p;
    }

    void fail(ErrorCode code, std::string detail)
    {
        if (!m_error)
            m_error = makeError(code, std::move(detail));
    }

private:
    template <class T>
    T typed(const std::string& key, const T& fallback, bool (json::*is)() const noexcept, const char* expected)
    {
        const json* v = find(key);
        if (v && !(v->*is)())
            fail(ErrorCode::MissingField, name(key) + " is " + v->dump() + "; expected " + expected);
        return v && (v->*is)() ? v->get<T>() : fallback;
    }

    std::string name(const std::string& key) const { return quoted(m_prefix.empty() ? key : m_prefix + "." + key); }

    const json& m_config;
    std::string m_prefix;
    std::optional<Error> m_error;
};

// A composite config's text model (Gemma3Config, Llama4Config): its
// "text_config" object read by `readText`, its keys named
// "text_config.<key>" in messages and its first problem handed to `r`.
// transformers builds a default text config when the key is missing
// (Gemma 2 2B's sizes for Gemma 3, Scout's for Llama 4): required here, as the
// sizes are. False when there is no such object.
template <class ReadText>
bool readTextConfig(ConfigReader& r, ModelSpec& s, const char* modelType, ReadText readText)
{
    const json* text = r.find("text_config");
    if (!text || !text->is_object()) {
        r.fail(ErrorCode::MissingField,
               std::string("config.json has no \"text_config\" object (model_type \"") + modelType + "\")");
        return false;
    }
    ConfigReader t(*text, "text_config");
    readText(t, s);
    if (t.error())
        r.fail(t.error()->code, t.error()->detail);
    return true;
}

// Dense layers among the mixture-of-experts ones, from a per-layer mask
// (true: dense): ModelSpec::denseLayers and denseLayerIds (empty when they
// are the first ones). A mask with no sparse layer is refused, naming `keys`:
// such a model is the dense `denseType`.
inline void setDenseLayers(ConfigReader& r, ModelSpec& s, const std::vector<bool>& dense, const std::string& keys,
                           const char* denseType)
{
    std::vector<std::uint64_t> ids;
    for (std::uint64_t i = 0; i < dense.size(); ++i)
        if (dense[i])
            ids.push_back(i);
    if (!ids.empty() && ids.size() == s.layers) {
        r.fail(ErrorCode::UnsupportedCombination, keys + " make every one of the " + std::to_string(s.layers) +
                                                      " layers dense: no layer would be sparse; import it as a "
                                                      "dense \"" + denseType + "\" model");
        return;
    }
    bool prefix = true;
    for (std::size_t k = 0; k < ids.size(); ++k)
        prefix = prefix && ids[k] == k;
    s.denseLayers = ids.size();
    s.denseLayerIds = prefix ? std::vector<std::uint64_t>{} : ids;
}

// model_type "llama4_text" (Llama4TextConfig, counted as Llama4ForCausalLM)
// and "llama4" (Llama4Config: text_config + vision_config, counted as
// Llama4ForConditionalGeneration); hfconfigllama4.cpp.
void readLlama4Text(ConfigReader& r, ModelSpec& s);
void readLlama4(ConfigReader& r, ModelSpec& s);

// model_type "deepseek_v3" (DeepseekV3Config, counted as
// DeepseekV3ForCausalLM); hfconfigdeepseek.cpp.
void readDeepseekV3(ConfigReader& r, ModelSpec& s);

} // namespace headroom::detail
