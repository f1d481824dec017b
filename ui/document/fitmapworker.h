// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The sweep tab's long work off the UI thread: both sweeps and the fit map
// of a scenario, computed on a worker thread by the engine's pure functions
// (makePlan keeps no mutable global state; its scratch buffers are
// thread_local, engine/plan/sweep.cpp). Progress arrives as signals; a result
// is delivered only if no newer scenario was started since, so a slow
// result never overwrites a newer one.
#include "plan/knobsweep.h"

#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <memory>

struct SweepBundle {
    headroom::Scenario scenario;  // what it was computed for
    headroom::SweepResult batch;
    headroom::SweepResult sequence;
    headroom::FitMap fitMap;
};
Q_DECLARE_METATYPE(SweepBundle)

class FitMapWorker : public QObject {
    Q_OBJECT

public:
    explicit FitMapWorker(QObject* parent = nullptr);
    ~FitMapWorker() override;  // cancels and waits for the running job

    // Starts computing `scenario`; a job still running for an older scenario
    // is cancelled and its result dropped.
    void start(const headroom::Scenario& scenario, std::size_t mapSize = 64);
    // Drops the running job's result (the scenario changed while its tab was hidden).
    void cancel() { ++*m_generation; }
    bool busy() const { return m_running > 0; }
    // Blocks, processing events, until the latest job delivered (tests,
    // screenshots). False after `timeoutMs`.
    bool waitForResult(int timeoutMs = 60000);
    // The synchronous computation the worker runs (the tests compare both).
    static SweepBundle compute(const headroom::Scenario& scenario, std::size_t mapSize,
                               const std::function<bool(int done, int total)>& progress = {});

signals:
    void progress(int done, int total);
    void finished(const SweepBundle& result);

private:
    QThreadPool m_pool;
    std::shared_ptr<std::atomic<quint64>> m_generation;
    int m_running = 0;  // jobs started whose result (or drop) has not come back yet
};
