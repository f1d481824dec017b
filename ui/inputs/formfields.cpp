// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputs/formfields.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>

#include <algorithm>

void FormFields::add(QFormLayout* form, QWidget* owner, QWidget* widget, const char* text, const char* toolTip)
{
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    if (qobject_cast<QCheckBox*>(widget)) {
        form->addRow(widget);
        m_fields.push_back({nullptr, widget, text, toolTip});
        return;
    }
    auto* label = new QLabel(owner);
    label->setBuddy(widget);
    form->addRow(label, widget);
    m_fields.push_back({label, widget, text, toolTip});
}

void FormFields::retranslate(const char* context) const
{
    for (const Field& field : m_fields) {
        if (field.label)
            field.label->setText(QCoreApplication::translate(context, field.text));
        else if (auto* box = qobject_cast<QCheckBox*>(field.widget))
            box->setText(QCoreApplication::translate(context, field.text));
        if (field.toolTip)
            field.widget->setToolTip(QCoreApplication::translate(context, field.toolTip));
    }
}

QSpinBox* makeSpinBox(QWidget* parent, int minimum, int maximum, int step)
{
    auto* spin = new QSpinBox(parent);
    spin->setRange(minimum, maximum);
    spin->setSingleStep(step);
    spin->setGroupSeparatorShown(true);
    spin->setAccelerated(true);
    return spin;
}

int clampToSpin(std::uint64_t value, const QSpinBox* spin)
{
    return static_cast<int>(std::clamp<std::uint64_t>(value, static_cast<std::uint64_t>(spin->minimum()),
                                                      static_cast<std::uint64_t>(spin->maximum())));
}

std::uint64_t spinValue(const QSpinBox* spin) { return static_cast<std::uint64_t>(spin->value()); }
