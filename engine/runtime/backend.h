// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A backend runs the training step of a scenario and measures its memory
// through the tracking allocator. The CPU backend is the first; the CUDA
// backend runs the same program (docs/runtime.md).
#include "plan/scenario.h"
#include "runtime/trackingallocator.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace headroom::rt {

struct Progress {
    double fraction = 0;       // [0, 1]
    std::string phase;         // setup, warmup, forward, loss, backward, optimizer, done
    std::string event;         // the event's label ("backward layer 3")
    std::uint64_t step = 0;    // 1-based
    std::uint64_t steps = 0;
};

struct RunOptions {
    std::uint64_t steps = 3;
    std::uint64_t seed = 1;
    Bytes capacityBytes = 0;          // 0: unlimited; else allocations beyond it fail (out of memory)
    bool injectOutOfMemory = false;   // refuse the first activation allocation
    double timeoutSeconds = 0;        // 0: none
    bool syntheticData = false;       // random tokens instead of the bundled corpus
    std::uint64_t maxLayers = 0;      // validation: run at most this many layers and extrapolate (0: as needed)
    std::function<void(const Progress&)> progress;
};

// What a device-level backend measured beside the tracking allocator: the
// memory the device really used (cudaMemGetInfo's total - free), and the
// overheads that are not tensors (docs/cuda.md, "Device-level measurement").
struct DeviceMeasurement {
    bool present = false;          // false for the CPU backend
    Bytes totalBytes = 0;          // the device's memory
    Bytes othersBytes = 0;         // used before this process made its context (other processes)
    Bytes contextBytes = 0;        // the CUDA context (used after - before its creation)
    Bytes workspaceBytes = 0;      // the cuBLAS/cuBLASLt workspace
    Bytes handleBytes = 0;         // what the cuBLAS handles took when created
    Bytes scratchBytes = 0;        // the backend's fixed kernel arena
    Bytes usedPeakBytes = 0;       // the most total - free seen, sampled after every allocation
    std::vector<Bytes> eventUsedBytes; // the same per event (0: not seen)
    // The caching block pool the tensors come from (runtime/blockpool.h), as
    // torch.cuda.memory_stats() names them: the most bytes in live blocks
    // (each request rounded as the pool rounds it: more than the tracking
    // allocator's peak, which counts requests), the most held in cudaMalloc'd
    // segments (max_memory_reserved), and the cudaMalloc/cudaFree calls.
    Bytes poolAllocatedPeakBytes = 0;
    Bytes poolReservedPeakBytes = 0;
    std::uint64_t poolSegmentAllocations = 0;
    std::uint64_t poolSegmentFrees = 0;
    std::uint64_t poolAllocRetries = 0; // the cache was released to retry a cudaMalloc
    // Overheads together: what the device uses beyond the tensors.
    Bytes overheadBytes() const { return contextBytes + workspaceBytes + handleBytes + scratchBytes; }
};

// What a run measured. Per event: the most bytes alive at that event over
// every time it ran, by category and by tensor-table row.
struct Measurement {
    std::string status = "ok";        // ok, out_of_memory, error
    std::string message;              // when not ok
    std::string device;
    Bytes peakBytes = 0;
    std::size_t peakEvent = 0;
    CategoryBytes peakCategories{};
    std::vector<CategoryBytes> eventBytes;
    std::vector<std::map<std::string, Bytes>> eventTensors;
    std::vector<bool> eventSeen;
    std::vector<AllocationRecord> records;
    std::vector<double> losses;        // per step
    double stepSeconds = 0;            // mean over the steps after the first (the first when only one)
    double tokensPerSecond = 0;
    std::vector<std::string> notes;
    DeviceMeasurement deviceLevel;     // device-level numbers (CUDA backend)
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;    // "cpu", "cuda"
    virtual std::string device() const = 0;  // "CPU (2 threads)"
    // Empty when the backend runs the scenario; else why not, in words.
    virtual std::string unsupported(const Scenario& scenario) const = 0;
    virtual Measurement run(const Scenario& scenario, const RunOptions& options) = 0;
    // The largest planned peak this backend runs as a whole (0: no limit);
    // a bigger scenario is validated on fewer layers and extrapolated.
    virtual Bytes capacityBytes() const { return 0; }
    // A scenario over capacityBytes() is run on fewer layers and extrapolated
    // (runtime/extrapolation.h): with as many layers as fit (0, a device,
    // where more layers cost little time), or with at most this many (the
    // CPU backend: 2, so that a model over its limit is validated in minutes).
    virtual std::uint64_t extrapolationLayers() const { return 0; }
};

std::unique_ptr<Backend> makeCpuBackend();

class Ops;
// The step loop both backends share: builds the Trainer on `ops` with
// `allocator` (already given its Storage), runs options.steps steps on the
// bundled corpus (or synthetic tokens) with progress, timeout and step
// timing, and fills the allocator's numbers into the measurement. An
// OutOfMemory, a timeout or any other exception ends the run as a result
// (status out_of_memory or error), never as a crash; `isOutOfMemory` says
// which other exceptions are a device out of memory.
Measurement runTrainingSteps(const Scenario& scenario, const RunOptions& options, Ops& ops,
                             TrackingAllocator& allocator,
                             const std::function<bool(const std::exception&)>& isOutOfMemory = {});

// The bundled corpus (self-written English prose) as byte-level tokens.
const std::string& bundledCorpus();

} // namespace headroom::rt
