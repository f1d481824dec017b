// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Make it fit's suggestions as a table: one row per suggestion (the engine's
// FitSuggestion), with its changes in words, the device used and margin it
// would leave, and its estimated step-time cost. The last column is empty:
// the view puts an Apply button there. Qt::UserRole gives raw values.
#include "plan/makeitfit.h"

#include <QAbstractTableModel>

#include <vector>

class SuggestionModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Change, DeviceUsed, Margin, Cost, Apply, ColumnCount };

    explicit SuggestionModel(QObject* parent = nullptr);

    void setSuggestions(std::vector<headroom::FitSuggestion> suggestions);
    const std::vector<headroom::FitSuggestion>& suggestions() const { return m_suggestions; }
    void refresh(); // the unit or the language changed

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Translated name and explanation of an engine change (by its technique).
    static QString changeLabel(const headroom::FitChange& change);
    static QString changeReason(const headroom::FitChange& change);

private:
    std::vector<headroom::FitSuggestion> m_suggestions;
};
