// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the scenario-file tests: a small valid document and a file writer.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace headroom::testing {

// A document every bad-input row starts from: valid, and independent of the
// model catalog.
inline nlohmann::json baseDocument()
{
    return nlohmann::json::parse(R"json({
      "schema": "headroom.scenario/1",
      "model": {"spec": {"family": "llama", "layers": 2, "hidden": 64, "heads": 4, "intermediate": 128, "vocab": 1000}},
      "train": {"micro_batch": 1, "peft": {"method": "lora"}},
      "inference": {"batch": 1},
      "hardware": {"gpu": "rtx-4090"}
    })json");
}

inline void writeText(const std::filesystem::path& file, const std::string& text)
{
    std::ofstream out(file, std::ios::binary);
    out << text;
}

} // namespace headroom::testing
