// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/recentfiles.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace {

constexpr int kMaxRecent = 10;
const QString kKey = QStringLiteral("recentFiles");

} // namespace

RecentFiles::RecentFiles(QObject* parent)
    : QObject(parent)
{
}

QStringList RecentFiles::files() const { return QSettings().value(kKey).toStringList(); }

void RecentFiles::store(const QStringList& files) { QSettings().setValue(kKey, files); }

void RecentFiles::add(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = files();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaxRecent)
        list.removeLast();
    store(list);
}

void RecentFiles::remove(const QString& path)
{
    QStringList list = files();
    list.removeAll(QFileInfo(path).absoluteFilePath());
    store(list);
}

void RecentFiles::clear() { store({}); }

void RecentFiles::attach(QMenu* menu)
{
    connect(menu, &QMenu::aboutToShow, this, [this, menu] { fill(menu); });
    fill(menu);
}

void RecentFiles::fill(QMenu* menu)
{
    menu->clear();
    const QStringList list = files();
    int number = 1;
    for (const QString& path : list) {
        // "&1 llama-qlora.headroom.json" with the full path as the tip.
        QAction* action = menu->addAction(QStringLiteral("&%1 %2").arg(number++).arg(QFileInfo(path).fileName()));
        action->setToolTip(QDir::toNativeSeparators(path));
        action->setStatusTip(QDir::toNativeSeparators(path));
        connect(action, &QAction::triggered, this, [this, path] { emit openRequested(path); });
    }
    if (list.isEmpty()) {
        menu->addAction(tr("No recent files"))->setEnabled(false);
        return;
    }
    menu->addSeparator();
    connect(menu->addAction(tr("Clear list")), &QAction::triggered, this, &RecentFiles::clear);
}
