// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Search tab's work off the UI thread: the engine's layout search
// (engine/plan/layoutsearch.h) of a scenario on a worker thread, as
// FitMapWorker does for the sweep. Two ways to stop it, on purpose apart:
// cancel() is the user's Cancel (the engine stops at its next tensor x
// pipeline shape, through its progress callback, and what it found so far
// arrives marked cancelled); start() for a newer scenario drops the older
// job, whose result never arrives.
#include "plan/layoutsearch.h"

#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <optional>

// One search: the result or the engine's reason there is none.
struct LayoutSearchOutcome {
    headroom::Scenario scenario; // what was searched
    std::optional<headroom::LayoutSearchResult> result;
    std::optional<headroom::Error> error;
};

class LayoutSearchWorker : public QObject {
    Q_OBJECT

public:
    explicit LayoutSearchWorker(QObject* parent = nullptr);
    ~LayoutSearchWorker() override; // drops and waits for the running job

    // Starts searching `scenario`; a job still running for an older one is
    // stopped and its result dropped.
    void start(const headroom::Scenario& scenario);
    // The user's Cancel: the running job stops early and delivers what it has.
    void cancel();
    // Drops the running job's result (the scenario changed).
    void drop() { ++*m_generation; }
    bool busy() const { return m_running > 0; }
    // Blocks, processing events, until the latest job delivered (tests,
    // screenshots). False after `timeoutMs`.
    bool waitForResult(int timeoutMs = 60000);
    // The synchronous search the worker runs (tests compare both). The best
    // kKeptLayouts, each re-planned with the allocator simulation.
    static LayoutSearchOutcome compute(const headroom::Scenario& scenario,
                                       const std::function<bool(int done, int total)>& progress = {});
    static constexpr std::size_t kKeptLayouts = 10;

signals:
    void progress(int done, int total);
    void finished(const LayoutSearchOutcome& outcome);

private:
    QThreadPool m_pool;
    std::shared_ptr<std::atomic<quint64>> m_generation;
    std::shared_ptr<std::atomic<bool>> m_cancel; // the running job's Cancel
    int m_running = 0;                           // jobs started whose result (or drop) has not come back yet
};
