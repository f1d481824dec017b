// SPDX-License-Identifier: GPL-3.0-or-later
// What one layer saves for backward, per family (plan/layersaves.h).
#include "plan/layersaves.h"

#include "plan/mlasaves.h"
#include "plan/moesaves.h"

#include <algorithm>

namespace headroom::detail {

// Bytes a normalisation layer saves. RMSNorm (HF LlamaRMSNorm): input upcast to
// fp32 (saved by pow and mul), fp32 rsqrt per token, and the normalised input
// saved by `weight * x` only when the weight is trainable. LayerNorm (native
// layer_norm): its input plus fp32 mean and rstd per token.
// The normalised input that `weight * x` saves is a tensor of its own, not the
// norm's output that the next linear saves (keys differ on purpose: in one
// dtype both are kept; helper finding on the Qwen fp32 cases). Gemma's norm
// multiplies in fp32 (GemmaRMSNorm: _norm(x.float()) * (1 + weight.float());
// Gemma3RMSNorm the same), and so does OLMo 2's (modeling_olmo2.py
// Olmo2RMSNorm.forward: (self.weight * hidden_states).to(input_dtype), with
// hidden_states still fp32): the normalised input is fp32 whatever the dtype.
// A norm of a sublayer's output (OLMo 2's post-norms) reads the compute dtype,
// not the residual stream: `sublayerInput`.
static bool fp32NormProduct(const ModelSpec& m)
{
    return m.family == Family::Gemma || m.family == Family::Gemma2 || m.family == Family::Gemma3
        || m.family == Family::Olmo2;
}

void saveNorm(SavedSet& s, const BuildContext& ctx, const Dims& d, const char* inKey, const char* normedKey,
              const char* statKey, bool sublayerInput)
{
    const bool trainable = ctx.fullFinetune;
    if (ctx.model.norm == NormKind::RmsNorm) {
        const Bytes inBytes = ctx.profile.fp32NormUpcast ? 4 : sublayerInput ? d.p : d.r;
        const bool fp32Normed = fp32NormProduct(ctx.model);
        s.save(inKey, satMul(d.T, d.h, inBytes), "norm input (fp32 upcast in HF RMSNorm), saved by pow/mul");
        s.save(statKey, satMul(d.T, 4), "fp32 rsqrt of the variance, one per token");
        if (trainable)
            s.save(normedKey, satMul(d.T, d.h, fp32Normed ? 4 : d.r), "normalised input, saved by `weight * x` for the norm weight's gradient");
    } else {
        // layer_norm is on autocast's fp32 list (aten/src/ATen/autocast_mode.cpp):
        // a 16-bit residual stream (a LoRA base loaded in 16-bit) is cast to
        // fp32 and the cast is what native_layer_norm saves (accountant:
        // gpt2-bf16-mixed-sdpa-b8-s1024-lora8 was -2.5 %).
        const Bytes inBytes = ctx.autocast ? 4 : d.r;
        s.save(inKey, satMul(d.T, d.h, inBytes), "LayerNorm input (native_layer_norm saves input, mean, rstd; fp32 under autocast)");
        s.save(statKey, satMul(d.T, 8), "fp32 mean and rstd, one each per token");
    }
}

// Qwen3's q_norm / k_norm (modeling_qwen3.py Qwen3Attention.forward): a
// Qwen3RMSNorm over head_dim applied to q_proj's (k_proj's) output viewed per
// head. The same ops as saveNorm's RMSNorm, over `heads` x head_dim elements
// per token with one rsqrt per token and head; its input is the projection's
// output, so in the compute dtype, and so is the normalised tensor that
// `weight * x` saves (x.to(input_dtype)). RoPE's products save only cos and
// sin, so the norm's output is not kept.
// Gemma 3's q_norm / k_norm (modeling_gemma3.py Gemma3Attention.forward, the
// same place): Gemma3RMSNorm(head_dim), which multiplies in fp32
// (_norm(x.float()) * (1.0 + weight.float())), so the saved normalised heads
// are fp32.
// OLMo 2's (modeling_olmo2.py Olmo2Attention.forward: q_norm(q_proj(x))
// before the per-head view): Olmo2RMSNorm over the whole projection, so one
// rsqrt per token (`perHead` false), and an fp32 product (saveNorm).
static void saveHeadNorm(SavedSet& s, const BuildContext& ctx, const Dims& d, Bytes heads, const char* inKey,
                  const char* outKey, const char* statKey, bool perHead = true)
{
    const Bytes width = satMul(heads, d.d);
    const Bytes inBytes = ctx.profile.fp32NormUpcast ? 4 : d.p;
    s.save(inKey, satMul(d.T, width, inBytes), "q/k norm input (fp32 upcast in the RMSNorm), saved by pow/mul");
    s.save(statKey, satMul(d.T, perHead ? heads : 1, 4),
           perHead ? "fp32 rsqrt of the variance, one per token and head" : "fp32 rsqrt of the variance, one per token");
    if (ctx.fullFinetune)
        s.save(outKey, satMul(d.T, width, fp32NormProduct(ctx.model) ? 4 : d.p),
               "normalised q or k, saved by `weight * x` for the norm weight's gradient");
}

// The input of a linear: saved by the linear when its weight is trainable (for
// the weight gradient). Under autocast every linear casts its own 16-bit copy
// (autocast caches weights, not activations: autocast_mode.cpp); in one dtype
// the input tensor is shared. A LoRA-wrapped frozen linear saves, through the
// adapter, the input cast to the adapters' fp32 (PEFT lora/layer.py
// _cast_input_dtype), a 16-bit copy under autocast, the dropout mask, and A's output.
static void saveLinearInput(SavedSet& s, const BuildContext& ctx, const Dims& d, const char* sharedKey, const char* copyKey,
                     Bytes inFeatures, bool trainable, bool loraTarget, const char* loraKey)
{
    if (trainable) {
        if (ctx.autocast)
            s.save(copyKey, satMul(d.T, inFeatures, 2), "16-bit copy of the input cast by autocast, saved by the linear");
        else
            s.save(sharedKey, satMul(d.T, inFeatures, d.p), "input of the linear, saved for its weight gradient");
    }
    if (loraTarget) {
        const bool dropout = ctx.scenario.train.peft.dropout > 0;
        const Bytes castBytes = ctx.autocast ? 2 : 4;
        s.save(loraKey, satMul(d.T, inFeatures, castBytes + (dropout ? 1 : 0)),
               "LoRA input cast for lora_A (fp32, or 16-bit under autocast), plus the dropout mask when lora_dropout > 0");
    }
}

static Bytes loraAOutBytes(const BuildContext& ctx, const Dims& d, Bytes targetsInLayer)
{
    return satMul(satMul(d.T, ctx.scenario.train.peft.rank), satMul(targetsInLayer, ctx.autocast ? 2 : 4));
}

static void attentionSaves(SavedSet& s, const BuildContext& ctx, const Dims& d, Attention attn, bool trainableO, bool oLora,
                    Bytes qkvOutBytesIfView, bool queryCopyOnly = false)
{
    const bool kvExpanded = attn != Attention::Flash;  // HF repeat_kv before sdpa/eager (memory-model.md §1 GQA)
    const Bytes kvHeads = kvExpanded ? d.a : d.kv;
    if (queryCopyOnly) {
        s.save("attn.q_copy", satMul(d.T, d.a * d.d, d.p),
               "query copied by the scores matmul (a strided view of the fused output cannot be reshaped in place)");
    } else if (qkvOutBytesIfView > 0) {
        s.save("attn.qkv_out", qkvOutBytesIfView, "fused qkv output, kept whole by the views attention saves");
    } else {
        s.save("attn.q", satMul(d.T, d.a * d.d, d.p), "query after RoPE, saved by attention");
        s.save("attn.k", satMul(d.T, kvHeads * d.d, d.p), "keys (repeated to all heads unless the kernel reads GQA directly)");
        s.save("attn.v", satMul(d.T, kvHeads * d.d, d.p), "values (repeated likewise)");
    }
    const Bytes abss = satMul(satMul(d.b, d.a), satMul(d.s, d.s));
    const bool dropout = ctx.dropoutActive;
    if (attn == Attention::Eager && ctx.model.family == Family::GptOss) {
        // gpt-oss's eager_attention_forward (modeling_gpt_oss.py, 5.17): the
        // scores get one more column, the head's sink (torch.cat), minus the
        // row max (max(dim=-1) saves its int64 indices), then a softmax in the
        // scores' own dtype (dtype=combined_logits.dtype) that saves its output;
        // the value matmul reads probs[..., :-1], a view that keeps it whole.
        // The sinks are a parameter in its stored dtype: under autocast over
        // fp32 weights torch.cat promotes the 16-bit scores to fp32, the
        // softmax runs in fp32, and autocast casts the view the value matmul
        // reads back to 16-bit, a copy that matmul saves (accountant:
        // gpt-oss-20b bf16-mixed eager, the *-moe reference cases).
        const Bytes withSink = satMul(satMul(d.b, d.a), satMul(d.s, d.s + 1));
        const Bytes probBytes = ctx.autocast ? d.r : d.p;
        s.save("attn.probs_sinks", satMul(withSink, probBytes),
               "softmax over the scores and the sink column, saved by softmax and (as a view) by the value matmul");
        if (probBytes != d.p)
            s.save("attn.probs_copy", satMul(abss, d.p),
                   "16-bit copy of the probabilities cast by autocast for the value matmul, which saves it");
        s.save("attn.max_indices", satMul(satMul(d.b, d.a), satMul(d.s, 8)), "int64 indices of the row max subtracted before the softmax, saved by max");
        if (dropout) {
            s.save("attn.dropout_mask", abss, "attention dropout mask, 1 byte per score");
            s.save("attn.probs_dropped", satMul(abss, d.p), "dropped probabilities, saved by the value matmul");
        }
    } else if (attn == Attention::Eager) {
        // Eager: fp32 softmax (eager_attention_forward in modeling_llama.py,
        // modeling_gpt_neox.py, gemma, phi3...: softmax(dtype=float32)) plus its
        // 16-bit copy fed to the value matmul; GPT-2/BERT softmax in the input
        // dtype, fp32 under autocast (fp32_set_opt_dtype); dropout adds a 1-byte
        // mask and the dropped copy (Korthikanti §4.1: 5as²b).
        const Family f = ctx.model.family;
        const bool fp32Softmax = (f != Family::Gpt2 && f != Family::Bert) || ctx.autocast;
        if (fp32Softmax && d.p != 4) {
            s.save("attn.probs_fp32", satMul(abss, 4), "fp32 softmax output, saved by softmax");
            // With dropout the value matmul saves the dropped copy instead, and
            // dropout saves only its mask (accountant: santacoder eager b4).
            if (!dropout)
                s.save("attn.probs", satMul(abss, d.p), "16-bit copy of the probabilities, saved by the value matmul");
        } else {
            s.save("attn.probs", satMul(abss, d.p), "softmax output, saved by softmax and the value matmul");
        }
        if (dropout) {
            s.save("attn.dropout_mask", abss, "attention dropout mask, 1 byte per score");
            s.save("attn.probs_dropped", satMul(abss, d.p), "dropped probabilities, saved by the value matmul");
        }
    } else {
        s.save("attn.out", satMul(d.T, d.a * d.d, d.p), "attention output, saved by the fused kernel's backward");
        s.save("attn.lse", satMul(satMul(d.b, d.a), satMul(d.s, 4)), "fp32 log-sum-exp per head and token (flash / memory-efficient kernels)");
    }
    // transpose(1,2).contiguous() + reshape: the o_proj input. The fused
    // kernels allocate their output like the query (flash_api.cpp mha_fwd:
    // empty_like(q)); a query that is a transposed view of the projection
    // (batch x seq x heads x dim in memory, kept so by RoPE's elementwise ops
    // in the Llama layout) gives an output that .contiguous() does not copy, so
    // o_proj saves attn.out itself (accountant: the Llama-family flash cases
    // were +0.4 to +0.9 % before). Eager attention, and queries made
    // contiguous in heads-first order (GPT-NeoX's rotary cat), copy.
    // BERT's query is the same transposed view of its projection
    // (modeling_bert.py BertSelfAttention.forward: view(...).transpose(1, 2)),
    // and the memory-efficient kernel allocates its output batch x seq x heads
    // x dim whatever the query (attention.cu _efficient_attention_forward); a
    // query that is a strided slice of a fused projection (GPT-2's and
    // GPT-BigCode's c_attn split) is not dense, so flash's empty_like gives a
    // contiguous batch x seq x heads x dim output as well: no copy in either
    // (accountant: the gpt2 sdpa cases were +0.6 to +1.7 %, the
    // bert-base-uncased-cls cases +6 %, with one).
    // GPT-NeoX's heads-first query (its rotary cat) copies only under flash:
    // the memory-efficient kernel's output is batch x seq x heads x dim
    // whatever the query (accountant: pythia-160m fp32 sdpa was +2.2 %).
    const bool sharesOut = attn != Attention::Eager && !(ctx.model.family == Family::GptNeoX && attn == Attention::Flash);
    if (trainableO)
        s.save(sharesOut ? "attn.out" : "attn.o_in", satMul(d.T, d.a * d.d, d.p),
               "merged heads (contiguous copy), saved by the output projection");
    if (oLora)
        s.save("lora.o_in", satMul(d.T, d.a * d.d, ctx.autocast ? 2 : 4), "merged heads cast for the LoRA adapter of the output projection");
    if (dropout && ctx.model.family != Family::Llama)
        s.save("attn.resid_dropout", satMul(d.T, d.h), "residual dropout mask after attention, 1 byte per element");
}

static bool targeted(const BuildContext& ctx, ModuleKind kind)
{
    if (ctx.loraTargets.empty()) // no adapters (full fine-tuning, inference)
        return false;
    for (const ParamTensor& t : ctx.table.layer)
        if (t.kind == kind && t.isLinearWeight && ctx.isLoraTarget(t))
            return true;
    return false;
}

// gelu_new and other activations written as Python ops save four tensors of
// the MLP width; native gelu/silu save only their input (memory-model.md §1, GPT-2).
static bool pythonGelu(const std::string& act) { return act == "gelu_new" || act == "gelu_fast" || act == "quick_gelu"; }

// What scaled_dot_product_attention runs on a CUDA GPU, as far as the saved
// tensors go (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp
// select_sdp_backend, priority flash > memory-efficient > math):
// flash for 16-bit inputs with head_dim <= 256 (a multiple of 8), which reads
// grouped KV heads directly (transformers sdpa_attention.py passes
// enable_gqa when there is no mask); memory-efficient otherwise, which has no
// grouped-query support; then the math path, which materialises the scores
// like eager attention. Checked against the accountant's sdpa cases.
Attention savedAttentionKind(const BuildContext& ctx, const Dims& d)
{
    const Attention asked = ctx.scenario.train.attention;
    if (asked != Attention::Sdpa)
        return asked;
    // GptOssPreTrainedModel._supports_sdpa = False (modeling_gpt_oss.py 5.17):
    // without an explicit choice transformers runs eager attention (with the
    // sinks), which is what is planned for "sdpa".
    if (ctx.model.family == Family::GptOss)
        return Attention::Eager;
    // Multi-head latent attention's values are narrower than its queries and
    // keys: flash needs one head width for q, k and v (sdp_utils.cpp
    // check_head_dim_size_flash), the memory-efficient kernel does not, and
    // the key is expanded to every head.
    if (ctx.model.isMla())
        return Attention::Sdpa;
    if (d.p == 2 && d.d <= 256 && d.d % 8 == 0)
        return Attention::Flash;
    return d.kv == d.a ? Attention::Sdpa : Attention::Eager;
}

SavedSet layerSaves(const BuildContext& ctx, const Dims& d)
{
    SavedSet s;
    const ModelSpec& m = ctx.model;
    const Attention attn = savedAttentionKind(ctx, d);
    const bool ft = ctx.fullFinetune;
    Bytes loraTargets = 0;
    for (const ParamTensor& t : ctx.table.layer)
        if (t.isLinearWeight && ctx.isLoraTarget(t))
            loraTargets += 1;

    switch (m.family) {
    case Family::Llama:
    case Family::Mixtral:
    case Family::Qwen3Moe:
    case Family::GptOss:
    case Family::Gemma:
    case Family::Gemma2:
    case Family::Gemma3:
    case Family::Llama4:
    case Family::DeepseekV3:
    case Family::Phi3: {
        saveNorm(s, ctx, d, "norm1.in", "norm1.normed", "norm1.stat");
        if (!ctx.profile.fp32NormUpcast || d.r == 4)
            s.layerInputKey = "norm1.in";  // .to(float32) of an fp32 tensor is the tensor itself
        const bool fused = m.family == Family::Phi3;
        const Bytes qkvWidth = d.a * d.d + 2 * d.kv * d.d;
        if (m.isMla()) {
            saveMlaAttention(s, ctx, d, attn);
        } else if (fused) {
            saveLinearInput(s, ctx, d, "norm1.out", "qkv.in_copy", d.h, ft, targeted(ctx, ModuleKind::AttnQkv), "lora.qkv_in");
        } else {
            saveLinearInput(s, ctx, d, "norm1.out", "q.in_copy", d.h, ft, targeted(ctx, ModuleKind::AttnQ), "lora.q_in");
            saveLinearInput(s, ctx, d, "norm1.out", "k.in_copy", d.h, ft, targeted(ctx, ModuleKind::AttnK), "lora.k_in");
            saveLinearInput(s, ctx, d, "norm1.out", "v.in_copy", d.h, ft, targeted(ctx, ModuleKind::AttnV), "lora.v_in");
        }
        if (m.qkNorm) {
            saveHeadNorm(s, ctx, d, d.a, "q_norm.in", "q_norm.out", "q_norm.stat");
            saveHeadNorm(s, ctx, d, d.kv, "k_norm.in", "k_norm.out", "k_norm.stat");
        }
        if (m.qkL2Norm) {
            // modeling_llama4.py Llama4TextL2Norm on the rotated q and k:
            // x.float() (a copy of the 16-bit projection) saved by pow and
            // mul, and the fp32 rsqrt per token and head saved by mul; no
            // weight. (Llama 4's complex RoPE, apply_rotary_emb, saves only
            // freqs_cis.) Scout's NoPE layers (every fourth) have no norm:
            // planned with it, as the layers are planned alike.
            s.save("q_l2norm.in", satMul(d.T, d.a * d.d, 4), "fp32 query, saved by the L2 norm's pow and mul");
            s.save("q_l2norm.stat", satMul(d.T, d.a, 4), "fp32 rsqrt per token and query head");
            s.save("k_l2norm.in", satMul(d.T, d.kv * d.d, 4), "fp32 key, saved by the L2 norm's pow and mul");
            s.save("k_l2norm.stat", satMul(d.T, d.kv, 4), "fp32 rsqrt per token and key head");
        }
        if (!m.isMla())
            attentionSaves(s, ctx, d, attn, ft, targeted(ctx, ModuleKind::AttnOut), 0);
        // With use_cache the cache's torch.cat copies the values, so attention
        // saves the copy and the fused output can go (cache_utils.py DynamicLayer.update).
        if (fused && !ctx.trainUseCache)
            s.save("attn.qkv_out", satMul(d.T, qkvWidth, d.p), "fused qkv output, kept alive by the value view");
        saveNorm(s, ctx, d, "norm2.in", "norm2.normed", "norm2.stat");
        if (m.family == Family::Gemma2 || m.family == Family::Gemma3) {
            saveNorm(s, ctx, d, "norm3.in", "norm3.normed", "norm3.stat");
            saveNorm(s, ctx, d, "norm4.in", "norm4.normed", "norm4.stat");
        }
        if (m.isMoe())
            saveMoeBlock(s, ctx, d);
        // A dense MLP, or the shared experts (Llama4TextMoe.shared_expert, a
        // Llama4TextMLP of intermediate_size; DeepseekV3MoE.shared_experts, a
        // DeepseekV3MLP of moe_intermediate_size x n_shared_experts), reading
        // the same normed input.
        if (!m.isMoe() || m.hasSharedExpert()) {
            Dims mlp = d;
            if (m.isMoe())
                mlp.i = m.sharedExpertIntermediate;
            if (fused) {
                saveLinearInput(s, ctx, d, "norm2.out", "gateup.in_copy", d.h, ft, targeted(ctx, ModuleKind::MlpGateUp), "lora.gateup_in");
            } else {
                saveLinearInput(s, ctx, d, "norm2.out", "gate.in_copy", d.h, ft, targeted(ctx, ModuleKind::MlpGate), "lora.gate_in");
                saveLinearInput(s, ctx, d, "norm2.out", "up.in_copy", d.h, ft, targeted(ctx, ModuleKind::MlpUp), "lora.up_in");
            }
            // HF gated MLP: down(act(gate(x)) * up(x)): act saves its input, the
            // product saves both factors, down saves the product (memory-model.md §1: 8sbi).
            // A bitsandbytes Linear4bit returns its output in its input's dtype
            // (bitsandbytes/nn/modules.py Linear4bit.forward: .to(inp_dtype)), fp32
            // over the fp32-cast norms of k-bit training, so the gate and up
            // outputs and the activation are fp32 (accountant: QLoRA cases).
            const Bytes mlpOut = (ctx.quantizedBase && d.r == 4) ? 4 : d.p;
            s.save("mlp.gate_out", satMul(d.T, mlp.i, mlpOut), "gate projection output, saved by the activation");
            // DeepSeek-V3's routed experts save "mlp.act_out" and "mlp.down_in"
            // of their own (moesaves.cpp): its shared experts' are other tensors.
            const bool ownKeys = m.family == Family::DeepseekV3 && m.isMoe();
            s.save(ownKeys ? "shared.act_out" : "mlp.act_out", satMul(d.T, mlp.i, mlpOut), "activation output, saved by the product");
            s.save("mlp.up_out", satMul(d.T, mlp.i, mlpOut), "up projection output, saved by the product");
            const char* downIn = ownKeys ? "shared.down_in" : "mlp.down_in";
            saveLinearInput(s, ctx, d, downIn, downIn, mlp.i, ft, targeted(ctx, ModuleKind::MlpDown), "lora.down_in");
        }
        break;
    }
    case Family::Olmo2: {
        // modeling_olmo2.py Olmo2DecoderLayer.forward: no input norm, so q, k
        // and v_proj read the layer input itself (their saved input is the
        // checkpoint boundary in one dtype; autocast casts a copy per linear);
        // q_norm(q_proj(x)), k_norm(k_proj(x)) over the whole projections;
        // attention; o_proj; post_attention_layernorm(attn_out) before the
        // residual add; the MLP reads the residual stream; post_feedforward_
        // layernorm(mlp_out) before the second add. The post-norms read the
        // sublayers' outputs (compute dtype).
        saveLinearInput(s, ctx, d, "layer.in", "q.in_copy", d.h, ft, targeted(ctx, ModuleKind::AttnQ), "lora.q_in");
        saveLinearInput(s, ctx, d, "layer.in", "k.in_copy", d.h, ft, targeted(ctx, ModuleKind::AttnK), "lora.k_in");
        saveLinearInput(s, ctx, d, "layer.in", "v.in_copy", d.h, ft, targeted(ctx, ModuleKind::AttnV), "lora.v_in");
        s.layerInputKey = "layer.in";
        saveHeadNorm(s, ctx, d, d.a, "q_norm.in", "q_norm.out", "q_norm.stat", false);
        saveHeadNorm(s, ctx, d, d.kv, "k_norm.in", "k_norm.out", "k_norm.stat", false);
        attentionSaves(s, ctx, d, attn, ft, targeted(ctx, ModuleKind::AttnOut), 0);
        saveNorm(s, ctx, d, "norm2.in", "norm2.normed", "norm2.stat", true);
        saveLinearInput(s, ctx, d, "mid.in", "gate.in_copy", d.h, ft, targeted(ctx, ModuleKind::MlpGate), "lora.gate_in");
        saveLinearInput(s, ctx, d, "mid.in", "up.in_copy", d.h, ft, targeted(ctx, ModuleKind::MlpUp), "lora.up_in");
        s.save("mlp.gate_out", satMul(d.T, d.i, d.p), "gate projection output, saved by the activation");
        s.save("mlp.act_out", satMul(d.T, d.i, d.p), "activation output, saved by the product");
        s.save("mlp.up_out", satMul(d.T, d.i, d.p), "up projection output, saved by the product");
        saveLinearInput(s, ctx, d, "mlp.down_in", "mlp.down_in", d.i, ft, targeted(ctx, ModuleKind::MlpDown), "lora.down_in");
        saveNorm(s, ctx, d, "norm3.in", "norm3.normed", "norm3.stat", true);
        break;
    }
    case Family::Gpt2:
    case Family::GptBigCode: {
        saveNorm(s, ctx, d, "ln1.in", "ln1.out", "ln1.stat");
        s.layerInputKey = "ln1.in";
        saveLinearInput(s, ctx, d, "ln1.out", "c_attn.in_copy", d.h, ft, targeted(ctx, ModuleKind::AttnQkv), "lora.c_attn_in");
        // use_cache: keys and values copied into the cache are what attention
        // saves; the query view still keeps the fused c_attn output whole,
        // except in GPT-2's eager attention, whose torch.matmul copies the
        // strided query (matmul's reshape to 3-D) and saves the copy, so
        // c_attn's output dies (accountant: gpt2-fp32-eager-b4-s512, a clone
        // of the query per layer and no addmm output of 3 x hidden).
        const bool queryCopyOnly = m.family == Family::Gpt2 && attn == Attention::Eager && ctx.trainUseCache;
        // GPT-BigCode's multi-query attention outside flash (eager, or sdpa's
        // math path in fp32): repeat_kv's views of the one KV head become
        // copies in the matmuls' reshape to 3-D, as does the strided query, so
        // attention saves three copies of the heads' width and c_attn's output dies
        // (modeling_gpt_bigcode.py eager_attention_forward; accountant:
        // santacoder fp32 sdpa -2.5 % and bf16-mixed eager -1.9 % before).
        const bool expandedCopies = m.family == Family::GptBigCode && attn == Attention::Eager && d.kv < d.a;
        attentionSaves(s, ctx, d, attn, ft, targeted(ctx, ModuleKind::AttnOut),
                       expandedCopies ? 0 : satMul(d.T, d.a * d.d + 2 * d.kv * d.d, d.p), queryCopyOnly);
        if (ctx.trainUseCache)
            s.save("attn.kv_cache", satMul(d.T, 2 * d.kv * d.d, d.p), "keys and values copied into the KV cache (use_cache), saved by attention");
        saveNorm(s, ctx, d, "ln2.in", "ln2.out", "ln2.stat");
        saveLinearInput(s, ctx, d, "ln2.out", "c_fc.in_copy", d.h, ft, targeted(ctx, ModuleKind::MlpIn), "lora.c_fc_in");
        // Under autocast, pow is on the fp32 list (aten/src/ATen/autocast_mode.cpp):
        // x**3 casts x to fp32 (the cast is what pow saves) and type promotion
        // keeps tanh(.) and 1+tanh(.) in fp32; only 0.5x stays 16-bit: 14 bytes
        // per element (accountant: gpt2-bf16-mixed-sdpa-b1-s1024).
        const Bytes geluBytes = ctx.autocast ? 3 * 4 + d.p : 4 * d.p;
        if (pythonGelu(m.hiddenAct))
            s.save("mlp.gelu_saves", satMul(d.T, d.i, geluBytes), "gelu_new in Python ops saves x, tanh(.), 0.5x and 1+tanh(.) (4 tensors of the MLP width; x, tanh and 1+tanh in fp32 under autocast)");
        else
            s.save("mlp.fc_out", satMul(d.T, d.i, d.p), "MLP up output, saved by the native GELU");
        saveLinearInput(s, ctx, d, "mlp.down_in", "mlp.down_in", d.i, ft, targeted(ctx, ModuleKind::MlpDown), "lora.down_in");
        if (ctx.dropoutActive)
            s.save("mlp.dropout_mask", satMul(d.T, d.h), "MLP output dropout mask, 1 byte per element");
        break;
    }
    case Family::GptNeoX: {
        // Parallel residual: both LayerNorms read the same input, saved once.
        saveNorm(s, ctx, d, "ln.in", "ln1.out", "ln1.stat");
        s.layerInputKey = "ln.in";
        s.save("ln2.stat", satMul(d.T, 8), "fp32 mean and rstd of the second LayerNorm");
        saveLinearInput(s, ctx, d, "ln1.out", "qkv.in_copy", d.h, ft, targeted(ctx, ModuleKind::AttnQkv), "lora.qkv_in");
        // The value is a view of the fused output and keeps it whole, unless
        // use_cache copies it into the cache (DynamicLayer.update's torch.cat),
        // in which case attention saves the copy.
        const Bytes qkvView = ctx.trainUseCache ? 0 : satMul(d.T, 3 * d.h, d.p);
        s.save("attn.qkv_out", qkvView, "fused query_key_value output, kept whole by the value view");
        s.save("attn.q", satMul(d.T, d.h, d.p), "query after partial rotary (torch.cat makes a new tensor)");
        s.save("attn.k", satMul(d.T, d.h, d.p), "key after partial rotary");
        attentionSaves(s, ctx, d, attn, ft, targeted(ctx, ModuleKind::AttnOut), qkvView);
        saveLinearInput(s, ctx, d, "ln2.out", "fc.in_copy", d.h, ft, targeted(ctx, ModuleKind::MlpIn), "lora.fc_in");
        if (ft && !ctx.autocast)
            s.save("ln2.out", satMul(d.T, d.h, d.p), "second LayerNorm output, saved by dense_h_to_4h");
        s.save("mlp.fc_out", satMul(d.T, d.i, d.p), "dense_h_to_4h output, saved by GELU");
        saveLinearInput(s, ctx, d, "mlp.down_in", "mlp.down_in", d.i, ft, targeted(ctx, ModuleKind::MlpDown), "lora.down_in");
        break;
    }
    case Family::Bert: {
        // Post-LN encoder layer (modeling_bert.py): Korthikanti's 34sbh + 5as²b
        // itemisation with dropout 0.1.
        // query, key and value are three nn.Linear: under autocast each casts
        // the fp32 layer input itself (autocast caches only leaf weights), and
        // each saves its cast, as do their LoRA adapters (accountant:
        // bert-base bf16-mixed b32 s128 and the -cls bf16-mixed cases).
        saveLinearInput(s, ctx, d, "layer.in", "q.in_copy", d.h, ft, targeted(ctx, ModuleKind::AttnQ), "lora.q_in");
        saveLinearInput(s, ctx, d, "layer.in", "k.in_copy", d.h, ft, targeted(ctx, ModuleKind::AttnK), "lora.k_in");
        saveLinearInput(s, ctx, d, "layer.in", "v.in_copy", d.h, ft, targeted(ctx, ModuleKind::AttnV), "lora.v_in");
        s.layerInputKey = "layer.in";
        attentionSaves(s, ctx, d, attn, ft, targeted(ctx, ModuleKind::AttnOut), 0);
        s.savedThroughAttention = s.items().size();
        saveNorm(s, ctx, d, "ln1.in", "ln1.out", "ln1.stat");
        saveLinearInput(s, ctx, d, "ln1.out", "fc.in_copy", d.h, ft, targeted(ctx, ModuleKind::MlpIn), "lora.fc_in");
        s.save("mlp.fc_out", satMul(d.T, d.i, d.p), "intermediate dense output, saved by GELU");
        saveLinearInput(s, ctx, d, "mlp.down_in", "mlp.down_in", d.i, ft, targeted(ctx, ModuleKind::MlpDown), "lora.down_in");
        if (ctx.dropoutActive)
            s.save("mlp.dropout_mask", satMul(d.T, d.h), "output dropout mask, 1 byte per element");
        saveNorm(s, ctx, d, "ln2.in", "ln2.out", "ln2.stat");
        break;
    }
    }
    if (loraTargets > 0)
        s.save("lora.a_out", loraAOutBytes(ctx, d, loraTargets), "LoRA A outputs (tokens x rank per adapter), saved by lora_B");
    return s;
}

} // namespace headroom::detail
