// SPDX-License-Identifier: GPL-3.0-or-later
#include "options.h"

#include "helptext.h"
#include "hubmodel.h"

#include "io/scenariofile.h"
#include "model/genericmodel.h"
#include "model/hfconfig.h"
#include "model/modelhead.h"
#include "model/modelfolder.h"
#include "plan/defaultscenario.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace headroom::cli {

Result<Options> Options::parse(const std::vector<std::string>& args, const std::vector<std::string>& valueOptions,
                               const std::vector<std::string>& flagOptions)
{
    Options out;
    for (std::size_t k = 0; k < args.size(); ++k) {
        const std::string& arg = args[k];
        if (arg.rfind("--", 0) != 0) {
            out.m_positional.push_back(arg);
            continue;
        }
        std::string name = arg.substr(2), value;
        const auto eq = name.find('=');
        const bool inlineValue = eq != std::string::npos;
        if (inlineValue) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        const bool takesValue = std::find(valueOptions.begin(), valueOptions.end(), name) != valueOptions.end();
        const bool isFlag = std::find(flagOptions.begin(), flagOptions.end(), name) != flagOptions.end();
        if (!takesValue && !isFlag)
            return makeError(ErrorCode::InvalidArgument, "unknown option --" + name + " (see --help)");
        if (takesValue && !inlineValue) {
            if (k + 1 >= args.size())
                return makeError(ErrorCode::InvalidArgument, "option --" + name + " needs a value");
            value = args[++k];
        }
        if (isFlag && inlineValue)
            return makeError(ErrorCode::InvalidArgument, "option --" + name + " takes no value");
        out.m_values[name] = isFlag ? "1" : value;
    }
    return out;
}

Result<Options> Options::parseFor(const std::string& command, const std::vector<std::string>& args)
{
    auto o = parse(args, commandValueOptions(command), commandFlagOptions(command));
    if (!o && o.error().code == ErrorCode::InvalidArgument) {
        const std::string hint = "(see --help)";
        std::string detail = o.error().detail;
        const auto at = detail.rfind(hint);
        if (at != std::string::npos)
            detail.replace(at, hint.size(), "(see headroom-cli " + command + " --help)");
        return makeError(ErrorCode::InvalidArgument, detail);
    }
    return o;
}

std::string Options::value(const std::string& name) const
{
    const auto it = m_values.find(name);
    return it == m_values.end() ? std::string() : it->second;
}

namespace {

std::vector<std::string> scenarioOptionNames(bool values)
{
    std::vector<std::string> names;
    for (const ScenarioOptionHelp& o : scenarioOptionTable())
        if (o.option.value.empty() != values)
            names.push_back(o.option.name);
    return names;
}

} // namespace

const std::vector<std::string>& scenarioValueOptions()
{
    static const std::vector<std::string> names = scenarioOptionNames(true);
    return names;
}

const std::vector<std::string>& scenarioFlagOptions()
{
    static const std::vector<std::string> names = scenarioOptionNames(false);
    return names;
}

namespace {

// Whole numbers only: "2", not "2.5", "-1" or "1e3"; range checks are the planner's.
Result<std::uint64_t> parseCount(const std::string& option, const std::string& text)
{
    const bool digits = !text.empty() && text.size() <= 19 &&
                        std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits)
        return makeError(ErrorCode::InvalidArgument,
                         "--" + option + ": expected a whole number up to 19 digits, got '" + text + "'");
    return static_cast<std::uint64_t>(std::strtoull(text.c_str(), nullptr, 10));
}

Result<double> parseReal(const std::string& option, const std::string& text)
{
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(v))
        return makeError(ErrorCode::InvalidArgument, "--" + option + ": expected a number, got '" + text + "'");
    return v;
}

template <class E>
Result<bool> parseEnum(const Options& o, const char* option, bool (*parser)(const std::string&, E&), E& out,
                       const char* accepted)
{
    if (!o.has(option))
        return false;
    if (!parser(o.value(option), out))
        return makeError(ErrorCode::InvalidArgument,
                         std::string("--") + option + ": unknown value '" + o.value(option) + "' (accepted: " + accepted + ")");
    return true;
}

#define HR_TRY(expr)                  \
    do {                              \
        auto hrResult = (expr);       \
        if (!hrResult)                \
            return hrResult.error();  \
    } while (false)

#define HR_COUNT(option, target)                               \
    if (o.has(option)) {                                       \
        auto hrValue = parseCount(option, o.value(option));    \
        if (!hrValue)                                          \
            return hrValue.error();                            \
        target = hrValue.value();                              \
    }

} // namespace

Result<Scenario> scenarioFromOptions(const Options& o, Scenario* before, const Scenario* start)
{
    Result<Scenario> base = o.has("scenario") ? readScenarioFile(o.value("scenario"))
                            : start           ? Result<Scenario>(*start)
                                              : teachingScenario();
    if (!base)
        return base.error();
    Scenario s = base.value();
    if (before)
        *before = s;

    const int modelSources = int(o.has("model")) + int(o.has("config")) + int(o.has("model-dir")) + int(o.has("size"));
    if (modelSources > 1)
        return makeError(ErrorCode::InvalidArgument, "give one of --model, --config, --model-dir, --size");
    if (o.has("model")) {
        auto m = catalogOrHubModel(o.value("model"));
        if (!m)
            return m.error();
        s.model = m.value();
    } else if (o.has("config")) {
        auto m = modelSpecFromConfigFile(o.value("config"));
        if (!m)
            return m.error();
        s.model = m.value();
    } else if (o.has("model-dir")) {
        auto m = importModelFolder(o.value("model-dir"));
        if (!m)
            return m.error();
        s.model = m->spec;
    } else if (o.has("size")) {
        auto m = genericModelBySize(o.value("size"));
        if (!m)
            return m.error();
        s.model = m.value();
    }

    // --head / --num-labels act on whichever model the options above chose
    // (a new model source starts from its own head).
    if (o.has("head") || o.has("num-labels")) {
        ModelHead head = s.model.head;
        HR_TRY(parseEnum(o, "head", parseModelHead, head, "language-model, sequence-classification"));
        std::uint64_t labels = head == s.model.head ? s.model.numLabels : 0;
        if (head == ModelHead::SequenceClassification && labels == 0)
            labels = 2;  // transformers' PretrainedConfig default
        HR_COUNT("num-labels", labels);
        if (o.has("num-labels") && head != ModelHead::SequenceClassification)
            return makeError(ErrorCode::InvalidArgument, "--num-labels: only the sequence-classification head has labels (add --head sequence-classification)");
        if (head == ModelHead::LanguageModel)
            labels = 0;
        if (auto e = setModelHead(s.model, head, labels))
            return makeError(e->code, (o.has("num-labels") && e->code == ErrorCode::InvalidArgument ? "--num-labels: " : "--head: ") + e->detail);
    }

    HR_TRY(parseEnum(o, "mode", parseMode, s.mode, "train, inference"));
    TrainConfig& t = s.train;
    InferenceConfig& in = s.inference;
    Precision precision;
    auto hasPrecision = parseEnum(o, "precision", parsePrecision, precision, "fp32, fp16-mixed, bf16-mixed, bf16, fp16, fp8-mixed");
    if (!hasPrecision)
        return hasPrecision.error();
    if (hasPrecision.value())
        (s.mode == Mode::Train ? t.precision : in.precision) = precision;
    WeightQuant quant;
    auto hasQuant = parseEnum(o, "weight-quant", parseWeightQuant, quant, "none, int8, nf4, nf4-dq");
    if (!hasQuant)
        return hasQuant.error();
    if (hasQuant.value())
        (s.mode == Mode::Train ? t.weightQuant : in.weightQuant) = quant;
    HR_TRY(parseEnum(o, "optimizer", parseOptimizer, t.optimizer,
                     "sgd, sgd-momentum, adamw, adamw-8bit, paged-adamw-8bit, lion, adafactor, lomo, adalomo, galore"));
    HR_TRY(parseEnum(o, "optimizer-impl", parseOptimizerImpl, t.optimizerImpl, "foreach, fused, for-loop"));
    auto hasPeft = parseEnum(o, "peft", parsePeftMethod, t.peft.method, "none, lora, qlora");
    if (!hasPeft)
        return hasPeft.error();
    if (hasPeft.value()) {
        if (t.peft.method == PeftMethod::Qlora && !hasQuant.value() && t.weightQuant == WeightQuant::None)
            t.weightQuant = WeightQuant::Nf4;
        if (t.peft.method != PeftMethod::Qlora && !hasQuant.value())
            t.weightQuant = WeightQuant::None;
    }
    HR_COUNT("lora-rank", t.peft.rank);
    if (o.has("lora-alpha")) {
        auto v = parseReal("lora-alpha", o.value("lora-alpha"));
        if (!v)
            return v.error();
        if (!(v.value() > 0 && v.value() <= 1e6))
            return makeError(ErrorCode::InvalidArgument, "--lora-alpha: must be above 0 and at most 1e6");
        t.peft.alpha = v.value();
    }
    if (o.has("lora-dropout")) {
        auto v = parseReal("lora-dropout", o.value("lora-dropout"));
        if (!v)
            return v.error();
        if (!(v.value() >= 0 && v.value() < 1))
            return makeError(ErrorCode::InvalidArgument, "--lora-dropout: must be in [0, 1)");
        t.peft.dropout = v.value();
    }
    if (o.has("lora-targets")) {
        t.peft.targets.clear();
        std::stringstream list(o.value("lora-targets"));
        for (std::string name; std::getline(list, name, ',');)
            if (!name.empty())
                t.peft.targets.push_back(name);
    }
    HR_COUNT("micro-batch", t.microBatch);
    HR_COUNT("seq-len", t.seqLen);
    HR_COUNT("grad-accum", t.gradAccum);
    HR_TRY(parseEnum(o, "checkpointing", parseCheckpointing, t.checkpointing, "none, full, every-k, selective-op"));
    HR_COUNT("checkpoint-every", t.checkpointEvery);
    if (o.has("checkpoint-every") && !o.has("checkpointing"))
        t.checkpointing = Checkpointing::EveryK;
    Attention attention;
    auto hasAttention = parseEnum(o, "attention", parseAttention, attention, "eager, sdpa, flash");
    if (!hasAttention)
        return hasAttention.error();
    if (hasAttention.value())
        (s.mode == Mode::Train ? t.attention : in.attention) = attention;
    if (o.has("chunked-ce"))
        t.chunkedCrossEntropy = true;
    HR_COUNT("loss-chunks", t.lossChunks);
    if (o.has("optimizer-in-backward"))
        t.optimizerInBackward = true;
    if (o.has("activation-offload"))
        t.activationOffload = true;
    if (o.has("compile"))
        t.compileLayers = true;
    if (o.has("compile-loss"))
        t.compileLoss = true;
    if (o.has("float8-all-gather"))
        t.float8AllGather = true;
    HR_COUNT("galore-rank", t.galoreRank);
    HR_TRY(parseEnum(o, "loop", parseTrainingLoop, t.loop, "trainer, custom"));
    HR_TRY(parseEnum(o, "use-cache", parseUseCache, t.useCache, "config, on, off"));
    if (o.has("gpu"))
        s.hardware.gpu = o.value("gpu");
    HR_COUNT("gpus", s.hardware.count);
    HR_TRY(parseEnum(o, "sharding", parseSharding, s.hardware.sharding, "none, ddp, zero1, zero2, zero3, fsdp, fsdp2"));
    if (o.has("cpu-offload"))
        s.hardware.cpuOffload = true;
    HR_COUNT("tp", s.hardware.parallel.tp);
    HR_COUNT("pp", s.hardware.parallel.pp);
    HR_COUNT("vpp", s.hardware.parallel.vpp);
    HR_COUNT("cp", s.hardware.parallel.cp);
    HR_COUNT("ep", s.hardware.parallel.ep);
    HR_COUNT("etp", s.hardware.parallel.etp);
    HR_COUNT("dp-replicate", s.hardware.parallel.dpReplicate);
    if (o.has("sp"))
        s.hardware.parallel.sp = true;
    if (o.has("async-tp"))
        s.hardware.parallel.asyncTp = true;
    if (o.has("pp-return-outputs"))
        s.hardware.parallel.ppReturnOutputs = true;
    HR_TRY(parseEnum(o, "pp-schedule", parsePipelineSchedule, s.hardware.parallel.ppSchedule, "1f1b, gpipe"));
    HR_TRY(parseEnum(o, "pp-split", parsePipelineSplit, s.hardware.parallel.ppSplit, "layers, weighted"));
    HR_COUNT("global-batch", t.globalBatch);
    if (o.has("moe-capacity-factor")) {
        auto v = parseReal("moe-capacity-factor", o.value("moe-capacity-factor"));
        if (!v)
            return v.error();
        if (!(v.value() > 0 && v.value() <= 1e3))
            return makeError(ErrorCode::InvalidArgument, "--moe-capacity-factor: must be above 0 and at most 1000");
        t.moe.capacityFactor = v.value();
    }
    if (o.has("moe-pad-to-capacity"))
        t.moe.padToCapacity = true;
    if (o.has("moe-imbalance")) {
        auto v = parseReal("moe-imbalance", o.value("moe-imbalance"));
        if (!v)
            return v.error();
        if (!(v.value() >= 1 && v.value() <= 1e3))
            return makeError(ErrorCode::InvalidArgument, "--moe-imbalance: must be from 1 to 1000");
        t.moe.imbalance = v.value();
    }
    HR_TRY(parseEnum(o, "profile", parseProfile, s.profile, "pytorch, headroom"));
    HR_COUNT("batch", in.batch);
    HR_COUNT("prompt-tokens", in.promptTokens);
    HR_COUNT("new-tokens", in.newTokens);
    HR_TRY(parseEnum(o, "kv-cache-dtype", parseKvCacheDtype, in.kvCacheDtype, "fp32, fp16, bf16, fp8, int8"));
    return s;
}

Result<std::uint64_t> wholeNumber(const std::string& option, const std::string& text, std::uint64_t low,
                                  std::uint64_t high)
{
    std::uint64_t value = 0;
    bool ok = !text.empty() && text.size() <= 9;
    for (char c : text) {
        ok = ok && c >= '0' && c <= '9';
        value = value * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (!ok || value < low || value > high)
        return makeError(ErrorCode::InvalidArgument, "--" + option + ": must be a whole number from " +
                                                         std::to_string(low) + " to " + std::to_string(high) +
                                                         ", got '" + text + "'");
    return value;
}

} // namespace headroom::cli
