// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Compare tab's table: one column per pinned scenario, rows for its name
// (editable: a rename), device used, margin and verdict, then only the
// settings in which the pinned scenarios differ. Every number is the pinned
// plan's; Qt::UserRole gives raw values (bytes, margin, fits).
#include "plan/plan.h"

#include <QAbstractTableModel>
#include <QString>

#include <vector>

class CompareModel : public QAbstractTableModel {
    Q_OBJECT

public:
    struct Pin {
        QString name;
        headroom::Scenario scenario;
        headroom::Plan plan;
    };
    enum FixedRow { Name, DeviceUsed, Margin, Verdict, FixedRowCount };

    explicit CompareModel(QObject* parent = nullptr);

    void setPins(const std::vector<Pin>& pins);
    void refresh(); // the unit or the language changed

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // A short model name and GPU, for a pin's default name.
    static QString shortModel(const headroom::Scenario& scenario);
    static QString gpuName(const headroom::Scenario& scenario);

signals:
    // The user typed a new name for pin `index` (the view owns the pins).
    void renameRequested(int index, const QString& name);

private:
    void findDifferences();

    std::vector<Pin> m_pins;
    std::vector<std::size_t> m_differing; // indexes into the settings table, in its order
};
