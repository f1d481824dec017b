// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An estimate of one training step's time for a tensor/pipeline/data-parallel
// layout, to rank the layouts of a search (plan/layoutsearch.h): the slowest
// pipeline stage's matrix products at a stated fraction of the GPU's peak,
// the tensor-parallel, pipeline and data-parallel communication volumes over
// intra- and inter-node links, and the pipeline bubble. A model of the
// step, not a measurement: every constant and every assumption is named here
// and in docs/planner.md "Layout search". Memory is the planner's business;
// this file only times.
#include "model/parametertable.h"
#include "plan/gpucatalog.h"
#include "plan/parallel.h"
#include "plan/scenario.h"

#include <cstdint>
#include <string>

namespace headroom {

// Fraction of the GPU's dense bf16 tensor-core peak the matrix products of a
// step reach. An assumption, not a measurement: for context, Megatron-LM
// reached 52% of an A100's peak end to end, communication and bubble included
// (Narayanan et al. 2021, arXiv:2104.04473, Table 1: 163 of 312 TFLOP/s for
// the 1T model), and Llama 3's pre-training 38-43% of an H100's (Llama 3 paper,
// arXiv:2407.21783, Table 4). The computation alone runs faster than that;
// 0.6 is our assumption for it, the same for every micro-batch size.
inline constexpr double kAchievableFractionOfPeak = 0.6;

// Op-level selective checkpointing (torchtitan's "op" policy) keeps the
// outputs of every other matrix product and of the attention kernel, so the
// backward recomputes about half of the forward's matrix-product FLOPs and no
// attention. An assumption: the two halves of the products are taken to be
// equal in FLOPs. A mixture of experts' routed experts are not matrix
// products the policy sees (grouped GEMMs): their forward is recomputed whole.
inline constexpr double kSelectiveOpRecomputeFraction = 0.5;

// GPUs per node when neither the search's options nor the scenario
// (hardware.gpus_per_node) say: eight, as in NVIDIA's DGX and HGX
// H100/A100/B200 systems.
inline constexpr std::uint64_t kDefaultGpusPerNode = 8;

// The links a layout's collectives run over, per GPU and per direction, in
// GB/s (10^9 bytes per second).
struct Interconnect {
    std::uint64_t gpusPerNode = kDefaultGpusPerNode;
    double intraNodeGBs = 0; // NVLink (or PCIe) between the GPUs of one node
    double interNodeGBs = 0; // the network between nodes
    std::string source;      // the datasheets the figures come from, or "assumption"
};

// The interconnect of a node of `gpu` cards (steptime.cpp cites each figure).
Interconnect interconnectFor(const GpuSpec& gpu, std::uint64_t gpusPerNode = kDefaultGpusPerNode);

// What the step time needs from the model, computed once per search.
struct StepModel {
    double layerMatmulParams = 0;  // one layer's linear weights a token multiplies (MoE: top-k experts)
    double headMatmulParams = 0;   // the LM head (a tied head multiplies by the embedding matrix)
    double layerParams = 0;        // one layer's parameters, all experts
    double embeddingParams = 0;    // on the first stage
    double lastStageParams = 0;    // final norm and LM head on the last stage
    double tiedHeadParams = 0;     // a tied head: the last stage's own copy when pp > 1 (plan/parallel.h)
    double attentionPerTokenPerSeq = 0; // 4 x heads x head_dim: one layer's forward attention FLOPs per token, per token of context
    double kvWidth = 0; // kv_heads x head_dim: the keys (or values) of one token, what ring attention moves
    // Mixture of experts: one layer's routed-expert parameters and the share of
    // layers that have them (averaged, as layerParams), the experts a token reaches.
    double layerExpertParams = 0;
    double layerExpertMatmulParams = 0; // of layerMatmulParams, the routed experts' (top-k of them)
    double moeLayerFraction = 0;
    double expertsPerToken = 0;
    std::uint64_t layers = 0;
    std::uint64_t hidden = 0;
};
StepModel stepModel(const ModelSpec& model, const ParameterTable& table);

// Model FLOPs per token for a context of `seqLen` (PaLM, Chowdhery et al.
// 2022, Appendix B): 6 N + 12 L H Q T, N the matrix-product parameters.
double modelFlopsPerToken(const StepModel& model, std::uint64_t seqLen);

// Whether a group of `size` ranks whose members are `stride` ranks apart
// spans more than one node, ranks numbered node by node and a layout's ranks
// ordered tp fastest, then dp, then pp (Megatron-LM parallel_state.py
// initialize_model_parallel, order "tp-cp-ep-dp-pp").
bool crossesNodes(std::uint64_t stride, std::uint64_t size, std::uint64_t gpusPerNode);

// The step, term by term, in seconds. stepSeconds is their sum: no
// communication is assumed to overlap computation (an upper bound; PyTorch
// DDP, FSDP and Megatron overlap part of it).
struct StepTime {
    double computeSeconds = 0;        // the slowest stage's micro-batches: forward, backward, recompute
    double tensorParallelSeconds = 0; // its all-reduces (or all-gather + reduce-scatter with sp)
    double pipelineSendSeconds = 0;   // its activations and gradients to and from the next stage
    double bubbleSeconds = 0;         // (pp - 1) idle micro-batch slots of 1F1B; / vpp interleaved
    double dataParallelSeconds =
        0; // gradient reduction and, with ZeRO/FSDP, parameter gathers (HSDP: and the replicas' all-reduce)
    double contextParallelSeconds = 0; // ring attention's key/value all-gathers and their gradients' reduce-scatters
    double expertParallelSeconds = 0;  // the MoE layers' token exchanges: all-to-alls over ep, gathers over etp (both passes)
    double stepSeconds = 0;
    double bubbleFraction = 0; // (p - 1) / (m + p - 1); interleaved ((p - 1) / v) / (m + (p - 1) / v)
    double tokensPerSecondPerGpu = 0;
    double mfu = 0;                   // model FLOPs per second per GPU over the dense bf16 peak
    bool tensorParallelInterNode = false, pipelineInterNode = false, contextParallelInterNode = false;
    bool dataParallelInterNode = false; // the shard group's or, under HSDP, the replicate group's links cross nodes
    bool expertParallelInterNode = false;
};

// Names of the terms, for "why the best beats the runner-up".
enum class StepTerm { Compute, TensorParallel, PipelineSend, Bubble, DataParallel, ContextParallel, ExpertParallel };
const char* stepTermName(StepTerm term); // "compute", "tensor-parallel", ...
double stepTermSeconds(const StepTime& t, StepTerm term);
inline constexpr StepTerm kStepTerms[] = {StepTerm::Compute, StepTerm::TensorParallel, StepTerm::PipelineSend,
                                          StepTerm::Bubble,  StepTerm::DataParallel,   StepTerm::ContextParallel,
                                          StepTerm::ExpertParallel};

// The step time of `scenario` (train mode; its micro-batch, grad_accum,
// sequence, checkpointing, precision and sharding) laid out as `layout`
// (parallelLayout(scenario)) on `gpu` cards linked by `links`. A GPU without
// a published peak (denseBf16Tflops 0) gets zero rates and an infinite time.
StepTime estimateStepTime(const StepModel& model, const Scenario& scenario, const ParallelLayout& layout,
                          const GpuSpec& gpu, const Interconnect& links);

} // namespace headroom
