// SPDX-License-Identifier: GPL-3.0-or-later
// Causal (or, for an encoder, bidirectional) multi-head attention with
// grouped-query heads, eager form: the scores
// of every (query, key) pair are materialised as probabilities (B,NH,T,T),
// as HF's eager_attention_forward (transformers models/llama/modeling_llama.py)
// and llm.c train_gpt2.c attention_forward/backward do. With attention dropout
// (HF: attn_dropout / dropout(attn_weights) between the softmax and the value
// matmul), out = (P ⊙ M / (1 − p))·v with the mask M of dropoutrng.h.
//   out_t = sum_{s<=t} P[t,s]·v_s,   P[t,:] = softmax_s(scale · q_t·k_s)
// (Vaswani et al. 2017, §3.2.1). GQA (Ainslie et al. 2023, §2.2): query head h
// reads KV head h / (NH/NKV), as HF repeat_kv.
// See flashattention.h for the O(T)-memory form with the same results.
#pragma once

#include <cstddef>
#include <cstdint>

namespace headroom::cpu {

struct AttentionShape {
    std::size_t B = 0;   // batch
    std::size_t T = 0;   // sequence length
    std::size_t NH = 0;  // query heads
    std::size_t NKV = 0; // key/value heads; divides NH (NKV == NH: MHA, 1: MQA)
    std::size_t HD = 0;  // head dimension
    // Attention dropout in training: the probability of dropping a
    // probability, and the stream its mask is drawn from (dropoutrng.h;
    // element ((b·NH + h)·T + t)·T + s, the same in every kernel).
    float dropout = 0.0f;
    std::uint64_t dropoutStream = 0;
    // Causal (decoders: query t sees keys s <= t) or bidirectional (BERT's
    // encoder, modeling_bert.py BertSelfAttention: every query sees every key).
    bool causal = true;
};

// One past the last key query t sees.
inline std::size_t keyEnd(const AttentionShape& shape, std::size_t t) { return shape.causal ? t + 1 : shape.T; }

// 1/sqrt(HD), the softmax scale of every model we plan for.
double defaultAttentionScale(std::size_t HD);

// Throws std::invalid_argument unless NKV divides NH and all sizes are positive.
void checkAttentionShape(const AttentionShape& shape);

// out (B,T,NH,HD), att (B,NH,T,T) probabilities, zero above the diagonal when causal,
// q (B,T,NH,HD), k, v (B,T,NKV,HD): the layouts of the q/k/v projections'
// outputs viewed as heads. With dropout, mask (B,NH,T,T) gets the 1-byte
// mask and dropped (B,NH,T,T) P ⊙ M / (1 − p), what the value matmul reads
// (and torch's eager attention keeps for its backward); both required then.
template <typename Real>
void attentionForward(Real* out, Real* att, const Real* q, const Real* k, const Real* v, const AttentionShape& shape,
                      double scale, std::uint8_t* mask = nullptr, Real* dropped = nullptr);

// dq (B,T,NH,HD), dk, dv (B,T,NKV,HD) accumulate; dout (B,T,NH,HD), att from
// the forward. Softmax backward (per query row t, dP = dout_t·v_s):
//   dS[t,s] = P[t,s]·(dP[t,s] − sum_s' P[t,s']·dP[t,s'])
//   dq_t += scale·sum_s dS[t,s]·k_s,  dk_s += scale·sum_t dS[t,s]·q_t,  dv_s += sum_t P[t,s]·dout_t
// With dropout (mask and dropped from the forward): dv reads the dropped
// probabilities, and dP[t,s] = M[t,s]/(1 − p) · dout_t·v_s.
template <typename Real>
void attentionBackward(Real* dq, Real* dk, Real* dv, const Real* dout, const Real* att, const Real* q, const Real* k,
                       const Real* v, const AttentionShape& shape, double scale, const std::uint8_t* mask = nullptr,
                       const Real* dropped = nullptr);

} // namespace headroom::cpu
