// SPDX-License-Identifier: GPL-3.0-or-later
// markdown: the plan as a report (GitHub-flavoured Markdown tables): what the
// CLI's `plan --tensors` prints, in a form that pastes into an issue or a wiki.
#include "io/exportersinternal.h"

#include <string>

namespace headroom::exportdetail {

namespace {

// A table cell: pipes escaped, line breaks folded.
std::string cell(const std::string& text)
{
    std::string out;
    for (const char c : oneLine(text)) {
        if (c == '|')
            out += '\\';
        out += c;
    }
    return out;
}

std::string parameters(Bytes n)
{
    const double v = static_cast<double>(n);
    if (v >= 1e9)
        return fixed(v / 1e9, 2) + " B";
    if (v >= 1e6)
        return fixed(v / 1e6, 1) + " M";
    return std::to_string(n);
}

std::string share(Bytes part, Bytes whole)
{
    if (whole == 0)
        return "0.0 %";
    return fixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + " %";
}

const char* layerSetText(LayerSet s)
{
    switch (s) {
    case LayerSet::Global: return "";
    case LayerSet::All: return ", each layer";
    case LayerSet::Checkpointed: return ", each checkpointed layer";
    case LayerSet::Plain: return ", each kept layer";
    case LayerSet::SlidingPlain: return ", each kept sliding-window layer";
    }
    return "";
}

} // namespace

std::string exportMarkdown(const Scenario& sc, const Plan& plan)
{
    std::string md;
    const auto line = [&md](const std::string& text = {}) { md += text + "\n"; };
    const double peak = static_cast<double>(plan.peakBytes);

    line("# Headroom plan: " + cell(sc.model.id));
    line();
    std::string model = "- Model: " + cell(sc.model.id) + (sc.model.approximate ? " (approximate, scaled from size)" : "") +
                        ", " + parameters(plan.totalParameters) + " parameters";
    if (sc.mode == Mode::Train)
        model += ", " + parameters(plan.trainableParameters) + " trainable";
    line(model);
    line("- Scenario: " + cell(scenarioLine(sc)));
    line("- Hardware: " + cell(hardwareLine(sc, plan)));
    line(std::string("- Profile: ") + profileName(sc.profile));
    line("- Peak: " + gibText(peak) + " at " + eventLabel(plan.events[plan.peakEvent]) + " (event " +
         std::to_string(plan.peakEvent + 1) + " of " + std::to_string(plan.events.size()) + ")");
    line();

    line("## Breakdown at the peak");
    line();
    line("| category | GiB | share |");
    line("|---|---:|---:|");
    for (std::size_t c = 0; c < kCategoryCount; ++c) {
        const Bytes b = plan.breakdown[c];
        if (b == 0)
            continue;
        line(std::string("| ") + categoryName(static_cast<Category>(c)) + " | " + gibNumber(static_cast<double>(b)) +
             " | " + share(b, plan.peakBytes) + " |");
    }
    line("| **total** | **" + gibNumber(peak) + "** | **" + share(plan.peakBytes, plan.peakBytes) + "** |");
    line();

    line("## Counters");
    line();
    line("| counter | GiB | bytes |");
    line("|---|---:|---:|");
    line("| peak allocated (`torch.cuda.max_memory_allocated`) | " +
         gibNumber(static_cast<double>(plan.peakAllocatedBytes)) + " | " + std::to_string(plan.peakAllocatedBytes) + " |");
    line("| peak reserved (`torch.cuda.max_memory_reserved`) | " +
         gibNumber(static_cast<double>(plan.peakReservedBytes)) + " | " + std::to_string(plan.peakReservedBytes) + " |");
    line("| device used (nvidia-smi, " + gibText(static_cast<double>(plan.contextBytes)) + " CUDA context included) | " +
         gibNumber(static_cast<double>(plan.deviceUsedBytes)) + " | " + std::to_string(plan.deviceUsedBytes) + " |");
    line();
    line("**Verdict:** " + verdictText(plan));
    line();

    if (!plan.notes.empty()) {
        line("## Notes");
        line();
        for (const std::string& note : plan.notes)
            line("- " + oneLine(note));
        line();
    }

    line("## Tensors");
    line();
    line("Bytes per instance: a per-layer row repeats on each layer of its set. Rows of 0 bytes are left out.");
    line();
    line("| name | category | bytes | lifetime | source |");
    line("|---|---|---:|---|---|");
    for (const TensorRow& row : plan.tensors) {
        if (row.bytes == 0)
            continue;
        line(std::string("| `") + cell(row.name) + "` | " + categoryName(row.category) + " | " +
             std::to_string(row.bytes) + " | " + phaseName(row.allocAt) + (row.madeAtEventEnd ? " (end)" : "") + " → " + phaseName(row.freeAt) +
             layerSetText(row.layers) + (row.managed ? ", managed memory" : "") + " | " + cell(row.source) + " |");
    }
    return md;
}

} // namespace headroom::exportdetail
