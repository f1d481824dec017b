// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the planner: the numbers every row builder needs, derived once
// from the scenario, and the row builders themselves.
#include "model/parametertable.h"
#include "plan/parallel.h"
#include "plan/plan.h"
#include "plan/planner.h"
#include "plan/profile.h"

#include <string>
#include <vector>

namespace headroom::detail {

// One rank of a tensor/pipeline-parallel layout (plan/parallel.h): the
// BuildContext's model and table are then that rank's (rankModelSpec,
// rankParameterTable); fullModel is the whole model.
struct StageRowMemo;
struct RankShape {
    const ParallelLayout* layout = nullptr;
    std::uint64_t stage = 0;
    const ModelSpec* fullModel = nullptr;
    // The whole model's table (sequence parallelism compares the rank's rows
    // with the undivided model's), and the rows the layout's stages share
    // (null: every stage builds its own).
    const ParameterTable* fullTable = nullptr;
    StageRowMemo* memo = nullptr;
    // With vpp > 1: the moment of the rank's interleaved schedule that holds
    // the most (parallel.h interleavedPeak), found by addParallelRankRows
    // before the rows that depend on it are made.
    const InterleavedPeak* peak = nullptr;
};

// The settings of a BuildContext: everything but what it refers to.
struct BuildSettings {
    Mode mode = Mode::Train;
    Bytes batch = 1;              // sequences per micro-batch on one GPU
    Bytes seq = 1;                // tokens per sequence (prompt + new tokens in inference)
    Bytes tokens = 1;             // batch * seq (prefill tokens in inference)
    Bytes act = 2;                // bytes of an activation element (2 for 16-bit compute, 4 for fp32)
    Bytes residual = 2;           // bytes of the residual stream (fp32 under autocast over fp32 weights)
    bool autocast = false;        // torch.autocast over fp32 parameters
    bool fullFinetune = true;     // every parameter trainable (no PEFT)
    bool quantizedBase = false;   // frozen linear weights in int8/NF4
    bool deepspeedStyle = false;  // ZeRO 1-3: 16-bit model, fp32 master inside the optimizer
    bool dropoutActive = false;   // training with dropout > 0
    bool trainUseCache = false;   // the training forward returns per-layer keys and values (use_cache in effect)
    Bytes shards = 1;             // data-parallel degree for sharded states
    std::uint64_t checkpointEvery = 0; // as Plan::checkpointEvery: 0 none, 1 every layer, k every k-th
    bool selectiveOps = false;    // checkpointed layers keep torchtitan's op-level saves (Checkpointing::SelectiveOps)
    bool compiledLayers = false;  // torch.compile per decoder layer (TrainConfig::compileLayers, plan/compiledlayer.h)
    bool float8Linears = false;   // torchao Float8Linear in the layers (fp8-mixed under FSDP2, plan/float8linear.h)
    bool float8AllGather = false; // FSDP2 gathers those linears' weights in float8 (plan/float8linear.h)
    bool megatron = false;        // model states as Megatron-LM keeps them (megatronrows.cpp megatronModelStates)
    std::vector<std::string> loraTargets; // resolved PEFT target module names
    std::vector<std::string>* notes = nullptr;
    std::vector<TensorPiece>* pieces = nullptr; // Plan::pieces, for rows made of several tensors
    const RankShape* rank = nullptr;            // a rank of a tp/pp layout; nullptr: one GPU or data parallel
    std::uint64_t loraTargetMask = 0;     // bit i: table.layer[i] is a LoRA target (BuildContext::cacheLoraTargets)
    bool loraTargetMaskValid = false;
};

struct BuildContext : BuildSettings {
    BuildContext(const Scenario& s, const ModelSpec& m, const ParameterTable& t, const RuntimeProfile& p, const GpuSpec& g)
        : scenario(s), model(m), table(t), profile(p), gpu(g) {}
    // The same settings over another view of the model and its table
    // (planner.cpp: the dense layers of a model whose first layers differ).
    BuildContext(const BuildContext& other, const ModelSpec& m, const ParameterTable& t)
        : BuildSettings(other), scenario(other.scenario), model(m), table(t), profile(other.profile), gpu(other.gpu)
    {
        loraTargetMaskValid = false;
    }
    const Scenario& scenario;
    const ModelSpec& model;
    const ParameterTable& table;
    const RuntimeProfile& profile;
    const GpuSpec& gpu;

    bool anyPlainLayer() const { return checkpointEvery != 1; }
    bool anyCheckpointedLayer() const { return checkpointEvery != 0; }
    // Whether this GPU holds the word embedding (every GPU but a pipeline stage after the first).
    bool holdsEmbedding() const { return !rank || rank->stage == 0; }

    bool isLoraTarget(const ParamTensor& t) const;
    // Remembers isLoraTarget() for each tensor of table.layer, which the row
    // builders ask about many times per plan (a string search each time).
    void cacheLoraTargets();
    bool linearTrainable(const ParamTensor& t) const { return fullFinetune && t.isLinearWeight; }
    void note(std::string text) const { if (notes) notes->push_back(std::move(text)); }
};

// Pieces and scripts (tensorpieces.cpp).
// Gives `row` the runs appended to *ctx.pieces since `begin` (TensorRow::
// pieceBegin) when they add up to its bytes; else drops them and the row
// stays one tensor. Runs of no bytes are left out.
void attachPieces(const BuildContext& ctx, TensorRow& row, std::size_t begin);
// Gives a temporary of one event (allocAt == freeAt) the script appended to
// *ctx.pieces since `begin`: allocations and releases (TensorPiece::freeOf) in
// PyTorch's order, and sets row.bytes to the most it holds at once. A script
// that releases a tensor it has not made, or twice, is dropped (an error in
// the builder, not in the input), and the row keeps its bytes as one tensor.
void attachScript(const BuildContext& ctx, TensorRow& row, std::size_t begin);
// The most a script (above) holds at once; 0 for an invalid one.
Bytes scriptPeak(const TensorPiece* first, const TensorPiece* last);

// Model state: weights (and their low-precision copies), gradients,
// optimizer state, adapters, sharding buffers, library workspaces.
void addModelStateRows(const BuildContext& ctx, std::vector<TensorRow>& rows);
// Megatron-LM's model states for a rank of a tensor/pipeline-parallel layout
// planned without FSDP2 (megatronrows.cpp): whether they apply (16-bit or
// fp32 full fine-tuning, DDP or the distributed optimizer, Adam or SGD), and
// the rows: 16-bit parameters, the fp32 main-grad buffer, fp32 main
// parameters and moments, sharded over dp by the distributed optimizer.
bool megatronModelStates(const Scenario& sc, const BuildContext& ctx);
void addMegatronModelStateRows(const BuildContext& ctx, std::vector<TensorRow>& rows);
// Megatron-LM's vocabulary-parallel cross-entropy (megatronrows.cpp): the
// logits (`TV` tokens x the rank's vocabulary, `logitBytes` each) and the
// tensors of the loss, which works in place on one fp32 copy.
void addMegatronLossRows(Bytes TV, Bytes logitBytes, std::vector<TensorRow>& rows);
// cuBLAS's workspaces, through the caching allocator (modelstaterows.cpp).
void addWorkspaceRows(const BuildContext& ctx, std::vector<TensorRow>& rows);
// FSDP2's unsharded copies and collective buffers for units of `layerParams`
// per layer and `globalParams` at the root (fsdp2rows.cpp); a pipeline
// stage's variant under pipeline parallelism.
void addFsdp2Rows(const BuildContext& ctx, Bytes layerParams, Bytes globalParams, std::vector<TensorRow>& rows);
// FSDP2 under an interleaved pipeline (vpp > 1): the bytes each of the rank's
// chunks' unsharded accumulated gradients take once its first backward has
// run (fsdp2rows.cpp); zeros when there are none (not training every parameter).
std::vector<Bytes> fsdp2ChunkGradientBytes(const BuildContext& ctx);
// Saved activations per layer, checkpointing, backward temporaries, head and loss.
void addActivationRows(const BuildContext& ctx, std::vector<TensorRow>& rows);
// The headroom profile's own program (headroomrows.cpp), when
// headroomProgramGap() is empty: every row of a training step.
void addHeadroomRows(const BuildContext& ctx, std::vector<TensorRow>& rows);
// Inference: weights, KV cache, prefill temporaries, decode.
void addInferenceRows(const BuildContext& ctx, std::vector<TensorRow>& rows);

// A rank of a tp/pp layout (parallelrows.cpp): the model state and
// activation rows above for the rank's model, the activations that sequence
// parallelism divides, the stage's own globals, and the micro-batches in flight.
void addParallelRankRows(const BuildContext& ctx, std::vector<TensorRow>& rows);

// One GPU's plan for `model` and `table` (planner.cpp); rank: the rank of a
// tp/pp layout they are, or nullptr for today's one-GPU / data-parallel plan.
Result<Plan> planOneRank(const Scenario& scenario, const ModelSpec& model, const ParameterTable& table,
                         const PlanOptions& options, const RankShape* rank);

// What torchtitan's composition adds to a rank of a layout under FSDP2
// (torchtitanrows.cpp): tensor parallelism's collective temporaries and
// context parallelism's ring-attention buffers (the rows DTensor sequence parallelism keeps whole
// are applySequenceParallel's, below).
void addTorchtitanRankRows(const BuildContext& ctx, std::vector<TensorRow>& rows);
// Whether a checkpointed layer's forward under tensor parallelism is a
// measured script that holds Float8's forward casts itself (compiled Float8
// layers), so float8.forward_casts stays off those layers.
bool float8CastsInLayerScript(const BuildContext& ctx);
// The activation rows that DTensor sequence parallelism keeps whole (the
// all-gathered inputs of column-parallel linears, the partial outputs of
// row-parallel ones that op-level checkpointing keeps), by row name.
bool keptWholeUnderDTensorSequenceParallel(const char* rowName);

// The activation rows the stages of one layout share (stagerowmemo.cpp,
// PlanOptions::shareStageRows). One scenario and layout make every stage's
// BuildContext; the activation row builders read a stage's only through its
// model and table (its layer count, the dense layers it holds): stages alike
// in those get the same rows, so the first builds them and the others copy
// them, and an interleaved rank's peak search (addParallelRankRows) does not
// build them twice. test_stagerowmemo plans with and without the memo and
// compares every row and piece.
enum class SharedRows : std::uint8_t {
    RankActivations, // a rank's activation rows, sequence parallelism and expert slots applied (parallelrows.cpp)
    Undivided,       // the undivided model's, which sequence parallelism compares them with
};
struct StageRowMemo {
    struct Entry {
        SharedRows kind = SharedRows::RankActivations;
        ModelSpec model;
        std::uint64_t tableLayers = 0, tableDenseLayers = 0;
        std::size_t layerTensors = 0, denseLayerTensors = 0;
        bool withPieces = false, withNotes = false;
        std::vector<std::string> notes;  // the builders' notes
        std::vector<TensorRow> rows;     // foreign pieces (TensorPiece::ofRow) counted from rows[0]
        std::vector<TensorPiece> pieces; // the rows' pieces, rows' pieceBegin counted from pieces[0]
    };
    bool withNotes = true; // false: the plans keep no notes (PlanOptions::withNotes)
    std::vector<Entry> entries;
};
// build(ctx, rows), through ctx.rank's memo when it has one: the rows of
// `kind` a stage alike in model and table built, or else build's.
using RowBuilder = void (*)(const BuildContext& ctx, std::vector<TensorRow>& rows);
void addSharedRows(const BuildContext& ctx, std::vector<TensorRow>& rows, SharedRows kind, RowBuilder build);

// Plans every stage of a tp/pp layout and returns the worst (parallelrows.cpp).
Result<Plan> makeParallelPlan(const Scenario& scenario, const ParameterTable& table, const PlanOptions& options,
                              const ParallelLayout& layout);

// Bytes per stored element of a quantized linear weight (bitsandbytes):
// int8 1 + fp32 row scale; NF4 0.5 + fp32 absmax per 64; double quant 8-bit
// absmax per 64 + fp32 per 256 absmax (QLoRA §3; memory-model.md §5).
Bytes quantizedWeightBytes(WeightQuant q, Bytes rows, Bytes cols);

} // namespace headroom::detail
