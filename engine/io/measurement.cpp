// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/measurement.h"

#include "io/jsonfields.h"
#include "io/scenariofile.h"
#include "io/textfile.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <system_error>
#include <utility>

namespace headroom {

namespace {

using nlohmann::json;
using ordered = nlohmann::ordered_json;
namespace fs = std::filesystem;

// A measurement is a few kilobytes; its scenario may carry a config.json.
constexpr std::uintmax_t kMaxFileBytes = 16ull * 1024 * 1024;
constexpr std::size_t kMaxPhases = 64;
constexpr std::size_t kMaxNameChars = 256;
constexpr std::size_t kMaxNotesChars = 4096;
constexpr std::uint64_t kMaxSteps = 1'000'000'000;

// The strict field reader every format here shares (io/jsonfields.h), with
// byte counts bounded by kMaxMeasuredBytes.
using jsonfields::Fields;
using jsonfields::show;
using jsonfields::shownKey;

// A byte count in [lo, kMaxMeasuredBytes].
void readBytes(Fields& f, const char* key, Bytes lo, std::optional<Bytes>& out)
{
    f.bytes(key, lo, kMaxMeasuredBytes, out);
}
void readBytes(Fields& f, const char* key, Bytes lo, Bytes& out)
{
    std::optional<Bytes> v;
    f.bytes(key, lo, kMaxMeasuredBytes, v);
    if (v)
        out = *v;
}

Result<Measurement> measurementFromJson(const json& doc)
{
    if (!doc.is_object())
        return makeError(ErrorCode::InvalidArgument, "a measurement file is a JSON object, got " + show(doc));
    std::optional<Error> error;
    Fields r(doc, "", error);
    r.allowOnly({"schema", "device", "max_memory_allocated_bytes", "max_memory_reserved_bytes", "device_used_bytes",
                 "device_used_source", "phases", "gpu", "versions", "scenario", "steps", "notes"});
    r.require("schema");
    if (const json* schema = r.find("schema"); !error && schema && *schema != kMeasurementSchema)
        r.fail(ErrorCode::InvalidArgument, "schema",
               std::string("must be \"") + kMeasurementSchema + "\", got " + show(*schema));

    Measurement m;
    r.boundedString("device", kMaxNameChars, m.device);
    if (!error && m.device != kMeasuredOnCuda && m.device != kMeasuredOnCpu)
        r.fail(ErrorCode::InvalidArgument, "device", "must be \"cuda\" or \"cpu\", got " + show(json(m.device)));
    if (!error && measuredOnCpu(m)) {
        // Zeros here would read as a measurement; a CPU run measured none.
        for (const char* key : {"max_memory_allocated_bytes", "max_memory_reserved_bytes", "device_used_bytes",
                                "device_used_source", "phases", "gpu"})
            if (!error && r.has(key))
                r.fail(ErrorCode::InvalidArgument, key,
                       "a run on the CPU (\"device\": \"cpu\") has no CUDA memory counters; leave it out");
    } else {
        r.require("max_memory_allocated_bytes");
        r.require("max_memory_reserved_bytes");
    }
    readBytes(r, "max_memory_allocated_bytes", 1, m.maxAllocatedBytes);
    readBytes(r, "max_memory_reserved_bytes", 1, m.maxReservedBytes);
    if (!error && m.maxReservedBytes < m.maxAllocatedBytes)
        r.fail(ErrorCode::InvalidArgument, "max_memory_reserved_bytes",
               "is below max_memory_allocated_bytes (" + std::to_string(m.maxAllocatedBytes) +
                   "); PyTorch's reserved memory holds every allocation");
    readBytes(r, "device_used_bytes", 1, m.deviceUsedBytes);
    r.boundedString("device_used_source", kMaxNameChars, m.deviceUsedSource);
    if (!error && !m.deviceUsedSource.empty() && m.deviceUsedSource != "nvml" && m.deviceUsedSource != "mem_get_info")
        r.fail(ErrorCode::InvalidArgument, "device_used_source",
               "must be \"nvml\" or \"mem_get_info\", got " + show(json(m.deviceUsedSource)));
    if (!error && !m.deviceUsedSource.empty() && !m.deviceUsedBytes)
        r.fail(ErrorCode::MissingField, "device_used_bytes", "required with device_used_source");

    if (const json* phases = r.object("phases")) {
        if (phases->size() > kMaxPhases)
            r.fail(ErrorCode::InvalidArgument, "phases", "at most " + std::to_string(kMaxPhases) + " phases");
        for (auto it = phases->begin(); it != phases->end() && !error; ++it) {
            const std::string path = "phases." + shownKey(it.key());
            if (it.key().empty() || it.key().size() > kMaxNameChars) {
                r.fail(ErrorCode::InvalidArgument, "phases",
                       "a phase name is 1 to " + std::to_string(kMaxNameChars) + " bytes");
                break;
            }
            if (!it->is_object()) {
                r.fail(ErrorCode::InvalidArgument, path, "must be a JSON object, got " + show(*it));
                break;
            }
            Fields p(*it, path, error);
            p.allowOnly({"max_memory_allocated_bytes", "max_memory_reserved_bytes"});
            p.require("max_memory_allocated_bytes");
            MeasuredPhase phase;
            phase.name = it.key();
            readBytes(p, "max_memory_allocated_bytes", 0, phase.maxAllocatedBytes);
            readBytes(p, "max_memory_reserved_bytes", 0, phase.maxReservedBytes);
            m.phases.push_back(std::move(phase));
        }
    }
    if (const json* gpu = r.object("gpu")) {
        Fields g(*gpu, "gpu", error);
        g.allowOnly({"name", "total_bytes"});
        g.boundedString("name", kMaxNameChars, m.gpuName);
        readBytes(g, "total_bytes", 1, m.gpuTotalBytes);
    }
    if (const json* versions = r.object("versions")) {
        Fields v(*versions, "versions", error);
        v.allowOnly({"torch", "transformers", "cuda", "peft"});
        v.boundedString("torch", kMaxNameChars, m.torchVersion, true);
        v.boundedString("transformers", kMaxNameChars, m.transformersVersion, true);
        v.boundedString("cuda", kMaxNameChars, m.cudaVersion, true);
        v.boundedString("peft", kMaxNameChars, m.peftVersion, true);
    }
    if (const json* steps = r.find("steps"); !error && steps) {
        if (!steps->is_number_unsigned() || steps->get<std::uint64_t>() < 1 || steps->get<std::uint64_t>() > kMaxSteps)
            r.fail(ErrorCode::InvalidArgument, "steps",
                   "must be a whole number between 1 and " + std::to_string(kMaxSteps) + ", got " + show(*steps));
        else
            m.steps = steps->get<std::uint64_t>();
    }
    r.boundedString("notes", kMaxNotesChars, m.notes);
    if (const json* scenario = r.object("scenario")) {
        auto s = scenarioFromJson(*scenario);
        if (!s)
            r.fail(s.error().code, "scenario", s.error().detail);
        else
            m.scenario = std::move(s).value();
    }
    if (error)
        return *error;
    return m;
}

} // namespace

Result<Measurement> measurementFromText(std::string_view text)
{
    return jsonfields::guarded<Measurement>("measurement", [&]() -> Result<Measurement> {
        auto doc = parseJsonDocument(text);
        if (!doc)
            return doc.error();
        return measurementFromJson(doc.value());
    });
}

Result<Measurement> readMeasurementFile(const std::string& path)
{
    return jsonfields::guarded<Measurement>("measurement", [&]() -> Result<Measurement> {
        const auto text = readBoundedTextFile(path, kMaxFileBytes, "a measurement file");
        if (!text)
            return text.error();
        auto m = measurementFromText(text.value());
        if (!m)
            return makeError(m.error().code, path + ": " + m.error().detail);
        return m;
    });
}

std::string measurementToText(const Measurement& m)
{
    ordered j;
    j["schema"] = kMeasurementSchema;
    j["device"] = m.device;
    if (!measuredOnCpu(m)) {  // a CPU run has no counters (see the reader)
        j["max_memory_allocated_bytes"] = m.maxAllocatedBytes;
        j["max_memory_reserved_bytes"] = m.maxReservedBytes;
        if (m.deviceUsedBytes)
            j["device_used_bytes"] = *m.deviceUsedBytes;
        if (!m.deviceUsedSource.empty())
            j["device_used_source"] = m.deviceUsedSource;
        if (!m.phases.empty()) {
            ordered phases = ordered::object();
            for (const MeasuredPhase& p : m.phases) {
                ordered node{{"max_memory_allocated_bytes", p.maxAllocatedBytes}};
                if (p.maxReservedBytes)
                    node["max_memory_reserved_bytes"] = *p.maxReservedBytes;
                phases[p.name] = std::move(node);
            }
            j["phases"] = std::move(phases);
        }
        if (!m.gpuName.empty() || m.gpuTotalBytes) {
            ordered gpu = ordered::object();
            if (!m.gpuName.empty())
                gpu["name"] = m.gpuName;
            if (m.gpuTotalBytes)
                gpu["total_bytes"] = *m.gpuTotalBytes;
            j["gpu"] = std::move(gpu);
        }
    }
    ordered versions = ordered::object();
    for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"torch", &m.torchVersion},
                                     {"transformers", &m.transformersVersion},
                                     {"cuda", &m.cudaVersion},
                                     {"peft", &m.peftVersion}})
        if (!value->empty())
            versions[key] = *value;
    if (!versions.empty())
        j["versions"] = std::move(versions);
    if (m.steps)
        j["steps"] = *m.steps;
    if (!m.notes.empty())
        j["notes"] = m.notes;
    if (m.scenario)
        j["scenario"] = ordered::parse(scenarioToText(*m.scenario));
    return j.dump(2, ' ', false, ordered::error_handler_t::replace) + "\n";
}

bool measuredOnCpu(const Measurement& m) { return m.device == kMeasuredOnCpu; }

std::vector<ComparisonRow> compareWithPlan(const Plan& plan, const Measurement& m)
{
    const auto row = [](const char* counter, const char* key, Bytes planned, Bytes measured) {
        const double error = measured == 0 ? 0.0
                                           : (static_cast<double>(planned) - static_cast<double>(measured)) /
                                                 static_cast<double>(measured) * 100.0;
        return ComparisonRow{counter, key, planned, measured, error};
    };
    std::vector<ComparisonRow> rows;
    if (measuredOnCpu(m))
        return rows;
    rows.push_back(row("peak allocated", "max_memory_allocated_bytes", plan.peakAllocatedBytes, m.maxAllocatedBytes));
    rows.push_back(row("peak reserved", "max_memory_reserved_bytes", plan.peakReservedBytes, m.maxReservedBytes));
    if (m.deviceUsedBytes)
        rows.push_back(row("device used", "device_used_bytes", plan.deviceUsedBytes, *m.deviceUsedBytes));
    return rows;
}

} // namespace headroom
