// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/fitsearch.h"

#include "model/catalog.h"
#include "model/genericmodel.h"
#include "plan/planner.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace headroom {

namespace {

// Largest x in [1, upper] with fits(x), assuming monotonicity; found=false
// when fits(1) fails. First a bisection on estimated plans, then the
// simulated plans have the last word: from the estimate's answer, gallop
// (steps 1, 2, 4...) up while they fit or down until one fits, and bisect
// the bracket. When the estimate is right that costs two simulated plans.
using PlanAt = std::function<Result<Plan>(std::uint64_t, const PlanOptions&)>;

Result<FitResult> searchLargest(std::uint64_t upper, const PlanAt& planAt)
{
    FitResult result;
    auto fitsAt = [&](std::uint64_t x, bool estimate, Bytes& used) -> Result<bool> {
        ++result.plansEvaluated;
        if (!estimate)
            ++result.plansSimulated;
        PlanOptions options;
        options.estimateReserved = estimate;
        auto plan = planAt(x, options);
        if (!plan) {
            // A value so large that the table overflows does not fit.
            if (plan.error().code == ErrorCode::Overflow)
                return false;
            return plan.error();
        }
        used = plan->deviceUsedBytes;
        return plan->fits;
    };
    Bytes used = 0;

    // 1. Bisection on the estimate: `candidate`, 0 when not even 1 fits.
    std::uint64_t candidate = 0;
    auto first = fitsAt(1, true, used);
    if (!first)
        return first.error();
    if (first.value()) {
        std::uint64_t lo = 1, hi = upper; // estimated fits(lo); estimated answer in [lo, hi]
        while (lo < hi) {
            const std::uint64_t mid = lo + (hi - lo + 1) / 2;
            auto ok = fitsAt(mid, true, used);
            if (!ok)
                return ok.error();
            if (ok.value())
                lo = mid;
            else
                hi = mid - 1;
        }
        candidate = lo;
    }

    // 2. Simulated plans from the candidate: a bracket [lo, hi] with
    // fits(lo) simulated (lo 0: none known yet) and the answer in it.
    const std::uint64_t start = std::max<std::uint64_t>(candidate, 1);
    auto ok = fitsAt(start, false, used);
    if (!ok)
        return ok.error();
    std::uint64_t lo = 0, hi = 0;
    Bytes usedLo = 0;
    if (ok.value()) {
        lo = hi = start;
        usedLo = used;
        bool bracketed = false;
        for (std::uint64_t step = 1; !bracketed && lo < upper; step *= 2) {
            const std::uint64_t probe = upper - lo > step ? lo + step : upper;
            auto up = fitsAt(probe, false, used);
            if (!up)
                return up.error();
            if (up.value()) {
                lo = hi = probe;
                usedLo = used;
            } else {
                hi = probe - 1;
                bracketed = true;
            }
        }
    } else {
        std::uint64_t failing = start;
        for (std::uint64_t step = 1; lo == 0 && failing > 1; step *= 2) {
            const std::uint64_t probe = failing > step ? failing - step : 1;
            auto down = fitsAt(probe, false, used);
            if (!down)
                return down.error();
            if (down.value()) {
                lo = probe;
                usedLo = used;
                hi = failing - 1;
            } else {
                failing = probe;
            }
        }
        if (lo == 0)
            return result; // not even 1 fits
    }
    while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo + 1) / 2;
        auto fits = fitsAt(mid, false, used);
        if (!fits)
            return fits.error();
        if (fits.value()) {
            lo = mid;
            usedLo = used;
        } else {
            hi = mid - 1;
        }
    }
    result.found = true;
    result.value = lo;
    result.deviceUsedBytes = usedLo;
    return result;
}

} // namespace

Result<FitResult> largestMicroBatch(const Scenario& scenario, std::uint64_t upperBound)
{
    const ParameterTable table = buildParameterTable(scenario.model);
    Scenario s = scenario;
    // The search asks which micro-batch fits; a global batch (a check that
    // micro_batch x grad_accum x dp is what the run wants, plan/parallel.h)
    // would refuse every other one. It changes no byte of a plan.
    s.train.globalBatch = 0;
    return searchLargest(upperBound, [&](std::uint64_t x, const PlanOptions& options) {
        if (s.mode == Mode::Train)
            s.train.microBatch = x;
        else
            s.inference.batch = x;
        return makePlan(s, table, options);
    });
}

Result<FitResult> longestSequence(const Scenario& scenario, std::uint64_t upperBound)
{
    const ParameterTable table = buildParameterTable(scenario.model);
    Scenario s = scenario;
    return searchLargest(upperBound, [&](std::uint64_t x, const PlanOptions& options) {
        if (s.mode == Mode::Train)
            s.train.seqLen = x;
        else
            s.inference.promptTokens = x;
        return makePlan(s, table, options);
    });
}

const std::vector<Technique>& standardTechniques()
{
    static const std::vector<Technique> list{
        {"fp32-adamw", "full fine-tune, fp32, AdamW"},
        {"bf16-mixed-adamw", "full fine-tune, bf16 mixed, AdamW"},
        {"bf16-mixed-ckpt-flash", "bf16 mixed + checkpointing + flash attention"},
        {"bf16-8bit-ckpt-flash", "pure bf16 + 8-bit AdamW + checkpointing + flash"},
        {"lora-ckpt-flash", "LoRA r16 (bf16 base) + checkpointing + flash"},
        {"qlora-ckpt-flash", "QLoRA NF4-DQ r16 + checkpointing + flash + paged 8-bit AdamW"},
        {"inference-bf16", "inference, bf16 weights"},
        {"inference-nf4", "inference, NF4 weights"},
    };
    return list;
}

Result<Scenario> applyTechnique(const Scenario& base, const std::string& id)
{
    Scenario s = base;
    TrainConfig& t = s.train;
    auto fullFinetune = [&](Precision p, Optimizer o) {
        s.mode = Mode::Train;
        t.precision = p;
        t.optimizer = o;
        t.peft = PeftConfig{};
        t.weightQuant = WeightQuant::None;
    };
    if (id == "fp32-adamw") {
        fullFinetune(Precision::Fp32, Optimizer::AdamW);
        t.checkpointing = Checkpointing::None;
    } else if (id == "bf16-mixed-adamw") {
        fullFinetune(Precision::Bf16Mixed, Optimizer::AdamW);
        t.checkpointing = Checkpointing::None;
    } else if (id == "bf16-mixed-ckpt-flash") {
        fullFinetune(Precision::Bf16Mixed, Optimizer::AdamW);
        t.checkpointing = Checkpointing::Full;
        t.attention = Attention::Flash;
    } else if (id == "bf16-8bit-ckpt-flash") {
        fullFinetune(Precision::Bf16, Optimizer::AdamW8bit);
        t.checkpointing = Checkpointing::Full;
        t.attention = Attention::Flash;
    } else if (id == "lora-ckpt-flash" || id == "qlora-ckpt-flash") {
        const bool q = id[0] == 'q';
        s.mode = Mode::Train;
        t.precision = Precision::Bf16Mixed;
        t.optimizer = q ? Optimizer::PagedAdamW8bit : Optimizer::AdamW;
        t.peft.method = q ? PeftMethod::Qlora : PeftMethod::Lora;
        t.peft.rank = 16;
        t.peft.alpha = 32;
        t.peft.targets = {"all-linear"};
        t.weightQuant = q ? WeightQuant::Nf4DoubleQuant : WeightQuant::None;
        t.checkpointing = Checkpointing::Full;
        t.attention = Attention::Flash;
    } else if (id == "inference-bf16" || id == "inference-nf4") {
        s.mode = Mode::Inference;
        s.inference.precision = Precision::Bf16;
        s.inference.weightQuant = id == "inference-nf4" ? WeightQuant::Nf4 : WeightQuant::None;
    } else {
        return makeError(ErrorCode::InvalidArgument, "technique: unknown id '" + id + "'");
    }
    return s;
}

Result<std::vector<ModelFitRow>> largestModels(const Scenario& base)
{
    std::vector<ModelFitRow> rows;
    for (const Technique& technique : standardTechniques()) {
        auto applied = applyTechnique(base, technique.id);
        if (!applied)
            return applied.error();
        ModelFitRow row{technique, {}, 0, 0};
        // Estimated plans choose; the answer is then checked with a
        // simulated plan and the search steps back if that one does not fit.
        auto fits = [&](const ModelSpec& model, bool estimate) -> bool {
            Scenario s = applied.value();
            s.model = model;
            if (model.encoder && s.mode == Mode::Inference)
                return false;
            PlanOptions options;
            options.estimateReserved = estimate;
            auto plan = makePlan(s, buildParameterTable(model), options);
            return plan && plan->fits;
        };
        std::vector<const CatalogModel*> presets; // estimated to fit, largest first
        for (const CatalogModel& entry : modelCatalog())
            if (!entry.spec.encoder && fits(entry.spec, true))
                presets.push_back(&entry);
        std::stable_sort(presets.begin(), presets.end(),
                         [](const CatalogModel* a, const CatalogModel* b) { return a->parameters > b->parameters; });
        for (const CatalogModel* entry : presets)
            if (entry->parameters > 0 && fits(entry->spec, false)) {
                row.largestPresetParameters = entry->parameters;
                row.largestPresetId = entry->id;
                break;
            }
        // Bisection on log(parameters) between 10M and 10T, to 1% relative.
        double lo = std::log(1e7), hi = std::log(1e13);
        auto fitsSize = [&](double logParams, bool estimate) {
            auto model = genericModelByParameters(std::exp(logParams));
            return model && fits(model.value(), estimate);
        };
        const double floor = lo;
        if (fitsSize(lo, true)) {
            while (hi - lo > 0.01) {
                const double mid = (lo + hi) / 2;
                (fitsSize(mid, true) ? lo : hi) = mid;
            }
        }
        if (fitsSize(lo, false)) {
            row.largestGenericParameters = std::exp(lo);
        } else if (lo > floor && fitsSize(floor, false)) {
            hi = lo; // the estimate was too generous: bisect again on simulated plans
            lo = floor;
            while (hi - lo > 0.01) {
                const double mid = (lo + hi) / 2;
                (fitsSize(mid, false) ? lo : hi) = mid;
            }
            row.largestGenericParameters = std::exp(lo);
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace headroom
