// SPDX-License-Identifier: GPL-3.0-or-later
// Causal GQA attention in O(T) extra memory: the same function as
// attentionForward/attentionBackward (attention.h), but the (T,T) probabilities
// are never stored.
//
// Forward: each query row walks the keys in tiles and keeps a running maximum
// m and a running sum l of exp(score − m), rescaling what it has summed so far
// whenever m grows (online softmax: Milakov & Gimelshein 2018, "Online
// normalizer calculation for softmax", Algorithm 3; FlashAttention, Dao et al.
// 2022, §3.1 "Tiling"). It saves only the output and the row's logsumexp
// L = m + log(l) (B,NH,T), as flash-attn's softmax_lse.
//
// Backward (FlashAttention §3.1 "Recomputation", Appendix B.4 Algorithm 4;
// loop order of FlashAttention-2, Dao 2023, Algorithm 2: key tiles outside,
// queries inside): the probabilities are recomputed from the logsumexp,
// P[t,s] = exp(scale·q_t·k_s − L_t), and the softmax backward uses
// D_t = dout_t·out_t = sum_s P[t,s]·dP[t,s] instead of a stored row of P.
//
// Attention dropout (shape.dropout > 0) keeps no mask: each kernel draws
// M[t,s] from the shape's stream (dropoutrng.h), as flash-attn regenerates
// its Philox mask in the backward (FlashAttention §3.1, Algorithm 2 line 13
// and Algorithm 4: "regenerate the dropout mask"). The forward accumulates
// P ⊙ M/(1 − p) · v and keeps the undropped log-sum-exp; the backward uses
// dv += P ⊙ M/(1 − p) · dout, dP = M/(1 − p) · dout·v, and D_t = dout_t·out_t
// still equals sum_s P·dP.
#pragma once

#include "runtime/cpu/attention.h"

#include <cstddef>

namespace headroom::cpu {

// Keys per tile; any positive value gives the same function.
inline constexpr std::size_t kDefaultKeyTile = 64;

// out (B,T,NH,HD), lse (B,NH,T), q (B,T,NH,HD), k, v (B,T,NKV,HD).
template <typename Real>
void flashAttentionForward(Real* out, Real* lse, const Real* q, const Real* k, const Real* v,
                           const AttentionShape& shape, double scale, std::size_t keyTile = kDefaultKeyTile);

// dq (B,T,NH,HD), dk, dv (B,T,NKV,HD) accumulate; dout, out (B,T,NH,HD) and
// lse (B,NH,T) from the forward. Extra memory per thread: O(T·HD) for the
// (b, KV head) being worked on, nothing of order T².
template <typename Real>
void flashAttentionBackward(Real* dq, Real* dk, Real* dv, const Real* dout, const Real* out, const Real* lse,
                            const Real* q, const Real* k, const Real* v, const AttentionShape& shape, double scale,
                            std::size_t keyTile = kDefaultKeyTile);

} // namespace headroom::cpu
