// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the config.json tests (test_hfconfig.cpp, test_hfconfig_errors.cpp):
// the test configs' paths and two ways to read one.
#include "model/hfconfig.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QString>

namespace headroom::testing {

inline QString configPath(const char* file)
{
    return QStringLiteral(HEADROOM_TEST_DATA "/configs/") + QLatin1String(file);
}

inline Result<ModelSpec> fromFile(const char* file) { return modelSpecFromConfigFile(configPath(file).toStdString()); }

inline Result<ModelSpec> fromText(const QByteArray& text)
{
    return modelSpecFromHfConfigText(std::string_view(text.constData(), static_cast<std::size_t>(text.size())));
}

// A small valid Llama config with `patch` merged in (RFC 7386: null removes a key).
inline QByteArray llamaWith(const char* patch)
{
    nlohmann::json config = {{"model_type", "llama"}, {"hidden_size", 64},       {"num_hidden_layers", 2},
                             {"num_attention_heads", 4}, {"vocab_size", 100}, {"intermediate_size", 256}};
    config.merge_patch(nlohmann::json::parse(patch));
    return QByteArray::fromStdString(config.dump());
}

} // namespace headroom::testing
