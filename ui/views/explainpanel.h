// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// "Where does this number come from?": for the segment selected in the
// breakdown, the tensor rows behind it with their formulas and citations,
// and the total at the peak. What a teacher projects.
#include "charts/devicestack.h"
#include "plan/plan.h"

#include <QWidget>

#include <optional>

class QLabel;
class QTextBrowser;
class QTreeView;
class TensorRowModel;

class ExplainPanel : public QWidget {
    Q_OBJECT

public:
    explicit ExplainPanel(QWidget* parent = nullptr);

    void setPlan(const headroom::Plan& plan);
    // The plan and the segment to explain, in one refresh.
    void setPlan(const headroom::Plan& plan, const DeviceSegment& segment);
    void clearPlan();
    void setSegment(const DeviceSegment& segment);
    DeviceSegment segment() const { return m_segment; }
    void refresh();  // unit or language changed

    TensorRowModel* model() const { return m_model; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void showSource();

    QLabel* m_swatch;
    QLabel* m_title;
    QLabel* m_total;
    QLabel* m_description;
    QTreeView* m_view;
    QTextBrowser* m_source;
    TensorRowModel* m_model;
    std::optional<headroom::Plan> m_plan;
    DeviceSegment m_segment;
    QString m_sourceHtml; // what m_source shows, to skip an unchanged setHtml
};
