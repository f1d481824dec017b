// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/asynctp.h"

namespace headroom {

Bytes asyncTpWorkspaceBytes(const Scenario& sc, Bytes tokens, Bytes hidden)
{
    const ParallelConfig& p = sc.hardware.parallel;
    if (!p.asyncTp || p.tp < 2 || sc.mode != Mode::Train)
        return 0;
    // _pipelined_produce_and_all2all: p2p_workspace_size_req =
    // out_chunks[0].numel() * element_size * 2, a chunk being one rank's
    // sequence shard of the output (fused_matmul_reduce_scatter scatters
    // along the sequence: torchtitan's RowwiseParallel output Shard(1)).
    const Bytes chunk = satMul(ceilDiv(tokens, p.tp), satMul(hidden, 2));
    return satMul(chunk, 2);
}

} // namespace headroom
