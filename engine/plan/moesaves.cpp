// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/moesaves.h"

#include "plan/llama4moesaves.h"

#include <algorithm>
#include <cstring>

namespace headroom::detail {

namespace {

// Bytes of the weighted expert outputs: the expert output times the routing
// weights, promoted. Mixtral keeps its routing weights in fp32
// (modeling_mixtral.py MixtralTopKRouter: softmax of logits.float(), no cast
// back); Qwen3-MoE casts them to the logits' dtype and gpt-oss takes its
// softmax in it.
// DeepSeek-V3's router (modeling_deepseek_v3.py DeepseekV3TopkRouter) runs
// F.linear on fp32 casts of its input and weight: fp32 scores, unless
// autocast casts the linear back to 16-bit; the expert outputs times those
// weights promote to the wider of the two.
Bytes routingWeightBytes(const BuildContext& ctx, const Dims& d)
{
    if (ctx.model.family == Family::DeepseekV3)
        return ctx.autocast ? 2 : 4;
    return ctx.model.family == Family::Mixtral ? 4 : d.p;
}

Bytes weightedOutputBytes(const BuildContext& ctx, const Dims& d)
{
    const Bytes e = expertElementBytes(ctx, d);
    if (ctx.model.family == Family::DeepseekV3)
        return std::max(e, routingWeightBytes(ctx, d));
    return ctx.model.family == Family::Mixtral ? 4 : e;
}

// DeepseekV3TopkRouter.forward: `hidden_states.type(torch.float32)` and
// `self.weight.type(torch.float32)` into F.linear, sigmoid scores, a
// group-limited top-k whose masks die with their temporaries, and the chosen
// scores gathered and renormalised.
void saveDeepseekRouter(SavedSet& s, const BuildContext& ctx, const Dims& d)
{
    const ModelSpec& m = ctx.model;
    const Bytes k = m.expertsPerToken;
    if (ctx.fullFinetune) {
        if (ctx.autocast)
            s.save("moe.router_in", satMul(d.T, d.h, 2), "16-bit copy of the router input cast by autocast, saved by the router linear");
        else if (d.p == 4)
            s.save("norm2.out", satMul(d.T, d.h, 4), "post-attention norm output, the MLP's input, saved by the router linear");
        else
            s.save("moe.router_in", satMul(d.T, d.h, 4), "fp32 cast of the router input, saved by the router linear");
    }
    // The fp32 cast of a 16-bit router weight is a tensor of its own, which
    // the linear saves for its input's gradient.
    if (d.p != 4 && !ctx.autocast)
        s.save("moe.router_weight_fp32", satMul(m.experts, d.h, 4), "fp32 cast of the router weight, saved by the router linear");
    const Bytes w = routingWeightBytes(ctx, d);
    s.save("moe.routing", satAdd(satMul(d.T, m.experts, w), satMul(d.T, k, 8 + w)),
           "sigmoid scores (saved by sigmoid), the top-k indices (int64, saved by gather) and the gathered scores");
}

} // namespace

Bytes expertElementBytes(const BuildContext& ctx, const Dims& d) { return ctx.autocast ? d.r : d.p; }

void saveMoeBlock(SavedSet& s, const BuildContext& ctx, const Dims& d)
{
    if (ctx.model.family == Family::Llama4)
        return saveLlama4MoeBlock(s, ctx, d);
    const ModelSpec& m = ctx.model;
    const bool ft = ctx.fullFinetune;
    const Bytes k = m.expertsPerToken;
    const Bytes slots = satMul(d.T, k);
    const Bytes e = expertElementBytes(ctx, d);

    // The router is an nn.Linear-style F.linear: with its weight trainable it
    // saves its input, the post-attention norm's output (its 16-bit cast
    // under autocast).
    if (ft && m.family != Family::DeepseekV3)
        s.save("moe.router_in", satMul(d.T, d.h, d.p),
               "router input, saved by the router linear for its weight gradient");
    if (m.family == Family::DeepseekV3) {
        saveDeepseekRouter(s, ctx, d);
    } else if (m.family == Family::GptOss) {
        // GptOssTopKRouter: topk of the logits (int64 indices saved), softmax
        // over the k values in the logits' dtype (output saved).
        s.save("moe.routing", satMul(d.T, k, 8 + d.p),
               "top-k indices (int64) and the softmax over the k router logits");
    } else {
        // Qwen3MoeTopKRouter / MixtralTopKRouter: fp32 softmax over every
        // expert (output saved), topk (int64 indices), the top values
        // renormalised in place (autograd keeps the values and their sum).
        s.save("moe.routing", satAdd(satMul(d.T, m.experts, 4), satAdd(satMul(d.T, k, 8 + 4 + 4), satMul(d.T, 4))),
               "fp32 routing softmax, top-k indices (int64), the renormalised top-k values and their sum");
    }
    // Dispatch (grouped_mm_experts_forward): the sort permutation, its token
    // index (perm // k) and inverse (int64 each), the sentinel mask, and the
    // routing weights in expert order, saved by the weighting product.
    // gpt-oss also gathers its biases by the sorted expert ids, which the
    // index saves.
    const Bytes indexBytes = 8 + 8 + 8 + 1 + (m.family == Family::GptOss ? 8 : 0);
    s.save("moe.dispatch", satAdd(satMul(slots, indexBytes), satMul(slots, routingWeightBytes(ctx, d))),
           "sort permutation, token index and inverse (int64), sentinel mask, routing weights in expert order");
    if (ft)
        s.save("moe.gathered", satMul(slots, d.h, e),
               "hidden states gathered in expert order, saved by the up grouped_mm");
    s.save("moe.up_out", satMul(slots, 2 * d.i, e),
           "gate and up projection output (masked copy), kept whole by the gate's saved views");
    if (m.family == Family::GptOss) {
        // GptOssExperts._apply_gate: strided gate/up views clamped (each
        // clamp saves its input view), sigmoid(gate * alpha) saves its
        // output, gate * sigmoid saves both, (up + 1) * glu saves both.
        s.save("mlp.gate_clamped", satMul(slots, d.i, e), "clamped gate, saved by gate * sigmoid(gate * alpha)");
        s.save("mlp.sigmoid_out", satMul(slots, d.i, e), "sigmoid output, saved by sigmoid and the product");
        s.save("mlp.glu", satMul(slots, d.i, e), "gate * sigmoid(gate * alpha), saved by (up + 1) * glu");
        s.save("mlp.up_plus_one", satMul(slots, d.i, e), "up + 1, saved by (up + 1) * glu");
    } else {
        // _default_apply_gate: act(gate) * up; the activation's output is saved by the product.
        s.save("mlp.act_out", satMul(slots, d.i, e), "activation output, saved by the product");
    }
    if (ft)
        s.save("mlp.down_in", satMul(slots, d.i, e), "gated product, saved by the down grouped_mm");
    s.save("moe.expert_out", satMul(slots, d.h, e),
           "down projection output (masked copy), saved by the routing-weight product");
}

Bytes moeForwardTemporaryBytes(const BuildContext& ctx, const Dims& d)
{
    if (ctx.model.family == Family::Llama4)
        return llama4MoeForwardTemporaryBytes(ctx, d);
    const Bytes slots = satMul(d.T, ctx.model.expertsPerToken);
    return satMul(slots, d.h, 2 * weightedOutputBytes(ctx, d));
}

TensorPiece moeBackwardTemporaries(const BuildContext& ctx, const Dims& d)
{
    if (ctx.model.family == Family::Llama4)
        return llama4MoeBackwardTemporaries(ctx, d);
    const Bytes slots = satMul(d.T, ctx.model.expertsPerToken);
    // At the gather back into token order: the expanded output gradient, the
    // zeros it is scattered into and the scatter's result (token-slots x
    // hidden, in the weighted outputs' dtype). At the gated product: the
    // down projection's input gradient and the gradients of its two factors
    // (token-slots x expert width); with the experts trainable the product
    // itself (saved by the down projection, a row of the saved set) is
    // released by then, one less. Whichever is larger (Mixtral's experts are
    // 3.5 x hidden: accountant, mixtral-8x7b ... ckpt-lora16, peak at the product).
    const TensorPiece atGather{satMul(slots, d.h, weightedOutputBytes(ctx, d)), 3};
    const TensorPiece atProduct{satMul(slots, d.i, expertElementBytes(ctx, d)), ctx.fullFinetune ? 2U : 3U};
    return satMul(atGather.bytes, atGather.count) >= satMul(atProduct.bytes, atProduct.count) ? atGather : atProduct;
}

bool expertSlotRow(const ModelSpec& model, const char* name)
{
    // Every key below is "moe." or "mlp.": most rows are neither (the
    // search asks this of every row of thousands of plans).
    if (!model.isMoe() || model.family == Family::Llama4 || name[0] != 'm')
        return false;
    for (const char* key : {"moe.gathered", "moe.up_out", "mlp.act_out", "mlp.down_in", "moe.expert_out",
                            "mlp.gate_clamped", "mlp.sigmoid_out", "mlp.glu", "mlp.up_plus_one"})
        if (std::strcmp(key, name) == 0)
            return true;
    return false;
}

} // namespace headroom::detail
