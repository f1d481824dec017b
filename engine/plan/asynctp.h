// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// torchtitan's AsyncTP (torchtitan@9dec370 parallelize_llama.py apply_tp
// with enable_async_tp: torch._inductor.config._micro_pipeline_tp = True and
// enable_symm_mem_for_group on the TP group). Inductor's micro-pipeline pass
// replaces all-gather + matmul with fused_all_gather_matmul and matmul +
// reduce-scatter with fused_matmul_reduce_scatter inside the compiled
// layers (torch/distributed/_symmetric_memory/__init__.py, read at torch
// 2.11; the benchmark's torch 1963fc8 was not read):
// - the fused ops allocate what eager's collectives allocate, through the
//   caching allocator: the all-gathered input (A_flat = new_empty of the
//   whole sequence, kept for the weight gradient) and the stacked partials
//   of the reduce-scatter (stacked_partials, the whole sequence before the
//   reduction). So the planned tensor table is the 2D plan's.
// - the peers exchange chunks through a symmetric-memory workspace per TP
//   group (get_symm_mem_workspace: _SymmetricMemory.empty_strided_p2p, not
//   the caching allocator), grown to the largest request and kept: the
//   reduce-scatter asks for two output chunks (_pipelined_produce_and_all2all:
//   out_chunks[0] x 2), the all-gather for the shard
//   (_pipelined_multi_all_gather_and_consume). It is device memory outside
//   reserved, counted here with the CUDA context.
// torchtitan's benchmark measured AsyncTP 4.3 GiB lower than plain 2D
// (Llama 3.1 70B, Table 4: 71.9 -> 67.6 GiB max reserved); nothing in the
// source read explains that, and the plan does not claim it [flag].
#include "core/checkedmath.h"
#include "plan/scenario.h"

namespace headroom {

// The symmetric-memory workspace of one GPU (0 without AsyncTP): two
// reduce-scatter output chunks of (tokens / tp) x hidden in the 16-bit
// activation dtype, which are larger than any all-gather shard of the
// layers (the same rows in 16-bit, or 1 byte under Float8). `tokens`: the
// rank's micro-batch x seq / cp.
Bytes asyncTpWorkspaceBytes(const Scenario& scenario, Bytes tokens, Bytes hidden);

} // namespace headroom
