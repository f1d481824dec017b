// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/autosave.h"

#include "document/plandocument.h"
#include "inputs/scenariopanel.h"
#include "io/scenariofile.h"
#include "shell/mainwindow.h"
#include "text/errortext.h"

#include <QDir>
#include <QEvent>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTimer>

namespace {

const QString kSourceKey = QStringLiteral("autosave/file");

} // namespace

Autosave::Autosave(MainWindow* window, int delayMs)
    : QObject(window)
    , m_window(window)
    , m_timer(new QTimer(this))
{
    m_timer->setSingleShot(true);
    m_timer->setInterval(delayMs);
    connect(m_timer, &QTimer::timeout, this, [this] {
        const QString error = writeNow();
        if (!error.isEmpty())
            m_window->statusBar()->showMessage(error, 8000);
    });
    // Edits arrive from the panel at once; every other change of the
    // scenario (undo, redo, a ladder step applied) as a new plan of the
    // document; a save or an open as the window's modified flag changing.
    connect(window->panel(), &ScenarioPanel::scenarioChanged, this, &Autosave::schedule);
    connect(window->document(), &PlanDocument::planChanged, this, &Autosave::schedule);
    window->installEventFilter(this);
}

QString Autosave::path()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/autosave.headroom.json");
}

QString Autosave::sourceFile() { return QSettings().value(kSourceKey).toString(); }

bool Autosave::exists() { return QFileInfo::exists(path()); }

void Autosave::remove()
{
    QFile::remove(path());
    QSettings().remove(kSourceKey);
}

bool Autosave::isScheduled() const { return m_timer->isActive(); }

void Autosave::schedule()
{
    if (m_window->isWindowModified())
        m_timer->start();  // restarts: written once the edits pause
}

bool Autosave::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_window && event->type() == QEvent::ModifiedChange) {
        if (m_window->isWindowModified()) {
            m_timer->start();
        } else {
            // Saved, opened or new: nothing unsaved left to offer back.
            m_timer->stop();
            remove();
        }
    }
    return QObject::eventFilter(watched, event);
}

QString Autosave::writeNow()
{
    m_timer->stop();
    if (!m_window->isWindowModified())
        return QString();
    const QString file = path();
    if (!QDir().mkpath(QFileInfo(file).absolutePath())) {
        m_lastError = tr("Cannot autosave: the folder %1 cannot be created.").arg(QFileInfo(file).absolutePath());
        return m_lastError;
    }
    auto written = headroom::writeScenarioFile(m_window->scenario(), file.toStdString());
    if (!written) {
        m_lastError = tr("Cannot autosave. %1").arg(ErrorText::message(written.error()));
        return m_lastError;
    }
    QSettings().setValue(kSourceKey, m_window->currentFile());
    m_lastError.clear();
    return QString();
}
