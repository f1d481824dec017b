// SPDX-License-Identifier: GPL-3.0-or-later
// The op sequence is transformers 5.17 modeling_llama4.py Llama4TextMoe.forward,
// Llama4Router.forward and Llama4TextExperts.forward under torch 2.11's
// autocast (aten/src/ATen/autocast_mode.cpp: linear and bmm cast their inputs
// to 16-bit; repeat, mul, topk, scatter, sigmoid and sum run in their inputs'
// dtypes). x is the post-attention norm's output, in the residual stream's
// dtype (Llama4TextRMSNorm: output * weight).
#include "plan/llama4moesaves.h"

#include <algorithm>

namespace headroom::detail {

namespace {

// The experts' bmm output dtype: 16-bit under autocast (bmm is on its
// lower-precision list), else the compute dtype.
Bytes bmmBytes(const BuildContext& ctx, const Dims& d) { return ctx.autocast ? 2 : d.p; }

Bytes experts(const BuildContext& ctx) { return ctx.model.experts; }

} // namespace

void saveLlama4MoeBlock(SavedSet& s, const BuildContext& ctx, const Dims& d)
{
    const bool ft = ctx.fullFinetune;
    const Bytes E = experts(ctx), k = ctx.model.expertsPerToken;
    const Bytes rows = satMul(E, d.T);  // the repeat: every token once per expert
    const Bytes out = bmmBytes(ctx, d);
    // Llama4Router (an nn.Linear): router_logits = F.linear(x), which saves
    // its input for the weight gradient (the 16-bit cast under autocast; x
    // itself otherwise, the key the shared expert's linears share).
    if (ft)
        s.save(ctx.autocast ? "moe.router_in" : "norm2.out", satMul(d.T, d.h, ctx.autocast ? 2 : d.p),
               "router input, saved by the router linear for its weight gradient");
    // torch.topk(router_logits, k) saves its int64 indices, which
    // full_like(-inf).scatter_(1, indices, values) saves again (one tensor);
    // sigmoid(scores.float()) saves its fp32 output; .to(dtype) saves nothing.
    s.save("moe.routing", satAdd(satMul(d.T, k, 8), satMul(d.T, E, 4)),
           "top-k indices (int64, saved by topk and scatter) and the fp32 sigmoid of the scattered scores");
    // routed_in = x.repeat(E, 1) * scores.transpose(0, 1).reshape(-1, 1): the
    // product saves both factors, the repeat (for the scores' gradient) and
    // the reshaped scores (a copy: the transpose is not contiguous).
    s.save("moe.repeat", satMul(rows, d.h, d.r), "the input repeated once per expert, saved by the scores product");
    s.save("moe.scores_column", satMul(rows, d.p), "router scores as a column, saved by the scores product");
    // Llama4TextExperts: bmm(routed_in.view(E, T, h), gate_up_proj) saves its
    // input for the weight gradient (the 16-bit cast under autocast) and the
    // weight (autocast's cached copy: modelstaterows.cpp weight copies).
    if (ft)
        s.save("moe.bmm_in", satMul(rows, d.h, out), "scaled repeat (its 16-bit cast under autocast), saved by the gate/up bmm");
    // gate_up.chunk(2, -1): act_fn(gate) saves the gate view and up * act the
    // up view, both of the one gate_up tensor, which they keep whole.
    s.save("moe.gate_up", satMul(rows, 2 * d.i, out), "gate/up bmm output, kept whole by its gate and up views");
    s.save("moe.act_out", satMul(rows, d.i, out), "activation output, saved by up * act(gate)");
    // bmm(up * act, down_proj) saves the product for the weight gradient.
    if (ft)
        s.save("moe.down_in", satMul(rows, d.i, out), "gated product, saved by the down bmm");
    // next_states.view(E, T, h).sum(0) and out.add_(...) save nothing.
}

Bytes llama4MoeForwardTemporaryBytes(const BuildContext& ctx, const Dims& d)
{
    const Bytes rows = satMul(experts(ctx), d.T);
    // Llama4TextMoe.forward keeps the scaled repeat in its local routed_in
    // until it returns: under autocast (residual dtype wider than 16-bit) it
    // is a tensor of its own beside the bmm's saved cast, alive while the
    // experts' output (E x tokens x hidden) and its sum over experts are
    // made (accountant: llama4-text-tiny ckpt, the recompute's peak holds
    // the fp32 product, the gate/up output and the down bmm's output).
    const Bytes scaled = ctx.autocast && d.r != 2 ? satMul(rows, d.h, d.r) : 0;
    return satAdd(scaled, satAdd(satMul(rows, d.h, bmmBytes(ctx, d)), satMul(d.T, d.h, bmmBytes(ctx, d))));
}

TensorPiece llama4MoeBackwardTemporaries(const BuildContext& ctx, const Dims& d)
{
    const Bytes rows = satMul(experts(ctx), d.T);
    // At the gated product (up * act(gate)) backward: the down bmm's input
    // gradient and the gradients of up and act(gate), E x tokens x expert
    // width each; with the experts trainable the product (saved by the down
    // bmm, a row of the saved set) is released by then, one less. Later
    // moments (the gate/up cat, the scores product) come after the gate/up
    // output, the activation and the bmm inputs are released: smaller.
    return TensorPiece{satMul(rows, d.i, bmmBytes(ctx, d)), ctx.fullFinetune ? 2U : 3U};
}

} // namespace headroom::detail
