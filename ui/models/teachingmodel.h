// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A teaching set's comparison as a table: each published experiment, the
// counter it read, the publication's value, Headroom's value on the same
// counter, the error and why they differ. Every number is the engine's
// (compareTeachingSet, engine/io/teachingset.h); the model computes none.
#include "io/teachingset.h"

#include <QAbstractTableModel>

#include <vector>

class TeachingModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Experiment, Counter, Book, Headroom, Error, Why, ColumnCount };
    enum Role { GiBRole = Qt::UserRole + 1 }; // Book, Headroom, Error: the number, unformatted

    explicit TeachingModel(QObject* parent = nullptr);

    // `rows` is compareTeachingSet(set): one per experiment, in order.
    void setComparison(const headroom::TeachingSet& set, const std::vector<headroom::TeachingComparison>& rows);
    void clear();
    const headroom::TeachingSet& set() const { return m_set; }
    // The experiment's scenario, to load into the main window.
    const headroom::Scenario* scenarioAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Re-emits all data: the language changed.
    void refresh();

    static QString counterText(headroom::TeachingCounter counter);

private:
    headroom::TeachingSet m_set;
    std::vector<headroom::TeachingComparison> m_rows;
};
