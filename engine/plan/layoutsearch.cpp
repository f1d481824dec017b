// SPDX-License-Identifier: GPL-3.0-or-later
// Layout search (plan/layoutsearch.h). The enumeration:
// - tp: divisors of the GPUs per node that divide the GPU count (tensor
//   parallelism stays inside a node, as Megatron-LM recommends: Narayanan et
//   al. 2021 §3.3, "use tensor model parallelism up to degree g" for g GPUs
//   per server); with sequence parallelism off and on for tp > 1;
// - pp: divisors of count / tp up to the layer count;
// - cp: 1, and under FSDP2 every divisor of count / (tp x pp) up to
//   kMaxSearchedCp that splits the sequence into 2 x cp chunks (torchtitan's
//   load-balanced ring attention);
// - dp = count / (tp x pp x cp), which must divide the global batch;
// - sharding: ddp, zero1, zero2, zero3, and fsdp2 with tp = pp = 1; none
//   when dp = 1;
// - micro-batch: powers of two dividing global batch / dp; grad_accum the rest;
// - checkpointing: none, full, selective-op.
// parallelLayout() decides which (tp, pp) shapes the model takes (heads, KV
// heads and the MLP width divisible by tp, the family): a refused shape is
// skipped whole; makePlan() decides what combines: a refusal skips the layout.
// Every layout is planned with the quick estimate of peak reserved
// (PlanOptions::estimateReserved); the best are re-planned with the caching
// allocator simulation before they are returned, as the fit search does.
#include "plan/layoutsearch.h"

#include "model/parametertable.h"
#include "plan/parallel.h"
#include "plan/planner.h"

#include <algorithm>
#include <map>

namespace headroom {

namespace {

Error invalid(std::string what) { return makeError(ErrorCode::InvalidArgument, std::move(what)); }

std::vector<std::uint64_t> divisorsUpTo(std::uint64_t n, std::uint64_t limit)
{
    std::vector<std::uint64_t> out;
    for (std::uint64_t d = 1; d <= n && d <= limit; ++d)
        if (n % d == 0)
            out.push_back(d);
    return out;
}

// FSDP2 under tp/pp is torchtitan's composition (plan/parallel.h), with
// sequence parallelism whenever tp > 1 and without virtual stages
// (searchLayouts skips those): an interleaved FSDP2 layout plans every stage.
std::vector<Sharding> shardingsFor(std::uint64_t dp)
{
    if (dp == 1)
        return {Sharding::None};
    return {Sharding::Ddp, Sharding::Zero1, Sharding::Zero2, Sharding::Zero3, Sharding::Fsdp2};
}

// Virtual stages a (pp, grad_accum) layout can interleave: 1, and with pp >
// 1 every v up to kMaxSearchedVpp whose pp x v model chunks split the layers
// evenly (parallel.cpp: outside FSDP2 the layers must divide) when pp
// divides the micro-batches (Megatron-LM's interleaved schedule asserts it).
constexpr std::uint64_t kMaxSearchedVpp = 8;
std::vector<std::uint64_t> vppChoices(std::uint64_t pp, std::uint64_t layers, std::uint64_t microBatches)
{
    std::vector<std::uint64_t> v{1};
    if (pp < 2 || microBatches % pp != 0)
        return v;
    for (std::uint64_t k = 2; k <= kMaxSearchedVpp && k * pp <= layers; ++k)
        if (layers % (k * pp) == 0)
            v.push_back(k);
    return v;
}

// HSDP replicate groups tried for an FSDP2 layout: none, and the classic
// split that shards within one node and replicates across nodes (dp /
// dp_replicate x tp = the GPUs of a node), when the data-parallel ranks span
// more than a node.
std::vector<std::uint64_t> replicateChoices(Sharding s, std::uint64_t tp, std::uint64_t dp, std::uint64_t gpusPerNode)
{
    std::vector<std::uint64_t> r{1};
    if (s != Sharding::Fsdp2 || gpusPerNode % tp != 0)
        return r;
    const std::uint64_t shardGroup = gpusPerNode / tp;
    if (shardGroup >= 2 && dp > shardGroup && dp % shardGroup == 0)
        r.push_back(dp / shardGroup);
    return r;
}

// Context-parallel degrees tried for a (tp, pp) shape with `rest` = count /
// (tp x pp) GPUs left: 1, and each divisor of `rest` from 2 up to
// kMaxSearchedCp that splits the sequence into 2 x cp equal chunks
// (parallel.cpp refuses the others). Beyond 16 the ring's steps outnumber
// the chunks worth overlapping; torchtitan's published runs stop at 8.
constexpr std::uint64_t kMaxSearchedCp = 16;
std::vector<std::uint64_t> cpChoices(std::uint64_t rest, std::uint64_t seqLen)
{
    std::vector<std::uint64_t> c{1};
    for (std::uint64_t k = 2; k <= kMaxSearchedCp && k <= rest; ++k)
        if (rest % k == 0 && seqLen % (2 * k) == 0)
            c.push_back(k);
    return c;
}

// Expert-parallel degrees to try: 1, and for a mixture of experts under
// Megatron-LM's model states (DDP or the distributed optimizer) or FSDP2
// (torchtitan's: parallel.cpp expertParallelChecks) each divisor of the
// routed experts that, times etp, divides the experts' region: the GPUs of a
// pipeline stage (tp x dp x cp), under FSDP2 one replicate group's.
std::vector<std::uint64_t> epChoices(const ModelSpec& model, Sharding sharding, std::uint64_t stageGpus,
                                     std::uint64_t etp)
{
    std::vector<std::uint64_t> choices{1};
    if (!model.isMoe() || (sharding != Sharding::Ddp && sharding != Sharding::Zero1 && sharding != Sharding::Fsdp2))
        return choices;
    for (std::uint64_t ep = 2; ep <= model.experts && ep * etp <= stageGpus; ++ep)
        if (model.experts % ep == 0 && stageGpus % (ep * etp) == 0)
            choices.push_back(ep);
    return choices;
}

// Expert tensor-parallel degrees to try (ParallelConfig::etp, 0 = tp): for a
// mixture of experts under tensor parallelism, Megatron-LM's default (the
// experts split as the dense layers are) and whole experts (etp 1, which
// Megatron-LM advises for fine-grained experts); else the default alone.
std::vector<std::uint64_t> etpChoices(const ModelSpec& model, std::uint64_t tp)
{
    if (model.isMoe() && tp > 1 && model.intermediate % tp == 0)
        return {0, 1};
    if (model.isMoe() && tp > 1)
        return {1};
    return {0};
}

constexpr Checkpointing kCheckpointings[] = {Checkpointing::None, Checkpointing::Full, Checkpointing::SelectiveOps};

// `asked`: the scenario's own parallel settings. torchtitan's pipeline
// settings (scenario.h ppSplit, ppReturnOutputs) act under FSDP2 with pp > 1
// only: a layout of that kind keeps the scenario's, the others plan without
// them (the planner refuses them there).
void setLayout(Scenario& sc, const LayoutCandidate& c, const ParallelConfig& asked)
{
    const bool torchtitanPipeline = c.sharding == Sharding::Fsdp2 && c.pp > 1;
    sc.hardware.parallel.ppSplit = torchtitanPipeline ? asked.ppSplit : PipelineSplit::Layers;
    sc.hardware.parallel.ppReturnOutputs = torchtitanPipeline && asked.ppReturnOutputs;
    sc.hardware.parallel.tp = c.tp;
    sc.hardware.parallel.sp = c.sp;
    sc.hardware.parallel.pp = c.pp;
    sc.hardware.parallel.vpp = c.vpp;
    sc.hardware.parallel.cp = c.cp;
    sc.hardware.parallel.dpReplicate = c.dpReplicate;
    sc.hardware.parallel.ep = c.ep;
    sc.hardware.parallel.etp = c.etp;
    sc.hardware.sharding = c.sharding;
    sc.train.microBatch = c.microBatch;
    sc.train.gradAccum = c.gradAccum;
    sc.train.checkpointing = c.checkpointing;
}

void copyCounters(LayoutCandidate& c, const Plan& p)
{
    c.peakAllocatedBytes = p.peakAllocatedBytes;
    c.peakReservedBytes = p.peakReservedBytes;
    c.deviceUsedBytes = p.deviceUsedBytes;
    c.marginBytes = p.marginBytes;
    c.fits = p.fits;
    c.reservedSimulated = p.reservedSimulated;
}

bool faster(const LayoutCandidate& a, const LayoutCandidate& b)
{
    if (a.time.stepSeconds != b.time.stepSeconds)
        return a.time.stepSeconds < b.time.stepSeconds;
    return a.deviceUsedBytes < b.deviceUsedBytes;
}

} // namespace

LayoutComparison compareLayouts(const LayoutCandidate& best, const LayoutCandidate& runnerUp)
{
    LayoutComparison c;
    c.bestDeviceUsedBytes = best.deviceUsedBytes;
    c.runnerUpDeviceUsedBytes = runnerUp.deviceUsedBytes;
    c.gapSeconds = runnerUp.time.stepSeconds - best.time.stepSeconds;
    c.tie = !(c.gapSeconds > 0);
    if (c.tie) {
        c.gapSeconds = 0;
        return c;
    }
    c.gapFraction = c.gapSeconds / runnerUp.time.stepSeconds;
    // The step is the sum of the terms (no overlap), so a shorter step has at
    // least one shorter term: the largest saving explains most of the gap.
    for (StepTerm term : kStepTerms) {
        const double saved = stepTermSeconds(runnerUp.time, term) - stepTermSeconds(best.time, term);
        if (saved > c.savedSeconds) {
            c.savedSeconds = saved;
            c.savedTerm = term;
        }
        if (-saved > c.paidSeconds) {
            c.paidSeconds = -saved;
            c.paidTerm = term;
        }
    }
    c.bestSavedTermSeconds = stepTermSeconds(best.time, c.savedTerm);
    c.runnerUpSavedTermSeconds = stepTermSeconds(runnerUp.time, c.savedTerm);
    return c;
}

Scenario applyLayout(const Scenario& base, const LayoutCandidate& layout)
{
    Scenario sc = base;
    setLayout(sc, layout, base.hardware.parallel);
    sc.train.globalBatch = layout.microBatch * layout.gradAccum * layout.dp; // cp ranks share their sequences
    return sc;
}

Result<LayoutSearchResult> searchLayouts(const Scenario& base, const LayoutSearchOptions& options)
{
    if (base.mode != Mode::Train)
        return invalid("mode: the layout search plans training steps; the scenario is inference");
    const GpuSpec* gpu = lookupGpu(base.hardware.gpu);
    if (!gpu)
        return findGpu(base.hardware.gpu).error();
    if (!(gpu->denseBf16Tflops > 0))
        return makeError(ErrorCode::UnsupportedCombination,
                         "hardware.gpu: " + gpu->id +
                             " has no published dense bf16 (or fp16) peak in the catalog, so the search cannot "
                             "estimate step times");
    const std::uint64_t count = base.hardware.count;
    if (count == 0 || count > 1'000'000)
        return invalid("hardware.count: must be between 1 and 1000000, got " + std::to_string(count));
    if (base.model.layers == 0)
        return invalid("model: layers must be positive");

    LayoutSearchResult r;
    r.gpus = count;
    r.gpu = *gpu;
    // The options' node size, else the scenario's (hardware.gpus_per_node), else assumed.
    const std::uint64_t gpusPerNode = options.gpusPerNode != 0 ? options.gpusPerNode : base.hardware.gpusPerNode;
    r.gpusPerNodeAssumed = gpusPerNode == 0;
    r.links = interconnectFor(*gpu, r.gpusPerNodeAssumed ? kDefaultGpusPerNode : gpusPerNode);
    r.globalBatchDerived = base.train.globalBatch == 0;
    r.globalBatch = r.globalBatchDerived ? base.train.microBatch * base.train.gradAccum * count : base.train.globalBatch;
    if (r.globalBatch == 0)
        return invalid("train.global_batch: must be at least 1");

    // The (tp, pp) shapes parallelLayout() accepts (heads, KV heads, MLP
    // width, the model's family...), and of those the ones whose
    // data-parallel degree divides the batch.
    struct Pair {
        std::uint64_t tp, pp, cp;
    };
    std::vector<Pair> pairs;
    std::vector<std::uint64_t> triedDp;
    std::map<std::string, std::size_t> refusals;
    Scenario shape = base;
    shape.train.globalBatch = 0; // the batch is checked below, per layout
    shape.train.gradAccum = 1;
    shape.hardware.parallel.vpp = 1;
    // The search sets the sharding, sp and cp itself (setLayout): a shape is
    // checked without the scenario's own choice of them, which would refuse
    // every tp > 1 of an FSDP2 scenario planned without sp.
    shape.hardware.parallel.cp = 1;
    shape.hardware.parallel.dpReplicate = 1;
    shape.hardware.parallel.ep = 1;
    shape.hardware.parallel.ppSplit = PipelineSplit::Layers; // torchtitan's pipeline settings: per layout (setLayout)
    shape.hardware.parallel.ppReturnOutputs = false;
    shape.hardware.parallel.etp = base.model.isMoe() ? 1 : 0; // etpChoices tries the others
    shape.hardware.sharding = Sharding::Ddp;
    for (std::uint64_t tp : divisorsUpTo(std::min(count, r.links.gpusPerNode), r.links.gpusPerNode)) {
        if (count % tp != 0 || r.links.gpusPerNode % tp != 0)
            continue;
        for (std::uint64_t pp : divisorsUpTo(count / tp, base.model.layers)) {
            for (std::uint64_t cp : cpChoices(count / (tp * pp), base.train.seqLen)) {
                shape.hardware.parallel.tp = tp;
                shape.hardware.parallel.pp = pp;
                shape.hardware.parallel.cp = cp;
                // Context parallelism is planned under FSDP2 only, with sp
                // under tp; a mixture of experts under tp with sp too
                // (parallel.cpp: Megatron-LM's MoELayer requires it).
                shape.hardware.sharding = cp > 1 ? Sharding::Fsdp2 : Sharding::Ddp;
                shape.hardware.parallel.sp = tp > 1 && (cp > 1 || base.model.isMoe());
                if (auto accepted = parallelLayout(shape); !accepted) {
                    ++refusals[accepted.error().detail];
                    ++r.refusedShapes;
                    continue;
                }
                const std::uint64_t dp = count / (tp * pp * cp);
                if (std::find(triedDp.begin(), triedDp.end(), dp) == triedDp.end())
                    triedDp.push_back(dp);
                if (r.globalBatch % dp == 0)
                    pairs.push_back({tp, pp, cp});
            }
        }
    }
    if (triedDp.empty()) // tp 1 x pp 1 is refused too: the scenario itself does not plan
        return makeError(ErrorCode::UnsupportedCombination,
                         "no layout of " + std::to_string(count) + " GPUs plans: " + refusals.begin()->first);
    if (pairs.empty()) {
        std::sort(triedDp.begin(), triedDp.end());
        std::string list;
        for (std::uint64_t dp : triedDp)
            list += (list.empty() ? "" : ", ") + std::to_string(dp);
        return invalid("train.global_batch: " + std::to_string(r.globalBatch) +
                       " sequences do not divide by the data-parallel degree of any layout of " +
                       std::to_string(count) + " GPUs (" + list + ")" +
                       (r.refusedShapes ? " that the planner accepts" : ""));
    }

    const ParameterTable table = buildParameterTable(base.model);
    const StepModel model = stepModel(base.model, table);
    PlanOptions quick;
    quick.estimateReserved = true;
    quick.worstRankOnly = true;
    quick.withNotes = false;
    std::vector<LayoutCandidate> fitting;
    Scenario sc = base;
    sc.train.globalBatch = r.globalBatch;
    // Plans one layout with the quick estimate and times it.
    const auto evaluate = [&](LayoutCandidate c) {
        setLayout(sc, c, base.hardware.parallel);
        ++r.evaluated;
        auto plan = makePlan(sc, table, quick);
        if (!plan) {
            ++refusals[plan.error().detail];
            ++r.refused;
            return;
        }
        copyCounters(c, plan.value());
        auto layout = parallelLayout(sc);
        if (!layout) // makePlan accepted it, so this does not happen
            return;
        c.time = estimateStepTime(model, sc, layout.value(), *gpu, r.links);
        if (c.fits)
            fitting.push_back(c);
        else if (!r.closest || c.deviceUsedBytes < r.closest->deviceUsedBytes)
            r.closest = c;
    };
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        const auto [tp, pp, cp] = pairs[k];
        const std::uint64_t dp = count / (tp * pp * cp), perReplica = r.globalBatch / dp;
        const std::vector<Sharding> shardings = cp > 1 ? std::vector<Sharding>{Sharding::Fsdp2} : shardingsFor(dp);
        for (bool sp : tp > 1 ? std::vector<bool>{false, true} : std::vector<bool>{false})
            for (Sharding sharding : shardings)
                for (std::uint64_t mb = 1; mb <= perReplica; mb *= 2) {
                    const bool fsdp2 = sharding == Sharding::Fsdp2;
                    if (perReplica % mb != 0 || ((fsdp2 || base.model.isMoe()) && tp > 1 && !sp))
                        continue;
                    LayoutCandidate c;
                    c.tp = tp;
                    c.pp = pp;
                    c.dp = dp;
                    c.cp = cp;
                    c.sp = sp;
                    c.sharding = sharding;
                    c.microBatch = mb;
                    c.gradAccum = perReplica / mb;
                    for (std::uint64_t vpp : vppChoices(fsdp2 ? 1 : pp, base.model.layers, c.gradAccum))
                        for (std::uint64_t replicas : replicateChoices(sharding, tp * cp, dp, r.links.gpusPerNode))
                            for (std::uint64_t etp : etpChoices(base.model, tp))
                                for (std::uint64_t ep :
                                     epChoices(base.model, sharding, tp * dp / replicas * cp, etp == 0 ? tp : etp))
                                    for (Checkpointing ckpt : kCheckpointings) {
                                        c.vpp = vpp;
                                        c.dpReplicate = replicas;
                                        c.etp = etp;
                                        c.ep = ep;
                                        c.checkpointing = ckpt;
                                        evaluate(c);
                                    }
                }
        if (options.progress && !options.progress(k + 1, pairs.size())) {
            r.cancelled = true;
            break;
        }
    }
    r.feasible = fitting.size();
    std::size_t mostRefused = 0;
    for (const auto& [text, n] : refusals)
        if (n > mostRefused) {
            mostRefused = n;
            r.commonRefusal = text;
        }

    // Best first; then the best `keep` verified with the simulation.
    std::stable_sort(fitting.begin(), fitting.end(), faster);
    const std::size_t keep = options.keep == 0 ? fitting.size() : options.keep;
    for (const LayoutCandidate& estimated : fitting) {
        if (r.layouts.size() >= keep)
            break;
        LayoutCandidate c = estimated;
        setLayout(sc, c, base.hardware.parallel);
        auto plan = makePlan(sc, table);
        ++r.simulated;
        if (!plan)
            continue;
        copyCounters(c, plan.value());
        if (!c.fits) {
            ++r.droppedBySimulation;
            continue;
        }
        r.layouts.push_back(c);
    }
    // Device used changed with the simulation: keep the order by time, ties by the simulated bytes.
    std::stable_sort(r.layouts.begin(), r.layouts.end(), faster);

    if (r.layouts.empty()) {
        r.message = "No layout of " + std::to_string(count) + " " + gpu->id +
                    " GPUs fits: " + std::to_string(r.evaluated) + " evaluated, " + std::to_string(r.refused) +
                    " refused by the planner, " + std::to_string(r.refusedShapes) + " tp x pp x cp shapes refused";
        if (!r.commonRefusal.empty())
            r.message += " (most often: " + r.commonRefusal + ")";
        if (r.closest)
            r.message +=
                "; the closest, tp " + std::to_string(r.closest->tp) + " x pp " + std::to_string(r.closest->pp) +
                (r.closest->vpp > 1 ? " (vpp " + std::to_string(r.closest->vpp) + ")" : std::string()) +
                (r.closest->cp > 1 ? " x cp " + std::to_string(r.closest->cp) : std::string()) + " x dp " +
                std::to_string(r.closest->dp) +
                (r.closest->dpReplicate > 1 ? " (HSDP " + std::to_string(r.closest->dpReplicate) + " x " +
                                                  std::to_string(r.closest->dp / r.closest->dpReplicate) + ")"
                                            : std::string()) +
                " " + shardingName(r.closest->sharding) + ", micro-batch " + std::to_string(r.closest->microBatch) +
                ", " + checkpointingName(r.closest->checkpointing) + " checkpointing, uses " +
                formatGiB(double(r.closest->deviceUsedBytes)) + " of " + formatGiB(double(gpu->usableBytes()));
        if (r.droppedBySimulation != 0)
            r.message += "; " + std::to_string(r.droppedBySimulation) +
                         " fitted by the quick estimate but not with the allocator simulation";
        r.message += ".";
        if (r.cancelled)
            r.message += " (The search was cancelled.)";
    }
    return r;
}

} // namespace headroom
