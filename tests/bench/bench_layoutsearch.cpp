// SPDX-License-Identifier: GPL-3.0-or-later
// bench_layoutsearch: how fast the layout search (plan/layoutsearch.h)
// evaluates layouts for 512 GPUs, on one thread. Issue 15's target: at least
// 10,000 layouts for 512 GPUs evaluated and ranked in at most 150 ms.
// Printed, never pass/fail (docs/benchmarks.md "Layout search").
//
// usage: bench_layoutsearch [MODEL_ID] [GPUS] [RUNS] [GLOBAL_BATCH]
//   default meta-llama/Llama-3.1-70B on 512 h100-sxm-80gb, 5 runs, global
//   batch 1024; bf16-mixed AdamW, sequence 4096, flash attention.
#include "model/catalog.h"
#include "plan/layoutsearch.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

using namespace headroom;

namespace {

double threadSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

} // namespace

int main(int argc, char** argv)
{
    const std::string id = argc > 1 ? argv[1] : "meta-llama/Llama-3.1-70B";
    const std::uint64_t gpus = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 512;
    const int runs = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
    const std::uint64_t globalBatch = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1024;
    auto model = presetModel(id);
    if (!model) {
        std::fprintf(stderr, "bench_layoutsearch: %s\n", model.error().detail.c_str());
        return 2;
    }
    Scenario sc;
    sc.model = model.value();
    sc.train.precision = Precision::Bf16Mixed;
    sc.train.optimizer = Optimizer::AdamW;
    sc.train.seqLen = 4096;
    sc.train.attention = Attention::Flash;
    sc.train.globalBatch = globalBatch;
    sc.hardware.gpu = "h100-sxm-80gb";
    sc.hardware.count = gpus;

    std::vector<double> wall, cpu;
    LayoutSearchResult last;
    for (int run = 0; run < runs; ++run) {
        const auto start = std::chrono::steady_clock::now();
        const double cpuStart = threadSeconds();
        auto r = searchLayouts(sc);
        cpu.push_back(threadSeconds() - cpuStart);
        wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        if (!r) {
            std::fprintf(stderr, "bench_layoutsearch: %s\n", r.error().detail.c_str());
            return 2;
        }
        last = r.value();
    }
    std::sort(wall.begin(), wall.end());
    std::sort(cpu.begin(), cpu.end());
    const double medianWall = wall[wall.size() / 2], medianCpu = cpu[cpu.size() / 2];
    const double perSecond = double(last.evaluated) / medianCpu;
    std::printf("layout search: %s, %llu %s, global batch %llu, sequence %llu\n", id.c_str(),
                static_cast<unsigned long long>(gpus), sc.hardware.gpu.c_str(),
                static_cast<unsigned long long>(last.globalBatch), static_cast<unsigned long long>(sc.train.seqLen));
    std::printf("  layouts evaluated %zu (refused %zu, feasible %zu), re-planned with the simulation %zu\n",
                last.evaluated, last.refused, last.feasible, last.simulated);
    std::printf("  median of %d runs: %.1f ms wall, %.1f ms thread CPU\n", runs, medianWall * 1e3, medianCpu * 1e3);
    std::printf("  %.0f layouts/s on one thread (CPU time); 10,000 layouts at that rate: %.0f ms, at the wall-clock "
                "rate: %.0f ms (target <= 150 ms)\n",
                perSecond, 10000.0 / perSecond * 1e3, 10000.0 * medianWall / double(last.evaluated) * 1e3);
    return 0;
}
