// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A scenario: everything the planner needs to predict one training (or
// inference) step. Plain values; scenariofile.h reads and writes it as
// versioned JSON ("schema": "headroom.scenario/1").
#include "model/modelspec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

enum class Mode { Train, Inference };

// How weights, gradients and activations are stored during training.
enum class Precision {
    Fp32,      // everything fp32 (tf32 matmuls change no bytes)
    Fp16Mixed, // torch.autocast(fp16) over fp32 parameters, GradScaler
    Bf16Mixed, // torch.autocast(bf16) over fp32 parameters
    Bf16,      // pure bf16: parameters, grads and optimizer states in bf16
    Fp16,      // pure fp16 parameters (DeepSpeed/apex style fp16 with fp32 master in the optimizer)
    Fp8Mixed,  // Transformer Engine style: fp32 master, bf16 activations, fp8 matmul inputs
};

// Storage of the frozen base weights (bitsandbytes).
enum class WeightQuant { None, Int8, Nf4, Nf4DoubleQuant };

enum class Optimizer { Sgd, SgdMomentum, AdamW, AdamW8bit, PagedAdamW8bit, Lion, Adafactor, Lomo, AdaLomo, Galore };

// How torch.optim runs AdamW's or SGD's step. Foreach, PyTorch's default on
// CUDA (torch/optim/optimizer.py _default_to_fused_or_foreach), holds one
// parameter-sized temporary per tensor group; fused (torch._fused_adamw_,
// fused=True: transformers' optim="adamw_torch_fused", torchtitan's default
// since 2025, job_config.py Optimizer.implementation "fused") holds none;
// for-loop (foreach=False) one parameter's at a time.
enum class OptimizerImpl { Foreach, Fused, ForLoop };

enum class PeftMethod { None, Lora, Qlora };

struct PeftConfig {
    PeftMethod method = PeftMethod::None;
    std::uint64_t rank = 16;
    double alpha = 32;
    double dropout = 0.0;
    // PEFT target_modules: leaf module names ("q_proj", "v_proj", "c_attn"...)
    // or "all-linear". Empty means PEFT's default for the architecture.
    std::vector<std::string> targets;
};

// SelectiveOps: torchtitan's op-level selective activation checkpointing
// (torchtitan parallelize_llama.py _apply_ac_to_transformer_block, option
// "op"): every layer is checkpointed, but the outputs of every other
// bias-free matmul and of the fused attention kernel are kept for the
// recompute (plan/activationrows.cpp).
enum class Checkpointing { None, Full, EveryK, SelectiveOps };

// The training loop around forward and backward, because it decides what
// the model outputs keep alive (docs/planner.md "The training loop").
enum class TrainingLoop {
    Trainer, // Hugging Face Trainer and loops that keep only the loss: outputs die before backward
    Custom,  // `outputs = model(**batch); outputs.loss.backward(); optimizer.step()`: outputs live until the next forward returns
};

// transformers' use_cache during training: the config's value (true for
// almost every config.json), or what the user passes. Gradient checkpointing
// turns it off in training (modeling_layers.py GradientCheckpointingLayer).
enum class UseCache { ConfigDefault, On, Off };
enum class Attention { Eager, Sdpa, Flash };

// How a mixture of experts' token slots (a token's copy for one of its top-k
// experts) reach the experts, as Megatron-LM's router and token dispatcher
// run them (megatron/core/transformer/moe/router.py, token_dispatcher.py);
// planned on Megatron-LM layouts only (plan/parallel.h).
struct MoeRouting {
    // --moe-expert-capacity-factor: an expert takes at most
    // ceil(tokens x top-k x factor / experts) slots from each rank
    // (moe_utils.py get_capacity) and drops the rest; 0: dropless, the default.
    double capacityFactor = 0.0;
    // --moe-pad-expert-input-to-capacity: every expert's input is padded to
    // its capacity (token_dispatcher.py preprocess, drop_and_pad).
    bool padToCapacity = false;
    // The token slots the busiest expert-parallel rank receives over the even
    // share: 1 is balanced routing. A what-if: nothing measures it ahead of a run.
    double imbalance = 1.0;
    bool isDefault() const { return capacityFactor == 0.0 && !padToCapacity && imbalance == 1.0; }
};

struct TrainConfig {
    Precision precision = Precision::Bf16Mixed;
    WeightQuant weightQuant = WeightQuant::None;
    Optimizer optimizer = Optimizer::AdamW;
    OptimizerImpl optimizerImpl = OptimizerImpl::Foreach; // AdamW, SGD
    PeftConfig peft;
    std::uint64_t microBatch = 1;
    std::uint64_t seqLen = 2048;
    std::uint64_t gradAccum = 1;
    Checkpointing checkpointing = Checkpointing::None;
    std::uint64_t checkpointEvery = 1;  // EveryK: checkpoint one layer in k
    Attention attention = Attention::Sdpa;
    bool chunkedCrossEntropy = false;   // torchtune-style chunked loss (8 chunks)
    std::uint64_t lossChunks = 8;
    bool optimizerInBackward = false;   // per-parameter step in backward hooks, grads freed at once
    bool activationOffload = false;     // saved activations moved to CPU (torch.autograd.graph.save_on_cpu)
    // torch.compile of each decoder layer, as torchtitan applies it
    // (parallelize_llama.py apply_compile: torch.compile(block, fullgraph=True)
    // per TransformerBlock); the embeddings, final norm, head and loss stay
    // eager. Planned for Llama-layout layers under full or op-level
    // checkpointing (plan/compiledlayer.h).
    bool compileLayers = false;
    // torch.compile of the loss function (torchtitan's compile components
    // "loss": loss.py build_cross_entropy_loss wraps cross_entropy_loss in
    // torch.compile since mid-2025; off at 9dec370). The Inductor graph keeps
    // the 16-bit logits and two fp32 numbers per token where eager keeps
    // fp32 log-probabilities, and its backward writes the logits' gradient
    // in one kernel (plan/compiledloss.h).
    bool compileLoss = false;
    // fp8-mixed under FSDP2: FSDP2 all-gathers the Float8Linear weights in
    // float8 (torchao's enable_fsdp_float8_all_gather, torchtitan's
    // float8.enable_fsdp_float8_all_gather, on in its Llama 3.1 405B preset
    // at 9dec370); plan/float8linear.h.
    bool float8AllGather = false;
    std::uint64_t galoreRank = 128;
    TrainingLoop loop = TrainingLoop::Trainer;
    UseCache useCache = UseCache::ConfigDefault;
    // Sequences per optimizer step over all data-parallel ranks; 0: not
    // given. When given it must equal micro_batch x grad_accum x the
    // data-parallel degree (plan/parallel.h), so a layout cannot change the
    // batch silently.
    std::uint64_t globalBatch = 0;
    MoeRouting moe;
};

enum class KvCacheDtype { Fp32, Fp16, Bf16, Fp8, Int8 };

struct InferenceConfig {
    std::uint64_t batch = 1;
    std::uint64_t promptTokens = 512;
    std::uint64_t newTokens = 256;
    KvCacheDtype kvCacheDtype = KvCacheDtype::Bf16;
    Precision precision = Precision::Bf16;   // weight dtype: Fp32, Fp16 or Bf16
    WeightQuant weightQuant = WeightQuant::None;
    Attention attention = Attention::Sdpa;
};

// Fsdp: FSDP1 FULL_SHARD (flat parameters). Fsdp2: per-parameter FSDP2
// (fully_shard) as torchtitan applies it: one unit per layer plus the root,
// MixedPrecisionPolicy(param_dtype 16-bit, reduce_dtype fp32) in the mixed
// precisions, the last layer and the root not resharded after forward
// (plan/modelstaterows.cpp).
enum class Sharding { None, Ddp, Zero1, Zero2, Zero3, Fsdp, Fsdp2 };

// Pipeline schedules (Narayanan et al. 2021, arXiv:2104.04473 §2.2).
enum class PipelineSchedule { OneFOneB, GPipe };

// How the decoder layers are split over the pipeline's (virtual) stages
// (plan/parallel.h). Layers: the layers alone, as Megatron-LM's even split
// and torchtitan's generate_split_points (9dec370) do. Weighted: the input
// embedding and the final norm with the output layer each count as one
// layer, as torchtitan's generate_llm_fqn_per_model_part (input_weight =
// output_weight = 1, distributed/pipeline_parallel.py since August 2025:
// torchtitan 8a749c618 and 0.2.2) does; planned under FSDP2 only.
enum class PipelineSplit { Layers, Weighted };

// Model parallelism over the scenario's GPUs (issue 15): tensor parallelism
// of degree tp (with sequence parallelism when sp), pipeline parallelism of
// degree pp, context parallelism of degree cp (torchtitan's ring attention:
// each rank holds seq / cp tokens of every sequence). The data-parallel
// degree is count / (tp x pp x cp); "sharding" acts over it, and FSDP2 over
// dp x cp (torchtitan's dp_shard_cp mesh). plan/parallel.h checks a layout.
struct ParallelConfig {
    std::uint64_t tp = 1;
    bool sp = false;
    std::uint64_t pp = 1;
    PipelineSchedule ppSchedule = PipelineSchedule::OneFOneB;
    std::uint64_t vpp = 1;  // virtual stages (model chunks) per rank: above 1, interleaved 1F1B (plan/parallel.h)
    std::uint64_t cp = 1;   // context-parallel degree (ring attention over the sequence)
    // torchtitan's AsyncTP (experimental.enable_async_tensor_parallel):
    // Inductor's micro-pipelined TP fuses each all-gather with its matmul and
    // each matmul with its reduce-scatter over a symmetric-memory workspace
    // (plan/asynctp.h). Needs tp > 1, FSDP2 and compiled layers.
    bool asyncTp = false;
    // HSDP under FSDP2 (torchtitan's data_parallel_replicate_degree): the
    // data-parallel ranks form dp_replicate groups of dp / dp_replicate ranks;
    // parameters, gradients and optimizer states are sharded within a group
    // (over dp_shard x cp) and the groups all-reduce the sharded gradients
    // (torch 2.11 fsdp/_fully_shard/_fsdp_collectives.py foreach_reduce: in
    // place on the reduce-scatter output). 1: plain FSDP.
    std::uint64_t dpReplicate = 1;
    // Expert parallelism (Megatron-LM --expert-model-parallel-size): the
    // routed experts of each MoE layer split over ep ranks of the
    // data-parallel group, tokens exchanged by all-to-all (plan/parallel.h).
    std::uint64_t ep = 1;
    // Expert tensor parallelism (Megatron-LM --expert-tensor-parallel-size):
    // each routed expert's linears split over etp ranks, as tensor
    // parallelism splits a dense MLP. 0: the tensor-parallel degree, Megatron-
    // LM's default (megatron/training/arguments.py: "if
    // args.expert_tensor_parallel_size is None: ... = tensor_model_parallel_size").
    std::uint64_t etp = 0;
    PipelineSplit ppSplit = PipelineSplit::Layers; // the layers over the (virtual) stages
    // torch.distributed.pipelining's schedule step(return_outputs=True), its
    // default: the last stage keeps every micro-batch's output (the logits)
    // in stage.output_chunks until the next step clears them (stage.py
    // forward_one_chunk, _PipelineStageBase.clear_runtime_states). torchtitan
    // passed return_outputs=False from October 2025 (e5ef99aab, with
    // pytorch/pytorch#165822); its earlier runs kept them. FSDP2 with pp > 1.
    bool ppReturnOutputs = false;
    std::uint64_t expertTensorParallel() const { return etp == 0 ? tp : etp; }
    bool isDefault() const
    {
        return tp == 1 && !sp && pp == 1 && ppSchedule == PipelineSchedule::OneFOneB &&
               ppSplit == PipelineSplit::Layers && !ppReturnOutputs && vpp == 1 && cp == 1 && !asyncTp &&
               dpReplicate == 1 && ep == 1 && etp == 0;
    }
};

struct HardwareConfig {
    std::string gpu = "rtx-4090";
    std::uint64_t count = 1;
    Sharding sharding = Sharding::None;
    bool cpuOffload = false;   // ZeRO-Offload / FSDP CPU offload: optimizer states (and for stage 3, parameters) on CPU
    // GPUs per node ("gpus_per_node", with "nodes" = count / gpus_per_node):
    // where the layout search keeps tensor parallelism and which links it
    // times; 0 when the scenario does not say (the search then assumes 8).
    std::uint64_t gpusPerNode = 0;
    ParallelConfig parallel;
};

enum class Profile { Pytorch, Headroom };

struct Scenario {
    ModelSpec model;
    Mode mode = Mode::Train;
    TrainConfig train;
    InferenceConfig inference;
    HardwareConfig hardware;
    Profile profile = Profile::Pytorch;
};

// Stable names used by the CLI flags and the scenario JSON; parse*() return
// false for an unknown name.
const char* precisionName(Precision p);
const char* weightQuantName(WeightQuant q);
const char* optimizerName(Optimizer o);
const char* optimizerImplName(OptimizerImpl i);
const char* peftMethodName(PeftMethod m);
const char* checkpointingName(Checkpointing c);
const char* attentionName(Attention a);
const char* shardingName(Sharding s);
const char* profileName(Profile p);
const char* modeName(Mode m);
const char* kvCacheDtypeName(KvCacheDtype d);
const char* trainingLoopName(TrainingLoop l);
const char* useCacheName(UseCache u);
const char* pipelineScheduleName(PipelineSchedule p);
const char* pipelineSplitName(PipelineSplit p); // "layers", "weighted"
bool parsePrecision(const std::string& s, Precision& out);
bool parseWeightQuant(const std::string& s, WeightQuant& out);
bool parseOptimizer(const std::string& s, Optimizer& out);
bool parseOptimizerImpl(const std::string& s, OptimizerImpl& out);
bool parsePeftMethod(const std::string& s, PeftMethod& out);
bool parseCheckpointing(const std::string& s, Checkpointing& out);
bool parseAttention(const std::string& s, Attention& out);
bool parseSharding(const std::string& s, Sharding& out);
bool parseProfile(const std::string& s, Profile& out);
bool parseMode(const std::string& s, Mode& out);
bool parseKvCacheDtype(const std::string& s, KvCacheDtype& out);
bool parseTrainingLoop(const std::string& s, TrainingLoop& out);
bool parseUseCache(const std::string& s, UseCache& out);
bool parsePipelineSchedule(const std::string& s, PipelineSchedule& out);
bool parsePipelineSplit(const std::string& s, PipelineSplit& out);

} // namespace headroom
