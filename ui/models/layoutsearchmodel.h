// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Search tab's table: one row per layout the engine's search kept
// (headroom::LayoutCandidate, best first), its degrees and batch split, the
// plan's peak reserved and device used, and the step-time estimate's step,
// tokens/s per GPU, MFU and bubble. Qt::UserRole gives the raw values; the
// row of the scenario's own layout is bold.
#include "plan/layoutsearch.h"

#include <QAbstractTableModel>

#include <vector>

class LayoutSearchModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        Rank,
        Tp,
        Sp,
        Pp,
        Cp,
        Dp,
        Sharding,
        MicroBatch,
        GradAccum,
        Checkpointing,
        PeakReserved,
        DeviceUsed,
        StepTime,
        TokensPerGpu,
        Mfu,
        Bubble,
        ColumnCount
    };

    explicit LayoutSearchModel(QObject* parent = nullptr);

    // `capacityBytes`: what the GPU can allocate (the device-used column's reference).
    void setLayouts(std::vector<headroom::LayoutCandidate> layouts, headroom::Bytes capacityBytes);
    const std::vector<headroom::LayoutCandidate>& layouts() const { return m_layouts; }
    // The row whose layout the scenario has now (-1: none), shown bold.
    void setCurrentRow(int row);
    int currentRow() const { return m_currentRow; }
    void refresh(); // the unit or the language changed

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant display(const headroom::LayoutCandidate& c, int row, int column) const;
    QVariant raw(const headroom::LayoutCandidate& c, int row, int column) const;
    QString toolTip(const headroom::LayoutCandidate& c, int column) const;

    std::vector<headroom::LayoutCandidate> m_layouts;
    headroom::Bytes m_capacityBytes = 0;
    int m_currentRow = -1;
};
