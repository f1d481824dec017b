// SPDX-License-Identifier: GPL-3.0-or-later
// The step-time model of a layout search (plan/steptime.h). Sources:
// - FLOPs: PaLM (Chowdhery et al. 2022, arXiv:2204.02311) Appendix B: per
//   token 6 N for the forward and backward matrix products plus 12 L H Q T
//   for attention; the forward is a third of each (2 N, 4 L H Q T).
// - Recompute: full checkpointing runs each layer's forward again in
//   backward (Chen et al. 2016, arXiv:1604.06174; Korthikanti et al. 2022,
//   arXiv:2205.05198 §5: "an extra forward pass"); op-level selective
//   checkpointing, kSelectiveOpRecomputeFraction.
// - Tensor parallelism: Shoeybi et al. 2019 (Megatron-LM, arXiv:1909.08053)
//   §3: two all-reduces in the forward and two in the backward of each layer
//   (the g and f operators of Figure 3), each of b x s x h activations;
//   sequence parallelism replaces each with an all-gather and a
//   reduce-scatter of the same total volume (Korthikanti et al. 2022 §4.2.2).
//   Full recompute repeats the forward's two. torchtitan's op-level policy
//   saves the collectives' outputs (parallelize_llama.py _save_list lists
//   _c10d_functional.reduce_scatter_tensor), so selective-op repeats none.
// - Pipeline: Narayanan et al. 2021 (arXiv:2104.04473) §2.2: 1F1B and GPipe
//   both take (m + p - 1) micro-batch slots, a bubble fraction of
//   (p - 1) / (m + p - 1); §4.1 the scatter/gather optimisation sends
//   1/t of each activation between stages.
// - Data parallelism: Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) §7:
//   plain data parallelism all-reduces the gradients, 2 Psi per GPU (a
//   reduce-scatter and an all-gather); ZeRO stages 1 and 2 move the same
//   2 Psi (reduce-scatter of gradients, all-gather of updated parameters);
//   stage 3 moves 3 Psi: parameters gathered in the forward and again in the
//   backward, gradients reduce-scattered. When each happens: DDP and ZeRO-1
//   once per step (torch no_sync; DeepSpeed stage_1_and_2.py reduces at the
//   accumulation boundary without partitioned gradients); ZeRO-2 reduces
//   every micro-batch's gradients into their partitions as backward makes
//   them (ibid., partition_gradients), its all-gather once per step; ZeRO-3
//   and FSDP gather and reduce every micro-batch.
// - Ring collectives: NCCL's nccl-tests doc/PERFORMANCE.md: an all-reduce of
//   S bytes over n ranks sends 2 (n - 1) / n x S per rank, a reduce-scatter
//   or all-gather (n - 1) / n x S; time = that / the link's bandwidth.
#include "plan/steptime.h"

#include <algorithm>
#include <limits>

namespace headroom {

namespace {

bool embeddingKind(ModuleKind k)
{
    return k == ModuleKind::Embedding || k == ModuleKind::PositionEmbedding || k == ModuleKind::TokenTypeEmbedding;
}

double ringAllReduce(double bytes, std::uint64_t n) { return n <= 1 ? 0 : 2.0 * double(n - 1) / double(n) * bytes; }
double ringGatherOrScatter(double bytes, std::uint64_t n) { return n <= 1 ? 0 : double(n - 1) / double(n) * bytes; }

bool mixed(Precision p) { return p == Precision::Fp16Mixed || p == Precision::Bf16Mixed || p == Precision::Fp8Mixed; }

// Bytes per element of the gradients a data-parallel reduction moves and of
// the parameters a ZeRO/FSDP gather moves, as the planner's rows hold them
// (plan/modelstaterows.cpp): fp32 everything in fp32; the 16-bit dtype in
// pure 16-bit training; in mixed precision DDP reduces the fp32 .grad of the
// fp32 parameters, DeepSpeed's ZeRO a 16-bit model (fp32 master in the
// optimizer), FSDP2 gathers the 16-bit param_dtype and reduces in the fp32
// reduce_dtype (torchtitan's MixedPrecisionPolicy).
struct DpBytes {
    double grad = 4, param = 4;
};

DpBytes dpBytes(Precision p, Sharding s, bool megatron)
{
    if (p == Precision::Fp32)
        return {4, 4};
    if (!mixed(p))
        return {2, 2};
    // Megatron-LM (a tensor/pipeline layout without FSDP2, megatronrows.cpp):
    // the main-grad buffer is reduced (fp32 under --bf16, 16-bit under
    // --fp16) and the distributed optimizer gathers the 16-bit parameters.
    if (megatron && (s == Sharding::None || s == Sharding::Ddp || s == Sharding::Zero1))
        return {p == Precision::Fp16Mixed ? 2.0 : 4.0, 2};
    switch (s) {
    case Sharding::Zero1:
    case Sharding::Zero2:
    case Sharding::Zero3: return {2, 2};
    case Sharding::Fsdp:
    case Sharding::Fsdp2: return {4, 2};
    default: return {4, 4};
    }
}

// Bytes each GPU sends for one step's data-parallel traffic over `dp`
// ranks, for `psi` parameters per rank and `m` micro-batches. Under
// pipeline parallelism torchtitan keeps an FSDP2 stage unsharded through the
// step and reduce-scatters its accumulated gradients once (plan/fsdp2rows.cpp
// addFsdp2PipelineRows): one gather and one reduce-scatter a step.
double dataParallelBytes(Sharding s, double psi, std::uint64_t dp, std::uint64_t m, DpBytes e, bool wholeStepFsdp2)
{
    const double mb = double(m);
    if (s == Sharding::Fsdp2 && wholeStepFsdp2)
        return ringGatherOrScatter(psi * e.param, dp) + ringGatherOrScatter(psi * e.grad, dp);
    switch (s) {
    case Sharding::Zero1: return ringGatherOrScatter(psi * e.grad, dp) + ringGatherOrScatter(psi * e.param, dp);
    case Sharding::Zero2: return mb * ringGatherOrScatter(psi * e.grad, dp) + ringGatherOrScatter(psi * e.param, dp);
    case Sharding::Zero3:
    case Sharding::Fsdp:
    case Sharding::Fsdp2:
        return mb * (2 * ringGatherOrScatter(psi * e.param, dp) + ringGatherOrScatter(psi * e.grad, dp));
    default: return ringAllReduce(psi * e.grad, dp);
    }
}

double gbs(double gigabytesPerSecond) { return gigabytesPerSecond * 1e9; }

} // namespace

Interconnect interconnectFor(const GpuSpec& gpu, std::uint64_t gpusPerNode)
{
    Interconnect c;
    c.gpusPerNode = gpusPerNode == 0 ? kDefaultGpusPerNode : gpusPerNode;
    // Per direction: the datasheets give NVLink as the total of both directions.
    if (gpu.id == "h100-sxm-80gb" || gpu.id == "h200") {
        c.intraNodeGBs = 450;
        c.interNodeGBs = 50;
        c.source = "NVLink 900 GB/s per GPU, both directions (NVIDIA H100 and H200 SXM datasheets); one 400 Gb/s "
                   "ConnectX-7 InfiniBand port per GPU (NVIDIA DGX H100/H200 datasheet)";
    } else if (gpu.id == "a100-40gb" || gpu.id == "a100-80gb") {
        c.intraNodeGBs = 300;
        c.interNodeGBs = 25;
        c.source = "NVLink 600 GB/s per GPU, both directions (NVIDIA A100 datasheet, SXM4); one 200 Gb/s HDR "
                   "InfiniBand port per GPU (NVIDIA DGX A100 datasheet)";
    } else if (gpu.id == "b200") {
        c.intraNodeGBs = 900;
        c.interNodeGBs = 50;
        c.source = "NVLink 1.8 TB/s per GPU, both directions (NVIDIA DGX B200 datasheet); one 400 Gb/s ConnectX-7 "
                   "port per GPU (ibid.)";
    } else {
        c.intraNodeGBs = 32;
        c.interNodeGBs = 12.5;
        c.source = "assumption: PCIe 4.0 x16 between the GPUs of a node (32 GB/s per direction) and 100 Gb/s "
                   "Ethernet between nodes";
    }
    return c;
}

StepModel stepModel(const ModelSpec& m, const ParameterTable& table)
{
    StepModel s;
    s.layers = m.layers;
    s.hidden = m.hidden;
    // Per layer, averaged over DeepSeek-V3's dense first layers and the
    // others (ParameterTable::denseLayer): exact for the whole model, an
    // average for a pipeline stage.
    const double layers = std::max(1.0, double(table.layers));
    const auto addLayer = [&](const std::vector<ParamTensor>& tensors, double share) {
        for (const ParamTensor& t : tensors) {
            s.layerParams += share * double(t.elements());
            if (m.experts != 0 && t.copies == m.experts)
                s.layerExpertParams += share * double(t.elements());
            if (!t.isLinearWeight)
                continue;
            // A token reaches expertsPerToken of a layer's experts (ParameterTable::activeElements).
            const bool expert = m.experts != 0 && t.copies == m.experts;
            const double multiplied = expert ? double(t.rows) * double(t.cols) * double(m.expertsPerToken)
                                             : double(t.elements());
            s.layerMatmulParams += share * multiplied;
            if (expert)
                s.layerExpertMatmulParams += share * multiplied;
        }
    };
    addLayer(table.layer, double(table.layerRepeats()) / layers);
    addLayer(table.denseLayer, double(table.layers - table.layerRepeats()) / layers);
    s.moeLayerFraction = m.isMoe() ? double(table.layerRepeats()) / layers : 0.0;
    s.expertsPerToken = double(m.expertsPerToken);
    bool head = false;
    for (const ParamTensor& t : table.global) {
        if (embeddingKind(t.kind)) {
            s.embeddingParams += double(t.elements());
            continue;
        }
        s.lastStageParams += double(t.elements());
        if (t.isLinearWeight)
            s.headMatmulParams += double(t.elements());
        head = head || (t.kind == ModuleKind::LmHead && t.isLinearWeight);
    }
    // A tied head multiplies by the embedding matrix (runtime/stepflops.cpp does the same).
    if (!head && !m.classifier()) {
        s.headMatmulParams += double(m.vocab) * double(m.hidden);
        s.tiedHeadParams = double(m.vocab) * double(m.hidden);
    }
    s.attentionPerTokenPerSeq = 4.0 * double(m.heads) * double(m.headDim);
    s.kvWidth = double(m.kvHeads) * double(m.headDim);
    if (m.isMla()) {
        // Scores over the query/key head, the weighted sum over the narrower
        // value head (DeepSeek-V2 §2.1); keys and values expanded to every head.
        s.attentionPerTokenPerSeq = 2.0 * double(m.heads) * double(m.headDim + m.vHeadDim);
        s.kvWidth = double(m.heads) * double(m.headDim + m.vHeadDim) / 2.0;
    }
    return s;
}

double modelFlopsPerToken(const StepModel& m, std::uint64_t seqLen)
{
    const double N = double(m.layers) * m.layerMatmulParams + m.headMatmulParams;
    return 6.0 * N + 3.0 * double(m.layers) * m.attentionPerTokenPerSeq * double(seqLen);
}

bool crossesNodes(std::uint64_t stride, std::uint64_t size, std::uint64_t gpusPerNode)
{
    if (size <= 1)
        return false;
    const std::uint64_t span = stride * size; // the block of consecutive ranks the group's members tile
    return span > gpusPerNode || gpusPerNode % span != 0;
}

const char* stepTermName(StepTerm term)
{
    switch (term) {
    case StepTerm::Compute: return "compute";
    case StepTerm::TensorParallel: return "tensor-parallel communication";
    case StepTerm::PipelineSend: return "pipeline sends";
    case StepTerm::Bubble: return "pipeline bubble";
    case StepTerm::DataParallel: return "data-parallel communication";
    case StepTerm::ContextParallel: return "context-parallel communication";
    case StepTerm::ExpertParallel: return "expert-parallel communication";
    }
    return "";
}

double stepTermSeconds(const StepTime& t, StepTerm term)
{
    switch (term) {
    case StepTerm::Compute: return t.computeSeconds;
    case StepTerm::TensorParallel: return t.tensorParallelSeconds;
    case StepTerm::PipelineSend: return t.pipelineSendSeconds;
    case StepTerm::Bubble: return t.bubbleSeconds;
    case StepTerm::DataParallel: return t.dataParallelSeconds;
    case StepTerm::ContextParallel: return t.contextParallelSeconds;
    case StepTerm::ExpertParallel: return t.expertParallelSeconds;
    }
    return 0;
}

StepTime estimateStepTime(const StepModel& model, const Scenario& sc, const ParallelLayout& layout, const GpuSpec& gpu,
                          const Interconnect& links)
{
    StepTime out;
    const TrainConfig& tc = sc.train;
    const std::uint64_t tp = layout.tp, pp = layout.pp, dp = layout.dp, m = tc.gradAccum;
    const std::uint64_t cp = std::max<std::uint64_t>(layout.cp, 1);
    // Under context parallelism a rank holds seq / cp tokens of each sequence,
    // whose queries still attend the whole (causal, load-balanced) context.
    const double seq = double(tc.seqLen), tokensPerMicroBatch = double(tc.microBatch) * seq / double(cp);
    const double act = tc.precision == Precision::Fp32 ? 4 : 2; // bytes per activation element
    const double peak = gpu.denseBf16Tflops * 1e12;
    const double rate = peak * kAchievableFractionOfPeak;

    out.tensorParallelInterNode = crossesNodes(1, tp, links.gpusPerNode);
    // torchtitan's mesh order is pp, dp_replicate, dp_shard, cp, tp: the cp
    // group is cp ranks tp apart; FSDP2 shards over dp_shard x cp ranks tp
    // apart; under HSDP the replicate group is dp_replicate ranks a shard
    // group apart.
    out.contextParallelInterNode = crossesNodes(tp, cp, links.gpusPerNode);
    const std::uint64_t replicas = layout.fsdp2 ? std::max<std::uint64_t>(layout.dpReplicate, 1) : 1;
    const std::uint64_t shardGroup = dp / replicas * cp;
    const bool shardInterNode = crossesNodes(tp, shardGroup, links.gpusPerNode);
    const bool replicaInterNode = crossesNodes(tp * shardGroup, replicas, links.gpusPerNode);
    out.dataParallelInterNode = shardInterNode || replicaInterNode;
    out.pipelineInterNode = crossesNodes(tp * dp * cp, pp, links.gpusPerNode);
    const auto bandwidth = [&](bool inter) { return gbs(inter ? links.interNodeGBs : links.intraNodeGBs); };

    // Capacity and routing (train.moe, parallel.h expertSlotFactor): the
    // busiest rank's experts take `slots` times the even share of token
    // slots (padded to capacity, or the assumed imbalance), and receive as
    // many rows. The slowest rank sets the pace; MFU still counts the model's
    // own FLOPs (modelFlopsPerToken), not the padding.
    const double slots = model.moeLayerFraction > 0 ? expertSlotFactor(tc.moe) : 1.0;
    // FLOPs per token of one layer: forward, backward (twice the forward), recompute.
    const double layerForward = 2.0 * (model.layerMatmulParams + (slots - 1.0) * model.layerExpertMatmulParams) +
                                model.attentionPerTokenPerSeq * seq;
    double recompute = 0, recomputedCollectives = 0;
    switch (tc.checkpointing) {
    case Checkpointing::Full:
        recompute = layerForward;
        recomputedCollectives = 2;
        break;
    case Checkpointing::EveryK: // one layer in k: on average 1/k of a full recompute
        recompute = layerForward / double(std::max<std::uint64_t>(tc.checkpointEvery, 1));
        recomputedCollectives = 2.0 / double(std::max<std::uint64_t>(tc.checkpointEvery, 1));
        break;
    case Checkpointing::SelectiveOps:
        // The routed experts' grouped GEMMs are neither kept nor counted by
        // the policy (activationrows.cpp selectiveOpSaves): recomputed whole.
        recompute = kSelectiveOpRecomputeFraction * 2.0 * (model.layerMatmulParams - model.layerExpertMatmulParams) +
                    2.0 * model.layerExpertMatmulParams;
        break;
    case Checkpointing::None: break;
    }
    const double layerFlops = 3.0 * layerForward + recompute;
    const double headFlops = 6.0 * model.headMatmulParams;
    // One tensor-parallel collective's time: b x s x h activations.
    const double collective =
        ringAllReduce(tokensPerMicroBatch * double(model.hidden) * act, tp) / bandwidth(out.tensorParallelInterNode);
    // A MoE layer's feed-forward half has no tensor-parallel collective of
    // its own under Megatron-LM: its input stays sequence-sharded and the
    // dispatcher moves the token slots (below). Its attention keeps its two
    // (and one more in a full recompute). torchtitan's MoE under tp
    // (apply_moe_ep_tp with ep 1, parallel.cpp) instead all-gathers the
    // block's input and reduce-scatters its output, as a dense MLP's under
    // sequence parallelism, and gathers no token slots.
    const bool torchtitanMoeTp = layout.fsdp2 && model.moeLayerFraction > 0 && tp > 1;
    const double moeFeedForwardCollectives = torchtitanMoeTp ? 2.0 + recomputedCollectives / 2.0 : 0.0;
    const double collectivesPerLayer =
        (4.0 + recomputedCollectives) * (1.0 - model.moeLayerFraction) +
        (2.0 + recomputedCollectives / 2.0 + moeFeedForwardCollectives) * model.moeLayerFraction;
    // Ring attention as torchtitan runs it (context_parallel_rotate_method
    // "allgather", torch.distributed.tensor.experimental context_parallel):
    // the forward all-gathers the keys and values of the cp ranks (each rank's
    // heads under tp), the backward gathers them again and reduce-scatters
    // their gradients; a full-checkpointed layer's recompute gathers once more.
    const double kvBytes = tokensPerMicroBatch * double(cp) * 2.0 * model.kvWidth * act / double(tp);
    const double cpCollective = ringGatherOrScatter(kvBytes, cp) / bandwidth(out.contextParallelInterNode);
    const double cpCollectivesPerLayer = 3.0 + recomputedCollectives / 2.0;
    // Forward activations to the next stage and their gradients back, 1/t each (scatter/gather).
    // Expert parallelism (Megatron-LM's alltoall dispatcher): each MoE layer
    // sends its tokens x top-k rows to the experts' ranks and takes them
    // back, an all-to-all each way in the forward and in the backward (and
    // again in a full recompute); a rank keeps 1 / ep of its rows. Its own
    // tokens are its sequence shard's (tokens / tp under sequence
    // parallelism). Expert tensor parallelism then all-gathers the received
    // rows over the etp ranks and reduce-scatters the outputs back, as many
    // times (token_dispatcher.py), within the tensor-parallel group's node.
    // Each exchange moves the busiest rank's rows (`slots` above).
    const std::uint64_t ep = std::max<std::uint64_t>(layout.ep, 1);
    const std::uint64_t etp = std::max<std::uint64_t>(layout.etp, 1);
    out.expertParallelInterNode = crossesNodes(tp, ep, links.gpusPerNode);
    const double localSlotBytes =
        slots * tokensPerMicroBatch / double(tp) * model.expertsPerToken * double(model.hidden) * act;
    const double allToAll =
        ep > 1 ? localSlotBytes * double(ep - 1) / double(ep) / bandwidth(out.expertParallelInterNode) : 0.0;
    const double expertGather =
        torchtitanMoeTp ? 0.0
                        : ringGatherOrScatter(localSlotBytes * double(etp), etp) / bandwidth(out.tensorParallelInterNode);
    const double allToAllsPerMoeLayer = 4.0 + recomputedCollectives;
    // A rank's share of a layer's parameters: the experts split over ep x
    // etp, the others over tp.
    const double rankLayerParams = (model.layerParams - model.layerExpertParams) / double(tp) +
                                   model.layerExpertParams / double(ep * etp);
    const double send =
        pp > 1 ? 2.0 * tokensPerMicroBatch * double(model.hidden) * act / double(tp) / bandwidth(out.pipelineInterNode)
               : 0.0;

    // The slowest stage sets the pace of the pipeline; the largest stage the data-parallel time.
    double slotCompute = 0, slotTp = 0, slotCp = 0, slotEp = 0, largestStageParams = 0;
    for (std::uint64_t stage = 0; stage < pp; ++stage) {
        const double layers = double(layout.stageLayers[stage]);
        const bool last = stage + 1 == pp;
        const double flops = tokensPerMicroBatch * (layers * layerFlops + (last ? headFlops : 0.0)) / double(tp);
        const double compute = rate > 0 ? flops / rate : std::numeric_limits<double>::infinity();
        const double comm = layers * collectivesPerLayer * collective;
        const double ring = layers * cpCollectivesPerLayer * cpCollective;
        const double exchange = layers * model.moeLayerFraction * allToAllsPerMoeLayer * (allToAll + expertGather);
        if (stage == 0 || compute + comm + ring + exchange > slotCompute + slotTp + slotCp + slotEp) {
            slotCompute = compute;
            slotTp = comm;
            slotCp = ring;
            slotEp = exchange;
        }
        double globals = 0;
        if (stage == 0)
            globals += model.embeddingParams;
        if (last)
            globals += model.lastStageParams + (pp > 1 ? model.tiedHeadParams : 0.0);
        largestStageParams = std::max(largestStageParams, layers * rankLayerParams + globals / double(tp));
    }
    out.computeSeconds = double(m) * slotCompute;
    out.tensorParallelSeconds = double(m) * slotTp;
    out.contextParallelSeconds = double(m) * slotCp;
    out.expertParallelSeconds = double(m) * slotEp;
    // Interleaved 1F1B (vpp > 1; Narayanan et al. 2021, arXiv:2104.04473
    // §2.2.2): the bubble shrinks to (p - 1) / v slots of a whole stage, and
    // each micro-batch crosses v times as many stage boundaries.
    const double vpp = double(std::max<std::uint64_t>(layout.vpp, 1));
    const double slot = slotCompute + slotTp + slotCp + slotEp + send * vpp; // one micro-batch through the stage
    out.pipelineSendSeconds = double(m) * send * vpp;
    out.bubbleSeconds = double(pp - 1) * slot / vpp;
    out.bubbleFraction = (double(pp - 1) / vpp) / (double(m) + double(pp - 1) / vpp);
    const DpBytes dtype = dpBytes(tc.precision, sc.hardware.sharding, layout.modelParallel() && !layout.fsdp2);
    // FSDP2 shards over dp x cp (torchtitan's dp_shard_cp mesh). HSDP then all-reduces the sharded gradients over the
    // replicas in place (foreach_reduce), whenever it reduce-scatters: each
    // micro-batch, or once a step under pp.
    const bool wholeStep = layout.fsdp2 && pp > 1;
    out.dataParallelSeconds =
        dataParallelBytes(sc.hardware.sharding, largestStageParams, layout.shardDegree(), m, dtype, wholeStep) /
        bandwidth(shardInterNode);
    if (replicas > 1)
        out.dataParallelSeconds +=
            double(wholeStep ? 1 : m) *
            ringAllReduce(largestStageParams / double(layout.shardDegree()) * dtype.grad, replicas) /
            bandwidth(replicaInterNode);
    out.stepSeconds = out.computeSeconds + out.tensorParallelSeconds + out.pipelineSendSeconds + out.bubbleSeconds +
                      out.dataParallelSeconds + out.contextParallelSeconds + out.expertParallelSeconds;

    const double gpus = double(tp * pp * dp * cp);
    const double tokensPerStep = tokensPerMicroBatch * double(cp) * double(m) * double(dp);
    out.tokensPerSecondPerGpu = out.stepSeconds > 0 ? tokensPerStep / out.stepSeconds / gpus : 0;
    out.mfu = peak > 0 ? modelFlopsPerToken(model, tc.seqLen) * out.tokensPerSecondPerGpu / peak : 0;
    return out;
}

} // namespace headroom
