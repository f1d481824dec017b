// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The recently opened or saved scenario files, kept in QSettings, most
// recent first, shown as a menu.
#include <QObject>
#include <QStringList>

class QMenu;

class RecentFiles : public QObject {
    Q_OBJECT

public:
    explicit RecentFiles(QObject* parent = nullptr);

    QStringList files() const;
    void add(const QString& path);
    void remove(const QString& path);
    void clear();
    // Keeps `menu` in step with the list (rebuilt each time it opens).
    void attach(QMenu* menu);

signals:
    void openRequested(const QString& path);

private:
    void fill(QMenu* menu);
    void store(const QStringList& files);
};
