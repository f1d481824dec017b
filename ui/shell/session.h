// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The last session, restored on start: the scenario, the file it came from,
// the view (QSettings "session/..."), and, after a crash, the autosaved
// unsaved edits (ui/shell/autosave.h), offered back when the autosave is newer
// than the last clean exit. Anything unreadable (a corrupt value, a corrupt
// autosave) falls back to the defaults with a translated warning.
#include <QDateTime>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

class Autosave;
class MainWindow;

class Session : public QObject {
    Q_OBJECT

public:
    explicit Session(MainWindow* window, int autosaveDelayMs = 3000);

    // On start, in this order: an autosave left by a crash (asked through
    // the asker), else `path` from the command line, else the last session.
    // Returns the warnings (also shown in the status bar).
    QStringList start(const QString& path = QString());
    // A clean exit: remembers the session, removes the autosave, stamps the time.
    void finish();

    // The parts start() and finish() are made of.
    void save() const;
    QString restore();  // a warning, or an empty string
    std::optional<QDateTime> pendingAutosave() const;
    QString restoreAutosave();  // a warning, or an empty string

    // Asks "Restore unsaved changes from <time>?"; a message box unless replaced (tests).
    void setAsker(std::function<bool(const QDateTime&)> asker) { m_asker = std::move(asker); }

    Autosave* autosave() const { return m_autosave; }

private:
    bool ask(const QDateTime& time) const;

    MainWindow* m_window;
    Autosave* m_autosave;
    std::function<bool(const QDateTime&)> m_asker;
};
