// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputs/hubfetch.h"

#include <QMetaObject>

HubFetch::HubFetch(QObject* parent) : QObject(parent), m_cancel(std::make_shared<std::atomic<bool>>(false))
{
    qRegisterMetaType<HubFetchResult>();
    m_pool.setMaxThreadCount(1);
}

HubFetch::~HubFetch()
{
    cancel();
    m_pool.waitForDone();
}

void HubFetch::cancel() { m_cancel->store(true); }

void HubFetch::start(const QString& id)
{
    if (m_running)
        return;
    m_running = true;
    // A fresh flag per fetch: a cancel of the last one does not stop this one.
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    auto cancel = m_cancel;
    const std::string text = id.trimmed().toStdString();
    m_pool.start([this, cancel, text] {
        headroom::HubFetchControl control;
        control.cancel = cancel.get();
        control.onProgress = [this](const headroom::HubProgress& p) {
            QMetaObject::invokeMethod(
                this,
                [this, file = QString::fromStdString(p.file), done = int(p.done), total = int(p.total)] {
                    emit progress(file, done, total);
                },
                Qt::QueuedConnection);
        };
        headroom::Result<headroom::HubModelInfo> r = headroom::importHubModel(text, control);
        HubFetchResult result;
        if (r)
            result.info = std::move(r).value();
        else
            result.error = r.error();
        QMetaObject::invokeMethod(
            this,
            [this, result = std::move(result)] {
                m_running = false;
                emit finished(result);
            },
            Qt::QueuedConnection);
    });
}
