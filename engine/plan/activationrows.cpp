// SPDX-License-Identifier: GPL-3.0-or-later
// Activations saved for backward, per layer, itemised tensor by tensor as
// PyTorch autograd saves them for the Hugging Face implementation of each
// family; checkpointing; backward temporaries; the head and the loss.
// Sources: memory-model.md §1 (activations) and §2 (logits); Korthikanti et
// al. 2022 (arXiv:2205.05198 §4.1) for the itemisation method.
#include "plan/compiledlayer.h"
#include "plan/compiledloss.h"
#include "plan/float8linear.h"
#include "plan/checkpointedforward.h"
#include "plan/layersaves.h"
#include "plan/mlasaves.h"
#include "plan/moesaves.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace headroom::detail {

namespace {

// A BERT layer's tensors that no backward saves (modeling_bert.py BertLayer
// and BertOutput.forward; accountant: the bert-base-uncased-cls cases, whose
// peaks are in the last layer's forward or its backward). Forward, at the
// output LayerNorm, the layer's largest moment: its new output (residual
// dtype), the dropped dense output (`hidden_states` is still bound), the
// first LayerNorm's output (`input_tensor` of the residual) and the layer's
// input (held by the encoder's loop variable), the last two unless the
// layer saves them (ln1.out and layer.in in one dtype; a checkpointed layer
// keeps its input as the boundary). Eager attention adds its 16-bit scores
// before softmax. Backward, at the output dense's backward, where the layer
// backward peaks: the gradient of the intermediate activation and dropout
// backward's gradient; the output LayerNorm's input gradient takes the
// place of its saved input, freed by then (same size), as the gradients of
// eager attention's scores come later, when the MLP's saves are gone.
// Eager attention's scores (softmax's input, rebound when softmax returns)
// die before everything the layer saves after attention is made, so they
// count only by what they exceed those saves and the output LayerNorm's
// temporaries by (nothing for BERT's 512 positions: the accountant's eager
// cases peak at the output LayerNorm).
void addBertLayerTemporaries(const BuildContext& ctx, const Dims& d, Bytes abss, Bytes savedAfterAttention,
                             std::vector<TensorRow>& rows)
{
    const Bytes hidden = satMul(d.T, d.h);
    const Bytes atNorm = satMul(hidden, d.r + d.p);
    // Each of these rows is several tensors, asked of the allocator one by one.
    auto pieces = [&](TensorRow row, std::initializer_list<TensorPiece> list) {
        if (ctx.pieces) {
            const std::size_t begin = ctx.pieces->size();
            ctx.pieces->insert(ctx.pieces->end(), list);
            attachPieces(ctx, row, begin);
        }
        rows.push_back(row);
    };
    pieces({"layer.fwd_temporary", "the layer's output and its dropped dense output, at the output LayerNorm",
            Category::Temporaries, atNorm, Phase::LayerFwd, Phase::LayerFwd, LayerSet::All, false},
           {{satMul(hidden, d.p), 1}, {satMul(hidden, d.r), 1}});
    const Bytes scores = satMul(abss, d.p);
    const Bytes later = satAdd(savedAfterAttention, atNorm);
    if (scores > later)
        rows.push_back({"attn.scores_temporary", "eager attention's scores before softmax, beyond what the layer saves after attention",
                        Category::Temporaries, scores - later, Phase::LayerFwd, Phase::LayerFwd, LayerSet::All, false});
    const bool savedInPlain = ctx.fullFinetune && !ctx.autocast;
    if (ctx.anyPlainLayer() && !savedInPlain)
        pieces({"layer.fwd_held", "the layer's input and first LayerNorm output, held as Python locals (not saved: autocast casts them, or the linears are frozen)",
                Category::Temporaries, satMul(hidden, 2 * d.r), Phase::LayerFwd, Phase::LayerFwd, LayerSet::Plain, false},
               {{satMul(hidden, d.r), 2}});
    if (ctx.anyCheckpointedLayer())
        rows.push_back({"layer.fwd_held", "the first LayerNorm output, held as a Python local (a checkpointed layer saves nothing but its input)",
                        Category::Temporaries, satMul(hidden, d.r), Phase::LayerFwd, Phase::LayerFwd, LayerSet::Checkpointed, false});
    pieces({"layer.bwd_temporary", "at the output dense's backward: dropout backward's gradient and the intermediate activation's gradient",
            Category::Temporaries, satAdd(satMul(hidden, d.p), satMul(d.T, d.i, d.p)), Phase::LayerBwd,
            Phase::LayerBwd, LayerSet::All, false},
           {{satMul(hidden, d.p), 1}, {satMul(d.T, d.i, d.p), 1}});
}

// BertForSequenceClassification's head (modeling_bert.py): BertPooler.forward
// takes hidden_states[:, 0], a view of the last layer's output, through
// dense and tanh; BertForSequenceClassification.forward applies dropout
// (classifier_dropout, else hidden_dropout_prob) and the classifier. What
// each op saves (tools/autograd/derivatives.yaml): addmm saves its input for
// the weight's gradient, tanh its output, native_dropout its 1-byte mask
// (CUDA), the classifier's addmm the dropped output. A saved view keeps its
// base: in one dtype the pooler keeps the whole last hidden state (tokens x
// hidden) until its backward; under autocast it saves the 16-bit copy of the
// first-token slice instead, and the last hidden state dies with the
// forward's outputs (after the loss). select's backward makes a zero
// gradient of the whole last hidden state (select_backward) that starts the
// last layer's backward.
void addClassifierHeadRows(const BuildContext& ctx, const Dims& d, std::vector<TensorRow>& rows)
{
    const bool ft = ctx.fullFinetune;
    const Bytes lastHidden = satMul(d.T, d.h, d.r);
    const bool viewSaved = ft && !ctx.autocast;
    auto add = [&](const char* key, const char* source, Category c, Bytes bytes, Phase from, Phase to) {
        if (bytes > 0)
            rows.push_back({key, source, c, bytes, from, to, LayerSet::Global, false});
    };
    add("head.last_hidden", viewSaved ? "the last layer's output, kept whole by the pooler's saved first-token view"
                                      : "the last layer's output (BertModel's last_hidden_state), alive until the forward returns",
        Category::Activations, lastHidden, Phase::HeadFwd, viewSaved ? Phase::HeadBwd : Phase::LossFwd);
    if (ft && ctx.autocast)
        add("head.pooler_in_copy", "16-bit copy of the first token's hidden state cast by autocast, saved by the pooler dense",
            Category::Activations, satMul(d.b, d.h, 2), Phase::HeadFwd, Phase::HeadBwd);
    add("head.pooler_tanh", "pooler tanh output (one vector per sequence), saved by tanh; the classifier's input without dropout",
        Category::Activations, satMul(d.b, d.h, d.p), Phase::HeadFwd, Phase::HeadBwd);
    if (ctx.dropoutActive) {
        add("head.dropout_mask", "classifier dropout mask, 1 byte per element", Category::Activations, satMul(d.b, d.h),
            Phase::HeadFwd, Phase::HeadBwd);
        if (ft)
            add("head.classifier_in", "dropped pooler output, saved by the classifier for its weight gradient",
                Category::Activations, satMul(d.b, d.h, d.p), Phase::HeadFwd, Phase::HeadBwd);
    }
    add("head.hidden_grad", "select_backward's zero gradient of the whole last hidden state", Category::Temporaries,
        lastHidden, Phase::HeadBwd, Phase::HeadBwd);
}

// A linear of the layer template has a bias when a bias tensor of the same
// module follows it in the table: nn.Linear with a bias runs aten::addmm,
// without one aten::mm (aten/src/ATen/native/Linear.cpp linear).
bool hasBias(const std::vector<ParamTensor>& layer, const ParamTensor& weight)
{
    for (const ParamTensor& t : layer)
        if (t.isBias && std::strcmp(t.path, weight.path) == 0)
            return true;
    return false;
}

// The key of a matmul output the op-level policy keeps: one per projection,
// so that latent attention's two query and two key/value linears (all
// AttnQ / AttnK / AttnV in the table) are four tensors, not two.
const char* selectiveOpKey(const ParamTensor& t)
{
    static constexpr std::pair<const char*, const char*> kLatent[] = {{"q_a_proj", "sac.q_a_proj_out"},
                                                                      {"q_b_proj", "sac.q_b_proj_out"},
                                                                      {"kv_a_proj_with_mqa", "sac.kv_a_proj_out"},
                                                                      {"kv_b_proj", "sac.kv_b_proj_out"}};
    for (const auto& [module, key] : kLatent)
        if (std::strcmp(t.module, module) == 0)
            return key;
    switch (t.kind) {
    case ModuleKind::AttnQ: return "sac.q_proj_out";
    case ModuleKind::AttnK: return "sac.k_proj_out";
    case ModuleKind::AttnV: return "sac.v_proj_out";
    case ModuleKind::AttnQkv: return "sac.qkv_proj_out";
    case ModuleKind::AttnOut: return "sac.o_proj_out";
    case ModuleKind::MlpGate: return "sac.gate_proj_out";
    case ModuleKind::MlpUp: return "sac.up_proj_out";
    case ModuleKind::MlpGateUp: return "sac.gate_up_proj_out";
    case ModuleKind::MlpDown: return "sac.down_proj_out";
    case ModuleKind::MlpIn: return "sac.fc_in_out";
    case ModuleKind::Router: return "sac.router_out";
    default: return "sac.linear_out";
    }
}

// Bytes per element of a kept matmul output: the compute dtype, except
// DeepSeek-V3's router, which runs F.linear on fp32 casts of its input and
// weight (modeling_deepseek_v3.py DeepseekV3TopkRouter): fp32 unless
// autocast casts the linear to 16 bits.
Bytes keptOutputBytes(const BuildContext& ctx, const Dims& d, const ParamTensor& t)
{
    if (t.kind == ModuleKind::Router && ctx.model.family == Family::DeepseekV3 && !ctx.autocast)
        return 4;
    return d.p;
}

// The attention kernel's output and log-sum-exp as the layer saves them
// (latent attention: the memory-efficient kernel's output at the value
// width and its log-sum-exp padded to 32 rows, or flash's at the padded
// query width; mlasaves.cpp), or as a standard layer's kernel makes them.
std::pair<Bytes, Bytes> keptAttentionBytes(const BuildContext& ctx, const Dims& d, Attention kernel)
{
    if (!ctx.model.isMla())
        return {satMul(d.T, d.a * d.d, d.p), satMul(satMul(d.b, d.a), satMul(d.s, 4))};
    SavedSet saves;
    saveMlaAttention(saves, ctx, d, kernel);
    Bytes out = 0, lse = 0;
    for (const SavedItem& item : saves.items()) {
        if (std::strcmp(item.key, "attn.out") == 0)
            out = item.bytes;
        else if (std::strcmp(item.key, "attn.lse") == 0)
            lse = item.bytes;
    }
    return {out, lse};
}

// torchtitan's op-level selective checkpointing (torchtitan @ 9dec370
// parallelize_llama.py _apply_ac_to_transformer_block, selective_ac_option
// "op"): each layer runs under torch.utils.checkpoint with a policy that
// keeps (MUST_SAVE) the outputs of aten.mm, except every second one counted
// from the layer's start, and of the flash and memory-efficient attention
// kernels; everything else is recomputed in backward. The counter is made
// fresh per checkpoint call (context_fn). Bias-free linears are aten.mm, in
// the order the layer calls them (the parameter table's order); linears
// with a bias are aten.addmm, neither kept nor counted. In a mixture of
// experts the router (and the shared experts) are nn.Linear-style mm; the
// routed experts run as one _grouped_mm per projection (transformers 5.17
// grouped_mm_experts_forward) or as bmm (Llama4TextExperts), neither of
// which the policy keeps or counts (accountant policy log, and torchtitan's
// own DeepSeek-V3 on an H200: docs/validation/gpu-h200-2026-11-27.md). The
// cache lives from the layer's forward to its recompute, which takes the
// kept tensors instead of making them again (torch/utils/checkpoint.py
// _CachedTorchDispatchMode): `reused` names the layer saves that are the
// same tensors, left out of the recompute rows.
SavedSet selectiveOpSaves(const BuildContext& ctx, const Dims& d, Attention kernel, std::vector<const char*>& reused)
{
    SavedSet kept;
    std::uint64_t mm = 0;
    Bytes loraKept = 0;
    const Bytes rank = ctx.scenario.train.peft.rank;
    for (const ParamTensor& t : ctx.table.layer) {
        if (!t.isLinearWeight || t.isExpert())
            continue;
        // A LoRA-wrapped linear runs its base layer, then lora_A and lora_B,
        // two more bias-free matmuls (PEFT lora/layer.py Linear.forward:
        // result + lora_B(lora_A(dropout(x))) * scaling).
        if (ctx.isLoraTarget(t)) {
            const bool baseCounted = !hasBias(ctx.table.layer, t);
            const std::uint64_t first = mm + (baseCounted ? 1 : 0);
            if ((first + 1) % 2 == 1)
                loraKept = satAdd(loraKept, satMul(satMul(d.T, rank), satMul(t.copies, d.p)));
            if ((first + 2) % 2 == 1)
                loraKept = satAdd(loraKept, satMul(satMul(d.T, t.rows), satMul(t.copies, d.p)));
            if (!baseCounted) {
                mm += 2;
                continue;
            }
            const bool baseKept = (mm + 1) % 2 == 1;
            mm += 3;
            if (!baseKept)
                continue;
        } else {
            if (hasBias(ctx.table.layer, t))
                continue;
            if (++mm % 2 == 0)
                continue;
        }
        if (ctx.compiledLayers && !compiledKeepsSelectiveSave(t.kind))
            continue;
        kept.save(selectiveOpKey(t), satMul(satMul(d.T, t.rows), satMul(t.copies, keptOutputBytes(ctx, d, t))),
                  "output of a matmul the op-level policy keeps (every other aten.mm of the layer), held from forward to the recompute");
        if (std::strcmp(t.module, "kv_b_proj") == 0) {
            // The values are a view of kv_b_proj's output, which attention
            // keeps whole (mlasaves.cpp), unless flash pads a copy.
            if (kernel != Attention::Flash)
                reused.push_back("attn.kv_b_out");
            continue;
        }
        switch (t.kind) {
        case ModuleKind::MlpGate: reused.push_back("mlp.gate_out"); break;
        case ModuleKind::MlpUp: reused.push_back("mlp.up_out"); break;
        case ModuleKind::MlpGateUp: reused.push_back("mlp.gate_out"); reused.push_back("mlp.up_out"); break;
        case ModuleKind::AttnQkv: reused.push_back("attn.qkv_out"); break;
        case ModuleKind::MlpIn: reused.push_back("mlp.fc_out"); break;
        // Flash reads grouped values as the projection's view (no repeat_kv copy).
        case ModuleKind::AttnV: if (kernel == Attention::Flash && !ctx.model.isMla()) reused.push_back("attn.v"); break;
        default: break;
        }
    }
    kept.save("sac.lora_out", loraKept, "outputs of LoRA's lora_A / lora_B matmuls that the op-level policy keeps");
    if (kernel == Attention::Flash || kernel == Attention::Sdpa) {
        const auto [out, lse] = keptAttentionBytes(ctx, d, kernel);
        kept.save("sac.attn_out", out, "the fused attention kernel's output, kept by the op-level policy");
        kept.save("sac.attn_lse", lse, "the attention kernel's fp32 log-sum-exp, kept by the op-level policy");
        reused.push_back("attn.out");
        reused.push_back("attn.lse");
    }
    return kept;
}

bool listed(const std::vector<const char*>& keys, const char* key)
{
    for (const char* k : keys)
        if (std::strcmp(k, key) == 0)
            return true;
    return false;
}

} // namespace

void addActivationRows(const BuildContext& ctx, std::vector<TensorRow>& rows)
{
    const ModelSpec& m = ctx.model;
    const TrainConfig& tc = ctx.scenario.train;
    const Dims d{ctx.tokens, ctx.batch, ctx.seq, m.hidden, m.intermediate, m.heads, m.kvHeads, m.headDim,
                 m.vocab, ctx.act, ctx.residual};
    const bool offload = tc.activationOffload;

    // Saved tensors of a layer whose activations are kept (Plain) live from its
    // forward to its backward; with activation offload they are on the GPU only
    // during those two events. A checkpointed layer keeps only its input and
    // rebuilds everything during its backward.
    const SavedSet saves = layerSaves(ctx, d);
    std::vector<const char*> reusedInRecompute;
    const SavedSet kept = ctx.selectiveOps && ctx.anyCheckpointedLayer()
                              ? selectiveOpSaves(ctx, d, savedAttentionKind(ctx, d), reusedInRecompute)
                              : SavedSet();
    for (const SavedItem& item : kept.items())
        rows.push_back({item.key, item.source, Category::Activations, item.bytes, Phase::LayerFwd, Phase::LayerBwd,
                        LayerSet::Checkpointed, false});
    for (const SavedItem& item : saves.items()) {
        if (ctx.anyPlainLayer()) {
            rows.push_back({item.key, item.source, Category::Activations, item.bytes, Phase::LayerFwd,
                            offload ? Phase::LayerFwd : Phase::LayerBwd, LayerSet::Plain, false});
            if (offload)
                rows.push_back({item.key, "brought back from CPU for the layer's backward (activation offload)",
                                Category::Activations, item.bytes, Phase::LayerBwd, Phase::LayerBwd, LayerSet::Plain, false});
        }
        if (ctx.anyCheckpointedLayer() && item.key != saves.layerInputKey && !listed(reusedInRecompute, item.key)) {
            const Bytes input16 = ctx.residual < 4 ? satMul(d.T, d.h, ctx.residual) : 0;
            Bytes bytes = ctx.compiledLayers ? compiledRecomputeBytes(item.key, item.bytes, input16) : item.bytes;
            if (ctx.float8Linears && replacedByFloat8Copy(item.key))
                bytes = 0;
            if (bytes != 0)
                rows.push_back({item.key,
                                bytes == item.bytes ? "recomputed during the layer's backward (gradient checkpointing)"
                                                    : "recomputed in 16-bit during the compiled layer's backward (the fp32 upcast is fused into the norm kernel)",
                                Category::Activations, bytes, Phase::LayerBwd, Phase::LayerBwd, LayerSet::Checkpointed, false});
        }
    }
    // Sliding-window layers at or past their window under sdpa
    // (masking_utils._ignore_causal_mask_sdpa keeps the mask from kv_length >=
    // sliding_window on). A mask takes sdpa off flash: transformers repeats
    // grouped keys and values to every head first (sdpa_attention.py:
    // use_gqa_in_sdpa is false with a mask), scaled_dot_product_attention
    // turns the boolean mask into a float bias of the query's dtype per call
    // (attention.cpp convert_boolean_attn_mask; preprocess_mask pads the last
    // dimension to 16), and the memory-efficient kernel saves that bias and a
    // log-sum-exp padded to 32 rows (_efficient_attention_forward). Rows on
    // the kept sliding layers, over what the flash rows above hold (accountant:
    // gemma-3-1b-pt-bf16-sdpa-b1-s4096-nocache was -2.4 % without them).
    // Checkpointed layers hold the bias only during their recompute (not
    // planned), and fp32 runs with grouped heads, planned on sdpa's math path,
    // move to the memory-efficient kernel too (not planned).
    const Attention kernel = savedAttentionKind(ctx, d);
    const bool masked = tc.attention == Attention::Sdpa && m.slidingWindow != 0 && d.s >= m.slidingWindow
                        && ctx.anyPlainLayer() && !offload && (kernel == Attention::Flash || kernel == Attention::Sdpa);
    if (masked) {
        rows.push_back({"attn.mask_bias", "float attention bias from the sliding-window mask, batch x seq x seq (padded to 16), saved by the memory-efficient kernel",
                        Category::Activations, satMul(satMul(d.b, d.s), satMul(ceilDiv(d.s, 16) * 16, d.p)),
                        Phase::LayerFwd, Phase::LayerBwd, LayerSet::SlidingPlain, false});
        if (kernel == Attention::Flash) {
            // repeat_kv is expand + reshape: with one KV head the reshape is a
            // view (accountant: gemma-3-1b, one KV head, no copy); with more
            // it copies.
            if (d.kv > 1 && d.kv < d.a)
                rows.push_back({"attn.kv_repeated", "keys and values repeated to every head (repeat_kv), over the grouped ones flash would keep",
                                Category::Activations, satMul(satMul(d.T, 2 * (d.a - d.kv)), satMul(d.d, d.p)),
                                Phase::LayerFwd, Phase::LayerBwd, LayerSet::SlidingPlain, false});
            const Bytes lsePad = ceilDiv(d.s, 32) * 32 - d.s;
            if (lsePad > 0)
                rows.push_back({"attn.lse_padding", "the memory-efficient kernel's log-sum-exp rows padded to 32 (fp32)",
                                Category::Activations, satMul(satMul(d.b, d.a), satMul(lsePad, 4)),
                                Phase::LayerFwd, Phase::LayerBwd, LayerSet::SlidingPlain, false});
        }
    }
    if (ctx.float8Linears)
        addFloat8Rows(ctx, d.T, rows);
    if (ctx.anyCheckpointedLayer()) {
        rows.push_back({"checkpoint.layer_input", "the layer input kept as the checkpoint boundary (residual stream dtype)",
                        Category::Activations, satMul(d.T, d.h, d.r), Phase::LayerFwd, offload ? Phase::LayerFwd : Phase::LayerBwd,
                        LayerSet::Checkpointed, false});
        if (offload)
            rows.push_back({"checkpoint.layer_input", "the checkpoint boundary brought back from CPU for the recompute (activation offload)",
                            Category::Activations, satMul(d.T, d.h, d.r), Phase::LayerBwd, Phase::LayerBwd, LayerSet::Checkpointed, false});
    }

    // Temporaries of one layer [flag: estimates until checked on a GPU]:
    // forward: the block output before the residual add; eager: the 16-bit
    // scores before softmax. Backward: the incoming and outgoing hidden-state
    // gradients and the widest intermediate gradient pair.
    const Bytes abss = satMul(satMul(d.b, d.a), satMul(d.s, d.s));
    const bool eager = savedAttentionKind(ctx, d) == Attention::Eager;
    if (m.family == Family::Bert) {
        Bytes savedAfterAttention = 0;
        for (std::size_t k = saves.savedThroughAttention; k < saves.items().size(); ++k)
            savedAfterAttention = satAdd(savedAfterAttention, saves.items()[k].bytes);
        addBertLayerTemporaries(ctx, d, eager ? abss : 0, savedAfterAttention, rows);
    } else {
        // Mixture of experts (moesaves.h): the weighted expert outputs and
        // their token-order copy in forward; the expanded output gradient,
        // the index backward's zeros and result in backward (accountant:
        // the *-moe reference cases).
        const Bytes blockOut =
            m.isMoe() ? std::max(satMul(d.T, d.h, d.p), moeForwardTemporaryBytes(ctx, d)) : satMul(d.T, d.h, d.p);
        // A checkpointed Llama-family layer's forward is its own script (checkpointedforward.h).
        const bool scripted = scriptedCheckpointedForward(ctx, d);
        rows.push_back({"layer.fwd_temporary",
                        "block output before the residual add (MoE: the weighted expert outputs in both orders); eager "
                        "attention: 16-bit scores before softmax",
                        Category::Temporaries, satAdd(blockOut, eager ? satMul(abss, d.p) : 0), Phase::LayerFwd,
                        Phase::LayerFwd, scripted ? LayerSet::Plain : LayerSet::All, false});
        if (scripted)
            addCheckpointedForwardScript(ctx, d, rows);
        const Bytes scoreGrads = eager ? satMul(abss, 4 + d.p) : 0;
        if (m.isMoe()) {
            // Several tensors, asked of the allocator one by one.
            const TensorPiece moe = moeBackwardTemporaries(ctx, d);
            TensorRow row{"layer.bwd_temporary",
                          "hidden-state gradients in and out, three token-slot gradients of the expert block "
                          "(moesaves.h); eager: score gradients",
                          Category::Temporaries,
                          satAdd(satAdd(satMul(d.T, d.h, 2 * d.r), satMul(moe.bytes, moe.count)), scoreGrads),
                          Phase::LayerBwd,
                          Phase::LayerBwd,
                          LayerSet::All,
                          false};
            if (ctx.pieces) {
                const std::size_t begin = ctx.pieces->size();
                ctx.pieces->push_back({satMul(d.T, d.h, 2 * d.r), 1});
                ctx.pieces->push_back(moe);
                if (scoreGrads > 0)
                    ctx.pieces->push_back({scoreGrads, 1});
                attachPieces(ctx, row, begin);
            }
            rows.push_back(row);
        } else {
            rows.push_back(
                {"layer.bwd_temporary",
                 "hidden-state gradients in and out, the widest intermediate gradient pair; eager: score gradients",
                 Category::Temporaries,
                 satAdd(satAdd(satMul(d.T, d.h, 2 * d.r), satMul(d.T, d.i, 2 * d.p)), scoreGrads), Phase::LayerBwd,
                 Phase::LayerBwd, LayerSet::All, false});
        }
    }

    // Embedding side: dropout masks and the embedding LayerNorm (GPT-2, BERT).
    // BertEmbeddings sums fp32 tables (fp32 under autocast too: the residual
    // stream's dtype) and LayerNorm saves that sum.
    if (m.family == Family::Bert) {
        rows.push_back({"embed.norm", "embedding LayerNorm input and statistics", Category::Activations,
                        satAdd(satMul(d.T, d.h, d.r), satMul(d.T, 8)), Phase::EmbedFwd, Phase::EmbedBwd,
                        LayerSet::Global, false});
        // BertModel.forward holds embedding_output (the first layer's input)
        // until it returns, after the pooler. Where the first layer keeps it
        // (saved by query/key/value in one dtype, or as a checkpoint boundary)
        // it is that layer's row; otherwise (autocast's casts, frozen
        // linears) it is a tensor of its own (accountant: 48 MiB alive at the
        // bert-base-uncased-cls bf16-mixed b32 s512 peak).
        const bool firstLayerKeepsIt = ctx.anyCheckpointedLayer() || (ctx.fullFinetune && !ctx.autocast);
        if (!firstLayerKeepsIt)
            rows.push_back({"embed.output", "the embedding output, held by BertModel.forward until it returns", Category::Activations,
                            satMul(d.T, d.h, d.r), Phase::EmbedFwd, Phase::HeadFwd, LayerSet::Global, false});
    }
    if (ctx.dropoutActive && m.learnedPositions)
        rows.push_back({"embed.dropout_mask", "embedding dropout mask, 1 byte per element", Category::Activations,
                        satMul(d.T, d.h), Phase::EmbedFwd, Phase::EmbedBwd, LayerSet::Global, false});

    // Head: final norm saves, the lm_head input (trainable head only).
    if (m.classifier()) {
        addClassifierHeadRows(ctx, d, rows);
    } else {
        SavedSet head;
        if (m.family == Family::Bert) {
            head.save("head.transform_in", ctx.fullFinetune ? satMul(d.T, d.h, d.p) : 0, "MLM transform input");
            head.save("head.transform_out", satMul(d.T, d.h, d.p), "MLM transform output, saved by GELU");
            head.save("head.ln", satAdd(satMul(d.T, d.h, d.p), satMul(d.T, 8)), "MLM LayerNorm input and statistics");
        } else {
            saveNorm(head, ctx, d, "final_norm.in", "final_norm.normed", "final_norm.stat");
        }
        if (ctx.fullFinetune)
            head.save(ctx.autocast ? "lm_head.in_copy" : "final_norm.out", satMul(d.T, d.h, ctx.autocast ? 2 : d.r),
                      "lm_head input, saved for the head's weight gradient");
        for (const SavedItem& item : head.items())
            rows.push_back({item.key, item.source, Category::Activations, item.bytes, Phase::HeadFwd, Phase::HeadBwd,
                            LayerSet::Global, false});
    }

    // Logits and cross-entropy (memory-model.md §2; transformers
    // loss/loss_utils.py ForCausalLMLoss): 16-bit logits, their fp32 upcast,
    // log_softmax's saved fp32 output; in backward nll_loss's dense fp32
    // gradient and log_softmax's, while the saved output lives: 10 B per
    // token x vocab in forward, 12 B in backward. Chunked loss bounds the fp32
    // terms to one chunk.
    // A sequence classifier has one row of num_labels logits per sequence
    // (modeling_bert.py BertForSequenceClassification.forward: CrossEntropyLoss
    // over logits.view(-1, num_labels); num_labels 1 regresses with MSELoss,
    // whose saved tensors are as small) instead of tokens x vocab.
    const Bytes TV = m.classifier() ? satMul(d.b, m.numLabels) : satMul(d.T, d.V);
    const Bytes logitBytes = ctx.act;
    const bool upcast = logitBytes != 4 && ctx.profile.fp32LogitsUpcast && (m.family != Family::Bert || ctx.autocast);
    const Bytes chunks = tc.chunkedCrossEntropy ? std::max<Bytes>(1, tc.lossChunks) : 1;
    const Bytes lossBytes = upcast || logitBytes == 4 ? 4 : logitBytes;
    // The training loop decides how long the outputs live (TrainingLoop): the
    // Trainer drops them before backward; `outputs = model(**batch)` in a
    // hand-written loop keeps them through backward and the optimizer step,
    // and the previous step's outputs live until the next forward returns
    // (Python rebinds the name only then). Checked against the accountant's
    // custom-loop cases (tests/data/reference).
    // A custom loop keeps the outputs to the next forward; a pipeline
    // schedule that returns them (scenario.h ppReturnOutputs) keeps the
    // logits to the end of the step, on the last stage, the only one with
    // the head (parallelrows.cpp adds the other micro-batches'), and clears
    // them before the next step's first forward.
    const bool loopKeeps = tc.loop == TrainingLoop::Custom;
    const bool keepOutputs = loopKeeps || (ctx.rank && ctx.scenario.hardware.parallel.ppReturnOutputs);
    const bool compiled = compiledLoss(ctx.scenario);
    // Megatron-LM's model code computes its own vocabulary-parallel loss
    // (megatronrows.cpp addMegatronLossRows).
    const bool megatronLoss = ctx.megatron && !m.classifier() && !tc.chunkedCrossEntropy;
    if (compiled)
        addCompiledLossRows(ctx, TV, logitBytes, keepOutputs, rows);
    else if (megatronLoss)
        addMegatronLossRows(TV, logitBytes, rows);
    else
        rows.push_back({"logits",
                        m.classifier() ? "classifier output: sequences x num_labels in the compute dtype"
                                       : "lm_head output: tokens x vocab in the compute dtype",
                        Category::Logits, satMul(TV, logitBytes), Phase::HeadFwd,
                        keepOutputs ? Phase::OptimizerStep : Phase::LossFwd, LayerSet::Global, false});
    if (m.finalLogitSoftcap)
        // tanh saves its output for backward (derivatives.yaml tanh_backward),
        // freed when the loss backward reaches it.
        rows.push_back({"logits.softcap_tanh", "tanh output of the final logit soft-capping (Gemma 2), saved for its backward",
                        Category::Logits, satMul(TV, logitBytes), Phase::HeadFwd, Phase::LossBwd, LayerSet::Global, false});
    if (loopKeeps)
        rows.push_back({"loop.previous_logits", "the previous step's outputs.logits, alive until this forward returns (custom loop)",
                        Category::Logits, satMul(TV, logitBytes), Phase::Load, Phase::LossFwd, LayerSet::Global, false});
    if (loopKeeps && !ctx.fullFinetune && ctx.anyCheckpointedLayer())
        // Checkpointing over frozen embeddings makes the embedding output a leaf
        // that requires grad (modeling_utils.py enable_input_require_grads), so
        // its gradient is accumulated into .grad; the held outputs keep the
        // previous step's graph, whose AccumulateGrad node keeps that leaf and
        // its .grad until this forward returns (accountant: Mistral-7B QLoRA
        // custom loop, 64 + 32 MiB at the loss forward).
        rows.push_back({"loop.previous_input_embeds", "the previous step's embedding output and its .grad, kept by the held outputs' graph",
                        Category::Activations, satMul(d.T, d.h, 2 * d.r), Phase::Load, Phase::LossFwd, LayerSet::Global, false});
    if (ctx.trainUseCache) {
        // outputs.past_key_values: DynamicCache copies each layer's keys and
        // values (cache_utils.py DynamicLayer.update, torch.cat), kv heads only,
        // in the keys' dtype (lazy_initialization takes it for both). Under
        // autocast over fp32 weights, RoPE's cos/sin follow the fp32 residual
        // stream, so the rotated keys and the cache are fp32 while attention
        // saves its own 16-bit casts: the cache is a tensor of its own, alive
        // until the outputs die (the forward's end in the Trainer loop).
        // Otherwise attention saves the cache's tensors themselves, and only a
        // custom loop keeps them past the layer's backward.
        const bool rope = !m.learnedPositions;
        const Bytes cacheElement = (rope && ctx.autocast && d.r == 4) ? 4 : d.p;
        const Bytes kvBytes = satMul(d.T, 2 * d.kv * d.d, cacheElement);
        if (cacheElement != d.p)
            rows.push_back({"kv_cache.fp32", "this step's past_key_values: fp32 keys and values (RoPE under autocast), held by the outputs",
                            Category::KvCache, kvBytes, Phase::LayerFwd, loopKeeps ? Phase::OptimizerStep : Phase::LossFwd,
                            LayerSet::All, false});
        else if (loopKeeps)
            rows.push_back({"loop.kv_cache", "this step's outputs.past_key_values after the layer's backward (custom loop, use_cache)",
                            Category::KvCache, kvBytes, Phase::LayerBwd, Phase::OptimizerStep, LayerSet::All, false});
        if (loopKeeps)
            rows.push_back({"loop.previous_kv_cache", "the previous step's past_key_values, alive until this forward returns",
                            Category::KvCache, kvBytes, Phase::Load, Phase::LossFwd, LayerSet::All, false});
    }
    if (compiled || megatronLoss)
        return;
    if (upcast)
        rows.push_back({"logits.fp32", "logits.float() inside the loss (transformers ForCausalLMLoss)", Category::Logits,
                        ceilDiv(satMul(TV, 4), chunks), Phase::LossFwd, Phase::LossFwd, LayerSet::Global, false});
    rows.push_back({"loss.log_softmax", "log_softmax output saved by cross_entropy for its backward", Category::Logits,
                    ceilDiv(satMul(TV, lossBytes), chunks), Phase::LossFwd, Phase::LossBwd, LayerSet::Global, false});
    TensorRow lossGrad{"loss.grad", "nll_loss backward's dense gradient and log_softmax backward's, both fp32",
                       Category::Logits, ceilDiv(satMul(TV, 2 * lossBytes), chunks), Phase::LossBwd, Phase::LossBwd,
                       LayerSet::Global, false};
    // Two tensors to the allocator, one after the other (nll_loss_backward's
    // output, then log_softmax_backward's), so each may take a block the
    // forward's fp32 logits left.
    if (ctx.pieces) {
        const std::size_t begin = ctx.pieces->size();
        const Bytes first = ceilDiv(satMul(TV, lossBytes), chunks);
        ctx.pieces->push_back({first, 1});
        ctx.pieces->push_back({lossGrad.bytes - std::min(first, lossGrad.bytes), 1});
        attachPieces(ctx, lossGrad, begin);
    }
    rows.push_back(lossGrad);
    rows.push_back({"logits.grad", "gradient of the logits in the compute dtype, consumed by the lm_head backward",
                    Category::Logits, satMul(TV, logitBytes), Phase::HeadBwd, Phase::HeadBwd, LayerSet::Global, false});
}

} // namespace headroom::detail
