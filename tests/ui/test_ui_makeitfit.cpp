// SPDX-License-Identifier: GPL-3.0-or-later
// The Make it fit tab: it lists the engine's suggestions, Apply loads one
// into the panel and the new plan fits, Undo returns to the scenario before.
#include "io/scenariofile.h"
#include "model/catalog.h"
#include "plan/makeitfit.h"
#include "shell/mainwindow.h"
#include "views/makeitfitview.h"

#include <QTableView>
#include <QtTest>

using namespace headroom;

namespace {

QString canonical(const Scenario& s) { return QString::fromStdString(scenarioToText(s)); }

// Llama 3.1 8B full fine-tune (bf16 mixed, AdamW) on a 24 GB RTX 4090:
// weights, gradients and moments alone are ~120 GiB.
Scenario tooLarge()
{
    Scenario s;
    s.model = presetModel("meta-llama/Llama-3.1-8B").value();
    s.hardware.gpu = "rtx-4090";
    s.train.microBatch = 4;
    return s;
}

} // namespace

class TestUiMakeItFit : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_makeitfit"));
    }

    void applyingASuggestionMakesThePlanFit()
    {
        MainWindow window;
        window.setScenario(tooLarge());
        QVERIFY(!window.plan()->fits);
        window.showView(MainWindow::View::MakeItFit);
        MakeItFitView* view = window.makeItFitView();
        QVERIFY(view->result().has_value());
        const auto expected = makeItFit(tooLarge()).value();
        QCOMPARE(view->result()->suggestions.size(), expected.suggestions.size());
        QVERIFY(!expected.suggestions.empty());
        auto* table = view->findChild<QTableView*>();
        QCOMPARE(table->model()->rowCount(), static_cast<int>(expected.suggestions.size()));

        // The Apply button of the second row.
        auto* apply = qobject_cast<QPushButton*>(table->indexWidget(table->model()->index(1, 4)));
        QVERIFY(apply);
        apply->click();
        QCOMPARE(canonical(window.scenario()), canonical(expected.suggestions[1].scenario));
        QVERIFY(window.isWindowModified());
        QVERIFY(window.plan()->fits);
        QCOMPARE(window.plan()->deviceUsedBytes, expected.suggestions[1].deviceUsedBytes);
        // The view followed the new scenario: it fits now.
        QCOMPARE(table->model()->rowCount(), 0);
        QVERIFY(view->summary().contains(QLatin1String("already fits")));

        // Undo returns the panel to the scenario before the apply.
        auto* undo = view->findChild<QPushButton*>(QString(), Qt::FindDirectChildrenOnly);
        QVERIFY(undo && undo->isEnabled());
        undo->click();
        QCOMPARE(canonical(window.scenario()), canonical(tooLarge()));
        QVERIFY(!window.plan()->fits);
        window.setWindowModified(false);
    }

    void nothingFitsIsSaid()
    {
        MakeItFitView view;
        Scenario s = tooLarge();
        s.model = presetModel("meta-llama/Llama-3.1-70B").value();
        view.setSuggestions(s, makeItFit(s));
        QVERIFY(view.result()->suggestions.empty());
        QVERIFY(view.summary().contains(QLatin1String("no combination")));
    }
};

QTEST_MAIN(TestUiMakeItFit)
#include "test_ui_makeitfit.moc"
