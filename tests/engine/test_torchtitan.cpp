// SPDX-License-Identifier: GPL-3.0-or-later
// torchtitan's way of training (plan/activationrows.cpp selectiveOpSaves,
// plan/modelstaterows.cpp addFsdp2GatherRows): op-level selective activation
// checkpointing and FSDP2. Every expected number is derived by hand from the
// policy and FSDP2's buffers, for a 4-layer Llama-like model (hidden 256, 8
// heads, 2 KV heads, head_dim 32, MLP 704, vocabulary 1000), micro-batch 2 x
// sequence 128, flash attention.
#include "io/scenariofile.h"
#include "model/hfconfig.h"
#include "plan/allocatorstream.h"
#include "plan/cachingallocator.h"
#include "plan/planner.h"
#include "plan/sweep.h"
#include "planrows.h"
#include "rankplan.h"
#include "smallmodel.h"

#include <QtTest>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

using namespace headroom;
using testing::findRow;
using testing::rowBytes;

namespace {

constexpr Bytes h = 256, a = 8, kv = 2, d = 32, i = 704, V = 1000, L = 4;
constexpr Bytes b = 2, s = 128, T = b * s;

ModelSpec smallModel(const char* type)
{
    return testing::smallModel({type, h, L, a, kv, i, V, false});
}

Scenario scenario(Checkpointing ckpt, Precision p = Precision::Bf16, const char* type = "llama")
{
    Scenario sc;
    sc.model = smallModel(type);
    sc.train.precision = p;
    sc.train.optimizer = Optimizer::AdamW;
    sc.train.microBatch = b;
    sc.train.seqLen = s;
    sc.train.attention = Attention::Flash;
    sc.train.checkpointing = ckpt;
    sc.hardware.gpu = "h100-sxm-80gb";
    return sc;
}

// The small model with `heads` query heads (and `kvHeads`) and `vocab`, fully
// checkpointed in bf16-mixed, as torchtitan lays it out: FSDP2 over `gpus` with
// tensor and sequence parallelism of `tp`.
Scenario tpScenario(Bytes heads, Bytes kvHeads, Bytes vocab, std::uint64_t gpus, std::uint64_t tp)
{
    Scenario sc = scenario(Checkpointing::Full, Precision::Bf16Mixed);
    sc.model = testing::smallModel({"llama", h, L, heads, kvHeads, i, vocab, false});
    sc.hardware.count = gpus;
    sc.hardware.sharding = Sharding::Fsdp2;
    sc.hardware.parallel.tp = tp;
    sc.hardware.parallel.sp = true;
    return sc;
}

// What a checkpointed layer holds from its forward to its backward.
Bytes heldPerLayer(const Plan& p)
{
    Bytes sum = 0;
    for (const TensorRow& r : p.tensors)
        if (r.layers == LayerSet::Checkpointed && r.allocAt == Phase::LayerFwd && r.freeAt == Phase::LayerBwd)
            sum += r.bytes;
    return sum;
}

// One layer's parameters: q, k, v, o, gate, up, down and two RMSNorms.
constexpr Bytes layerParams = h * a * d + 2 * h * kv * d + a * d * h + 3 * h * i + 2 * h;
constexpr Bytes globalParams = 2 * V * h + h; // embedding, untied head, final norm

} // namespace

class TestTorchtitan : public QObject {
    Q_OBJECT

private slots:
    // Llama's bias-free linears are aten.mm in the order q, k, v, o, gate, up,
    // down: the policy keeps the 1st, 3rd, 5th and 7th (q, v, gate, down), and
    // the flash kernel's output and log-sum-exp. With the layer input as the
    // boundary, in pure bf16 (2 bytes everywhere; the input in the residual
    // stream's bf16): 2T(h + a·d + kv·d + i + h + a·d) + 4·b·a·s.
    void keepsEveryOtherMatmulAndTheKernel()
    {
        const Plan p = testing::planOrFail(scenario(Checkpointing::SelectiveOps));
        const Bytes expected = 2 * T * (h + a * d + kv * d + i + h + a * d) + 4 * b * a * s;
        QCOMPARE(heldPerLayer(p), expected);
        QCOMPARE(rowBytes(p, "sac.q_proj_out"), 2 * T * a * d);
        QCOMPARE(rowBytes(p, "sac.v_proj_out"), 2 * T * kv * d);
        QCOMPARE(rowBytes(p, "sac.gate_proj_out"), 2 * T * i);
        QCOMPARE(rowBytes(p, "sac.down_proj_out"), 2 * T * h);
        QVERIFY(!findRow(p, "sac.k_proj_out"));
        QVERIFY(!findRow(p, "sac.o_proj_out"));
        QVERIFY(!findRow(p, "sac.up_proj_out"));
    }

    // LoRA on q and v adds lora_A and lora_B after each base matmul (PEFT):
    // q 1, q.A 2, q.B 3, k 4, v 5, v.A 6, v.B 7, o 8, gate 9, up 10, down 11.
    // Kept: q, q.B, v, v.B, gate, down (the accountant's policy log shows
    // the same choice for Llama with LoRA on q and v).
    void loraMatmulsShiftTheParity()
    {
        Scenario sc = scenario(Checkpointing::SelectiveOps, Precision::Bf16Mixed);
        sc.train.peft.method = PeftMethod::Lora;
        sc.train.peft.rank = 8;
        sc.train.peft.targets = {"q_proj", "v_proj"};
        const Plan p = testing::planOrFail(sc);
        QCOMPARE(rowBytes(p, "sac.q_proj_out"), 2 * T * a * d);
        QCOMPARE(rowBytes(p, "sac.v_proj_out"), 2 * T * kv * d);
        QCOMPARE(rowBytes(p, "sac.lora_out"), 2 * T * (a * d + kv * d));
        QCOMPARE(rowBytes(p, "sac.gate_proj_out"), 2 * T * i);
        QCOMPARE(rowBytes(p, "sac.down_proj_out"), 2 * T * h);
        QVERIFY(!findRow(p, "sac.o_proj_out"));
        QVERIFY(!findRow(p, "sac.up_proj_out"));
    }

    // Qwen2's q, k and v carry a bias: aten.addmm, neither kept nor counted.
    // The mm are o, gate, up, down; the policy keeps o and up.
    void biasedLinearsAreNotCounted()
    {
        const Plan p = testing::planOrFail(scenario(Checkpointing::SelectiveOps, Precision::Bf16, "qwen2"));
        QCOMPARE(rowBytes(p, "sac.o_proj_out"), 2 * T * h);
        QCOMPARE(rowBytes(p, "sac.up_proj_out"), 2 * T * i);
        QVERIFY(!findRow(p, "sac.q_proj_out"));
        QVERIFY(!findRow(p, "sac.gate_proj_out"));
        QVERIFY(!findRow(p, "sac.down_proj_out"));
    }

    // The recompute takes the kept tensors instead of making them again: the
    // gate output (saved by the activation), the kernel's output and
    // log-sum-exp are not recomputed; under full checkpointing they are.
    void recomputeReusesWhatWasKept()
    {
        const auto recomputed = [](const Plan& p, const char* name) {
            for (const TensorRow& r : p.tensors)
                if (std::strcmp(r.name, name) == 0 && r.allocAt == Phase::LayerBwd && r.layers == LayerSet::Checkpointed)
                    return true;
            return false;
        };
        const Plan sac = testing::planOrFail(scenario(Checkpointing::SelectiveOps));
        const Plan full = testing::planOrFail(scenario(Checkpointing::Full));
        for (const char* name : {"mlp.gate_out", "attn.out", "attn.lse", "attn.v"}) {
            QVERIFY2(recomputed(full, name), name);
            QVERIFY2(!recomputed(sac, name), name);
        }
        QVERIFY(recomputed(sac, "mlp.up_out"));
        QVERIFY(recomputed(sac, "attn.q"));
    }

    // Keeping part of a layer costs more than keeping its input only, and less
    // than keeping everything.
    void liesBetweenFullAndNone()
    {
        Scenario sc = scenario(Checkpointing::None);
        sc.train.seqLen = 2048;
        const Bytes none = testing::planOrFail(sc).peakAllocatedBytes;
        sc.train.checkpointing = Checkpointing::SelectiveOps;
        const Bytes sac = testing::planOrFail(sc).peakAllocatedBytes;
        sc.train.checkpointing = Checkpointing::Full;
        const Bytes full = testing::planOrFail(sc).peakAllocatedBytes;
        const std::string why = "full " + std::to_string(full) + ", selective " + std::to_string(sac) + ", none " + std::to_string(none);
        QVERIFY2(full < sac && sac < none, why.c_str());
    }

    // FSDP2 over 8 GPUs in bf16-mixed: fp32 master shards, fp32 gradient and
    // AdamW shards, two gathered units in bf16, the last layer kept gathered
    // into the backward, the root resharded after the forward and gathered
    // again at the head's backward (torch >= 2.8 respects the root's explicit
    // reshard_after_forward=True: pytorch/pytorch#155319; measured on an H200
    // by tools/reference/moe_rank_study.py --fsdp-units b109f7d71), the
    // unsharded bf16 gradients and an fp32 reduce-scatter input per layer in
    // backward; no autocast (the residual stream is bf16).
    void fsdp2Buffers()
    {
        Scenario sc = scenario(Checkpointing::Full, Precision::Bf16Mixed);
        sc.hardware.count = 8;
        sc.hardware.sharding = Sharding::Fsdp2;
        const Plan p = testing::planOrFail(sc);
        const auto shard = [](Bytes bytes) { return (bytes + 7) / 8; };
        QCOMPARE(rowBytes(p, "weights.layer"), shard(4 * layerParams));
        QCOMPARE(rowBytes(p, "grads.layer"), shard(4 * layerParams));
        QCOMPARE(rowBytes(p, "optimizer.layer"), shard(8 * layerParams));
        QCOMPARE(rowBytes(p, "fsdp2.unsharded_layer"), 2 * layerParams);
        QCOMPARE(rowBytes(p, "fsdp2.unsharded_layer_bwd"), 2 * layerParams);
        QCOMPARE(rowBytes(p, "fsdp2.all_gather_buffer"), 2 * layerParams);
        QCOMPARE(rowBytes(p, "fsdp2.gathered_last_layer"), 2 * layerParams);
        QCOMPARE(rowBytes(p, "fsdp2.gathered_root"), 2 * globalParams);
        QCOMPARE(rowBytes(p, "fsdp2.root_all_gather_buffer"), 2 * globalParams);
        QCOMPARE(rowBytes(p, "fsdp2.gathered_root_bwd"), 2 * globalParams);
        QCOMPARE(rowBytes(p, "fsdp2.root_all_gather_buffer_bwd"), 2 * globalParams);
        // Not gathered through the loss: the forward's copy ends with the head,
        // the backward's starts at the head's backward.
        QCOMPARE(int(findRow(p, "fsdp2.gathered_root")->freeAt), int(Phase::HeadFwd));
        QCOMPARE(int(findRow(p, "fsdp2.gathered_root_bwd")->allocAt), int(Phase::HeadBwd));
        QCOMPARE(int(findRow(p, "fsdp2.gathered_root_bwd")->freeAt), int(Phase::EmbedBwd));
        QCOMPARE(int(findRow(p, "fsdp2.root_all_gather_buffer_bwd")->stream), int(kAllGatherCopyInStream));
        QCOMPARE(int(findRow(p, "fsdp2.gathered_last_layer")->freeAt), int(Phase::HeadBwd));
        QCOMPARE(rowBytes(p, "fsdp2.unsharded_grad"), 2 * layerParams);
        QCOMPARE(rowBytes(p, "fsdp2.reduce_scatter_input"), 4 * layerParams);
        QCOMPARE(rowBytes(p, "fsdp2.root_unsharded_grad"), 2 * globalParams);
        QCOMPARE(rowBytes(p, "fsdp2.root_reduce_scatter_input"), 4 * globalParams);
        // The streams: buffers of the collectives on their own streams, the
        // sharded gradients (reduce-scatter outputs) on the reduce-scatter stream.
        QCOMPARE(int(findRow(p, "fsdp2.all_gather_buffer")->stream), int(kAllGatherCopyInStream));
        QCOMPARE(int(findRow(p, "fsdp2.root_all_gather_buffer")->stream), int(kAllGatherCopyInStream));
        QCOMPARE(int(findRow(p, "grads.layer")->stream), int(kReduceScatterStream));
        QCOMPARE(int(findRow(p, "grads.global")->stream), int(kReduceScatterStream));
        QCOMPARE(int(findRow(p, "fsdp2.unsharded_layer")->stream), 0);
        QCOMPARE(int(findRow(p, "fsdp2.reduce_scatter_input")->stream), 0);
        QCOMPARE(int(findRow(p, "grads.global")->allocAt), int(Phase::EmbedBwd));
        QCOMPARE(rowBytes(p, "checkpoint.layer_input"), 2 * T * h);
        for (const TensorRow& r : p.tensors)
            QVERIFY2(std::strncmp(r.name, "autocast.", 9) != 0, r.name);
        // The same scenario under FSDP1 keeps autocast over its flat parameters.
        sc.hardware.sharding = Sharding::Fsdp;
        QCOMPARE(rowBytes(testing::planOrFail(sc), "checkpoint.layer_input"), 4 * T * h);
    }

    // FSDP2 with CPUOffloadPolicy (torch 2.11 _fsdp_param.py
    // all_gather_inputs, _fsdp_collectives.py foreach_reduce): no sharded
    // weights, gradients or optimizer state on the GPU; each unit's fp32
    // shard copied in with its bf16 cast (6 bytes a sharded element) on the
    // copy-in stream, and its fp32 gradient shard on the reduce-scatter stream
    // until its copy to the CPU. The gathered units are as without offload.
    void fsdp2CpuOffload()
    {
        Scenario sc = scenario(Checkpointing::Full, Precision::Bf16Mixed);
        sc.hardware.count = 8;
        sc.hardware.sharding = Sharding::Fsdp2;
        const Plan resident = testing::planOrFail(sc);
        sc.hardware.cpuOffload = true;
        const Plan p = testing::planOrFail(sc);
        const auto shard = [](Bytes bytes) { return (bytes + 7) / 8; };
        QCOMPARE(rowBytes(p, "weights.layer"), Bytes(0));
        QCOMPARE(rowBytes(p, "weights.global"), Bytes(0));
        QCOMPARE(rowBytes(p, "grads.layer"), Bytes(0));
        QCOMPARE(rowBytes(p, "grads.global"), Bytes(0));
        QVERIFY(findRow(p, "optimizer.layer") == nullptr);
        QCOMPARE(rowBytes(p, "fsdp2.offload_shard_h2d"), 6 * shard(layerParams));
        QCOMPARE(rowBytes(p, "fsdp2.offload_shard_h2d_bwd"), 6 * shard(layerParams));
        QCOMPARE(rowBytes(p, "fsdp2.offload_root_shard_h2d"), 6 * shard(globalParams));
        QCOMPARE(rowBytes(p, "fsdp2.offload_grad_shard"), 4 * shard(layerParams));
        QCOMPARE(int(findRow(p, "fsdp2.offload_shard_h2d")->stream), int(kAllGatherCopyInStream));
        QCOMPARE(int(findRow(p, "fsdp2.offload_grad_shard")->stream), int(kReduceScatterStream));
        for (const char* unchanged : {"fsdp2.unsharded_layer", "fsdp2.all_gather_buffer", "fsdp2.gathered_root",
                                      "fsdp2.reduce_scatter_input", "checkpoint.layer_input"})
            QCOMPARE(rowBytes(p, unchanged), rowBytes(resident, unchanged));
        QVERIFY(p.peakAllocatedBytes < resident.peakAllocatedBytes);
        QVERIFY(std::any_of(p.notes.begin(), p.notes.end(),
                            [](const std::string& n) { return n.starts_with("FSDP2 with CPU offload"); }));
    }

    // The embedding's backward under tensor parallelism (torchtitan's
    // RowwiseParallel embedding): DTensor computes the whole vocabulary's
    // gradient in param_dtype before keeping this rank's shard, while the
    // last layer's reduce-scatter input is still held; the row is what that
    // moment exceeds the root's reduce-scatter (input, and output over dp) by.
    // tools/reference/tp_study.py measured both at torchtitan's 70B widths
    // (tp 8 x dp 1 and dp 4: the plan within 0.02 % of the CPU run).
    void embeddingBackwardUnderTp()
    {
        constexpr Bytes vocab = 64000, heads = 8;
        Scenario sc = tpScenario(heads, heads, vocab, 32, 8);
        const Plan p = testing::planOrFail(sc);
        // Per rank: the linears split 8 ways, the norms whole; the embedding
        // and the head split by vocabulary.
        const Bytes layer = (h * heads * d + 2 * h * heads * d + heads * d * h + 3 * h * i) / 8 + 2 * h;
        const Bytes root = 2 * (vocab / 8) * h + h;
        const Bytes before = vocab * h * 2 + layer * 4;
        const Bytes after = root * 4 + root * 4 / 4;
        QVERIFY(before > after);
        QCOMPARE(rowBytes(p, "fsdp2.embedding_backward_excess"), before - after);
        QCOMPARE(int(findRow(p, "fsdp2.embedding_backward_excess")->allocAt), int(Phase::EmbedBwd));
        // Without tensor parallelism the reduce-scatter's buffers are the larger.
        sc.hardware.parallel.tp = 1;
        sc.hardware.parallel.sp = false;
        QVERIFY(findRow(testing::planOrFail(sc), "fsdp2.embedding_backward_excess") == nullptr);
    }

    // Under pipeline parallelism FSDP2 accumulates the stage's unsharded
    // gradients over the micro-batches, and DTensor hands the embedding a
    // replicated (whole-vocabulary) gradient, which the accumulation keeps as
    // it is until the reduce-scatter (_fsdp_param.py; tools/reference/
    // tp_study.py --pp 4 measured both on the first stage). The first stage
    // holds the vocabulary beyond its shard in fp32 from its first forward
    // on (more micro-batches than in flight); each embedding backward adds
    // the bf16 gradient and its fp32 cast, counted by what they exceed the
    // reduce-scatters' buffers of the same event by. Stages without the
    // embedding hold none of it.
    void embeddingGradientUnderPipelineAndTp()
    {
        constexpr Bytes vocab = 64000;
        Scenario sc = scenario(Checkpointing::Full, Precision::Bf16Mixed);
        sc.model = testing::smallModel({"llama", h, 8, a, a, i, vocab, false});
        sc.hardware.count = 16;
        sc.hardware.sharding = Sharding::Fsdp2;
        sc.hardware.parallel.tp = 2;
        sc.hardware.parallel.sp = true;
        sc.hardware.parallel.pp = 4;
        sc.train.gradAccum = 8;
        const Plan first = testing::stagePlan(sc, 0);
        const Bytes vocabRows = vocab * h, shardRows = vocab / 2 * h;
        QCOMPARE(rowBytes(first, "tp.embedding_grad_accumulated_replicated"), (vocabRows - shardRows) * 4);
        QCOMPARE(int(testing::findRow(first, "tp.embedding_grad_accumulated_replicated")->allocAt),
                 int(Phase::EmbedFwd));
        // Stage 0: 2 layers split 2 ways (norms whole) and the embedding's vocabulary shard, sharded over dp 2.
        const Bytes layer = (h * a * d + 2 * h * a * d + a * d * h + 3 * h * i) / 2 + 2 * h;
        const Bytes stage = 2 * layer + shardRows;
        const Bytes reduceMoment = std::max(layer, shardRows) * 4 + (stage * 4 + 1) / 2;
        QCOMPARE(rowBytes(first, "tp.embedding_grad_replicated"), vocabRows * (2 + 4) - reduceMoment);
        const Plan middle = testing::stagePlan(sc, 1);
        QVERIFY(testing::findRow(middle, "tp.embedding_grad_accumulated_replicated") == nullptr);
        QVERIFY(testing::findRow(middle, "tp.embedding_grad_replicated") == nullptr);
    }

    // A pipeline schedule that returns its outputs (hardware.parallel
    // .pp_return_outputs; torch's step() default, torchtitan before October
    // 2025): the last stage keeps every micro-batch's logits, bf16 under
    // FSDP2's param dtype, T x V x 2 = 512,000 bytes each, to the end of the
    // step. The pass's own logits live to the optimizer step; the other
    // m - 1 = 3 micro-batches' are one row from the pass's start. The first
    // stage has no head and nothing kept. Without the flag the logits die
    // with the loss forward. Under Megatron-LM's layouts the flag is refused.
    void pipelineKeepsReturnedOutputs()
    {
        Scenario sc = scenario(Checkpointing::Full, Precision::Bf16Mixed);
        sc.hardware.count = 4;
        sc.hardware.sharding = Sharding::Fsdp2;
        sc.hardware.parallel.pp = 2;
        sc.train.gradAccum = 4;
        sc.hardware.parallel.ppReturnOutputs = true;
        const Plan last = testing::stagePlan(sc, 1);
        const TensorRow* logits = findRow(last, "logits");
        QVERIFY(logits);
        QCOMPARE(logits->bytes, T * V * 2);
        QCOMPARE(int(logits->freeAt), int(Phase::OptimizerStep));
        const TensorRow* kept = findRow(last, "pipeline.output_chunks");
        QVERIFY(kept);
        QCOMPARE(kept->bytes, 3 * T * V * 2);
        QCOMPARE(int(kept->allocAt), int(Phase::EmbedFwd));
        QCOMPARE(int(kept->freeAt), int(Phase::OptimizerStep));
        QVERIFY(!findRow(testing::stagePlan(sc, 0), "pipeline.output_chunks"));
        sc.hardware.parallel.ppReturnOutputs = false;
        const Plan dropped = testing::stagePlan(sc, 1);
        QVERIFY(!findRow(dropped, "pipeline.output_chunks"));
        QVERIFY(int(findRow(dropped, "logits")->freeAt) < int(Phase::OptimizerStep));
        QVERIFY(last.peakAllocatedBytes >= dropped.peakAllocatedBytes + 3 * T * V * 2);
        sc.hardware.parallel.ppReturnOutputs = true;
        sc.hardware.sharding = Sharding::Ddp;
        sc.train.precision = Precision::Bf16;
        const auto refused = makePlan(sc);
        QVERIFY(!refused);
        QVERIFY(refused.error().detail.rfind("hardware.parallel.pp_return_outputs:", 0) == 0);
    }

    // A checkpointed layer's forward under TP + SP, as the H200 run measured
    // it (torchtitanrows.cpp addScriptedLayerForward): with S the whole
    // sequence's hidden states, h the rank's shard, q and k the rank's
    // query and key outputs, qc and kc their complex64 views, lse the
    // log-sum-exp and F an MLP output, the script holds at most the largest
    // of: the rotary (S + 2q + 3k + 2qc + 2kc), wo's partial sum
    // (3S + 2q + 2k + h), SwiGLU (S + 2h + 3F) and w2's partial sum
    // (3S + 3h + F). Released in full by the layer's end, it replaces the
    // partial-sum row of checkpointed layers, and only of eager ones.
    void tpLayerForwardScript()
    {
        constexpr Bytes heads = 8, tp = 2;
        Scenario sc = tpScenario(heads, kv, V, 4, tp);
        const Plan p = testing::planOrFail(sc);
        const Bytes S = T * h * 2, sh = S / tp, q = T * heads / tp * d * 2, k = T * kv / tp * d * 2;
        const Bytes qc = 2 * q, kc = 2 * k, lse = T * heads / tp * 4, F = T * i / tp * 2;
        const Bytes expected = std::max({S + 2 * q + 3 * k + 2 * qc + 2 * kc, 3 * S + 2 * q + 2 * k + sh,
                                         S + 2 * q + 2 * k + lse, S + 2 * sh + 3 * F, 3 * S + 3 * sh + F});
        QCOMPARE(rowBytes(p, "tp.layer_forward"), expected);
        const TensorRow* script = findRow(p, "tp.layer_forward");
        QCOMPARE(int(script->layers), int(LayerSet::Checkpointed));
        QVERIFY(script->pieceEnd > script->pieceBegin);
        QCOMPARE(int(findRow(p, "tp.partial_output")->layers), int(LayerSet::Plain));
        // The stream replays it: reserved is simulated over it, and the
        // simulated allocated peak is the table's, each block rounded.
        QVERIFY(p.peakReservedBytes >= p.peakAllocatedBytes);
        const auto sim = simulateCachingAllocator(allocatorStream(p, kAllocatorSteps));
        QVERIFY(sim.ok());
        QVERIFY(sim->peakAllocatedBytes >= p.peakAllocatedBytes);
        QVERIFY(sim->peakAllocatedBytes < p.peakAllocatedBytes + 512 * 2000);
        // Compiled layers have their own measured script (compiledLayerScript):
        // at most the largest of the rotary (q + S + 2k + 2qc + kc), wo's
        // partial sum beside the attention output (q + 2S), the feed-forward's
        // gathered input (h + 2S) and SwiGLU (h + S + 2F).
        sc.train.compileLayers = true;
        const Plan compiled = testing::planOrFail(sc);
        QCOMPARE(rowBytes(compiled, "tp.layer_forward"),
                 std::max({q + S + 2 * k + 2 * qc + kc, q + 2 * S, sh + 2 * S, sh + S + 2 * F}));
        QVERIFY(rowBytes(compiled, "tp.layer_forward") != expected);
        // Compiled Float8 layers (compiledFloat8LayerScript), the inputs
        // gathered in fp8 (S8, h8), the colwise weights cast (wq, wk, w1, one
        // byte an element), SwiGLU's product cast (F8): at most the largest
        // of the projections (h8 + S8 + wq + q + wk + 2k), the rotary
        // (h8 + wq + q + 2k + 2qc + kc), the attention (h8 + wq + 2q + 2k +
        // lse), w1 and w3 (sh + S8 + w1 + 2F), the product's cast
        // (sh + w1 + 2F + F8), w2's partial sum (sh + w1 + F8 + S) and its
        // copy (sh + 2S). The casts are in the script, so
        // float8.forward_casts is off its layers, and no note.
        const auto eagerFloat8Note = [](const Plan& plan) {
            return std::any_of(plan.notes.begin(), plan.notes.end(), [](const std::string& n) {
                return n.starts_with("Tensor parallelism with eager Float8 layers");
            });
        };
        sc.train.precision = Precision::Fp8Mixed;
        const Plan float8 = testing::planOrFail(sc);
        const Bytes S8 = S / 2, h8 = sh / 2, F8 = F / 2;
        const Bytes wq = h * heads / tp * d, wk = h * kv / tp * d, w1 = h * i / tp;
        QCOMPARE(rowBytes(float8, "tp.layer_forward"),
                 std::max({h8 + S8 + wq + q + wk + 2 * k, h8 + wq + q + 2 * k + 2 * qc + kc,
                           h8 + wq + 2 * q + 2 * k + lse, sh + S8 + w1 + 2 * F, sh + w1 + 2 * F + F8,
                           sh + w1 + F8 + S, sh + 2 * S}));
        QCOMPARE(int(findRow(float8, "float8.forward_casts")->layers), int(LayerSet::Plain));
        QVERIFY(!eagerFloat8Note(float8));
        QVERIFY(!eagerFloat8Note(compiled) && !eagerFloat8Note(p));
        // Eager Float8 layers: the eager bf16 script and the casts beside it,
        // which no run has measured together: the plan says so.
        sc.train.compileLayers = false;
        const Plan eagerFloat8 = testing::planOrFail(sc);
        QCOMPARE(rowBytes(eagerFloat8, "tp.layer_forward"), expected);
        QCOMPARE(int(findRow(eagerFloat8, "float8.forward_casts")->layers), int(LayerSet::All));
        QVERIFY(eagerFloat8Note(eagerFloat8));
    }

    // Rank 0 of torchtitan's Table 4 layout (Llama 3.1 70B, tp 8 x dp 32,
    // local batch 16 x 8192, full checkpointing) on one H200 under the fake
    // process group (tools/reference/tp_study.py --device cuda): the second
    // step's max allocated and max reserved, bytes. Allocated is held to 2 %.
    // - eager (2026-11-26, docs/validation/gpu-h200-2026-11-26.md): reserved
    //   held to 5 %; before the layer forward was scripted the plan reserved
    //   67.9 GB (-11.6 %).
    // - compiled blocks (--compile, gpu-h200-2026-11-26b.md): held to 2 %;
    //   before the compiled script the plan read -3.5 %.
    // - as torchtitan published it, compiled with torchao Float8 linears and
    //   Float8 TP (--compile --float8, torchao 0.18, the same file): within
    //   2 MB of the compiled run. The plan reads -3.3 %: it reserves less
    //   than the GPU in the head and loss (32.5 GiB reserved when the loss
    //   starts on the GPU, 30.9 in the plan); held to 5 %.
    void table4RankZeroAsMeasuredOnOneGpu_data()
    {
        QTest::addColumn<bool>("compile");
        QTest::addColumn<bool>("float8");
        QTest::addColumn<double>("allocated");
        QTest::addColumn<double>("reserved");
        QTest::addColumn<double>("reservedTolerance");
        QTest::newRow("eager") << false << false << 61640200704.0 << 76768346112.0 << 0.05;
        QTest::newRow("compiled") << true << false << 61639676416.0 << 70325895168.0 << 0.02;
        QTest::newRow("compiled Float8") << true << true << 61641773568.0 << 70327992320.0 << 0.05;
    }
    void table4RankZeroAsMeasuredOnOneGpu()
    {
        QFETCH(bool, compile);
        QFETCH(bool, float8);
        QFETCH(double, allocated);
        QFETCH(double, reserved);
        QFETCH(double, reservedTolerance);
        auto sc = scenarioFromText(R"({"schema": "headroom.scenario/1",
            "model": {"preset": "meta-llama/Llama-3.1-70B"},
            "train": {"precision": "bf16-mixed", "optimizer": "adamw", "micro_batch": 16, "seq_len": 8192,
                      "grad_accum": 1, "checkpointing": "full", "attention": "sdpa"},
            "hardware": {"gpu": "h200", "count": 256, "sharding": "fsdp2",
                         "parallel": {"tp": 8, "sp": true, "pp": 1}}})");
        QVERIFY2(sc.ok(), sc.ok() ? "" : sc.error().detail.c_str());
        Scenario scenario = sc.value();
        scenario.train.compileLayers = compile;
        if (float8)
            scenario.train.precision = Precision::Fp8Mixed;
        const Plan p = testing::planOrFail(scenario);
        const double allocatedError = (double(p.peakAllocatedBytes) - allocated) / allocated;
        const double reservedError = (double(p.peakReservedBytes) - reserved) / reserved;
        qInfo("70B tp 8 x dp 32 rank 0, %s: allocated %+.2f %%, reserved %+.2f %%", QTest::currentDataTag(),
              100 * allocatedError, 100 * reservedError);
        QVERIFY(std::abs(allocatedError) <= 0.02);
        QVERIFY(std::abs(reservedError) <= reservedTolerance);
    }

    void refusesWhatIsNotModelled_data()
    {
        QTest::addColumn<QByteArray>("what");
        QTest::newRow("lora") << QByteArray("lora");
        QTest::newRow("fp16") << QByteArray("fp16");
        QTest::newRow("offload under tp") << QByteArray("offload under tp");
        QTest::newRow("tp") << QByteArray("tp");
        QTest::newRow("selective qlora") << QByteArray("selective qlora");
    }
    void refusesWhatIsNotModelled()
    {
        QFETCH(QByteArray, what);
        Scenario sc = scenario(Checkpointing::Full, Precision::Bf16Mixed);
        sc.hardware.count = 8;
        sc.hardware.sharding = Sharding::Fsdp2;
        if (what == "lora")
            sc.train.peft.method = PeftMethod::Lora;
        if (what == "fp16")
            sc.train.precision = Precision::Fp16;
        if (what == "offload under tp") {
            sc.hardware.cpuOffload = true;
            sc.hardware.parallel.tp = 2;
            sc.hardware.parallel.sp = true;
        }
        if (what == "tp")
            sc.hardware.parallel.tp = 2;
        if (what == "selective qlora") {
            sc.hardware.sharding = Sharding::None;
            sc.train.checkpointing = Checkpointing::SelectiveOps;
            sc.train.peft.method = PeftMethod::Qlora;
            sc.train.weightQuant = WeightQuant::Nf4;
        }
        auto plan = makePlan(sc);
        QVERIFY(!plan);
        QCOMPARE(int(plan.error().code), int(ErrorCode::UnsupportedCombination));
    }

    // Both names are saved and read back.
    void namesRoundTrip()
    {
        Scenario sc = scenario(Checkpointing::SelectiveOps, Precision::Bf16Mixed);
        sc.hardware.count = 8;
        sc.hardware.sharding = Sharding::Fsdp2;
        const std::string text = scenarioToText(sc);
        QVERIFY(text.find("\"selective-op\"") != std::string::npos);
        QVERIFY(text.find("\"fsdp2\"") != std::string::npos);
        auto back = scenarioFromText(text);
        QVERIFY2(back, back ? "" : back.error().detail.c_str());
        QCOMPARE(int(back->train.checkpointing), int(Checkpointing::SelectiveOps));
        QCOMPARE(int(back->hardware.sharding), int(Sharding::Fsdp2));
    }
};

QTEST_APPLESS_MAIN(TestTorchtitan)
#include "test_torchtitan.moc"
