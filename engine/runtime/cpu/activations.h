// SPDX-License-Identifier: GPL-3.0-or-later
// Elementwise activations and the SwiGLU product, forward and backward, on flat
// arrays of n elements (any shape, e.g. (B,T,4C) or (B,T,I)).
//   SiLU (Elfwing et al. 2018, eq. 4; torch.nn.SiLU):      x·σ(x)
//   GELU exact (Hendrycks & Gimpel 2016, §2; torch GELU):  0.5·x·(1 + erf(x/√2))
//   GELU tanh (same paper §2; torch GELU(approximate="tanh"), HF gelu_new /
//     gelu_pytorch_tanh):  0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
//   tanh (torch.tanh; BERT's pooler, modeling_bert.py BertPooler.activation):
//     backward from the output, 1 − tanh², as torch's tanh_backward(grad, output)
//   SwiGLU (Shazeer 2020, "GLU Variants Improve Transformer", eq. 6; HF LlamaMLP
//     down_proj(act_fn(gate_proj(x)) * up_proj(x))): out = SiLU(gate)·up
// Every function is computed in double per element and rounded once.
#pragma once

#include <cstddef>

namespace headroom::cpu {

// out, inp (n); out may be inp.
template <typename Real>
void siluForward(Real* out, const Real* inp, std::size_t n);
// dinp (n) += dout · σ(x)·(1 + x·(1 − σ(x)))
template <typename Real>
void siluBackward(Real* dinp, const Real* dout, const Real* inp, std::size_t n);

template <typename Real>
void geluForward(Real* out, const Real* inp, std::size_t n);
// dinp += dout · (Φ(x) + x·φ(x)), Φ, φ the standard normal CDF and density
template <typename Real>
void geluBackward(Real* dinp, const Real* dout, const Real* inp, std::size_t n);

template <typename Real>
void geluTanhForward(Real* out, const Real* inp, std::size_t n);
// dinp += dout · (0.5·(1 + tanh u) + 0.5·x·(1 − tanh²u)·√(2/π)·(1 + 3·0.044715·x²))
template <typename Real>
void geluTanhBackward(Real* dinp, const Real* dout, const Real* inp, std::size_t n);

// out = tanh(inp); out may be inp.
template <typename Real>
void tanhForward(Real* out, const Real* inp, std::size_t n);
// dinp += dout · (1 − out²), out the forward's output.
template <typename Real>
void tanhBackward(Real* dinp, const Real* dout, const Real* out, std::size_t n);

// out, gate, up (n): out = SiLU(gate)·up.
template <typename Real>
void swigluForward(Real* out, const Real* gate, const Real* up, std::size_t n);
// dgate += dout·up·SiLU'(gate), dup += dout·SiLU(gate); either may be nullptr.
template <typename Real>
void swigluBackward(Real* dgate, Real* dup, const Real* dout, const Real* gate, const Real* up, std::size_t n);

} // namespace headroom::cpu
