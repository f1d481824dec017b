// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/layoutsearchworker.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QMetaObject>

using namespace headroom;

LayoutSearchWorker::LayoutSearchWorker(QObject* parent)
    : QObject(parent)
    , m_generation(std::make_shared<std::atomic<quint64>>(0))
    , m_cancel(std::make_shared<std::atomic<bool>>(false))
{
    // One job at a time: a newer scenario stops the older job at its next shape.
    m_pool.setMaxThreadCount(1);
}

LayoutSearchWorker::~LayoutSearchWorker()
{
    ++*m_generation; // the running job stops at its next progress report
    m_pool.waitForDone();
}

LayoutSearchOutcome LayoutSearchWorker::compute(const Scenario& scenario, const std::function<bool(int, int)>& progress)
{
    LayoutSearchOptions options;
    options.keep = kKeptLayouts;
    if (progress)
        options.progress = [&progress](std::size_t done, std::size_t total) {
            return progress(static_cast<int>(done), static_cast<int>(total));
        };
    LayoutSearchOutcome outcome;
    outcome.scenario = scenario;
    auto result = searchLayouts(scenario, options);
    if (result)
        outcome.result = std::move(result).value();
    else
        outcome.error = result.error();
    return outcome;
}

void LayoutSearchWorker::start(const Scenario& scenario)
{
    const quint64 generation = ++*m_generation;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    ++m_running;
    auto current = m_generation;
    auto cancelled = m_cancel;
    m_pool.start([this, scenario, generation, current, cancelled] {
        auto stillWanted = [&] { return current->load() == generation; };
        LayoutSearchOutcome outcome = compute(scenario, [&](int done, int total) {
            if (!stillWanted() || cancelled->load())
                return false;
            QMetaObject::invokeMethod(
                this,
                [this, done, total, generation, current] {
                    if (current->load() == generation)
                        emit progress(done, total);
                },
                Qt::QueuedConnection);
            return true;
        });
        QMetaObject::invokeMethod(
            this,
            [this, outcome = std::move(outcome), generation, current] {
                --m_running;
                // Delivered only if no newer scenario was started since; a
                // cancelled job delivers (the engine marks its result cancelled).
                if (current->load() == generation)
                    emit finished(outcome);
            },
            Qt::QueuedConnection);
    });
}

void LayoutSearchWorker::cancel() { m_cancel->store(true); }

bool LayoutSearchWorker::waitForResult(int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    while (busy() && !deadline.hasExpired())
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
    return !busy();
}
