// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/measurement.h"

#include "io/scenariofile.h"

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

std::string show(const json& value)
{
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > 60) {
        std::size_t cut = 57;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
            --cut;
        text = text.substr(0, cut) + "...";
    }
    return text;
}

// A key from the file as an error message shows it: as written when it is
// plain printable text, else JSON-quoted, so that a newline or control
// character in a key cannot break the one-line error.
std::string shownKey(const std::string& key)
{
    for (const char c : key)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '"' || c == '\\')
            return json(key).dump(-1, ' ', false, json::error_handler_t::replace);
    return key;
}

// Reads one object's members; the first error wins, later reads are no-ops.
class Fields {
public:
    Fields(const json& object, std::string path, std::optional<Error>& error)
        : m_object(object), m_path(std::move(path)), m_error(error)
    {
    }
    bool failed() const { return m_error.has_value(); }
    std::string pathOf(const std::string& key) const { return m_path.empty() ? shownKey(key) : m_path + "." + shownKey(key); }
    const json* find(const char* key) const
    {
        const auto it = m_object.find(key);
        return it == m_object.end() ? nullptr : &*it;
    }
    void fail(ErrorCode code, const std::string& path, const std::string& what)
    {
        if (!m_error)
            m_error = makeError(code, path + ": " + what);
    }
    void allowOnly(std::initializer_list<const char*> keys)
    {
        for (auto it = m_object.begin(); it != m_object.end() && !failed(); ++it) {
            bool known = false;
            std::string list;
            for (const char* key : keys) {
                known = known || it.key() == key;
                list += (list.empty() ? "" : ", ") + std::string(key);
            }
            if (!known)
                fail(ErrorCode::InvalidArgument, pathOf(it.key()), "unknown field; accepted fields here: " + list);
        }
    }
    void require(const char* key)
    {
        if (!failed() && !find(key))
            fail(ErrorCode::MissingField, pathOf(key), "required field is missing");
    }
    // A whole number of bytes in [lo, 2^50]: no fractions, no 2.0, no strings.
    void bytes(const char* key, Bytes lo, std::optional<Bytes>& out)
    {
        const json* value = find(key);
        if (failed() || !value)
            return;
        std::uint64_t v = 0;
        bool ok = false;
        if (value->is_number_unsigned()) {
            v = value->get<std::uint64_t>();
            ok = true;
        } else if (value->is_number_integer() && value->get<std::int64_t>() >= 0) {
            v = static_cast<std::uint64_t>(value->get<std::int64_t>());
            ok = true;
        }
        if (!ok || v < lo || v > kMaxMeasuredBytes) {
            fail(ErrorCode::InvalidArgument, pathOf(key),
                 "must be a whole number of bytes between " + std::to_string(lo) + " and " +
                     std::to_string(kMaxMeasuredBytes) + ", got " + show(*value));
            return;
        }
        out = v;
    }
    void bytes(const char* key, Bytes lo, Bytes& out)
    {
        std::optional<Bytes> v;
        bytes(key, lo, v);
        if (v)
            out = *v;
    }
    // A string of at most maxChars; null reads as "" where allowNull.
    void string(const char* key, std::size_t maxChars, std::string& out, bool allowNull = false)
    {
        const json* value = find(key);
        if (failed() || !value || (allowNull && value->is_null()))
            return;
        if (!value->is_string() || value->get_ref<const std::string&>().size() > maxChars) {
            fail(ErrorCode::InvalidArgument, pathOf(key),
                 std::string("must be a string of at most ") + std::to_string(maxChars) + " bytes" +
                     (allowNull ? " or null" : "") + ", got " + show(*value));
            return;
        }
        out = value->get<std::string>();
    }
    const json* object(const char* key)
    {
        const json* value = find(key);
        if (failed() || !value)
            return nullptr;
        if (!value->is_object()) {
            fail(ErrorCode::InvalidArgument, pathOf(key), "must be a JSON object, got " + show(*value));
            return nullptr;
        }
        return value;
    }

private:
    const json& m_object;
    std::string m_path;
    std::optional<Error>& m_error;
};

Result<Measurement> measurementFromJson(const json& doc)
{
    if (!doc.is_object())
        return makeError(ErrorCode::InvalidArgument, "a measurement file is a JSON object, got " + show(doc));
    std::optional<Error> error;
    Fields r(doc, "", error);
    r.allowOnly({"schema", "max_memory_allocated_bytes", "max_memory_reserved_bytes", "device_used_bytes",
                 "device_used_source", "phases", "gpu", "versions", "scenario", "steps", "notes"});
    r.require("schema");
    if (const json* schema = r.find("schema"); !error && schema && *schema != kMeasurementSchema)
        r.fail(ErrorCode::InvalidArgument, "schema",
               std::string("must be \"") + kMeasurementSchema + "\", got " + show(*schema));
    r.require("max_memory_allocated_bytes");
    r.require("max_memory_reserved_bytes");

    Measurement m;
    r.bytes("max_memory_allocated_bytes", 1, m.maxAllocatedBytes);
    r.bytes("max_memory_reserved_bytes", 1, m.maxReservedBytes);
    if (!error && m.maxReservedBytes < m.maxAllocatedBytes)
        r.fail(ErrorCode::InvalidArgument, "max_memory_reserved_bytes",
               "is below max_memory_allocated_bytes (" + std::to_string(m.maxAllocatedBytes) +
                   "); PyTorch's reserved memory holds every allocation");
    r.bytes("device_used_bytes", 1, m.deviceUsedBytes);
    r.string("device_used_source", kMaxNameChars, m.deviceUsedSource);
    if (!error && !m.deviceUsedSource.empty() && m.deviceUsedSource != "nvml" && m.deviceUsedSource != "mem_get_info")
        r.fail(ErrorCode::InvalidArgument, "device_used_source",
               "must be \"nvml\" or \"mem_get_info\", got \"" + m.deviceUsedSource + "\"");
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
            p.bytes("max_memory_allocated_bytes", 0, phase.maxAllocatedBytes);
            p.bytes("max_memory_reserved_bytes", 0, phase.maxReservedBytes);
            m.phases.push_back(std::move(phase));
        }
    }
    if (const json* gpu = r.object("gpu")) {
        Fields g(*gpu, "gpu", error);
        g.allowOnly({"name", "total_bytes"});
        g.string("name", kMaxNameChars, m.gpuName);
        g.bytes("total_bytes", 1, m.gpuTotalBytes);
    }
    if (const json* versions = r.object("versions")) {
        Fields v(*versions, "versions", error);
        v.allowOnly({"torch", "transformers", "cuda", "peft"});
        v.string("torch", kMaxNameChars, m.torchVersion, true);
        v.string("transformers", kMaxNameChars, m.transformersVersion, true);
        v.string("cuda", kMaxNameChars, m.cudaVersion, true);
        v.string("peft", kMaxNameChars, m.peftVersion, true);
    }
    if (const json* steps = r.find("steps"); !error && steps) {
        if (!steps->is_number_unsigned() || steps->get<std::uint64_t>() < 1 || steps->get<std::uint64_t>() > kMaxSteps)
            r.fail(ErrorCode::InvalidArgument, "steps",
                   "must be a whole number between 1 and " + std::to_string(kMaxSteps) + ", got " + show(*steps));
        else
            m.steps = steps->get<std::uint64_t>();
    }
    r.string("notes", kMaxNotesChars, m.notes);
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

template <class Body>
Result<Measurement> guarded(Body&& body)
{
    try {
        return body();
    } catch (const json::exception& e) {
        return makeError(ErrorCode::InvalidArgument, std::string("measurement: ") + e.what());
    } catch (const std::exception& e) {
        return makeError(ErrorCode::IoError, std::string("measurement: ") + e.what());
    }
}

} // namespace

Result<Measurement> measurementFromText(std::string_view text)
{
    return guarded([&]() -> Result<Measurement> {
        if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
            return makeError(ErrorCode::MalformedJson, "the text is empty");
        json doc;
        try {
            doc = json::parse(text.begin(), text.end());
        } catch (const json::parse_error& e) {
            std::string what = e.what();
            if (const auto tag = what.find("] "); what.rfind("[json.exception", 0) == 0 && tag != std::string::npos)
                what.erase(0, tag + 2);
            return makeError(ErrorCode::MalformedJson, what);
        }
        return measurementFromJson(doc);
    });
}

Result<Measurement> readMeasurementFile(const std::string& path)
{
    return guarded([&]() -> Result<Measurement> {
        const fs::path file = fs::path(std::u8string(path.begin(), path.end()));
        std::error_code ec;
        const auto status = fs::status(file, ec);
        if (status.type() == fs::file_type::not_found)
            return makeError(ErrorCode::FileNotFound, path + ": no such file");
        if (ec)
            return makeError(ErrorCode::IoError, path + ": " + ec.message());
        if (fs::is_directory(status))
            return makeError(ErrorCode::IoError, path + ": is a directory, not a measurement file");
        std::ifstream in(file, std::ios::binary);
        if (!in)
            return makeError(ErrorCode::IoError, path + ": cannot be opened for reading");
        // Bounded read: a device or a pipe has no size to check beforehand.
        std::string text;
        std::vector<char> buffer(64 * 1024);
        while (in) {
            in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
            text.append(buffer.data(), static_cast<std::size_t>(in.gcount()));
            if (text.size() > kMaxFileBytes)
                return makeError(ErrorCode::IoError, path + ": more than " + std::to_string(kMaxFileBytes) +
                                                         " bytes, too large for a measurement file");
        }
        if (in.bad())
            return makeError(ErrorCode::IoError, path + ": read failed");
        auto m = measurementFromText(text);
        if (!m)
            return makeError(m.error().code, path + ": " + m.error().detail);
        return m;
    });
}

std::string measurementToText(const Measurement& m)
{
    ordered j;
    j["schema"] = kMeasurementSchema;
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

std::vector<ComparisonRow> compareWithPlan(const Plan& plan, const Measurement& m)
{
    const auto row = [](const char* counter, const char* key, Bytes planned, Bytes measured) {
        const double error = measured == 0 ? 0.0
                                           : (static_cast<double>(planned) - static_cast<double>(measured)) /
                                                 static_cast<double>(measured) * 100.0;
        return ComparisonRow{counter, key, planned, measured, error};
    };
    std::vector<ComparisonRow> rows;
    rows.push_back(row("peak allocated", "max_memory_allocated_bytes", plan.peakAllocatedBytes, m.maxAllocatedBytes));
    rows.push_back(row("peak reserved", "max_memory_reserved_bytes", plan.peakReservedBytes, m.maxReservedBytes));
    if (m.deviceUsedBytes)
        rows.push_back(row("device used", "device_used_bytes", plan.deviceUsedBytes, *m.deviceUsedBytes));
    return rows;
}

} // namespace headroom
