// SPDX-License-Identifier: GPL-3.0-or-later
// The op sequence is transformers 5.17's modeling_llama.py (LlamaDecoderLayer,
// LlamaRMSNorm, apply_rotary_pos_emb, LlamaMLP, sdpa_attention_forward) under
// torch 2.11's autocast (aten/src/ATen/autocast_mode.cpp: linears and sdpa
// cast their inputs to 16-bit, other ops promote), with PEFT 0.18.1's LoRA
// Linear.forward (lora/layer.py: the input cast to the adapters' fp32 by
// _cast_input_dtype, lora_B(lora_A(x)) * scaling added out of place). It
// was read from the accountant's streams of llama-3.2-1b-bf16-mixed-sdpa-b1-
// s1024-ckpt, llama-3.2-1b-bf16-mixed-sdpa-b4-s2048-ckpt-qlora16-nf4-dq and
// llama-2-7b-hf-bf16-mixed-sdpa-b8-s2048-ckpt-lora64 (tools/
// reference/accountant.py, second step, one layer's forward), request by
// request. The weight casts belong to autocast's cache (modelstaterows.cpp
// autocast.weight_copies_fwd, alive until the loss): the script makes them
// for that row, each right before its matmul. The layer's output is the next
// layer's checkpoint boundary (checkpoint.layer_input), so it is not here;
// the adapters' casts (a few MiB) and tensors of a few bytes (the flash
// kernel's RNG state) are left out.
#include "plan/checkpointedforward.h"

#include "plan/layerscript.h"

#include <cstring>

namespace headroom::detail {

namespace {

bool loraTarget(const BuildContext& ctx, ModuleKind kind)
{
    for (const ParamTensor& t : ctx.table.layer)
        if (t.kind == kind && t.isLinearWeight && ctx.isLoraTarget(t))
            return true;
    return false;
}

// A tensor the script made, and the bytes of one of its elements.
struct Made {
    std::uint32_t id;
    Bytes width;
};

class ForwardScript {
public:
    // weightCasts: the row of autocast's weight casts (TensorPiece::ofRow),
    // made between the temporaries; kOwnRow when there are none.
    ForwardScript(const BuildContext& ctx, const Dims& d, LayerScript& s, std::uint32_t weightCasts)
        : m_ctx(ctx), m_d(d), m_s(s), m_weightCasts(weightCasts) {}

    // LlamaRMSNorm: hidden_states.to(float32) (a copy unless already fp32),
    // pow(2).mean(-1), rsqrt(variance + eps), the product, then
    // weight * hidden_states.to(input_dtype), in the residual's dtype.
    Made norm()
    {
        const Bytes T = m_d.T, h = m_d.h, r = m_d.r;
        const bool upcast = r != 4;
        const std::uint32_t wide = upcast ? m_s.make(satMul(T, h, 4)) : 0;
        const auto squared = m_s.make(satMul(T, h, 4));
        const auto mean = m_s.make(satMul(T, 4));
        m_s.release({squared});
        const auto shifted = m_s.make(satMul(T, 4));
        const auto inverse = m_s.make(satMul(T, 4));
        m_s.release({shifted});
        const auto scaled = m_s.make(satMul(T, h, 4));
        m_s.release({inverse});
        if (upcast)
            m_s.release({wide});
        std::uint32_t out = 0;
        if (upcast) {
            const auto narrow = m_s.make(satMul(T, h, r));
            out = m_s.make(satMul(T, h, r));
            m_s.release({narrow});
        } else {
            out = m_s.make(satMul(T, h, r));
        }
        m_s.release({scaled, mean});
        return {out, r};
    }

    // A linear of `in` to `out` features on `x`. Autocast casts a wider input
    // to 16-bit for the matmul and drops the copy after it (with the weight's
    // cast, for its own row, under a full fine-tune). A 4-bit QLoRA linear
    // (bitsandbytes Linear4bit, as tools/reference/quant.py emulates it) casts
    // its input to the compute dtype, dequantises the weight for the matmul,
    // and casts the output back to the input's dtype. With LoRA, PEFT casts
    // the input to fp32, autocast casts that to 16-bit for lora_A, and B's
    // output is scaled and added out of place, in the base output's dtype or
    // wider; the base output and the fp32 input go after.
    Made linear(ModuleKind kind, Bytes in, Bytes out, Made x)
    {
        const Bytes T = m_d.T, p = m_d.p;
        const bool cast = (m_ctx.autocast || m_ctx.quantizedBase) && x.width != p;
        const std::uint32_t copy = cast ? m_s.make(satMul(T, in, p)) : 0;
        Made base{};
        if (m_ctx.quantizedBase) {
            const auto weight = m_s.make(satMul(in, out, p));
            const auto product = m_s.make(satMul(T, out, p));
            m_s.release({weight});
            if (cast) {
                base = {m_s.make(satMul(T, out, x.width)), x.width};
                m_s.release({copy, product});
            } else {
                base = {product, p};
            }
        } else {
            if (m_weightCasts != TensorPiece::kOwnRow) // the weight's 16-bit copy, cached until the loss
                m_s.place(m_weightCasts, satMul(in, out, p));
            base = {m_s.make(satMul(T, out, p)), p};
            if (cast)
                m_s.release({copy});
        }
        if (m_ctx.fullFinetune || !loraTarget(m_ctx, kind))
            return base;
        const bool widen = x.width != 4;
        const std::uint32_t wide = widen ? m_s.make(satMul(T, in, 4)) : 0;
        const auto narrow = m_s.make(satMul(T, in, p));
        const auto a = m_s.make(satMul(T, m_ctx.scenario.train.peft.rank, p));
        m_s.release({narrow});
        const auto b = m_s.make(satMul(T, out, p));
        m_s.release({a});
        const auto scaledB = m_s.make(satMul(T, out, p));
        m_s.release({b});
        const Made sum{m_s.make(satMul(T, out, std::max(base.width, p))), std::max(base.width, p)};
        m_s.release({scaledB, base.id});
        if (widen)
            m_s.release({wide});
        return sum;
    }

    // apply_rotary_pos_emb on a projection of `width` features: cos and sin
    // are in the hidden states' dtype (LlamaRotaryEmbedding.forward), so the
    // products promote to the wider of the two; rotate_half negates one
    // half and concatenates, in the projection's dtype.
    Made rotary(Made x, Bytes width)
    {
        const Bytes T = m_d.T, c = std::max(x.width, m_d.r);
        const auto cosProduct = m_s.make(satMul(T, width, c));
        const auto negated = m_s.make(satMul(T, width / 2, x.width));
        const auto rotated = m_s.make(satMul(T, width, x.width));
        m_s.release({negated});
        const auto sinProduct = m_s.make(satMul(T, width, c));
        m_s.release({rotated});
        const auto sum = m_s.make(satMul(T, width, c));
        m_s.release({cosProduct, sinProduct});
        return {sum, c};
    }

    // Autocast casts a wider input of the flash kernel to 16-bit (or none).
    std::uint32_t castForAttention(Made x, Bytes width, bool& made)
    {
        made = m_ctx.autocast && x.width != m_d.p;
        return made ? m_s.make(satMul(m_d.T, width, m_d.p)) : 0;
    }

    void layer()
    {
        const Dims& d = m_d;
        const Bytes T = d.T, Q = satMul(d.a, d.d), K = satMul(d.kv, d.d), p = d.p;
        const Made normed = norm();
        const Made q = linear(ModuleKind::AttnQ, d.h, Q, normed);
        const Made k = linear(ModuleKind::AttnK, d.h, K, normed);
        const Made v = linear(ModuleKind::AttnV, d.h, K, normed);
        const Made qRotated = rotary(q, Q);
        const Made kRotated = rotary(k, K);
        m_s.release({q.id, k.id});
        // The flash kernel reads grouped keys as they are (no repeat_kv).
        bool qCast = false, kCast = false, vCast = false;
        const auto qIn = castForAttention(qRotated, Q, qCast);
        const auto kIn = castForAttention(kRotated, K, kCast);
        const auto vIn = castForAttention(v, K, vCast);
        const auto attention = m_s.make(satMul(T, Q, p));
        const auto lse = m_s.make(satMul(satMul(d.b, d.a), satMul(d.s, 4)));
        for (const auto& [made, id] : {std::pair{qCast, qIn}, std::pair{kCast, kIn}, std::pair{vCast, vIn}})
            if (made)
                m_s.release({id});
        m_s.release({lse});
        const Made o = linear(ModuleKind::AttnOut, Q, d.h, {attention, p});
        m_s.release({attention, qRotated.id, kRotated.id, v.id, normed.id});
        const auto residual = m_s.make(satMul(T, d.h, d.r)); // hidden = input + attention
        m_s.release({o.id});
        const Made normed2 = norm();
        const Made gate = linear(ModuleKind::MlpGate, d.h, d.i, normed2);
        const auto activated = m_s.make(satMul(T, d.i, gate.width)); // silu
        m_s.release({gate.id});
        const Made up = linear(ModuleKind::MlpUp, d.h, d.i, normed2);
        const Bytes productWidth = std::max(gate.width, up.width);
        const auto product = m_s.make(satMul(T, d.i, productWidth));
        m_s.release({activated, up.id});
        const Made down = linear(ModuleKind::MlpDown, d.i, d.h, {product, productWidth});
        m_s.release({product, normed2.id});
        // The output (residual + down) is the next layer's boundary.
        m_s.release({down.id, residual});
    }

private:
    const BuildContext& m_ctx;
    const Dims& m_d;
    LayerScript& m_s;
    std::uint32_t m_weightCasts;
};

} // namespace

bool scriptedCheckpointedForward(const BuildContext& ctx, const Dims& d)
{
    const ModelSpec& m = ctx.model;
    const TrainConfig& tc = ctx.scenario.train;
    const bool dense = m.family == Family::Llama && !m.qkNorm && m.gatedMlp && m.hiddenAct == "silu" && !m.isMoe() &&
                       !m.parallelResidual && m.rotaryFraction == 1.0 && !m.learnedPositions &&
                       (m.slidingWindow == 0 || d.s < m.slidingWindow);
    // LoRA, or QLoRA over 4-bit weights (not LLM.int8), under autocast, without dropout.
    const bool fourBit = tc.weightQuant == WeightQuant::Nf4 || tc.weightQuant == WeightQuant::Nf4DoubleQuant;
    const bool peft = ctx.fullFinetune || (tc.peft.method != PeftMethod::None && ctx.autocast &&
                                           tc.peft.dropout == 0 && (!ctx.quantizedBase || fourBit));
    const bool plainStack = !ctx.rank && !ctx.deepspeedStyle && !ctx.megatron && !ctx.compiledLayers &&
                            !ctx.float8Linears && !ctx.selectiveOps && !ctx.dropoutActive && !tc.activationOffload;
    return ctx.mode == Mode::Train && ctx.anyCheckpointedLayer() && dense && peft && plainStack && d.p == 2 &&
           ctx.pieces && savedAttentionKind(ctx, d) == Attention::Flash;
}

// A full fine-tune under autocast casts each fp32 weight right before its
// matmul, and the copies stay in autocast's cache until the loss
// (modelstaterows.cpp autocast.weight_copies_fwd): the script makes them for
// that row, one per linear, between its own tensors. Made as one block before
// the script instead, Llama 3.2 1B b2 s4096 ckpt read -11.0 % reserved against
// the accountant's stream and TinyLlama b8 s2048 ckpt -3.8 %.
std::uint32_t weightCastRow(const BuildContext& ctx, const Dims& d, std::vector<TensorRow>& rows)
{
    for (std::size_t n = 0; n < rows.size(); ++n) {
        TensorRow& row = rows[n];
        if (std::strcmp(row.name, "autocast.weight_copies_fwd") != 0 || row.layers != LayerSet::Checkpointed)
            continue;
        // One tensor per linear, in the order the forward casts them.
        const Bytes Q = satMul(d.a, d.d), K = satMul(d.kv, d.d), p = d.p;
        const std::size_t begin = ctx.pieces->size();
        for (const Bytes elements : {satMul(d.h, Q), satMul(d.h, K), satMul(d.h, K), satMul(Q, d.h), satMul(d.h, d.i),
                                     satMul(d.h, d.i), satMul(d.i, d.h)})
            ctx.pieces->push_back({satMul(elements, p), 1});
        attachPieces(ctx, row, begin);
        if (row.pieceEnd == row.pieceBegin)
            return TensorPiece::kOwnRow; // not the seven linears: the copies stay one block
        row.madeByScript = true;
        return static_cast<std::uint32_t>(n);
    }
    return TensorPiece::kOwnRow;
}

void addCheckpointedForwardScript(const BuildContext& ctx, const Dims& d, std::vector<TensorRow>& rows)
{
    // QLoRA's dequantised weights are in the script: the block standing for
    // the largest one stays on the layers that keep their activations.
    for (TensorRow& row : rows)
        if (std::strcmp(row.name, "quant.dequantized_weight") == 0 && row.layers == LayerSet::All)
            row.layers = LayerSet::Plain;
    LayerScript s;
    ForwardScript(ctx, d, s, weightCastRow(ctx, d, rows)).layer();
    std::vector<TensorPiece>& script = s.pieces();
    TensorRow row{"layer.ckpt_forward",
                  "a checkpointed layer's forward, tensor by tensor (nothing is saved: norms in fp32, each linear's "
                  "16-bit input copy, RoPE, the flash kernel, SwiGLU; LoRA's fp32 input and adapter products): the "
                  "most held at once",
                  Category::Temporaries,
                  scriptPeak(script.data(), script.data() + script.size()),
                  Phase::LayerFwd,
                  Phase::LayerFwd,
                  LayerSet::Checkpointed,
                  false};
    if (ctx.pieces) {
        const std::size_t begin = ctx.pieces->size();
        ctx.pieces->insert(ctx.pieces->end(), script.begin(), script.end());
        attachScript(ctx, row, begin);
    }
    rows.push_back(row);
}

} // namespace headroom::detail
