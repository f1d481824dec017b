// SPDX-License-Identifier: GPL-3.0-or-later
// The agreement suite on the GPU: the randomised small scenarios of the CPU
// suite (tests/runtime/runtime_scenarios.h) through `runValidation` on the CUDA
// backend. For each, the tracking allocator's bytes must equal the headroom
// plan exactly (the peak, and every event per category and per tensor row),
// and the memory the device really used must be within max(2 %, 64 MiB) of
// the plan's peak plus the overheads measured on the device (issue 5). At
// least 30 scenarios must run. 16 BERT models (masked LMs and classifiers) follow the 60. Every number is printed.
#include "gpu_test.h"

#include "cuda/cudabackend.h"
#include "runtime/validate.h"

#include "../runtime/runtime_scenarios.h"

namespace rt = headroom::rt;

int main()
{
    gpu_test::Suite suite;
    if (int code = suite.start("gpu_agreement"); code != 0)
        return code;
    suite.context.reset(); // the backend makes its own context for each run
    auto made = headroom::cuda::makeCudaBackend(0);
    if (!made.ok()) {
        std::printf("FAIL gpu_agreement: %s\n", made.status().message().c_str());
        return 1;
    }
    rt::Backend& backend = *made.value();
    // The CPU suite's scenarios, then its BERT models.
    std::vector<headroom::Scenario> scenarios;
    std::mt19937_64 rng(20261122);
    for (std::size_t i = 0; i < 60; ++i)
        scenarios.push_back(headroom::testing::randomScenario(rng, i));
    std::mt19937_64 bertRng(20261125);
    for (std::size_t i = 0; i < 16; ++i)
        scenarios.push_back(headroom::testing::randomBertScenario(bertRng, i));
    int ran = 0, skipped = 0;
    std::printf("%-4s %12s %12s %12s %12s %10s  %s\n", "#", "plan peak", "allocator", "device plan", "device used",
                "diff MiB", "scenario");
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
        const headroom::Scenario& s = scenarios[i];
        if (!backend.unsupported(s).empty()) {
            ++skipped;
            continue;
        }
        rt::RunOptions options;
        options.steps = 2;
        options.seed = i + 1;
        auto r = rt::runValidation(s, backend, options);
        const std::string what = std::to_string(i) + " " + headroom::testing::describe(s);
        if (!suite.expect(r.ok(), what + ": " + (r ? std::string() : r.error().detail)))
            continue;
        const rt::Measurement& m = r->measured;
        if (!suite.expect(m.status == "ok", what + ": " + m.message))
            continue;
        ++ran;
        const auto differences = rt::planMeasurementDifferences(r->plan, m);
        suite.expect(differences.empty(), what + ": " + (differences.empty() ? std::string() : differences.front()));
        const rt::DeviceUsedCheck check = rt::deviceUsedCheck(r.value());
        suite.expect(check.present, what + ": the device's used memory was measured");
        suite.expect(check.within(), what + ": device used " + std::to_string(check.measured) + " vs planned " +
                                         std::to_string(check.planned) + " (tolerance " +
                                         std::to_string(check.tolerance) + ")");
        std::printf("%-4zu %12llu %12llu %12llu %12llu %10.1f  %s\n", i,
                    static_cast<unsigned long long>(r->plan.peakBytes), static_cast<unsigned long long>(m.peakBytes),
                    static_cast<unsigned long long>(check.planned), static_cast<unsigned long long>(check.measured),
                    static_cast<double>(check.difference()) / 1048576.0, what.c_str());
    }
    std::printf("%d scenarios ran, %d not supported by the CUDA backend\n", ran, skipped);
    suite.expect(ran >= 30, "at least 30 scenarios ran");
    return suite.finish();
}
