// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Combo boxes whose items are re-labelled on a language switch without
// losing the selection or emitting a change. Enum-valued combos store the
// enum as an int.
#include <QComboBox>
#include <QList>
#include <QString>
#include <QVariant>

struct ComboItem {
    QString text;
    QVariant data;
    QString toolTip;
};

// Replaces the items, keeps the item with the same data selected, emits nothing.
void setComboItems(QComboBox* combo, const QList<ComboItem>& items);
// Selects the item with `data` without emitting; false when there is none.
bool selectComboData(QComboBox* combo, const QVariant& data);

template <class Enum>
Enum comboEnum(const QComboBox* combo)
{
    return static_cast<Enum>(combo->currentData().toInt());
}

template <class Enum>
QVariant enumData(Enum value)
{
    return QVariant(static_cast<int>(value));
}
