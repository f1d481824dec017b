// SPDX-License-Identifier: GPL-3.0-or-later
#include "fuzzplan.h"

#include <algorithm>

#include "plan/planner.h"

#include <cstdio>
#include <cstdlib>

namespace headroom::fuzz {

namespace {

__extension__ using Int128 = __int128;

[[noreturn]] void broken(const char* what)
{
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
}

#define FUZZ_CHECK(cond) \
    do { \
        if (!(cond)) \
            broken(#cond); \
    } while (false)

std::uint64_t instances(const Plan& plan, LayerSet set)
{
    const std::uint64_t L = plan.layers, k = plan.checkpointEvery;
    const std::uint64_t checkpointed = k == 0 ? 0 : (L + k - 1) / k;
    switch (set) {
    case LayerSet::Global: return 1;
    case LayerSet::All: return L;
    case LayerSet::Checkpointed: return checkpointed;
    case LayerSet::Plain: return L - checkpointed;
    case LayerSet::SlidingPlain: {
        std::uint64_t n = 0;  // kept layers that are not a full-attention layer (l % P == P - 1)
        for (std::uint64_t l = 0; l < L; ++l)
            n += (k == 0 || l % k != 0) && (plan.slidingPeriod == 0 || l % plan.slidingPeriod != plan.slidingPeriod - 1);
        return n;
    }
    }
    return 0;
}

// A wrapped-around sum shows up as a value larger than everything that could
// ever be alive at once: each category's timeline must stay within the sum of
// its rows over all their instances, computed here in 128 bits.
void checkPlan(const Plan& plan)
{
    UInt128 categoryTotal[kCategoryCount] = {};
    for (const TensorRow& row : plan.tensors) {
        FUZZ_CHECK(row.bytes != kSaturated);
        categoryTotal[static_cast<std::size_t>(row.category)] +=
            static_cast<UInt128>(row.bytes) * instances(plan, row.layers);
    }
    FUZZ_CHECK(plan.timeline.size() == plan.events.size());
    FUZZ_CHECK(plan.peakEvent < plan.timeline.size());
    UInt128 peak = 0;
    for (const CategoryBytes& at : plan.timeline) {
        UInt128 total = 0;
        for (std::size_t c = 0; c < kCategoryCount; ++c) {
            FUZZ_CHECK(at[c] <= categoryTotal[c]);
            total += at[c];
        }
        peak = total > peak ? total : peak;
    }
    UInt128 breakdown = 0;
    for (Bytes b : plan.breakdown)
        breakdown += b;
    FUZZ_CHECK(peak == plan.peakBytes);
    FUZZ_CHECK(breakdown == plan.peakBytes);
    FUZZ_CHECK(plan.peakAllocatedBytes <= plan.peakBytes);
    FUZZ_CHECK(plan.peakReservedBytes >= plan.peakAllocatedBytes);
    FUZZ_CHECK(plan.deviceUsedBytes >= plan.peakReservedBytes);
    FUZZ_CHECK(plan.deviceUsedBytes >= plan.contextBytes);
    FUZZ_CHECK(plan.fits == (plan.deviceUsedBytes <= plan.capacityBytes));
    FUZZ_CHECK(static_cast<Int128>(plan.marginBytes)
               == static_cast<Int128>(plan.capacityBytes) - static_cast<Int128>(plan.deviceUsedBytes));
    FUZZ_CHECK(plan.totalParameters != kSaturated);
    FUZZ_CHECK(plan.activeParameters <= plan.totalParameters);
}

} // namespace

void planAndCheck(const Scenario& scenario)
{
    const Result<Plan> plan = makePlan(scenario);
    if (plan) {
        checkPlan(plan.value());
        // A tensor/pipeline-parallel plan reports its fullest stage (plan.h Plan::ranks).
        if (!plan->ranks.empty()) {
            FUZZ_CHECK(plan->worstRank < plan->ranks.size());
            FUZZ_CHECK(plan->ranks[plan->worstRank].deviceUsedBytes == plan->deviceUsedBytes);
            for (const RankPlan& r : plan->ranks)
                FUZZ_CHECK(r.deviceUsedBytes <= plan->deviceUsedBytes);
        }
    } else
        FUZZ_CHECK(!plan.error().detail.empty());
}

void planVariants(const ModelSpec& model)
{
    Scenario s;
    s.model = model;
    // A plan's allocator stream grows with the layers: a 62 144-layer config
    // (fuzz_hfconfig, seed 1) took 77 s for the variants under the
    // sanitizers, past the harness's 10 s timeout (one plan alone 22 s), while
    // a release build plans it in about 1 s. Deeper models are planned at
    // 1024 layers: every code path but the depth, which test_absurd_sizes
    // covers up to overflow.
    s.model.layers = std::min<std::uint64_t>(s.model.layers, 1024);
    planAndCheck(s);  // bf16-mixed AdamW full fine-tuning, 1 x 2048 tokens

    Scenario lora = s;
    lora.train.peft.method = PeftMethod::Lora;
    lora.train.peft.targets = {"all-linear"};
    lora.train.checkpointing = Checkpointing::EveryK;
    lora.train.checkpointEvery = 3;
    lora.train.attention = Attention::Eager;
    lora.train.chunkedCrossEntropy = true;
    planAndCheck(lora);

    Scenario sharded = s;
    sharded.hardware.count = 8;
    sharded.hardware.sharding = Sharding::Zero3;
    sharded.train.precision = Precision::Fp32;
    sharded.train.optimizer = Optimizer::Adafactor;
    sharded.train.checkpointing = Checkpointing::Full;
    planAndCheck(sharded);

    // Tensor and pipeline parallelism (plan/parallel.h): planned, or refused in one line.
    Scenario parallel = s;
    parallel.hardware.count = 16;
    parallel.hardware.sharding = Sharding::Zero1;
    parallel.hardware.parallel.tp = 2;
    parallel.hardware.parallel.sp = true;
    parallel.hardware.parallel.pp = 2;
    parallel.train.gradAccum = 4;
    planAndCheck(parallel);

    Scenario serve = s;
    serve.mode = Mode::Inference;
    serve.inference.batch = 4;
    serve.inference.attention = Attention::Eager;
    planAndCheck(serve);
}

} // namespace headroom::fuzz
