// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputs/comboitems.h"

#include <QSignalBlocker>

void setComboItems(QComboBox* combo, const QList<ComboItem>& items)
{
    const QSignalBlocker blocker(combo);
    const QVariant selected = combo->currentData();
    combo->clear();
    for (const ComboItem& item : items) {
        combo->addItem(item.text, item.data);
        if (!item.toolTip.isEmpty())
            combo->setItemData(combo->count() - 1, item.toolTip, Qt::ToolTipRole);
    }
    const int index = combo->findData(selected);
    combo->setCurrentIndex(index >= 0 ? index : 0);
}

bool selectComboData(QComboBox* combo, const QVariant& data)
{
    const int index = combo->findData(data);
    if (index < 0)
        return false;
    const QSignalBlocker blocker(combo);
    combo->setCurrentIndex(index);
    return true;
}
