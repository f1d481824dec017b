// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/fitmapworker.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QMetaObject>

#include <algorithm>

using namespace headroom;

FitMapWorker::FitMapWorker(QObject* parent)
    : QObject(parent)
    , m_generation(std::make_shared<std::atomic<quint64>>(0))
{
    qRegisterMetaType<SweepBundle>();
    // One job at a time: a newer scenario cancels the older job at its next row.
    m_pool.setMaxThreadCount(1);
}

FitMapWorker::~FitMapWorker()
{
    ++*m_generation;  // running jobs stop at their next progress report
    m_pool.waitForDone();
}

SweepBundle FitMapWorker::compute(const Scenario& scenario, std::size_t mapSize,
                                  const std::function<bool(int, int)>& progress)
{
    // The two sweeps count as one step each, then one per fit-map row.
    const int total = static_cast<int>(mapSize) + 2;
    SweepBundle bundle;
    bundle.scenario = scenario;
    bundle.batch = computeSweep(scenario, SweepAxis::MicroBatch);
    if (progress && !progress(1, total))
        return bundle;
    bundle.sequence = computeSweep(scenario, SweepAxis::SequenceLength);
    if (progress && !progress(2, total))
        return bundle;
    // The map spans twice the largest fitting micro-batch and sequence (at
    // least 8 and 4096, as the sweeps do): the boundary sits mid-map.
    auto top = [](const SweepResult& r, std::uint64_t floor) {
        const std::uint64_t fitting = r.largestFitting && r.largestFitting->found ? r.largestFitting->value : 0;
        return std::max({floor, 2 * fitting, r.current + r.current / 4});
    };
    bundle.fitMap = computeFitMap(scenario, mapSize, top(bundle.batch, 8), top(bundle.sequence, 4096),
                                  [&](std::size_t done, std::size_t rows) {
                                      return !progress || progress(static_cast<int>(done + 2), static_cast<int>(rows + 2));
                                  });
    return bundle;
}

void FitMapWorker::start(const Scenario& scenario, std::size_t mapSize)
{
    const quint64 generation = ++*m_generation;
    ++m_running;
    auto current = m_generation;
    m_pool.start([this, scenario, mapSize, generation, current] {
        auto stillWanted = [&] { return current->load() == generation; };
        SweepBundle bundle = compute(scenario, mapSize, [&](int done, int total) {
            if (!stillWanted())
                return false;
            QMetaObject::invokeMethod(this, [this, done, total, generation, current] {
                if (current->load() == generation)
                    emit progress(done, total);
            }, Qt::QueuedConnection);
            return true;
        });
        QMetaObject::invokeMethod(this, [this, bundle = std::move(bundle), generation, current] {
            --m_running;
            // Applied only if the scenario has not changed since this job started.
            if (current->load() == generation && !bundle.fitMap.cancelled)
                emit finished(bundle);
        }, Qt::QueuedConnection);
    });
}

bool FitMapWorker::waitForResult(int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    while (busy() && !deadline.hasExpired())
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
    return !busy();
}
