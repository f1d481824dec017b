// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/ncclbuffers.h"

namespace headroom {

namespace {

// NVIDIA/nccl#964 (PyTorch, 4 x A100 with NVLink, after one 4 MB all-reduce).
constexpr Bytes kTwoRankCommunicator = 544'000'000;
constexpr Bytes kLargerCommunicator = 688'000'000;

Bytes communicatorBytes(std::uint64_t ranks) { return ranks == 2 ? kTwoRankCommunicator : kLargerCommunicator; }

} // namespace

NcclBuffers ncclBuffers(const Scenario& sc)
{
    NcclBuffers n;
    const std::uint64_t count = sc.hardware.count;
    if (count <= 1)
        return n;
    const ParallelConfig& p = sc.hardware.parallel;
    const std::uint64_t tp = p.tp == 0 ? 1 : p.tp, pp = p.pp == 0 ? 1 : p.pp, cp = p.cp == 0 ? 1 : p.cp;
    const std::uint64_t dp = count % (tp * pp * cp) == 0 ? count / (tp * pp * cp) : 1;
    // Data parallelism: DDP's all-reduce, ZeRO's and FSDP's collectives. A
    // run with sharding "none" over several GPUs is data-parallel too. Under
    // context parallelism FSDP2 shards over dp x cp (torchtitan's flattened
    // dp_shard_cp mesh, plan/parallel.h) and ring attention passes K and V
    // over its own cp group.
    // HSDP adds the replicate group, which all-reduces the sharded gradients.
    const std::uint64_t replicate = p.dpReplicate == 0 || dp % p.dpReplicate != 0 ? 1 : p.dpReplicate;
    const std::uint64_t dataGroup = sc.hardware.sharding == Sharding::Fsdp2 ? dp / replicate * cp : dp;
    for (const std::uint64_t degree : {dataGroup, replicate, tp, pp, cp}) {
        if (degree <= 1)
            continue;
        ++n.communicators;
        n.bytes = satAdd(n.bytes, communicatorBytes(degree));
    }
    return n;
}

} // namespace headroom
