// SPDX-License-Identifier: GPL-3.0-or-later
// A downloaded Hugging Face repository: config.json gives the architecture,
// the safetensors shards (model-00001-of-00004.safetensors...) give what is
// actually stored. The stored count is exact where the config-derived table
// may differ (extra buffers saved as tensors, quantized packs).
#include "model/modelfolder.h"

#include "core/checkedmath.h"
#include "model/hfconfig.h"

#include <algorithm>
#include <filesystem>
#include <vector>

namespace headroom {

Result<ModelFolderInfo> importModelFolder(const std::string& directory)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path folder(directory);
    if (!fs::is_directory(folder, ec))
        return makeError(ErrorCode::FileNotFound, "no model folder at " + directory);
    const fs::path config = folder / "config.json";
    if (!fs::is_regular_file(config, ec))
        return makeError(ErrorCode::FileNotFound, "the folder " + directory + " has no config.json");

    Result<ModelSpec> spec = modelSpecFromConfigFile(config.string());
    if (!spec)
        return spec.error();

    ModelFolderInfo info;
    info.spec = std::move(spec).value();
    info.spec.origin = "model-folder";
    // "/models/Llama-3.1-8B/" names the model by its last non-empty component.
    const fs::path canonical = fs::absolute(folder, ec).lexically_normal();
    std::string name = canonical.filename().string();
    if (name.empty())
        name = canonical.parent_path().filename().string();
    info.spec.id = name.empty() ? "model-folder" : name;

    // Shards in name order, so results and error messages are reproducible.
    std::vector<fs::path> shards;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().extension() == ".safetensors" && it->is_regular_file(ec))
            shards.push_back(it->path());
    }
    if (ec)
        return makeError(ErrorCode::IoError, "cannot list " + directory + ": " + ec.message());
    std::sort(shards.begin(), shards.end(),
              [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });

    for (const fs::path& shard : shards) {
        Result<SafetensorsHeader> header = readSafetensorsHeader(shard.string());
        if (!header)
            return header.error();
        addStoredShard(info, header.value());
    }
    if (auto error = finishStoredCounts(info, "the shards in " + directory))
        return *error;
    return info;
}

void addStoredShard(ModelFolderInfo& info, const SafetensorsHeader& header)
{
    for (const SafetensorsTensor& t : header.tensors) {
        info.storedParameters = satAdd(info.storedParameters, t.elements);
        std::uint64_t& byDtype = info.elementsByDtype[t.dtype];
        byDtype = satAdd(byDtype, t.elements);
    }
    ++info.shardCount;
}

std::optional<Error> finishStoredCounts(ModelFolderInfo& info, const std::string& where)
{
    if (info.storedParameters == kSaturated)
        return makeError(ErrorCode::Overflow, where + " hold more than 2^64 elements");
    info.spec.checkpointParameters = info.storedParameters;
    // The dominant dtype: the one holding most elements (a BF16 model keeps
    // a few F32 tensors; a quantized one U8 packs beside F16 scales).
    std::uint64_t most = 0;
    for (const auto& [dtype, elements] : info.elementsByDtype) {
        if (elements > most) {
            most = elements;
            info.spec.checkpointDtype = dtype;
        }
    }
    return std::nullopt;
}

} // namespace headroom
