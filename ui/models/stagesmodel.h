// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The pipeline stages of a tensor/pipeline/context-parallel plan as a table:
// one row per RankPlan (plan/plan.h) with its layers (the chunks' layers with
// virtual stages), the micro-batches whose activations it holds at once, its
// three counters and its headroom to the GPU's capacity (capacity − device
// used, negative when it does not fit). The worst stage, the one the rest of
// the app shows (Plan::worstRank), is bold. Formats only; Qt::UserRole gives
// the raw values (bytes as qulonglong, the headroom as qlonglong).
#include "plan/plan.h"

#include <QAbstractTableModel>

#include <vector>

class StagesModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Stage, Layers, InFlight, PeakAllocated, PeakReserved, DeviceUsed, Headroom, ColumnCount };
    enum Role { WorstRole = Qt::UserRole + 1 }; // true on the worst stage's row, any column

    explicit StagesModel(QObject* parent = nullptr);

    // The plan's stages (none when tp = pp = cp = 1).
    void setPlan(const headroom::Plan& plan);
    void clear();
    void refresh(); // the unit or the language changed

    const std::vector<headroom::RankPlan>& ranks() const { return m_ranks; }
    int worstRow() const; // -1 without stages
    // "20", or with virtual stages the chunks' layers: "10 + 10".
    static QString layersText(const headroom::RankPlan& rank);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    qlonglong headroomBytes(const headroom::RankPlan& rank) const;

    std::vector<headroom::RankPlan> m_ranks;
    std::size_t m_worst = 0;
    headroom::Bytes m_capacity = 0;
    bool m_interleaved = false; // virtual stages: in-flight counts are chunk micro-batches
};
