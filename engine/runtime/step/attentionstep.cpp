// SPDX-License-Identifier: GPL-3.0-or-later
// Attention and dropout in the step program, shared by every layer kind:
// which kernel runs (eager or fused), what it keeps, and the dropout
// streams. A dropout site's mask is a function of (seed, step, micro-batch,
// layer, site) (cpu/dropoutrng.h), so a checkpointed layer's recompute and
// the fused attention's backward draw the masks of the forward, as
// torch.utils.checkpoint restores the RNG state (preserve_rng_state=True).
#include "runtime/step/trainerimpl.h"

#include "runtime/cpu/dropoutrng.h"

namespace headroom::rt {

std::uint64_t Trainer::Impl::dropoutStream(std::size_t layer, DropoutSite site) const
{
    return cpu::dropoutStream(options.seed, stepCount, currentMicro, layer, site);
}

cpu::AttentionShape Trainer::Impl::attentionShape(std::size_t l) const
{
    cpu::AttentionShape shape{d.B, d.T, d.NH, d.NKV, d.HD};
    shape.dropout = dropout;
    shape.dropoutStream = dropout > 0 ? dropoutStream(l, kSiteAttention) : 0;
    shape.causal = !bert; // BertSelfAttention: no causal mask, every key for every query
    return shape;
}

void Trainer::Impl::attentionForward(std::size_t l, LayerSaves& s)
{
    const cpu::AttentionShape shape = attentionShape(l);
    const double scale = cpu::defaultAttentionScale(d.HD);
    if (eager)
        ops.attentionForward(s.attn, s.probs, s.q, s.k, s.v, shape, scale, At(s.attnMask), At(s.attnDropped));
    else
        ops.flashAttentionForward(s.attn, s.lse, s.q, s.k, s.v, shape, scale);
}

void Trainer::Impl::attentionBackward(std::size_t l, const Tensor& dq, const Tensor& dk, const Tensor& dv,
                                      const Tensor& dout, const LayerSaves& s)
{
    const cpu::AttentionShape shape = attentionShape(l);
    const double scale = cpu::defaultAttentionScale(d.HD);
    if (eager) {
        // Room for dP and dS (B x heads x T x T), as torch's eager backward makes.
        Tensor dProbs = makeTensor(alloc, row::kLayerBwd, Category::Temporaries, prec.act, d.B * d.NH * d.T * d.T);
        ops.attentionBackward(dq, dk, dv, dout, s.probs, s.q, s.k, s.v, dProbs, shape, scale, At(s.attnMask),
                              At(s.attnDropped));
    } else {
        // rowsum(dout * out) per query (FlashAttention-2 backward, Algorithm 2 line 4).
        Tensor delta = makeTensor(alloc, row::kLayerBwd, Category::Temporaries, DType::F32, d.B * d.NH * d.T);
        ops.flashAttentionBackward(dq, dk, dv, dout, s.attn, s.lse, s.q, s.k, s.v, delta, shape, scale);
    }
}

} // namespace headroom::rt
