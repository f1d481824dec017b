// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Unsaved edits survive a crash: a few seconds after the last change to a
// modified window, its scenario is written (atomically) to
// <AppDataLocation>/autosave.headroom.json, with the file it came from in
// QSettings ("autosave/file"). Saving, opening or a new scenario (the
// window is no longer modified) removes it; so does a clean exit (Session).
#include <QObject>
#include <QString>

class MainWindow;
class QTimer;

class Autosave : public QObject {
    Q_OBJECT

public:
    // 3 s: long enough that a spin box held down writes once, short enough
    // that a crash loses at most a few seconds of edits.
    static constexpr int kDefaultDelayMs = 3000;

    explicit Autosave(MainWindow* window, int delayMs = kDefaultDelayMs);

    static QString path();
    static QString sourceFile();  // the file the autosaved edits were made to; empty for an untitled scenario
    static bool exists();
    static void remove();

    // Writes now (the timer's job). An empty string or the translated reason.
    QString writeNow();
    bool isScheduled() const;
    // The last write's problem, if any (shown in the status bar by the window).
    QString lastError() const { return m_lastError; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void schedule();

    MainWindow* m_window;
    QTimer* m_timer;
    QString m_lastError;
};
