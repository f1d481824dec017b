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
    const std::uint64_t tp = p.tp == 0 ? 1 : p.tp, pp = p.pp == 0 ? 1 : p.pp;
    const std::uint64_t dp = count % (tp * pp) == 0 ? count / (tp * pp) : 1;
    // Data parallelism: DDP's all-reduce, ZeRO's and FSDP's collectives. A
    // run with sharding "none" over several GPUs is data-parallel too.
    for (const std::uint64_t degree : {dp, tp, pp}) {
        if (degree <= 1)
            continue;
        ++n.communicators;
        n.bytes = satAdd(n.bytes, communicatorBytes(degree));
    }
    return n;
}

} // namespace headroom
