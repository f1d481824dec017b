// SPDX-License-Identifier: GPL-3.0-or-later
// The pytorch profile against published measured peaks: the rows of
// shared/validation/published_peaks.csv that are measured and fully
// specified (tests/data/validation/published_cases.json says which and why),
// each compared on the counter its source read. Target: median absolute
// error at most 10 %, none above 25 %; on the rows that read reserved or
// whole-device memory, a median within 10 % over all of them (issue 15's
// multi-GPU target) and within 5 % over those the source states fully
// (issue 13; a case's "trust" is "medium" where shared/validation marks
// the row so: a detail the source leaves out, or a run near the card's
// capacity). Prints the table that docs/validation/published-peaks.md
// reports.
#include "io/scenariofile.h"
#include "plan/planner.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace headroom;

namespace {

// The JSON document at `path` (a file of tests/data/validation).
nlohmann::json readJson(const char* path)
{
    std::ifstream in(path);
    if (!in.good())
        qFatal("cannot read %s", path);
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
}

// The plan of a case's scenario, or why there is none.
Result<Plan> planOfCase(const nlohmann::json& c)
{
    auto scenario = scenarioFromJson(c.at("scenario"));
    if (!scenario.ok())
        return scenario.error();
    return makePlan(scenario.value());
}

// Sorts `v` and returns its median.
double medianOf(std::vector<double>& v)
{
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

} // namespace

class TestValidation : public QObject {
    Q_OBJECT

private slots:
    void publishedPeaks()
    {
        const auto doc = readJson(HEADROOM_TEST_DATA "/validation/published_cases.json");
        std::vector<double> errors, deviceLevel, deviceStated;
        std::printf("\n| case | counter | measured | predicted | error |\n|---|---|---|---|---|\n");
        for (const auto& c : doc.at("cases")) {
            const std::string id = c.at("id");
            const auto plan = planOfCase(c);
            QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().detail.c_str());
            const std::string counter = c.at("counter");
            QCOMPARE(std::string(c.at("unit")), std::string("GiB"));
            // A row that logged one rank names its pipeline stage: that
            // stage's counters, not the worst stage's.
            RankPlan counters;
            counters.peakAllocatedBytes = plan->peakAllocatedBytes;
            counters.peakReservedBytes = plan->peakReservedBytes;
            counters.deviceUsedBytes = plan->deviceUsedBytes;
            if (c.contains("stage")) {
                const auto stage = c.at("stage").get<std::uint64_t>();
                const auto rank = std::find_if(plan->ranks.begin(), plan->ranks.end(),
                                               [&](const RankPlan& r) { return r.stage == stage; });
                QVERIFY2(rank != plan->ranks.end(), id.c_str());
                counters = *rank;
            }
            Bytes predicted = 0;
            if (counter == "peak_allocated_bytes")
                predicted = counters.peakAllocatedBytes;
            else if (counter == "peak_reserved_bytes")
                predicted = counters.peakReservedBytes;
            else if (counter == "device_used_bytes")
                predicted = counters.deviceUsedBytes;
            else
                QFAIL("unknown counter");
            const double measured = c.at("measured").get<double>();
            const double predictedGiB = static_cast<double>(predicted) / static_cast<double>(GiB);
            const double error = (predictedGiB - measured) / measured;
            errors.push_back(std::fabs(error));
            const std::string trust = c.value("trust", std::string("high"));
            QVERIFY2(trust == "high" || trust == "medium", id.c_str());
            if (counter != "peak_allocated_bytes") {
                deviceLevel.push_back(std::fabs(error));
                if (trust == "high")
                    deviceStated.push_back(std::fabs(error));
            }
            std::printf("| %s%s | %s | %.2f GiB | %.2f GiB | %+.1f %% |\n", id.c_str(),
                        trust == "medium" ? " (medium trust)" : "", counter.c_str(), measured, predictedGiB,
                        100 * error);
            QVERIFY2(std::fabs(error) <= 0.25, qPrintable(QString::fromStdString(id)));
        }
        QVERIFY(errors.size() >= 5);
        const double median = medianOf(errors);
        std::printf("\nrows: %zu, median absolute error %.1f %%, largest %.1f %%\n", errors.size(), 100 * median,
                    100 * errors.back());
        QVERIFY(median <= 0.10);
        QVERIFY(deviceLevel.size() >= 4);
        const double deviceMedian = medianOf(deviceLevel);
        std::printf("reserved or device-used rows: %zu, median absolute error %.1f %%, largest %.1f %%\n",
                    deviceLevel.size(), 100 * deviceMedian, 100 * deviceLevel.back());
        QVERIFY(deviceMedian <= 0.10);
        QVERIFY(deviceStated.size() >= 4);
        const double statedMedian = medianOf(deviceStated);
        std::printf("of them fully stated (trust high): %zu, median absolute error %.1f %%, largest %.1f %%\n",
                    deviceStated.size(), 100 * statedMedian, 100 * deviceStated.back());
        QVERIFY(statedMedian <= 0.05);
    }

    // Ranks of multi-GPU layouts run on one GPU by our own scripts
    // (tests/data/validation/gpu_rank_cases.json: every setting known, the
    // raw output committed): the plan within 2 % of allocated and 5 % of
    // reserved on each. Prints the table of docs/validation/parallel.md's
    // "Ranks run on one GPU".
    void gpuRanks()
    {
        const auto doc = readJson(HEADROOM_TEST_DATA "/validation/gpu_rank_cases.json");
        std::printf("\n| case | counter | measured | predicted | error |\n|---|---|---|---|---|\n");
        int compared = 0;
        for (const auto& c : doc.at("cases")) {
            const std::string id = c.at("id");
            const auto plan = planOfCase(c);
            QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().detail.c_str());
            const auto& measured = c.at("measured");
            const std::pair<const char*, Bytes> counters[] = {{"peak_allocated_bytes", plan->peakAllocatedBytes},
                                                              {"peak_reserved_bytes", plan->peakReservedBytes}};
            for (const auto& [counter, predicted] : counters) {
                const double m = measured.at(counter).get<double>();
                const double error = (static_cast<double>(predicted) - m) / m;
                std::printf("| %s | %s | %.2f GiB | %.2f GiB | %+.2f %% |\n", id.c_str(), counter,
                            m / static_cast<double>(GiB), static_cast<double>(predicted) / static_cast<double>(GiB),
                            100 * error);
                const double limit = std::string(counter) == "peak_allocated_bytes" ? 0.02 : 0.05;
                QVERIFY2(std::fabs(error) <= limit, (id + " " + counter).c_str());
                ++compared;
            }
        }
        QVERIFY(compared >= 2);
    }
};

QTEST_APPLESS_MAIN(TestValidation)
#include "test_validation.moc"
