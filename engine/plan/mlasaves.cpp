// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/mlasaves.h"

#include <cstring>

namespace headroom::detail {

bool loraTargetModule(const BuildContext& ctx, const char* module)
{
    if (ctx.loraTargets.empty()) // no adapters: the common case, asked once per linear of every plan
        return false;
    for (const ParamTensor& t : ctx.table.layer)
        if (t.isLinearWeight && std::strcmp(t.module, module) == 0 && ctx.isLoraTarget(t))
            return true;
    return false;
}

namespace {

// The input of one of the attention's linears, as saveLinearInput in
// layersaves.cpp: the tensor itself in one dtype, autocast's own 16-bit copy
// per linear, and with a LoRA adapter its fp32 (16-bit under autocast) cast.
void saveInput(SavedSet& s, const BuildContext& ctx, const Dims& d, const char* sharedKey, const char* copyKey,
               const char* loraKey, Bytes width, const char* module)
{
    if (ctx.fullFinetune) {
        if (ctx.autocast)
            s.save(copyKey, satMul(d.T, width, 2), "16-bit copy of the input cast by autocast, saved by the linear");
        else
            s.save(sharedKey, satMul(d.T, width, d.p), "input of the linear, saved for its weight gradient");
    }
    if (loraTargetModule(ctx, module)) {
        const bool dropout = ctx.scenario.train.peft.dropout > 0;
        s.save(loraKey, satMul(d.T, width, (ctx.autocast ? 2 : 4) + (dropout ? 1 : 0)),
               "LoRA input cast for lora_A (fp32, or 16-bit under autocast), plus the dropout mask when lora_dropout > 0");
    }
}

// DeepseekV3RMSNorm over a latent (q_a_layernorm, kv_a_layernorm): the input,
// a 16-bit projection output (a strided view for kv_a), cast to fp32 and
// saved by pow and mul; the fp32 rsqrt per token; the normalised input cast
// back, saved by `weight * x` when the weight trains.
void saveLatentNorm(SavedSet& s, const BuildContext& ctx, const Dims& d, Bytes width, const char* inKey,
                    const char* statKey, const char* normedKey)
{
    s.save(inKey, satMul(d.T, width, 4), "latent norm input cast to fp32, saved by pow and mul");
    s.save(statKey, satMul(d.T, 4), "fp32 rsqrt of the variance, one per token");
    if (ctx.fullFinetune)
        s.save(normedKey, satMul(d.T, width, d.p), "normalised latent, saved by `weight * x` for the norm weight's gradient");
}

} // namespace

void saveMlaAttention(SavedSet& s, const BuildContext& ctx, const Dims& d, Attention kernel)
{
    const ModelSpec& m = ctx.model;
    const Bytes qk = m.headDim, v = m.vHeadDim, nope = m.qkNopeHeadDim();
    // The query path: q_a_proj and kv_a_proj_with_mqa read the input norm's
    // output; q_b_proj reads q_a_layernorm's output (a new tensor: fp32 under
    // autocast, `weight * x` with an fp32 weight), which autocast casts again.
    if (m.qLoraRank > 0) {
        saveInput(s, ctx, d, "norm1.out", "q_a.in_copy", "lora.q_a_in", d.h, "q_a_proj");
        saveLatentNorm(s, ctx, d, m.qLoraRank, "q_a_norm.in", "q_a_norm.stat", "q_a_norm.normed");
        saveInput(s, ctx, d, "q_a_norm.out", "q_b.in_copy", "lora.q_b_in", m.qLoraRank, "q_b_proj");
    } else {
        saveInput(s, ctx, d, "norm1.out", "q.in_copy", "lora.q_in", d.h, "q_proj");
    }
    saveInput(s, ctx, d, "norm1.out", "kv_a.in_copy", "lora.kv_a_in", d.h, "kv_a_proj_with_mqa");
    saveLatentNorm(s, ctx, d, m.kvLoraRank, "kv_a_norm.in", "kv_a_norm.stat", "kv_a_norm.normed");
    saveInput(s, ctx, d, "kv_a_norm.out", "kv_b.in_copy", "lora.kv_b_in", m.kvLoraRank, "kv_b_proj");
    // RoPE on the decoupled parts (apply_rotary_pos_emb_interleave) saves
    // only cos and sin. The query is torch.cat of its two parts and the key a
    // new tensor the parts are copied into (expand_kv): both new, every head
    // at the query/key width. The values are a view of kv_b_proj's output,
    // which keeps it whole (heads x (qk_nope + v) per token).
    const Bytes qkWidth = satMul(d.a, qk);
    s.save("attn.q", satMul(d.T, qkWidth, d.p), "query, torch.cat of its RoPE-free and rotated parts, saved by attention");
    s.save("attn.k", satMul(d.T, qkWidth, d.p), "key, the latent's expansion and the shared rotated key copied into one tensor");
    const Bytes vWidth = satMul(d.a, v);
    const Bytes abss = satMul(satMul(d.b, d.a), satMul(d.s, d.s));
    if (kernel == Attention::Flash) {
        // flash_attention_2 needs one head width: transformers pads the
        // values to it (F.pad, a new tensor) and slices the output back.
        s.save("attn.v_padded", satMul(d.T, qkWidth, d.p), "values padded to the query/key head width for flash attention");
        s.save("attn.out", satMul(d.T, qkWidth, d.p), "flash attention's output (padded width), saved by its backward");
        s.save("attn.lse", satMul(satMul(d.b, d.a), satMul(d.s, 4)), "fp32 log-sum-exp per head and token");
        if (ctx.fullFinetune)
            s.save("attn.o_in", satMul(d.T, vWidth, d.p), "the output sliced to the value width and made contiguous, saved by o_proj");
    } else {
        s.save("attn.kv_b_out", satMul(d.T, satMul(d.a, nope + v), d.p),
               "kv_b_proj output, kept whole by the value view attention saves");
        if (kernel == Attention::Eager) {
            // eager_attention_forward: fp32 softmax and its 16-bit copy for the value matmul.
            if (d.p != 4) {
                s.save("attn.probs_fp32", satMul(abss, 4), "fp32 softmax output, saved by softmax");
                s.save("attn.probs", satMul(abss, d.p), "16-bit copy of the probabilities, saved by the value matmul");
            } else {
                s.save("attn.probs", satMul(abss, d.p), "softmax output, saved by softmax and the value matmul");
            }
            if (ctx.fullFinetune)
                s.save("attn.o_in", satMul(d.T, vWidth, d.p), "merged heads (contiguous copy), saved by o_proj");
        } else {
            // The memory-efficient kernel (sdpa with a value head narrower
            // than the query's) saves its output, batch x seq x heads x v, which
            // o_proj reads without a copy, and a log-sum-exp padded to 32 rows.
            s.save("attn.out", satMul(d.T, vWidth, d.p), "attention output, saved by the kernel's backward and by o_proj");
            s.save("attn.lse", satMul(satMul(d.b, d.a), satMul(ceilDiv(d.s, 32) * 32, 4)),
                   "fp32 log-sum-exp per head and token, padded to 32 rows (memory-efficient kernel)");
        }
    }
    if (loraTargetModule(ctx, "o_proj"))
        s.save("lora.o_in", satMul(d.T, vWidth, ctx.autocast ? 2 : 4), "merged heads cast for the LoRA adapter of o_proj");
}

} // namespace headroom::detail
