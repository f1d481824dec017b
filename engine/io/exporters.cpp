// SPDX-License-Identifier: GPL-3.0-or-later
// Format names, the dispatch, the helpers every exporter shares, and the two
// plain formats: the timeline as CSV and the plan/scenario as JSON.
#include "io/exporters.h"

#include "core/nametable.h"

#include "io/exportersinternal.h"
#include "io/planjson.h"
#include "io/scenariofile.h"

#include <array>
#include <charconv>
#include <sstream>
#include <utility>

namespace headroom {

namespace {

constexpr std::array<std::pair<ExportFormat, const char*>, 9> kFormats{{
    {ExportFormat::HfPython, "hf-python"},
    {ExportFormat::DeepSpeedJson, "deepspeed-json"},
    {ExportFormat::AccelerateFsdpYaml, "accelerate-fsdp-yaml"},
    {ExportFormat::MegatronArgs, "megatron-args"},
    {ExportFormat::TorchtitanToml, "torchtitan-toml"},
    {ExportFormat::Markdown, "markdown"},
    {ExportFormat::Csv, "csv"},
    {ExportFormat::PlanJson, "plan-json"},
    {ExportFormat::ScenarioJson, "scenario-json"},
}};

} // namespace

const char* exportFormatName(ExportFormat format) { return nameOf(kFormats, format); }

bool parseExportFormat(const std::string& name, ExportFormat& out) { return parseName(kFormats, name, out); }

const std::vector<ExportFormat>& allExportFormats()
{
    static const std::vector<ExportFormat> formats = [] {
        std::vector<ExportFormat> v;
        for (const auto& entry : kFormats)
            v.push_back(entry.first);
        return v;
    }();
    return formats;
}

Result<std::string> exportPlan(const Scenario& scenario, const Plan& plan, ExportFormat format)
{
    // Every exporter reads the peak event and the timeline; a default-made
    // Plan has neither (makePlan never returns one like that).
    if (plan.events.empty() || plan.timeline.size() != plan.events.size() || plan.peakEvent >= plan.events.size())
        return makeError(ErrorCode::InvalidArgument, "the plan has no events to export");
    using namespace exportdetail;
    switch (format) {
    case ExportFormat::HfPython: return exportHfPython(scenario, plan);
    case ExportFormat::DeepSpeedJson: return exportDeepSpeedJson(scenario, plan);
    case ExportFormat::AccelerateFsdpYaml: return exportAccelerateFsdpYaml(scenario, plan);
    case ExportFormat::MegatronArgs: return exportMegatronArgs(scenario, plan);
    case ExportFormat::TorchtitanToml: return exportTorchtitanToml(scenario, plan);
    case ExportFormat::Markdown: return exportMarkdown(scenario, plan);
    case ExportFormat::Csv: return exportCsv(plan);
    case ExportFormat::PlanJson: return planToJson(plan, true, true).dump(2) + "\n";
    case ExportFormat::ScenarioJson: return scenarioToText(scenario);
    }
    return makeError(ErrorCode::InvalidArgument, "unknown export format");
}

namespace exportdetail {

std::string fixed(double value, int decimals)
{
    char text[64];
    const auto r = std::to_chars(text, text + sizeof text, value, std::chars_format::fixed, decimals);
    if (r.ec != std::errc())
        return "nan";
    std::string out(text, r.ptr);
    if (out.size() > 1 && out[0] == '-' && out.find_first_not_of("-0.") == std::string::npos)
        out.erase(0, 1);  // "-0.00" reads as a negative that is not there
    return out;
}

std::string shortest(double value)
{
    char text[64];
    const auto r = std::to_chars(text, text + sizeof text, value);
    return r.ec == std::errc() ? std::string(text, r.ptr) : std::string("0");
}

std::string gibNumber(double bytes) { return fixed(bytes / static_cast<double>(GiB), 2); }
std::string gibText(double bytes) { return gibNumber(bytes) + " GiB"; }

std::string verdictText(const Plan& plan)
{
    const double margin = static_cast<double>(plan.marginBytes);
    return plan.fits ? "fits, " + gibText(margin) + " to spare" : "out of memory by " + gibText(-margin);
}

std::string oneLine(const std::string& text)
{
    std::string out = text;
    for (char& c : out)
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
    return out;
}

Bytes eventTotal(const CategoryBytes& bytes)
{
    Bytes total = 0;
    for (Bytes b : bytes)
        total += b;
    return total;
}

std::string scenarioLine(const Scenario& s)
{
    std::ostringstream out;
    if (s.mode == Mode::Inference) {
        const InferenceConfig& i = s.inference;
        out << "inference · " << precisionName(i.precision);
        if (i.weightQuant != WeightQuant::None)
            out << " · weights " << weightQuantName(i.weightQuant);
        out << " · batch " << i.batch << " · prompt " << i.promptTokens << " + " << i.newTokens
            << " new tokens · KV cache " << kvCacheDtypeName(i.kvCacheDtype) << " · attention "
            << attentionName(i.attention);
        return out.str();
    }
    const TrainConfig& t = s.train;
    out << "train · " << precisionName(t.precision);
    if (t.peft.method != PeftMethod::None)
        out << " · " << peftMethodName(t.peft.method) << " r" << t.peft.rank;
    if (t.weightQuant != WeightQuant::None)
        out << " · weights " << weightQuantName(t.weightQuant);
    out << " · " << optimizerName(t.optimizer) << " · micro-batch " << t.microBatch << " × seq " << t.seqLen
        << " × accum " << t.gradAccum << " · checkpointing " << checkpointingName(t.checkpointing);
    if (t.checkpointing == Checkpointing::EveryK)
        out << " " << t.checkpointEvery;
    out << " · attention " << attentionName(t.attention);
    if (t.chunkedCrossEntropy)
        out << " · chunked CE (" << t.lossChunks << ")";
    if (t.optimizerInBackward)
        out << " · optimizer in backward";
    if (t.activationOffload)
        out << " · activation offload";
    if (t.compileLayers)
        out << " · compiled layers";
    if (t.compileLoss)
        out << " · compiled loss";
    return out.str();
}

std::string hardwareLine(const Scenario& s, const Plan& plan)
{
    return std::to_string(s.hardware.count) + " × " + plan.gpu.name + " (" +
           gibText(static_cast<double>(plan.capacityBytes)) + "), sharding " + shardingName(s.hardware.sharding) +
           (s.hardware.cpuOffload ? " + CPU offload" : "");
}

bool isDeepSpeed(Sharding sharding) { return zeroStage(sharding) > 0; }

int zeroStage(Sharding sharding)
{
    switch (sharding) {
    case Sharding::Zero1: return 1;
    case Sharding::Zero2: return 2;
    case Sharding::Zero3: return 3;
    case Sharding::None:
    case Sharding::Ddp:
    case Sharding::Fsdp:
    case Sharding::Fsdp2: return 0;
    }
    return 0;
}

// Pure bf16 sets the flag too: autocast over bf16 weights changes nothing,
// and DeepSpeed's "bf16" mode is the only bf16 it has. FP8 runs its matmuls
// in fp8 inside a bf16 autocast region (Transformer Engine).
bool trainerBf16(Precision p) { return p == Precision::Bf16Mixed || p == Precision::Bf16 || p == Precision::Fp8Mixed; }
bool trainerFp16(Precision p) { return p == Precision::Fp16Mixed || p == Precision::Fp16; }

namespace {

// RFC 4180 §2.6-2.7: a field with a comma, a quote or a line break is
// enclosed in double quotes, and a quote inside is doubled.
std::string csvField(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

} // namespace

// One header line and one line per event; records end in CRLF (RFC 4180 §2.1).
// The layer column is empty for events that belong to no layer.
std::string exportCsv(const Plan& plan)
{
    // Appended piece by piece: `"," + std::string` trips GCC 12's -Wrestrict
    // false positive (GCC bug 105651).
    std::string out = "event,phase,layer";
    for (std::size_t c = 0; c < kCategoryCount; ++c) {
        out += ',';
        out += csvField(categoryName(static_cast<Category>(c)));
    }
    out += ",total\r\n";
    for (std::size_t e = 0; e < plan.events.size(); ++e) {
        const Event& event = plan.events[e];
        out += csvField(eventLabel(event));
        out += ',';
        out += csvField(phaseName(event.phase));
        out += ',';
        if (event.layer >= 0)
            out += std::to_string(event.layer);
        for (Bytes b : plan.timeline[e]) {
            out += ',';
            out += std::to_string(b);
        }
        out += ',';
        out += std::to_string(eventTotal(plan.timeline[e]));
        out += "\r\n";
    }
    return out;
}

} // namespace exportdetail

} // namespace headroom
