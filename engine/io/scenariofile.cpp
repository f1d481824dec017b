// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/scenariofile.h"

#include "core/checkedmath.h"
#include "io/atomicfile.h"
#include "io/jsonfields.h"
#include "io/modeljson.h"
#include "io/textfile.h"

#include "plan/gpucatalog.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace headroom {

namespace {

using nlohmann::json;
// Written files keep the order of the format's documentation (schema and
// model first) instead of json's alphabetical order: people read and edit them.
using ordered = nlohmann::ordered_json;
namespace fs = std::filesystem;

constexpr std::uint64_t kMaxCount = 1'000'000'000;  // batch, sequence and accumulation limits
constexpr std::uint64_t kMaxGpus = 1'000'000;
constexpr std::uint64_t kMaxRank = 65'536;
// A scenario file is a few kilobytes, a few hundred with an inline config.json;
// refusing anything past this keeps a mistaken path (a checkpoint shard, a
// device file) from being read into memory whole.
constexpr std::uintmax_t kMaxFileBytes = 16ull * 1024 * 1024;

// The strict field reader every format here shares (io/jsonfields.h).
using Reader = jsonfields::Fields;
using jsonfields::acceptedNames;
using jsonfields::childPath;
using jsonfields::pathError;
using jsonfields::show;
using jsonfields::underPath;
using jsonfields::guarded;


// ---------------------------------------------------------------------------
// Scenario

// hardware.nodes and hardware.gpus_per_node (issue 15's scenario): the
// GPUs per node are kept (the layout search's node size); nodes x
// gpus_per_node is the GPU count, given instead of "count" or checked
// against it. Without nodes, a count above one node must fill whole nodes.
void readNodes(Reader& h, HardwareConfig& c)
{
    std::uint64_t nodes = 0;
    h.integer("nodes", 1, kMaxGpus, nodes);
    h.integer("gpus_per_node", 1, kMaxGpus, c.gpusPerNode);
    if (h.failed())
        return;
    if (nodes != 0 && c.gpusPerNode == 0) {
        h.fail(ErrorCode::InvalidArgument, "hardware.nodes", "needs hardware.gpus_per_node (the GPUs of one node)");
        return;
    }
    if (nodes != 0) {
        const UInt128 total = static_cast<UInt128>(nodes) * c.gpusPerNode;
        if (total > kMaxGpus)
            h.fail(ErrorCode::InvalidArgument, "hardware.nodes",
                   "nodes x gpus_per_node is more than " + std::to_string(kMaxGpus) + " GPUs");
        else if (h.has("count") && total != c.count)
            h.fail(ErrorCode::InvalidArgument, "hardware.count",
                   std::to_string(c.count) + " GPUs, but nodes " + std::to_string(nodes) + " x gpus_per_node " +
                       std::to_string(c.gpusPerNode) + " = " + std::to_string(static_cast<std::uint64_t>(total)));
        else
            c.count = static_cast<std::uint64_t>(total);
    } else if (c.gpusPerNode != 0 && c.count > c.gpusPerNode && c.count % c.gpusPerNode != 0) {
        h.fail(ErrorCode::InvalidArgument, "hardware.count",
               std::to_string(c.count) + " GPUs do not fill whole nodes of gpus_per_node " +
                   std::to_string(c.gpusPerNode));
    }
}

// hardware.parallel.dp_shard is derived (count / (tp x pp x cp x
// dp_replicate)); a file that states it must state that number.
void checkDpShard(Reader& p, const HardwareConfig& c)
{
    std::uint64_t dpShard = 0;
    p.integer("dp_shard", 1, kMaxGpus, dpShard);
    if (p.failed() || dpShard == 0)
        return;
    const ParallelConfig& l = c.parallel;
    const UInt128 product = static_cast<UInt128>(l.tp) * l.pp * l.cp * l.dpReplicate * dpShard;
    if (product != c.count)
        p.fail(ErrorCode::InvalidArgument, "hardware.parallel.dp_shard",
               "tp " + std::to_string(l.tp) + " x pp " + std::to_string(l.pp) + " x cp " + std::to_string(l.cp) +
                   " x dp_replicate " + std::to_string(l.dpReplicate) + " x dp_shard " + std::to_string(dpShard) +
                   " must equal hardware.count " + std::to_string(c.count));
}

// hardware.parallel.zero (0 to 3) and distributed_optimizer (issue 15's
// scenario) say the sharding another way: ZeRO stage N is "zeroN" (stage 3
// is also FSDP's full sharding), Megatron-LM's distributed optimizer is
// ZeRO-1. Without "sharding" they set it; with it they must agree. They are
// not written back: "sharding" carries them.
void readShardingAliases(Reader& p, bool shardingGiven, HardwareConfig& c)
{
    std::uint64_t zero = 0;
    bool distributed = false;
    const bool zeroGiven = p.has("zero"), distributedGiven = p.has("distributed_optimizer");
    p.integer("zero", 0, 3, zero);
    p.boolean("distributed_optimizer", distributed);
    if (p.failed() || (!zeroGiven && !distributedGiven))
        return;
    static constexpr Sharding kStage[] = {Sharding::Ddp, Sharding::Zero1, Sharding::Zero2, Sharding::Zero3};
    const auto conflict = [&](const char* field, const std::string& said) {
        p.fail(ErrorCode::InvalidArgument, std::string("hardware.parallel.") + field,
               said + " disagrees with hardware.sharding " + shardingName(c.sharding));
    };
    if (zeroGiven) {
        const Sharding s = c.sharding;
        const bool agrees = zero == 0   ? s == Sharding::None || s == Sharding::Ddp
                            : zero == 3 ? s == Sharding::Zero3 || s == Sharding::Fsdp || s == Sharding::Fsdp2
                                        : s == kStage[zero];
        if (!shardingGiven)
            c.sharding = zero == 0 ? (c.count > 1 ? Sharding::Ddp : Sharding::None) : kStage[zero];
        else if (!agrees)
            return conflict("zero", "ZeRO stage " + std::to_string(zero));
    }
    if (distributedGiven) {
        const bool zero1 = c.sharding == Sharding::Zero1;
        if (distributed && !zero1 && !shardingGiven && !zeroGiven)
            c.sharding = Sharding::Zero1;
        else if (distributed != zero1)
            return conflict("distributed_optimizer",
                            std::string("distributed_optimizer ") + (distributed ? "true (ZeRO-1)" : "false"));
    }
}

Result<Scenario> scenarioFromJsonIn(const json& document, const fs::path& baseDir)
{
    if (!document.is_object())
        return makeError(ErrorCode::InvalidArgument, "document: must be a JSON object, got " + show(document));

    std::optional<Error> error;
    Reader top(document, "", error);
    const json* schema = top.find("schema");
    if (!schema)
        return makeError(ErrorCode::MissingField,
                         std::string("schema: required field is missing; expected \"") + kScenarioSchema + "\"");
    if (!schema->is_string() || schema->get<std::string>() != kScenarioSchema)
        return makeError(ErrorCode::InvalidArgument, std::string("schema: expected \"") + kScenarioSchema
                                                         + "\", got " + show(*schema));
    top.allowOnly({"schema", "model", "mode", "train", "inference", "hardware", "profile"});
    top.require("model");
    if (error)
        return *error;

    Scenario s;
    auto model = modelNodeFromJson(document.at("model"), "model", baseDir);
    if (!model)
        return model.error();
    s.model = std::move(model).value();

    top.enumeration("mode", parseMode, modeName, s.mode);
    top.enumeration("profile", parseProfile, profileName, s.profile);

    if (const json* train = top.object("train")) {
        Reader t(*train, "train", error);
        t.allowOnly({"precision", "weight_quant", "optimizer", "optimizer_impl", "peft", "micro_batch", "seq_len", "grad_accum",
                     "checkpointing", "checkpoint_every", "attention", "chunked_cross_entropy", "loss_chunks",
                     "optimizer_in_backward", "activation_offload", "compile", "compile_loss", "float8_all_gather",
                     "galore_rank", "loop", "use_cache", "global_batch", "moe"});
        TrainConfig& c = s.train;
        t.enumeration("precision", parsePrecision, precisionName, c.precision);
        t.enumeration("weight_quant", parseWeightQuant, weightQuantName, c.weightQuant);
        t.enumeration("optimizer", parseOptimizer, optimizerName, c.optimizer);
        t.enumeration("optimizer_impl", parseOptimizerImpl, optimizerImplName, c.optimizerImpl);
        if (const json* peft = t.object("peft")) {
            Reader p(*peft, "train.peft", error);
            p.allowOnly({"method", "rank", "alpha", "dropout", "targets"});
            p.enumeration("method", parsePeftMethod, peftMethodName, c.peft.method);
            p.integer("rank", 1, kMaxRank, c.peft.rank);
            p.number("alpha", 0.0, true, 1e6, false, c.peft.alpha);
            p.number("dropout", 0.0, false, 1.0, true, c.peft.dropout);
            if (const json* targets = p.find("targets"); targets && !p.failed()) {
                if (!targets->is_array()) {
                    p.fail(ErrorCode::InvalidArgument, "train.peft.targets",
                           "must be an array of module names, got " + show(*targets));
                } else {
                    c.peft.targets.clear();
                    for (std::size_t i = 0; i < targets->size() && !p.failed(); ++i) {
                        const json& name = (*targets)[i];
                        if (!name.is_string() || name.get_ref<const std::string&>().empty())
                            p.fail(ErrorCode::InvalidArgument, "train.peft.targets[" + std::to_string(i) + "]",
                                   "must be a non-empty module name, got " + show(name));
                        else
                            c.peft.targets.push_back(name.get<std::string>());
                    }
                }
            }
            // QLoRA means LoRA over NF4 weights (Dettmers et al. 2023); a file
            // that says qlora and nothing about the base weights means that.
            if (!p.failed() && c.peft.method == PeftMethod::Qlora && !t.has("weight_quant"))
                c.weightQuant = WeightQuant::Nf4;
        }
        t.integer("micro_batch", 1, kMaxCount, c.microBatch);
        t.integer("seq_len", 1, kMaxCount, c.seqLen);
        t.integer("grad_accum", 1, kMaxCount, c.gradAccum);
        t.enumeration("checkpointing", parseCheckpointing, checkpointingName, c.checkpointing);
        t.integer("checkpoint_every", 1, 1'000'000, c.checkpointEvery);
        t.enumeration("attention", parseAttention, attentionName, c.attention);
        t.boolean("chunked_cross_entropy", c.chunkedCrossEntropy);
        t.integer("loss_chunks", 1, 1'000'000, c.lossChunks);
        t.boolean("optimizer_in_backward", c.optimizerInBackward);
        t.boolean("activation_offload", c.activationOffload);
        t.boolean("compile", c.compileLayers);
        t.boolean("compile_loss", c.compileLoss);
        t.boolean("float8_all_gather", c.float8AllGather);
        t.integer("galore_rank", 1, kMaxRank, c.galoreRank);
        t.enumeration("loop", parseTrainingLoop, trainingLoopName, c.loop);
        t.integer("global_batch", 1, kMaxCount, c.globalBatch);  // absent: 0, not given
        // Megatron-LM's capacity factor and padding, and a routing imbalance
        // to plan for (scenario.h MoeRouting; plan/parallel.cpp checks them).
        if (const json* moe = t.object("moe")) {
            Reader r(*moe, "train.moe", error);
            r.allowOnly({"capacity_factor", "pad_to_capacity", "imbalance"});
            r.number("capacity_factor", 0.0, true, 1e3, false, c.moe.capacityFactor);
            r.boolean("pad_to_capacity", c.moe.padToCapacity);
            r.number("imbalance", 1.0, false, 1e3, false, c.moe.imbalance);
        }
        // use_cache: true or false as passed to the model, or "config" for the
        // config.json's own value (the default when absent).
        if (const json* cache = t.find("use_cache"); cache && !t.failed()) {
            if (cache->is_boolean())
                c.useCache = cache->get<bool>() ? UseCache::On : UseCache::Off;
            else if (cache->is_string() && cache->get<std::string>() == "config")
                c.useCache = UseCache::ConfigDefault;
            else
                t.fail(ErrorCode::InvalidArgument, "train.use_cache",
                       "must be true, false or \"config\" (the model's config.json value), got " + show(*cache));
        }
    }

    if (const json* inference = top.object("inference")) {
        Reader in(*inference, "inference", error);
        in.allowOnly({"batch", "prompt_tokens", "new_tokens", "kv_cache_dtype", "precision", "weight_quant",
                      "attention"});
        InferenceConfig& c = s.inference;
        in.integer("batch", 1, kMaxCount, c.batch);
        in.integer("prompt_tokens", 1, kMaxCount, c.promptTokens);
        in.integer("new_tokens", 0, kMaxCount, c.newTokens);  // 0: prefill only
        in.enumeration("kv_cache_dtype", parseKvCacheDtype, kvCacheDtypeName, c.kvCacheDtype);
        in.enumeration("precision", parsePrecision, precisionName, c.precision);
        // Inference stores weights in one dtype; the mixed modes describe
        // training master weights and mean nothing here.
        if (!in.failed() && c.precision != Precision::Fp32 && c.precision != Precision::Fp16
            && c.precision != Precision::Bf16)
            in.fail(ErrorCode::InvalidArgument, "inference.precision",
                    std::string("must be fp32, fp16 or bf16 for inference weights, got \"") + precisionName(c.precision)
                        + "\"");
        in.enumeration("weight_quant", parseWeightQuant, weightQuantName, c.weightQuant);
        in.enumeration("attention", parseAttention, attentionName, c.attention);
    }

    if (const json* hardware = top.object("hardware")) {
        Reader h(*hardware, "hardware", error);
        h.allowOnly({"gpu", "count", "nodes", "gpus_per_node", "sharding", "cpu_offload", "parallel"});
        HardwareConfig& c = s.hardware;
        std::string gpu;
        h.string("gpu", gpu, false);
        if (!h.failed() && h.has("gpu")) {
            auto found = findGpu(gpu);
            if (!found)
                return underPath("hardware.gpu", found.error());
            c.gpu = found->id;  // the catalog's spelling, whatever case the file used
        }
        h.integer("count", 1, kMaxGpus, c.count);
        readNodes(h, c);
        h.enumeration("sharding", parseSharding, shardingName, c.sharding);
        h.boolean("cpu_offload", c.cpuOffload);
        // Tensor, pipeline and context parallelism (issue 15; plan/parallel.h
        // checks that the layout divides the GPUs, the model and the sequence).
        if (const json* parallel = h.object("parallel")) {
            Reader p(*parallel, "hardware.parallel", error);
            p.allowOnly({"tp", "sp", "pp", "pp_schedule", "pp_split", "pp_return_outputs", "vpp", "cp", "ep", "etp",
                         "async_tp", "dp_replicate", "dp_shard", "zero", "distributed_optimizer"});
            ParallelConfig& l = c.parallel;
            p.integer("tp", 1, kMaxGpus, l.tp);
            p.boolean("sp", l.sp);
            p.integer("pp", 1, kMaxGpus, l.pp);
            p.enumeration("pp_schedule", parsePipelineSchedule, pipelineScheduleName, l.ppSchedule);
            p.enumeration("pp_split", parsePipelineSplit, pipelineSplitName, l.ppSplit);
            p.boolean("pp_return_outputs", l.ppReturnOutputs);
            p.integer("vpp", 1, kMaxGpus, l.vpp);
            p.integer("cp", 1, kMaxGpus, l.cp);
            p.integer("ep", 1, kMaxGpus, l.ep);
            p.integer("etp", 1, kMaxGpus, l.etp); // absent: 0, the tensor-parallel degree
            p.boolean("async_tp", l.asyncTp);
            p.integer("dp_replicate", 1, kMaxGpus, l.dpReplicate);
            checkDpShard(p, c);
            readShardingAliases(p, h.has("sharding"), c);
        }
    }

    if (error)
        return *error;
    return s;
}

Result<Scenario> scenarioFromTextIn(std::string_view text, const fs::path& baseDir)
{
    auto document = parseJsonDocument(text);
    if (!document)
        return document.error();
    return scenarioFromJsonIn(document.value(), baseDir);
}

} // namespace

// ---------------------------------------------------------------------------
// Public API

Result<Scenario> scenarioFromJson(const nlohmann::json& document)
{
    return guarded<Scenario>("scenario", [&] { return scenarioFromJsonIn(document, fs::path()); });
}

Result<Scenario> scenarioFromText(std::string_view text)
{
    return guarded<Scenario>("scenario", [&] { return scenarioFromTextIn(text, fs::path()); });
}

Result<Scenario> readScenarioFile(const std::string& path)
{
    return guarded<Scenario>("scenario", [&]() -> Result<Scenario> {
        const auto text = readBoundedTextFile(path, kMaxFileBytes, "a scenario file");
        if (!text)
            return text.error();
        auto scenario = scenarioFromTextIn(text.value(), pathFromUtf8(path).parent_path());
        if (!scenario)
            return makeError(scenario.error().code, path + ": " + scenario.error().detail);
        return scenario;
    });
}

namespace {

ordered scenarioToOrdered(const Scenario& scenario)
{
    const ordered model = modelToJson(scenario.model);

    const TrainConfig& t = scenario.train;
    const InferenceConfig& i = scenario.inference;
    const HardwareConfig& h = scenario.hardware;
    ordered document{
        {"schema", kScenarioSchema},
        {"model", model},
        {"mode", modeName(scenario.mode)},
        {"train",
         {
             {"precision", precisionName(t.precision)},
             {"weight_quant", weightQuantName(t.weightQuant)},
             {"optimizer", optimizerName(t.optimizer)},
             {"peft",
              {
                  {"method", peftMethodName(t.peft.method)},
                  {"rank", t.peft.rank},
                  {"alpha", t.peft.alpha},
                  {"dropout", t.peft.dropout},
                  {"targets", t.peft.targets},
              }},
             {"micro_batch", t.microBatch},
             {"seq_len", t.seqLen},
             {"grad_accum", t.gradAccum},
             {"checkpointing", checkpointingName(t.checkpointing)},
             {"checkpoint_every", t.checkpointEvery},
             {"attention", attentionName(t.attention)},
             {"chunked_cross_entropy", t.chunkedCrossEntropy},
             {"loss_chunks", t.lossChunks},
             {"optimizer_in_backward", t.optimizerInBackward},
             {"activation_offload", t.activationOffload},
             {"compile", t.compileLayers},
             {"galore_rank", t.galoreRank},
             {"loop", trainingLoopName(t.loop)},
             {"use_cache", t.useCache == UseCache::ConfigDefault ? ordered("config") : ordered(t.useCache == UseCache::On)},
         }},
        {"inference",
         {
             {"batch", i.batch},
             {"prompt_tokens", i.promptTokens},
             {"new_tokens", i.newTokens},
             {"kv_cache_dtype", kvCacheDtypeName(i.kvCacheDtype)},
             {"precision", precisionName(i.precision)},
             {"weight_quant", weightQuantName(i.weightQuant)},
             {"attention", attentionName(i.attention)},
         }},
        {"hardware",
         {
             {"gpu", h.gpu},
             {"count", h.count},
             {"sharding", shardingName(h.sharding)},
             {"cpu_offload", h.cpuOffload},
         }},
        {"profile", profileName(scenario.profile)},
    };
    // Written only when set, so a one-GPU or data-parallel scenario saves the
    // same text as before issue 15.
    if (t.globalBatch != 0)
        document["train"]["global_batch"] = t.globalBatch;
    if (t.compileLoss)
        document["train"]["compile_loss"] = true;
    if (t.optimizerImpl != OptimizerImpl::Foreach)
        document["train"]["optimizer_impl"] = optimizerImplName(t.optimizerImpl);
    if (t.float8AllGather)
        document["train"]["float8_all_gather"] = true;
    if (!t.moe.isDefault()) {
        ordered moe = ordered::object();
        if (t.moe.capacityFactor != 0.0)
            moe["capacity_factor"] = t.moe.capacityFactor;
        if (t.moe.padToCapacity)
            moe["pad_to_capacity"] = true;
        if (t.moe.imbalance != 1.0)
            moe["imbalance"] = t.moe.imbalance;
        document["train"]["moe"] = moe;
    }
    if (!h.parallel.isDefault())
        document["hardware"]["parallel"] = ordered{
            {"tp", h.parallel.tp},
            {"sp", h.parallel.sp},
            {"pp", h.parallel.pp},
            {"pp_schedule", pipelineScheduleName(h.parallel.ppSchedule)},
            {"vpp", h.parallel.vpp},
        };
    // cp, pp_split... only when used, so a tp/pp scenario saves the same text as before them.
    if (h.parallel.ppSplit != PipelineSplit::Layers)
        document["hardware"]["parallel"]["pp_split"] = pipelineSplitName(h.parallel.ppSplit);
    if (h.parallel.ppReturnOutputs)
        document["hardware"]["parallel"]["pp_return_outputs"] = true;
    if (h.parallel.cp != 1)
        document["hardware"]["parallel"]["cp"] = h.parallel.cp;
    if (h.parallel.ep != 1)
        document["hardware"]["parallel"]["ep"] = h.parallel.ep;
    if (h.parallel.etp != 0)
        document["hardware"]["parallel"]["etp"] = h.parallel.etp;
    if (h.parallel.asyncTp)
        document["hardware"]["parallel"]["async_tp"] = true;
    // HSDP only when used; dp_shard is derived, written so the file reads whole.
    if (h.parallel.dpReplicate != 1) {
        document["hardware"]["parallel"]["dp_replicate"] = h.parallel.dpReplicate;
        const std::uint64_t perReplica = h.parallel.tp * h.parallel.pp * h.parallel.cp * h.parallel.dpReplicate;
        if (perReplica != 0 && h.count % perReplica == 0)
            document["hardware"]["parallel"]["dp_shard"] = h.count / perReplica;
    }
    if (h.gpusPerNode != 0)
        document["hardware"]["gpus_per_node"] = h.gpusPerNode;
    return document;
}

} // namespace

nlohmann::json scenarioToJson(const Scenario& scenario) { return json(scenarioToOrdered(scenario)); }

std::string scenarioToText(const Scenario& scenario)
{
    // replace: a model id with invalid UTF-8 must not make the writer throw.
    return scenarioToOrdered(scenario).dump(2, ' ', false, ordered::error_handler_t::replace) + "\n";
}

Result<bool> writeScenarioFile(const Scenario& scenario, const std::string& path)
{
    return guarded<bool>("scenario", [&] { return writeFileAtomically(path, scenarioToText(scenario)); });
}

} // namespace headroom
