// SPDX-License-Identifier: GPL-3.0-or-later
// The pytorch profile against what PyTorch allocates: every case of
// tests/data/reference/pytorch_reference.json (two training steps of a
// Hugging Face model counted on the meta device by tools/reference/
// accountant.py; emulated CUDA behaviour listed in the file) planned here,
// no Python at test time. Targets (issue 13): peak allocated within 3 % of
// the reference for every case, median within 1 %, the peak in the same
// phase. A case that misses is listed in tests/data/reference/residuals.json
// with the error it may not exceed and the reason (docs/validation/
// reference.md); a listed case that meets the targets fails the test until
// it is taken off the list, so the list only shrinks.
#include "io/scenariofile.h"
#include "model/parametertable.h"
#include "plan/planner.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace headroom;

namespace {

nlohmann::json readJson(const char* path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
}

// The accountant's phase names (tools/reference/accountant.py PHASES).
const char* accountantPhase(Phase p)
{
    switch (p) {
    case Phase::Load: return "load";
    case Phase::EmbedFwd: return "embed_fwd";
    case Phase::LayerFwd: return "layer_fwd";
    case Phase::HeadFwd: return "head_fwd";
    case Phase::LossFwd: return "loss_fwd";
    case Phase::LossBwd: return "loss_bwd";
    case Phase::HeadBwd: return "head_bwd";
    case Phase::LayerBwd: return "layer_bwd";
    case Phase::EmbedBwd: return "embed_bwd";
    case Phase::OptimizerStep: return "optimizer_step";
    case Phase::Decode: return "decode";
    }
    return "?";
}

} // namespace

class TestReference : public QObject {
    Q_OBJECT

private slots:
    void againstPytorch()
    {
        const auto doc = readJson(HEADROOM_TEST_DATA "/reference/pytorch_reference.json");
        const auto residuals = readJson(HEADROOM_TEST_DATA "/reference/residuals.json").at("cases");
        QCOMPARE(std::string(doc.at("schema")), std::string("headroom.reference/1"));
        std::vector<double> errors;
        std::map<std::string, std::vector<double>> byFamily;
        std::size_t listedSeen = 0;
        std::printf("\n| case | PyTorch | Headroom | error | phase (PyTorch / Headroom) |\n|---|---|---|---|---|\n");
        for (const auto& c : doc.at("cases")) {
            const std::string id = c.at("id");
            auto scenario = scenarioFromJson(c.at("scenario"));
            QVERIFY2(scenario.ok(), qPrintable(QString::fromStdString(
                                        id + ": " + (scenario.ok() ? std::string() : scenario.error().detail))));
            auto plan = makePlan(scenario.value());
            QVERIFY2(plan.ok(), qPrintable(QString::fromStdString(id)));
            const auto& ref = c.at("pytorch");
            const double reference = ref.at("peak_allocated_bytes").get<double>();
            const double predicted = static_cast<double>(plan->peakAllocatedBytes);
            const double error = (predicted - reference) / reference;
            const std::string refPhase = ref.at("peak_phase");
            const std::string planPhase = accountantPhase(plan->events[plan->peakEvent].phase);
            errors.push_back(std::fabs(error));
            byFamily[c.at("family")].push_back(std::fabs(error));
            std::printf("| %s | %.3f GiB | %.3f GiB | %+.2f %% | %s / %s |\n", id.c_str(), reference / double(GiB),
                        predicted / double(GiB), 100 * error, refPhase.c_str(), planPhase.c_str());
            const bool meets = std::fabs(error) <= 0.03 && refPhase == planPhase;
            const auto listed = residuals.find(id);
            if (listed == residuals.end()) {
                QVERIFY2(meets, qPrintable(QStringLiteral("%1: %2 %, peak in %3 (PyTorch %4)")
                                               .arg(QString::fromStdString(id))
                                               .arg(100 * error, 0, 'f', 2)
                                               .arg(QString::fromStdString(planPhase), QString::fromStdString(refPhase))));
                continue;
            }
            ++listedSeen;
            QVERIFY2(!meets, qPrintable(QString::fromStdString(id + ": meets the targets now; take it off residuals.json")));
            const double bound = listed->at("max_abs_error").get<double>();
            QVERIFY2(std::fabs(error) <= bound + 1e-4,
                     qPrintable(QStringLiteral("%1: %2 % is worse than the %3 % residuals.json allows")
                                    .arg(QString::fromStdString(id))
                                    .arg(100 * error, 0, 'f', 2)
                                    .arg(100 * bound, 0, 'f', 2)));
            QVERIFY2(!listed->at("reason").get<std::string>().empty(), qPrintable(QString::fromStdString(id)));
        }
        QCOMPARE(listedSeen, residuals.size());  // no stale entries
        QVERIFY(errors.size() >= 80);
        std::printf("\n| family | cases | median | worst |\n|---|---|---|---|\n");
        for (auto& [family, e] : byFamily) {
            std::sort(e.begin(), e.end());
            std::printf("| %s | %zu | %.2f %% | %.2f %% |\n", family.c_str(), e.size(), 100 * e[e.size() / 2],
                        100 * e.back());
        }
        std::sort(errors.begin(), errors.end());
        const double median = errors.size() % 2 ? errors[errors.size() / 2]
                                                : (errors[errors.size() / 2 - 1] + errors[errors.size() / 2]) / 2;
        std::printf("\ncases: %zu, median absolute error %.2f %%, largest %.2f %%, listed residuals %zu\n",
                    errors.size(), 100 * median, 100 * errors.back(), listedSeen);
        QVERIFY(median <= 0.01);
    }

    // Peak reserved: each case's whole PyTorch trace (load and both steps, as
    // the accountant recorded it) through the caching allocator simulation
    // (headroom-cli replay, recorded in the reference file), against the plan's
    // reserved, simulated on the tensor table's coarser stream, and against
    // the quick estimate (rounded peak + 5 % of the churn). Printed; the test
    // holds the simulated plan to its measured median and worst error so that
    // changes can only bring it closer (docs/validation/reference.md).
    void reservedAgainstReplay()
    {
        const auto doc = readJson(HEADROOM_TEST_DATA "/reference/pytorch_reference.json");
        std::vector<double> simulated, estimated;
        std::printf("\n| case | replayed PyTorch trace | plan (simulated) | error | plan (estimate) | error |\n"
                    "|---|---|---|---|---|---|\n");
        for (const auto& c : doc.at("cases")) {
            const auto& ref = c.at("pytorch");
            if (!ref.contains("replay"))
                continue;
            auto scenario = scenarioFromJson(c.at("scenario"));
            QVERIFY(scenario.ok());
            const ParameterTable table = buildParameterTable(scenario->model);
            auto sim = makePlan(scenario.value(), table, PlanOptions{});
            PlanOptions quick;
            quick.estimateReserved = true;
            auto est = makePlan(scenario.value(), table, quick);
            QVERIFY(sim.ok() && est.ok());
            const double replay = ref.at("replay").at("peak_reserved_bytes").get<double>();
            const double s = (static_cast<double>(sim->peakReservedBytes) - replay) / replay;
            const double e = (static_cast<double>(est->peakReservedBytes) - replay) / replay;
            simulated.push_back(std::fabs(s));
            estimated.push_back(std::fabs(e));
            std::printf("| %s | %.3f GiB | %.3f GiB | %+.1f %% | %.3f GiB | %+.1f %% |\n",
                        c.at("id").get<std::string>().c_str(), replay / double(GiB),
                        double(sim->peakReservedBytes) / double(GiB), 100 * s,
                        double(est->peakReservedBytes) / double(GiB), 100 * e);
        }
        QVERIFY(simulated.size() >= 80);
        auto summary = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return std::pair<double, double>{v[v.size() / 2], v.back()};
        };
        const auto [simMedian, simWorst] = summary(simulated);
        const auto [estMedian, estWorst] = summary(estimated);
        std::printf("\npeak reserved vs the replayed trace: simulated plan median %.1f %%, worst %.1f %%; "
                    "estimate median %.1f %%, worst %.1f %%\n",
                    100 * simMedian, 100 * simWorst, 100 * estMedian, 100 * estWorst);
        // Ratchet at the measured figures over 146 cases, 1.4 % and 9.4 %
        // (issue 13 asks for 5 % median): the foreach step's temporaries are
        // one piece per parameter, the simulation runs at the card's
        // capacity, and torch.optim's state is made in the first step()
        // (profile.h lazyOptimizerState), after that step's forward and
        // backward have filled the cache (TinyLlama b8 s2048 ckpt was -19.8 %
        // with the state made at load), one tensor per parameter in
        // model.parameters() order; accumulation replays two micro-batches a
        // step with the gradients freed at zero_grad (Llama 3.2 1B ga4 was
        // +7.6 %); the tied embedding's backward asks for its two tensors one
        // by one (BERT-base's classifier with checkpointing was -14.8 %).
        // Over those 146 the worst is Gemma 3 4B with checkpointing (-9.4 %),
        // docs/validation/reference.md. The 16 selective-op cases added
        // since (162 in all) keep the median at 1.4 %; their worst,
        // Llama 3.2 1B fp32 b2 s4096 (+12.5 %), is the case whose allocated
        // peak is a listed residual (+5.6 %, residuals.json: the accountant
        // reads 11.6 % under an H200 there), so its stream is not the one
        // to judge the simulation by. A checkpointed Llama-family layer's
        // forward planned tensor by tensor, autocast's weight casts among its
        // tensors (checkpointedforward.h), brought the median to 1.1 % (Llama
        // 2 7B LoRA-64 b8 s2048 ckpt -8.9 % to -0.8 %, Qwen2.5 7B LoRA-32 ckpt
        // -3.8 % to -0.1 %, Qwen2.5 1.5B b4 s4096 ckpt -3.0 % to -0.5 %).
        // On 2026-11-27 the accountant's backward cuBLAS workspace moved from
        // before loss.backward() to the backward's first matmul, where three
        // H200 allocator histories put it (gpu-h200-2026-11-27.md). There it
        // takes the best-fitting free block: in some cases the front of a
        // freed logits block, which it pins (Qwen3 0.6B LoRA, DeepSeek-V3 tiny
        // checkpointed), in others a smaller block. The plan, whose stream has
        // coarser blocks, keeps both workspaces from load; the median went
        // from 1.1 to 1.4 % and the worst to -16.2 % (DeepSeek-V3 tiny b2
        // s1024 checkpointed). Moving the plan's workspace too was tried: it
        // fixed the pinned cases and broke as many others (90 worse, 52 better).
        QVERIFY(simMedian <= 0.015);
        QVERIFY(simWorst <= 0.165);
    }
};

QTEST_APPLESS_MAIN(TestReference)
#include "test_reference.moc"
