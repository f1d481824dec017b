// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The headroom profile's row names, shared by the planner (plan/headroomrows.cpp,
// which says how large each buffer is and when it lives) and the step program
// (runtime/step/, which allocates the buffers under these names): the CPU and
// CUDA engines match the plan to the byte row by row, so a name spelt two ways
// would be a row that never matches. One constant per row.

namespace headroom::row {

// Whole-step and per-layer buffers.
inline constexpr const char* kWeightsLayer = "weights.layer";
inline constexpr const char* kWeightsGlobal = "weights.global";
inline constexpr const char* kGradsLayer = "grads.layer";
inline constexpr const char* kGradsGlobal = "grads.global";
inline constexpr const char* kStateLayer = "optimizer.layer";
inline constexpr const char* kStateGlobal = "optimizer.global";
inline constexpr const char* kRope = "rope.cos_sin";
inline constexpr const char* kTokens = "batch.tokens";
inline constexpr const char* kEmbedOut = "embed.out";
inline constexpr const char* kLayerOut = "layer.out";
inline constexpr const char* kWeightCopies = "layer.weight_copies";
inline constexpr const char* kDequantized = "layer.dequantized_weights";
inline constexpr const char* kAdapters = "lora.adapters";
inline constexpr const char* kLoraSaved = "saved.lora.a_out";
inline constexpr const char* kHeadCopy = "head.weight_copy";
inline constexpr const char* kLayerBwd = "layer.bwd_temporaries";
inline constexpr const char* kFinalNorm = "final_norm.saved";
inline constexpr const char* kLogits = "logits";
inline constexpr const char* kLossLse = "loss.lse";
inline constexpr const char* kLogitsGrad = "logits.grad";
inline constexpr const char* kChunkLogits = "loss.chunk_logits";
inline constexpr const char* kChunkGrad = "loss.chunk_grad";
inline constexpr const char* kHeadGradIn = "head.grad_in";
inline constexpr const char* kResidualGrad = "residual.grad";
inline constexpr const char* kEmbedDropoutMask = "embed.dropout_mask";
inline constexpr const char* kAttnProj = "layer.attn_proj";
// BERT: the embeddings' LayerNorm input and statistics, its backward's
// temporary; the sequence classifier's pooled output, dropout mask and
// dropped copy (the classifier's input).
inline constexpr const char* kEmbedNormSaved = "embed.norm.saved";
inline constexpr const char* kEmbedBwd = "embed.bwd_temporaries";
inline constexpr const char* kPooled = "head.pooled";
inline constexpr const char* kHeadDropoutMask = "head.dropout_mask";
inline constexpr const char* kClassifierIn = "head.classifier_in";
inline constexpr const char* kTransformSaved = "head.transform_saved"; // BERT MLM: transform dense and GELU outputs

// What one layer saves for its backward (one row each, per layer).
inline constexpr const char* kSavedNorm1Rstd = "saved.norm1.rstd";
inline constexpr const char* kSavedNorm1Out = "saved.norm1.out";
inline constexpr const char* kSavedQ = "saved.attn.q";
inline constexpr const char* kSavedK = "saved.attn.k";
inline constexpr const char* kSavedV = "saved.attn.v";
inline constexpr const char* kSavedProbs = "saved.attn.probs";
inline constexpr const char* kSavedLse = "saved.attn.lse";
inline constexpr const char* kSavedAttnOut = "saved.attn.out";
inline constexpr const char* kSavedResidualMid = "saved.residual.mid";
inline constexpr const char* kSavedNorm2Rstd = "saved.norm2.rstd";
inline constexpr const char* kSavedNorm2Out = "saved.norm2.out";
inline constexpr const char* kSavedNorm2In = "saved.norm2.in"; // BERT (post-LN): the output LayerNorm's input
inline constexpr const char* kSavedGate = "saved.mlp.gate";
inline constexpr const char* kSavedUp = "saved.mlp.up";
inline constexpr const char* kSavedAct = "saved.mlp.act";
inline constexpr const char* kSavedAttnDropoutMask = "saved.attn.dropout_mask";
inline constexpr const char* kSavedProbsDropped = "saved.attn.probs_dropped";
inline constexpr const char* kSavedResidDropoutMask = "saved.attn.resid_dropout_mask";
inline constexpr const char* kSavedMlpDropoutMask = "saved.mlp.dropout_mask";

} // namespace headroom::row
