// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A plain-text stream of allocations and frees, for the caching allocator
// simulation (plan/cachingallocator.h). tools/reference writes it from real
// PyTorch steps, so the measured stream and the planner's stream go through
// the same simulator.
//
// One event a line:
//   a <id> <bytes>     allocate <bytes> (decimal) under <id>
//   a <id> <bytes> s<n>  the same on CUDA stream <n> (1-255; without it, 0: the compute stream)
//   f <id>             free the allocation <id>
// <id> is any word without spaces or '#'; it names one live allocation and
// may be used again once freed. '#' starts a comment up to the end of the
// line; blank lines are ignored.
#include "core/result.h"
#include "plan/cachingallocator.h"

#include <string>
#include <string_view>
#include <vector>

namespace headroom {

struct AllocatorTrace {
    std::vector<AllocatorEvent> events; // ids renumbered densely (a freed number is reused)
    std::size_t lines = 0;
};

// InvalidArgument, with the line number, for a line that is not an event, a
// size that is not a number or does not fit 64 bits, an alloc of an id that
// is live, or a free of one that is not.
Result<AllocatorTrace> parseAllocatorTrace(std::string_view text);
// FileNotFound / IoError, or the errors above.
Result<AllocatorTrace> readAllocatorTraceFile(const std::string& path);

} // namespace headroom
