// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The labelled rows of an input form (ScenarioPanel, HardwareGroup): each
// row's label and tooltip are QT_TR_NOOP literals, translated again in the
// owner's context on every language switch. And the spin-box helpers the
// forms share.
#include <cstdint>
#include <vector>

class QFormLayout;
class QLabel;
class QSpinBox;
class QWidget;

class FormFields {
public:
    // Adds `widget` to `form` with a label owned by `owner` (a checkbox
    // carries its own text: no separate label).
    void add(QFormLayout* form, QWidget* owner, QWidget* widget, const char* text, const char* toolTip);
    // Sets every label, checkbox text and tooltip, translated in `context`
    // (the owner's class name, where lupdate files the QT_TR_NOOP texts).
    void retranslate(const char* context) const;

private:
    struct Field {
        QLabel* label;
        QWidget* widget;
        const char* text;
        const char* toolTip;
    };
    std::vector<Field> m_fields;
};

QSpinBox* makeSpinBox(QWidget* parent, int minimum, int maximum, int step = 1);
// A scenario's value shown in a spin box of int range, clamped to it.
int clampToSpin(std::uint64_t value, const QSpinBox* spin);
std::uint64_t spinValue(const QSpinBox* spin);
