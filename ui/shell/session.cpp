// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/session.h"

#include "io/scenariofile.h"
#include "shell/autosave.h"
#include "shell/mainwindow.h"
#include "text/errortext.h"

#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

using namespace headroom;

namespace {

const QString kScenarioKey = QStringLiteral("session/scenario");  // scenarioToText(): a headroom.scenario/1 document
const QString kFileKey = QStringLiteral("session/file");
const QString kModifiedKey = QStringLiteral("session/modified");
const QString kViewKey = QStringLiteral("session/view");
const QString kCleanExitKey = QStringLiteral("session/cleanExit");  // ISO 8601, UTC

// The views by the names --view takes; views added later are simply not remembered.
const QStringList kViewNames = {QStringLiteral("breakdown"), QStringLiteral("stages"), QStringLiteral("timeline"),
                                QStringLiteral("ladder"),    QStringLiteral("sweep"),  QStringLiteral("validate"),
                                QStringLiteral("fit"),       QStringLiteral("compare")};

QString currentViewName(const MainWindow* window)
{
    const auto* tabs = window->findChild<QTabWidget*>();
    if (!tabs)
        return QString();
    for (const QString& name : kViewNames)
        if (auto view = MainWindow::viewFromName(name); view && static_cast<int>(*view) == tabs->currentIndex())
            return name;
    return QString();
}

} // namespace

Session::Session(MainWindow* window, int autosaveDelayMs)
    : QObject(window)
    , m_window(window)
    , m_autosave(new Autosave(window, autosaveDelayMs))
{
}

void Session::save() const
{
    QSettings settings;
    settings.setValue(kScenarioKey, QString::fromStdString(scenarioToText(m_window->scenario())));
    settings.setValue(kFileKey, m_window->currentFile());
    settings.setValue(kModifiedKey, m_window->isWindowModified());
    settings.setValue(kViewKey, currentViewName(m_window));
}

void Session::finish()
{
    if (m_window->isWindowModified()) {
        // Closing a modified window means its changes were discarded at the
        // prompt: next time starts from the file (or the defaults), not from them.
        QSettings settings;
        settings.remove(kScenarioKey);
        settings.setValue(kFileKey, m_window->currentFile());
        settings.setValue(kModifiedKey, false);
        settings.setValue(kViewKey, currentViewName(m_window));
    } else {
        save();
    }
    Autosave::remove();
    QSettings().setValue(kCleanExitKey, QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs));
}

QString Session::restore()
{
    QSettings settings;
    QStringList problems;
    if (settings.status() != QSettings::NoError)
        problems << tr("The settings file %1 could not be read.").arg(settings.fileName());

    const QString view = settings.value(kViewKey).toString();
    if (!view.isEmpty()) {
        if (auto shown = MainWindow::viewFromName(view))
            m_window->showView(*shown);
        else
            problems << tr("The saved view \"%1\" is unknown.").arg(view);
    }

    const QString file = settings.value(kFileKey).toString();
    const QString text = settings.value(kScenarioKey).toString();
    const bool modified = settings.value(kModifiedKey, false).toBool();
    std::optional<Scenario> saved;
    if (!text.isEmpty()) {
        auto parsed = scenarioFromText(text.toStdString());
        if (parsed)
            saved = parsed.value();
        else
            problems << tr("The last scenario could not be read: %1").arg(ErrorText::message(parsed.error()));
    }
    bool opened = false;
    if (!file.isEmpty()) {
        const QString error = m_window->openFile(file);
        opened = error.isEmpty();
        if (!opened)
            problems << error;
    }
    if (saved && (!opened || modified)) {
        // Unsaved edits to the file, an untitled scenario, or a file that is gone.
        m_window->setScenario(*saved);
        m_window->setWindowModified(modified || (!file.isEmpty() && !opened));
    }
    if (problems.isEmpty())
        return QString();
    //: %1 lists what could not be restored
    return tr("The last session was not fully restored; defaults are used instead. %1").arg(problems.join(QLatin1Char(' ')));
}

std::optional<QDateTime> Session::pendingAutosave() const
{
    if (!Autosave::exists())
        return std::nullopt;
    const QDateTime written = QFileInfo(Autosave::path()).lastModified().toUTC();
    const QDateTime cleanExit = QDateTime::fromString(QSettings().value(kCleanExitKey).toString(), Qt::ISODateWithMs);
    // A clean exit removes the autosave; one newer than the last clean exit is a crash's.
    if (cleanExit.isValid() && written <= cleanExit)
        return std::nullopt;
    return written;
}

QString Session::restoreAutosave()
{
    const QString source = Autosave::sourceFile();
    auto scenario = readScenarioFile(Autosave::path().toStdString());
    if (!scenario) {
        // Kept aside for a curious user, out of the way of the next autosave.
        const QString aside = Autosave::path() + QStringLiteral(".corrupt");
        QFile::remove(aside);
        QFile::rename(Autosave::path(), aside);
        Autosave::remove();
        return tr("The autosaved changes could not be read and were set aside as %1. %2")
            .arg(aside, ErrorText::message(scenario.error()));
    }
    if (!source.isEmpty() && QFileInfo::exists(source))
        m_window->openFile(source);  // the title and Save go to the file the edits belong to
    m_window->setScenario(scenario.value());
    m_window->setWindowModified(true);
    return QString();
}

bool Session::ask(const QDateTime& time) const
{
    if (m_asker)
        return m_asker(time);
    const QString when = QLocale().toString(time.toLocalTime(), QLocale::ShortFormat);
    return QMessageBox::question(m_window, tr("Unsaved changes"),
                                 tr("Headroom did not exit cleanly. Restore unsaved changes from %1?").arg(when),
                                 QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes) == QMessageBox::Yes;
}

QStringList Session::start(const QString& path)
{
    QStringList warnings;
    bool restored = false;
    if (const auto pending = pendingAutosave()) {
        if (ask(*pending)) {
            const QString warning = restoreAutosave();
            restored = warning.isEmpty();
            if (!warning.isEmpty())
                warnings << warning;
        } else {
            Autosave::remove();
        }
    }
    if (!restored) {
        if (!path.isEmpty()) {
            m_window->openFileInteractive(path);
        } else if (const QString warning = restore(); !warning.isEmpty()) {
            warnings << warning;
        }
    }
    if (!warnings.isEmpty())
        m_window->statusBar()->showMessage(warnings.join(QLatin1Char(' ')), 15000);
    return warnings;
}
