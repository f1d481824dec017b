// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A model fetched from the Hugging Face Hub off the UI thread: the engine's
// importHubModel (engine/hub/hubclient.h) runs on a worker, progress and the
// result come back as queued signals, and cancel reaches the transfer in
// progress (libcurl's progress callback) within a fraction of a second.
#include "hub/hubclient.h"

#include <QMetaType>
#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <optional>

struct HubFetchResult {
    std::optional<headroom::HubModelInfo> info;                // set on success
    headroom::Error error{headroom::ErrorCode::Cancelled, ""}; // otherwise
};
Q_DECLARE_METATYPE(HubFetchResult)

class HubFetch : public QObject {
    Q_OBJECT

public:
    explicit HubFetch(QObject* parent = nullptr);
    ~HubFetch() override; // cancels and waits for the running fetch

    // Fetches "ORG/NAME[@REVISION]" with the settings of the environment
    // (HF_ENDPOINT, HF_TOKEN, HF_HOME, HF_HUB_OFFLINE...). One at a time.
    void start(const QString& id);
    void cancel();
    bool busy() const { return m_running; }

signals:
    void progress(const QString& file, int done, int total);
    void finished(const HubFetchResult& result);

private:
    QThreadPool m_pool;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    bool m_running = false;
};
