// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/teachingmodel.h"

using namespace headroom;

TeachingModel::TeachingModel(QObject* parent) : QAbstractTableModel(parent) {}

void TeachingModel::setComparison(const TeachingSet& set, const std::vector<TeachingComparison>& rows)
{
    beginResetModel();
    m_set = set;
    m_rows = rows;
    if (m_rows.size() != m_set.experiments.size())
        m_rows.clear(); // not this set's comparison: show nothing rather than mismatched rows
    endResetModel();
}

void TeachingModel::clear()
{
    beginResetModel();
    m_set = {};
    m_rows.clear();
    endResetModel();
}

const Scenario* TeachingModel::scenarioAt(int row) const
{
    if (row < 0 || static_cast<std::size_t>(row) >= m_rows.size())
        return nullptr;
    return &m_set.experiments[static_cast<std::size_t>(row)].scenario;
}

int TeachingModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int TeachingModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString TeachingModel::counterText(TeachingCounter counter)
{
    switch (counter) {
    case TeachingCounter::AllocatedAfterLoad: return tr("allocated after loading");
    case TeachingCounter::AllocatedAfterStep: return tr("allocated after the optimizer step");
    case TeachingCounter::OptimizerState: return tr("optimizer states");
    case TeachingCounter::Gradients: return tr("gradients");
    }
    return {};
}

QVariant TeachingModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const TeachingComparison& c = m_rows[static_cast<std::size_t>(index.row())];
    const TeachingExperiment& e = m_set.experiments[static_cast<std::size_t>(index.row())];
    const auto gib = [](double v) { return tr("%1 GiB").arg(v, 0, 'f', 3); };
    if (role == GiBRole) {
        switch (index.column()) {
        case Book: return c.bookGiB;
        case Headroom: return c.headroomGiB;
        case Error: return c.errorGiB;
        default: return {};
        }
    }
    if (role == Qt::TextAlignmentRole &&
        (index.column() == Book || index.column() == Headroom || index.column() == Error))
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Experiment: return QString::fromStdString(c.title);
        case Counter: return counterText(c.counter);
        case Book: return gib(c.bookGiB);
        case Headroom: return gib(c.headroomGiB);
        case Error:
            return tr("%1 GiB (%2%)")
                .arg(c.errorGiB >= 0 ? QStringLiteral("+") + QString::number(c.errorGiB, 'f', 3)
                                     : QString::number(c.errorGiB, 'f', 3))
                .arg(c.errorPercent, 0, 'f', 1);
        case Why: return QString::fromStdString(c.explanation);
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        // Every number says where it comes from.
        switch (index.column()) {
        case Book:
            return tr("Printed on line %1 of the seed transcript (%2); the book's code: %3. "
                      "The book prints memory_allocated() / 1024³ and labels it \"GB\": these are GiB.")
                .arg(e.seedLine)
                .arg(QString::fromStdString(m_set.source), QString::fromStdString(m_set.notebook));
        case Headroom:
            return tr("Headroom's plan of this experiment's scenario, read on the same counter, plus the book's own "
                      "reading before the experiment (%1 GiB).")
                .arg(e.bookBeforeGiB, 0, 'f', 3);
        case Error: return tr("Headroom minus the book.");
        case Why: return QString::fromStdString(c.explanation);
        default: return {};
        }
    }
    return {};
}

QVariant TeachingModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Experiment: return tr("Experiment");
    case Counter: return tr("Counter");
    case Book: return tr("Book");
    case Headroom: return tr("Headroom");
    case Error: return tr("Error");
    case Why: return tr("Why they differ");
    default: return {};
    }
}

void TeachingModel::refresh()
{
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}
