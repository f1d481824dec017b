// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// File → Export Report: a multi-page A4 PDF of one plan, for a reader
// without the app. Title and date, the scenario, the verdict and counters,
// the breakdown and timeline charts (the app's own chart widgets, drawn at
// print resolution), the breakdown by category, the tensor rows behind each
// category with their formulas and sources (what the Explain panel shows),
// and the recommendations: the technique ladder and the fit searches.
//
// Every number comes from the engine (makePlan, buildLadder, the fit
// searches); this class lays them out. The text follows the UI language;
// Korean is set in Noto Sans CJK KR.
#include "plan/plan.h"

#include <QCoreApplication>
#include <QString>

class QTextDocument;

class ReportWriter {
    Q_DECLARE_TR_FUNCTIONS(ReportWriter)

public:
    // Writes the PDF atomically. An empty string on success, else the translated reason.
    static QString write(const headroom::Scenario& scenario, const headroom::Plan& plan, const QString& path);
    // The PDF's bytes (tests; write() stores them).
    static QByteArray render(const headroom::Scenario& scenario, const headroom::Plan& plan);
    // The report as a document with its chart images as resources.
    static void build(QTextDocument& document, const headroom::Scenario& scenario, const headroom::Plan& plan);
};
