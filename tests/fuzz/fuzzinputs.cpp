// SPDX-License-Identifier: GPL-3.0-or-later
#include "fuzzinputs.h"

#include "fuzzplan.h"

#include "core/checkedmath.h"
#include "io/measurement.h"
#include "io/scenariofile.h"
#include "model/hfconfig.h"
#include "model/modelfolder.h"
#include "model/safetensors.h"
#include "plan/planner.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <unistd.h>

namespace headroom::fuzz {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what)
{
    std::fprintf(stderr, "fuzz oracle: %s\n", what.c_str());
    std::abort();
}

// A small valid llama config.json (TinyLlama's layout, shrunk), so a folder
// import reaches the safetensors shard.
constexpr const char* kFolderConfig = R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
  "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 176, "vocab_size": 320})";

// Where the model folder goes: /dev/shm (memory) where there is one, since a
// write and an import per input are most of fuzz_safetensors' time; else the
// temporary folder.
fs::path scratchRoot()
{
    std::error_code ec;
    if (fs::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0)
        return "/dev/shm";
    return fs::temp_directory_path();
}

// One folder per process, removed at exit. Held through a pointer that is
// never destroyed, so the exit handler cannot outlive it.
const fs::path& modelFolder()
{
    static const fs::path* dir = [] {
        auto* d = new fs::path(scratchRoot() / ("headroom-fuzz-model-" + std::to_string(::getpid())));
        fs::create_directories(*d);
        std::ofstream(*d / "config.json") << kFolderConfig;
        std::atexit([] {
            std::error_code ec;
            fs::remove_all(modelFolder(), ec);
        });
        return d;
    }();
    return *dir;
}

} // namespace

// Any config.json text gives an Error or a spec whose plans keep the
// invariants of fuzzplan.cpp.
void hfconfigInput(std::string_view bytes)
{
    const Result<ModelSpec> spec = modelSpecFromHfConfigText(bytes);
    if (spec)
        planVariants(spec.value());
}

// The bytes are parsed in memory, then written as the one shard of a model
// folder and imported as the app imports a folder (file reader, shard sums);
// the two paths must agree, and the imported model is planned.
void safetensorsInput(std::string_view bytes)
{
    const std::string file(bytes);
    const Result<SafetensorsHeader> inMemory = parseSafetensorsHeader(file);
    {
        std::ofstream out(modelFolder() / "model.safetensors", std::ios::binary | std::ios::trunc);
        out.write(file.data(), static_cast<std::streamsize>(file.size()));
    }
    const Result<ModelFolderInfo> imported = importModelFolder(modelFolder().string());
    std::uint64_t elements = 0;
    if (inMemory)
        for (const SafetensorsTensor& t : inMemory->tensors)
            elements = satAdd(elements, t.elements);
    // The folder import also refuses shards whose sum passes 2^64.
    const bool importShouldWork = inMemory.ok() && elements != kSaturated;
    if (importShouldWork != imported.ok())
        fail(std::string("in-memory parse ") + (inMemory.ok() ? "ok" : "failed: " + inMemory.error().detail)
             + ", folder import " + (imported.ok() ? "ok" : "failed: " + imported.error().detail));
    if (!imported)
        return;
    if (elements != imported->storedParameters)
        fail("stored parameters differ: " + std::to_string(elements) + " in memory, "
             + std::to_string(imported->storedParameters) + " imported");
    planVariants(imported->spec);
}

// Whatever parses is planned as written, written back and read again: a
// scenario the app saves must open again and plan to the same numbers.
void scenarioInput(std::string_view bytes)
{
    // "model_dir" reads a folder the input names: the fuzzer must not wander
    // the file system (safetensorsInput covers folder import).
    if (bytes.find("model_dir") != std::string_view::npos)
        return;
    const Result<Scenario> scenario = scenarioFromText(bytes);
    if (!scenario)
        return;
    planAndCheck(scenario.value());
    const std::string saved = scenarioToText(scenario.value());
    const Result<Scenario> reread = scenarioFromText(saved);
    if (!reread)
        fail("a parsed scenario does not read back: " + reread.error().detail + "\n" + saved);
    // Issue 15's fields: written only when set, and read back as written.
    const ParallelConfig& was = scenario->hardware.parallel;
    const ParallelConfig& now = reread->hardware.parallel;
    if (was.tp != now.tp || was.sp != now.sp || was.pp != now.pp || was.ppSchedule != now.ppSchedule ||
        was.vpp != now.vpp || scenario->train.globalBatch != reread->train.globalBatch)
        fail("a scenario's parallel layout or global batch does not read back\n" + saved);
    const Result<Plan> before = makePlan(scenario.value());
    const Result<Plan> after = makePlan(reread.value());
    if (before.ok() != after.ok() || (before.ok() && before->deviceUsedBytes != after->deviceUsedBytes))
        fail("a scenario plans differently after a save and reread\n" + saved);
}

void measurementInput(std::string_view bytes)
{
    if (bytes.find("model_dir") != std::string_view::npos)
        return;  // as scenarioInput: no wandering the file system
    const Result<Measurement> m = measurementFromText(bytes);
    if (!m) {
        if (m.error().detail.empty() || m.error().detail.find('\n') != std::string::npos)
            fail("a measurement error is not one line: " + m.error().detail);
        return;
    }
    if (measuredOnCpu(m.value())) {
        // A CPU run carries no CUDA counters (io/measurement.h), so none is read and none compared.
        if (m->maxAllocatedBytes != 0 || m->maxReservedBytes != 0 || m->deviceUsedBytes || !m->phases.empty())
            fail("a CPU measurement was accepted with CUDA counters");
    } else if (m->maxReservedBytes < m->maxAllocatedBytes || m->maxAllocatedBytes == 0) {
        fail("a measurement with reserved below allocated, or nothing allocated, was accepted");
    }
    const std::string saved = measurementToText(m.value());
    const Result<Measurement> reread = measurementFromText(saved);
    if (!reread)
        fail("a parsed measurement does not read back: " + reread.error().detail + "\n" + saved);
    if (measurementToText(reread.value()) != saved)
        fail("a measurement changes after a save and reread\n" + saved);
    if (m->scenario) {
        const Result<Plan> plan = makePlan(*m->scenario);
        if (plan)
            for (const ComparisonRow& row : compareWithPlan(plan.value(), m.value()))
                if (!std::isfinite(row.errorPercent))
                    fail("a comparison error is not finite: " + row.counter);
    }
}

} // namespace headroom::fuzz
