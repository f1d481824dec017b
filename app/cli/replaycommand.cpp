// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli replay TRACE [--json] [--expandable-segments] [--max-split-size-mb N] [--gpu ID]
// Runs an allocation/free trace (engine/io/allocatortrace.h: "a <id> <bytes>",
// "f <id>") through the caching allocator simulation the planner uses, and
// prints what torch.cuda.memory_stats() would read. tools/reference writes
// such traces from real PyTorch steps; the reference set records the replay.
#include "commands.h"

#include "format.h"
#include "options.h"

#include "io/allocatortrace.h"
#include "plan/cachingallocator.h"
#include "plan/gpucatalog.h"
#include "plan/profile.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <string>

namespace headroom::cli {

int runReplay(const std::vector<std::string>& args)
{
    auto o = Options::parseFor("replay", args);
    if (!o)
        return fail(o.error());
    if (o->positional().size() != 1)
        return fail(makeError(ErrorCode::InvalidArgument, "replay needs one trace file (lines 'a <id> <bytes>' and 'f <id>')"));
    CachingAllocatorOptions options;
    options.expandableSegments = o->has("expandable-segments");
    if (o->has("max-split-size-mb")) {
        const std::string text = o->value("max-split-size-mb");
        char* end = nullptr;
        const unsigned long long mb = std::strtoull(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || mb == 0 || mb > (1ull << 30))
            return fail(makeError(ErrorCode::InvalidArgument, "--max-split-size-mb: a whole number of MiB, got '" + text + "'"));
        options.maxSplitSize = static_cast<Bytes>(mb) * MiB;
    }
    if (o->has("gpu")) {
        // The card's memory less the pytorch profile's CUDA context, released
        // and retried at the limit and gone past if need be: what the planner
        // simulates, so that a plan and a replayed trace compare alike.
        auto gpu = findGpu(o->value("gpu"));
        if (!gpu)
            return fail(gpu.error());
        RuntimeProfile pytorch = runtimeProfile(Profile::Pytorch);
        pytorch.contextBytes = pytorch.contextBytesOn(gpu->computeMajor);
        options.capacityBytes = allocatorCapacity(gpu->usableBytes(), pytorch);
        options.pastCapacity = true;
    }
    auto trace = readAllocatorTraceFile(o->positional().front());
    if (!trace)
        return fail(trace.error());
    auto stats = simulateCachingAllocator(trace->events, options);
    if (!stats)
        return fail(stats.error());
    const AllocatorStats& s = stats.value();
    if (o->has("json")) {
        const nlohmann::json j = {{"schema", "headroom.replay/1"},
                                  {"events", trace->events.size()},
                                  {"peak_allocated_bytes", s.peakAllocatedBytes},
                                  {"peak_reserved_bytes", s.peakReservedBytes},
                                  {"peak_requested_bytes", s.peakRequestedBytes},
                                  {"final_allocated_bytes", s.finalAllocatedBytes},
                                  {"final_reserved_bytes", s.finalReservedBytes},
                                  {"device_allocations", s.deviceAllocations},
                                  {"peak_segments", s.peakSegments},
                                  {"capacity_bytes", options.capacityBytes},
                                  {"over_capacity", s.overCapacity}};
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    const double gib = static_cast<double>(GiB);
    std::printf("%zu events\npeak allocated %.3f GiB (max_memory_allocated)\npeak reserved  %.3f GiB (max_memory_reserved)\n"
                "segments at the peak %llu, cudaMalloc calls %llu\n",
                trace->events.size(), static_cast<double>(s.peakAllocatedBytes) / gib,
                static_cast<double>(s.peakReservedBytes) / gib, static_cast<unsigned long long>(s.peakSegments),
                static_cast<unsigned long long>(s.deviceAllocations));
    return 0;
}

} // namespace headroom::cli
