// SPDX-License-Identifier: GPL-3.0-or-later
// What torchtitan's composition of FSDP2 with tensor and context parallelism
// adds to the activation rows of one rank (docs/planner.md "FSDP2 under
// tensor, pipeline and context parallelism"). The rank's model already has
// heads, KV heads, MLP width and vocabulary divided by tp (parallel.h
// rankModelSpec) and the sequence divided by cp (planner.cpp planOneRank), so
// the layer saves follow from the shapes; this file holds what the shapes do
// not say.
// Sources (torchtitan@9dec370, the commit of its Llama 3.1 H100 benchmarks;
// PyTorch as torchtitan ran it, torch 1963fc8, December 2024):
// - Tensor parallelism: parallelisms/parallelize_llama.py apply_tp.
//   attention_norm / ffn_norm / norm are SequenceParallel (input and output
//   Shard(1): the norms run on seq / tp tokens); PrepareModuleInput turns the
//   attention's and the feed-forward's input from Shard(1) into Replicate (an
//   all-gather along the sequence); wq, wk, wv, w1, w3 are ColwiseParallel,
//   wo and w2 RowwiseParallel(output_layouts=Shard(1)) (their partial sums
//   reduce-scattered back to the sequence shard); output is ColwiseParallel
//   with Shard(-1) outputs under loss parallelism (train.py get_train_context
//   enters torch.distributed.tensor.parallel.loss_parallel()), so the logits
//   and the loss stay split over the vocabulary; loss_parallel computes the
//   cross-entropy by decomposition (tensor/parallel/loss.py, read at
//   pytorch/pytorch@02eef6b), with one fp32 temporary more than aten's
//   fused log_softmax in forward and in backward.
//   Unlike Megatron-LM's sequence parallelism, which saves the sequence shard
//   and all-gathers it again in backward (Korthikanti et al. 2022 §4.2.2),
//   DTensor's colwise linear is an ordinary matmul of the all-gathered input,
//   and autograd saves that input: the norms' outputs that feed wq/wk/wv and
//   w1/w3 (and the final norm's that feeds the output layer) are kept whole.
// - Op-level selective checkpointing (parallelize_llama.py _save_list):
//   torch.ops._c10d_functional.reduce_scatter_tensor is on the save list, so
//   the reduce-scattered outputs of wo and w2 are kept; a kept mm of a
//   row-parallel linear (the policy keeps every other mm) is its partial sum
//   over the whole sequence, before the reduce-scatter.
// - Context parallelism: torch/distributed/tensor/experimental/_attention.py
//   (read at pytorch/pytorch@0123248; the ring loop and its buffers are those
//   of torch 2.6): _templated_ring_attention with the all-gather rotater
//   (torchtitan's default context_parallel_rotate_method "allgather",
//   config_manager.py) concatenates the local keys and values
//   (torch.cat([key.flatten(), value.flatten()])) and all-gathers them once
//   (_AllGatherRotater: cp x the local K and V, alive for the whole ring);
//   _SDPAMerger (convert_to_f32 True) keeps the running output and
//   log-sum-exp in fp32 and merges each step's kernel output, cast to fp32,
//   with out - sigmoid(block_lse - lse) * (out - block_out). The backward
//   (_templated_ring_attention_backward) all-gathers K and V the same way,
//   accumulates dQ in fp32 and passes fp32 dK and dV around the ring with an
//   all-to-all (one concatenation sent, one received).
#include "plan/layersaves.h"
#include "plan/layerscript.h"
#include "plan/planbuild.h"

#include <cstring>

namespace headroom::detail {

namespace {

TensorRow temporary(const char* name, const char* source, Bytes bytes, Phase at, LayerSet layers)
{
    return TensorRow{name, source, Category::Temporaries, bytes, at, at, layers, false};
}

// Whether a checkpointed layer's forward is planned as one of the measured
// scripts below (eager or compiled layers, compiled Float8 layers): under
// full activation checkpointing, without context parallelism (the ring
// attention's buffers replace the kernel's). Eager Float8 layers take the
// eager bf16 script, with Float8's casts as their own rows
// (float8linear.cpp) beside it: no run has measured where they fall.
// The script is llama3's block (below); a mixture of experts or latent
// attention makes other tensors. On torchtitan's DeepSeek-V3 16B under tp 2
// (H200, 2026-11-27, moe_rank_study.py --tp 2) the script read reserved
// 11.7 % over the GPU; without it, see gpu-h200-2026-11-27.md.
bool scriptedLayerForward(const BuildContext& ctx)
{
    return ctx.rank && ctx.rank->layout->tp > 1 && ctx.anyCheckpointedLayer() && !ctx.selectiveOps &&
           ctx.rank->layout->cp == 1 && !ctx.model.isMoe() && !ctx.model.isMla();
}

bool float8Script(const BuildContext& ctx)
{
    return scriptedLayerForward(ctx) && ctx.float8Linears && ctx.compiledLayers && !ctx.float8AllGather;
}

// The layer's sizes: S the whole sequence's hidden states, h the rank's
// sequence shard, q and k the rank's query and key (or value) projections,
// qc and kc their complex64 views (fp32 pairs), lse the attention's
// log-sum-exp, F the rank's MLP width.
struct LayerSizes {
    Bytes S, h, q, k, qc, kc, lse, F;
    Bytes wq, wk, w1; // the rank's wq, wk (or wv) and w1 (or w3), one byte an element (Float8's weight casts)
};

LayerSizes layerSizes(const BuildContext& ctx)
{
    const ModelSpec& m = ctx.model; // the rank's: heads, KV heads and the MLP width divided by tp
    const Bytes T = ctx.tokens;
    LayerSizes z{};
    z.S = satMul(T, m.hidden, ctx.act);
    z.h = ceilDiv(z.S, ctx.rank->layout->tp);
    z.q = satMul(T, m.qDim(), ctx.act);
    z.k = satMul(T, m.kvDim(), ctx.act);
    z.qc = satMul(T, m.qDim(), 4);
    z.kc = satMul(T, m.kvDim(), 4);
    z.lse = satMul(T, m.heads, 4);
    z.F = satMul(T, m.intermediate, ctx.act);
    z.wq = satMul(m.hidden, m.qDim());
    z.wk = satMul(m.hidden, m.kvDim());
    z.w1 = satMul(m.hidden, m.intermediate);
    return z;
}

// Eager layers. These many-gigabyte temporaries, split by the kept
// sequence-shard tensors between them, are what leaves torchtitan's rank
// with far more reserved than allocated: as one block of the same peak the
// simulation reserved 67.9 GB for the step measured at 76.8 GB; with this
// script 74.3 GB.
void eagerLayerScript(const LayerSizes& z, LayerScript& s)
{
    // Attention: the input all-gathered (PrepareModuleInput), then wq, wk, wv.
    const auto gathered = s.make(z.S), input = s.make(z.S);
    s.release({gathered});
    const auto xq = s.make(z.q), xk = s.make(z.k), xv = s.make(z.k);
    // Rotary: both complex views and their products, then the results cast back.
    const auto qc1 = s.make(z.qc), kc1 = s.make(z.kc), qc2 = s.make(z.qc), kc2 = s.make(z.kc);
    const auto rq = s.make(z.q), rk = s.make(z.k);
    s.release({qc1, kc1, qc2, kc2, xq, xk});
    const auto attn = s.make(z.q), attnLse = s.make(z.lse);
    s.release({attnLse});
    // wo: the partial sum, its copy, the reduce-scattered shard.
    const auto wo = s.make(z.S), woCopy = s.make(z.S), woShard = s.make(z.h);
    s.release({wo, woCopy, attn, xv, rk, rq, input});
    const auto residual = s.make(z.h); // h = x + attention(...)
    s.release({woShard});
    // Feed-forward: its norm, the gathered input, SwiGLU, w2 as wo.
    const auto norm = s.make(z.h);
    const auto gathered2 = s.make(z.S), input2 = s.make(z.S);
    s.release({gathered2});
    const auto w1 = s.make(z.F), act = s.make(z.F);
    s.release({w1});
    const auto w3 = s.make(z.F), product = s.make(z.F);
    s.release({act, w3});
    const auto w2 = s.make(z.S), w2Copy = s.make(z.S), w2Shard = s.make(z.h);
    s.release({w2, w2Copy, product, input2, norm, w2Shard, residual});
}

// Compiled layers (torch.compile per block, torchtitan's --compile): the
// same collectives and their copies, but inductor writes the rotated q and k
// over the projections (one complex64 product alive at a time), frees the
// attention input before the feed-forward's all-gather, and fuses SwiGLU to
// two F-sized tensors; the partial sums of wo and w2 are made before the
// tensor they replace is freed. Measured on an H200 (tp_study.py --device
// cuda --compile --memory-history; docs/validation/gpu-h200-2026-11-26b.md),
// the same rank as the eager script, second step, layer 10.
void compiledLayerScript(const LayerSizes& z, LayerScript& s)
{
    const auto xq = s.make(z.q);
    const auto gathered = s.make(z.S), input = s.make(z.S);
    s.release({gathered});
    const auto xk = s.make(z.k), xv = s.make(z.k);
    const auto qc1 = s.make(z.qc), kc1 = s.make(z.kc), qc2 = s.make(z.qc);
    s.release({qc1});
    const auto kc2 = s.make(z.kc);
    s.release({kc1, qc2, kc2});
    const auto attn = s.make(z.q), attnLse = s.make(z.lse);
    s.release({xq, xk, xv, attnLse});
    const auto wo = s.make(z.S);
    s.release({input});
    const auto residual = s.make(z.h); // h = x + wo's reduce-scattered output
    s.release({wo});
    const auto gathered2 = s.make(z.S);
    s.release({attn});
    const auto input2 = s.make(z.S);
    s.release({gathered2});
    const auto w1 = s.make(z.F), w3 = s.make(z.F);
    s.release({input2, w3});
    const auto w2 = s.make(z.S);
    s.release({w1});
    const auto w2Copy = s.make(z.S);
    s.release({w2});
    const auto w2Shard = s.make(z.h);
    s.release({w2Copy, residual, w2Shard});
}

// Compiled layers with torchao's Float8 linears (tensorwise, Float8 TP,
// no Float8 all-gather for FSDP): PrepareFloat8ModuleInput casts the
// attention's and the feed-forward's input to fp8 on the sequence shard and
// all-gathers it in fp8 (half of S, twice: the gathered tensor and its
// copy); each colwise linear casts its weight to fp8 for its matmul and
// SwiGLU's product is cast before w2; the row-parallel partial sums stay
// 16-bit. Measured on an H200 (tp_study.py --device cuda --compile --float8
// --memory-history, torchao 0.18; docs/validation/gpu-h200-2026-11-26b.md),
// the same rank, second step, layer 10; weight casts under 1 MiB left out.
void compiledFloat8LayerScript(const LayerSizes& z, LayerScript& s)
{
    const Bytes S8 = ceilDiv(z.S, 2), h8 = ceilDiv(z.h, 2), F8 = ceilDiv(z.F, 2);
    const auto shard8 = s.make(h8);
    const auto gathered = s.make(S8), input = s.make(S8);
    s.release({gathered});
    const auto wq8 = s.make(z.wq), xq = s.make(z.q), wk8 = s.make(z.wk), xk = s.make(z.k), xv = s.make(z.k);
    s.release({input, wk8});
    const auto qc1 = s.make(z.qc), kc1 = s.make(z.kc), qc2 = s.make(z.qc);
    s.release({qc1});
    const auto kc2 = s.make(z.kc);
    s.release({kc1, qc2, kc2});
    const auto attn = s.make(z.q), attnLse = s.make(z.lse);
    s.release({xv, xq, xk, attnLse, attn});
    const auto wo = s.make(z.S);
    s.release({wq8});
    const auto woCopy = s.make(z.S);
    s.release({wo});
    const auto residual = s.make(z.h);
    s.release({woCopy});
    const auto gathered2 = s.make(S8);
    s.release({shard8});
    const auto input2 = s.make(S8);
    s.release({gathered2});
    const auto w18 = s.make(z.w1), w1 = s.make(z.F), w3 = s.make(z.F);
    s.release({input2});
    const auto product8 = s.make(F8);
    s.release({w1, w3});
    const auto w2 = s.make(z.S);
    s.release({product8, w18});
    const auto w2Copy = s.make(z.S);
    s.release({w2});
    const auto w2Shard = s.make(z.h);
    s.release({w2Copy, w2Shard, residual});
}

// A checkpointed layer's forward under tensor and sequence parallelism,
// tensor by tensor, as the caching allocator saw it: torchtitan 0.2.2's
// llama3 block under FSDP2 x TP, PyTorch 2.11, one H200, rank 0 of tp 8 x dp 32
// (tools/reference/tp_study.py --device cuda --memory-history;
// docs/validation/gpu-h200-2026-11-26.md, eager, and -26b.md, compiled).
// Under checkpoint() nothing is saved, so every tensor is released within
// the layer; what is alive after it is the layer's output
// (layer.fwd_temporary). The all-gathered input and the row-parallel partial
// sums come twice each (DTensor's redistribute output and its contiguous
// copy), the rotary embedding goes through complex64 (torchtitan's
// apply_rotary_emb: x.float() viewed as complex), the attention's
// log-sum-exp is dropped at once.
void addScriptedLayerForward(const BuildContext& ctx, std::vector<TensorRow>& rows)
{
    LayerScript s;
    if (float8Script(ctx))
        compiledFloat8LayerScript(layerSizes(ctx), s);
    else if (ctx.compiledLayers)
        compiledLayerScript(layerSizes(ctx), s);
    else
        eagerLayerScript(layerSizes(ctx), s);
    std::vector<TensorPiece>& script = s.pieces();
    TensorRow row =
        temporary("tp.layer_forward",
                  "a checkpointed layer's forward under TP + SP, tensor by tensor as measured (all-gathered "
                  "inputs and partial sums twice each, complex64 rotary, SwiGLU): the most held at once",
                  scriptPeak(script.data(), script.data() + script.size()), Phase::LayerFwd, LayerSet::Checkpointed);
    if (ctx.pieces) {
        const std::size_t begin = ctx.pieces->size();
        ctx.pieces->insert(ctx.pieces->end(), script.begin(), script.end());
        attachScript(ctx, row, begin);
    }
    rows.push_back(row);
}

// Tensor parallelism's collective temporaries, one layer at a time. Forward
// (of a layer not scripted): a row-parallel linear's partial output over the
// whole sequence, before its reduce-scatter (the colwise input's all-gather
// is the saved norm output itself). Backward: the all-gathered gradient of a row-parallel output and
// the partial gradient of an all-gathered input before its reduce-scatter.
void addTensorParallelRows(const BuildContext& ctx, std::vector<TensorRow>& rows)
{
    const Bytes sequenceWide = satMul(ctx.tokens, ctx.model.hidden, ctx.act);
    const bool scripted = scriptedLayerForward(ctx);
    rows.push_back(temporary("tp.partial_output",
                             "wo's (then w2's) partial sum over the whole sequence before its reduce-scatter to the "
                             "sequence shard (RowwiseParallel output_layouts=Shard(1))",
                             sequenceWide, Phase::LayerFwd, scripted ? LayerSet::Plain : LayerSet::All));
    if (scripted)
        addScriptedLayerForward(ctx, rows);
    if (scripted && ctx.float8Linears && !float8Script(ctx))
        ctx.note("Tensor parallelism with eager Float8 layers: each layer's forward is planned as the bf16 layers' "
                 "measured sequence plus Float8's casts, which no run has measured in that sequence (compiled Float8 "
                 "layers were, on an H200); peak reserved may be off by a few percent.");
    // With Float8 linears the row-parallel output's gradient is cast to e5m2
    // on the sequence shard and all-gathered in fp8 (Float8RowwiseParallel's
    // NoopFwToFloat8BwDynamic after the redistribute): that gathered gradient
    // is the linear's output-gradient cast (float8linear.cpp), not a 16-bit
    // tensor here.
    if (ctx.float8Linears)
        rows.push_back(temporary("tp.backward_collectives",
                                 "a column-parallel input's partial gradient before its reduce-scatter (the "
                                 "row-parallel output's gradient is all-gathered in fp8: float8.grad_output_cast)",
                                 sequenceWide, Phase::LayerBwd, LayerSet::All));
    else
        rows.push_back(
            temporary("tp.backward_collectives",
                      "a row-parallel output's gradient all-gathered over the sequence, and a column-parallel "
                      "input's partial gradient before its reduce-scatter",
                      satMul(sequenceWide, 2), Phase::LayerBwd, LayerSet::All));
    rows.push_back(temporary("tp.head_input_grad",
                             "the output layer's input gradient, partial over the vocabulary shards, before its "
                             "reduce-scatter to the sequence shard",
                             sequenceWide, Phase::HeadBwd, LayerSet::Global));
    // Loss parallelism (torch/distributed/tensor/parallel/loss.py): the
    // vocabulary-sharded log_softmax is _log_softmax's decomposition, which
    // holds shifted = x - max in fp32 beside exp(shifted) and then the result;
    // the fused nll_loss + log_softmax backward makes zeros_like(x) and
    // (grad_input + exp(x)) * grad_output: one fp32 logits-sized tensor more
    // than aten's fused kernels at each (the rows of activationrows.cpp).
    const Bytes shardLogits = satMul(ctx.tokens, ctx.model.vocab, 4);
    rows.push_back({"tp.loss_parallel_shifted",
                    "loss_parallel's log_softmax: shifted = x - max in fp32, alive beside exp(shifted) and the result "
                    "(torch/distributed/tensor/parallel/loss.py _log_softmax)",
                    Category::Logits, shardLogits, Phase::LossFwd, Phase::LossFwd, LayerSet::Global, false});
    rows.push_back({"tp.loss_parallel_bwd",
                    "loss_parallel's fused backward: zeros_like(x), exp(x) and their sum beside the result, fp32 "
                    "(loss.py _nll_loss_and_log_softmax_backward)",
                    Category::Logits, shardLogits, Phase::LossBwd, Phase::LossBwd, LayerSet::Global, false});
    if (ctx.selectiveOps)
        rows.push_back({"tp.sac_reduce_scatter_out",
                        "the reduce-scattered outputs of wo and w2, kept by the op-level policy "
                        "(_c10d_functional.reduce_scatter_tensor is on torchtitan's _save_list)",
                        Category::Activations, satMul(ceilDiv(sequenceWide, ctx.rank->layout->tp), 2), Phase::LayerFwd,
                        Phase::LayerBwd, LayerSet::Checkpointed, false});
}

// Ring attention's buffers beyond what the attention kernel saves (the saved
// q, k, v, output and log-sum-exp are over the rank's seq / cp tokens, as
// autograd sees the one SDPA op). O: elements of the attention output, KV:
// of the keys and values the kernel reads, L: of the log-sum-exp.
void addRingAttentionRows(const BuildContext& ctx, std::vector<TensorRow>& rows)
{
    const ModelSpec& m = ctx.model;
    const Bytes cp = ctx.rank->layout->cp, p = ctx.act;
    Dims d{};
    d.T = ctx.tokens, d.b = ctx.batch, d.s = ctx.seq, d.h = m.hidden, d.i = m.intermediate;
    d.a = m.heads, d.kv = m.kvHeads, d.d = m.headDim, d.V = m.vocab, d.p = ctx.act, d.r = ctx.residual;
    // Flash reads grouped KV heads; the memory-efficient kernel gets them
    // repeated to every head (layersaves.cpp attentionSaves).
    const Bytes kvHeads = savedAttentionKind(ctx, d) == Attention::Flash ? m.kvHeads : m.heads;
    const Bytes O = satMul(ctx.tokens, satMul(m.heads, m.headDim));
    const Bytes KV = satMul(ctx.tokens, satMul(2 * kvHeads, m.headDim));
    const Bytes L = satMul(ctx.tokens, m.heads);
    // Forward: the all-gathered K/V (cp x) and the local concatenation sent;
    // the merger's fp32 output, the step's output cast to fp32, the product
    // and the new output of the merge formula (16 bytes per output element)
    // beside the kernel's own 16-bit step output; four fp32 log-sum-exp-sized
    // tensors of the same merge.
    const Bytes forward = satAdd(satAdd(satMul(KV, satMul(cp + 1, p)), satMul(O, 16 + p)), satMul(L, 16));
    rows.push_back(temporary("cp.ring_attention",
                             "ring attention forward: K and V all-gathered over the cp ranks and the local "
                             "concatenation sent, the fp32 merge of each step's output and log-sum-exp "
                             "(_attention.py _AllGatherRotater, _SDPAMerger)",
                             forward, Phase::LayerFwd, LayerSet::All));
    // Backward: the all-gathered K/V and the concatenation again; fp32 dQ;
    // fp32 dK and dV accumulated, the concatenation sent and the one received
    // by the all-to-all.
    const Bytes backward = satAdd(satAdd(satMul(KV, satMul(cp + 1, p)), satMul(O, 4)), satMul(KV, 12));
    rows.push_back(temporary("cp.ring_attention_bwd",
                             "ring attention backward: K and V all-gathered again, fp32 dQ, fp32 dK and dV accumulated "
                             "and passed around the ring (_attention.py _templated_ring_attention_backward)",
                             backward, Phase::LayerBwd, LayerSet::All));
}

} // namespace

bool keptWholeUnderDTensorSequenceParallel(const char* rowName)
{
    // The rows of the norms' outputs that a colwise linear saves after the
    // all-gather (layersaves.cpp saveLinearInput's shared keys;
    // activationrows.cpp the head's), and the kept mm outputs of wo and w2.
    static const char* const whole[] = {"norm1.out", "norm2.out", "final_norm.out", "sac.o_proj_out",
                                        "sac.down_proj_out"};
    for (const char* name : whole)
        if (std::strcmp(rowName, name) == 0)
            return true;
    return false;
}

bool float8CastsInLayerScript(const BuildContext& ctx) { return float8Script(ctx); }

void addTorchtitanRankRows(const BuildContext& ctx, std::vector<TensorRow>& rows)
{
    const ParallelLayout& l = *ctx.rank->layout;
    if (ctx.mode != Mode::Train)
        return;
    if (l.tp > 1)
        addTensorParallelRows(ctx, rows);
    if (l.cp > 1)
        addRingAttentionRows(ctx, rows);
}

} // namespace headroom::detail
