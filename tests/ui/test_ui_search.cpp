// SPDX-License-Identifier: GPL-3.0-or-later
// The Search tab (issue 15): it runs the engine's layout search off the UI
// thread and shows the engine's layouts, Cancel stops it and leaves the tab
// usable, a scenario the search refuses shows the engine's reason, and Apply
// puts the selected layout into the scenario as an undoable edit.
#include "document/plandocument.h"
#include "model/catalog.h"
#include "models/layoutsearchmodel.h"
#include "plan/gpucatalog.h"
#include "plan/layoutsearch.h"
#include "shell/languagemanager.h"
#include "shell/mainwindow.h"
#include "text/errortext.h"
#include "text/searchtext.h"
#include "views/searchview.h"

#include <QAbstractItemModelTester>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QUndoStack>
#include <QtTest>

using namespace headroom;

namespace {

// A full fine-tune of a small model on 16 H100s, global batch 32: 700-odd
// layouts, many of which fit (the CLI's search test uses the same).
Scenario sixteenH100s()
{
    Scenario s;
    s.model = presetModel("Qwen/Qwen2.5-0.5B").value();
    s.train.precision = Precision::Bf16Mixed;
    s.train.optimizer = Optimizer::AdamW;
    s.train.seqLen = 1024;
    s.train.microBatch = 2;
    s.train.gradAccum = 1;
    s.train.globalBatch = 32;
    s.hardware.gpu = "h100-sxm-80gb";
    s.hardware.count = 16;
    s.hardware.sharding = Sharding::Ddp;
    return s;
}

// Llama 3.1 70B on 512 H100s: thousands of layouts over dozens of shapes, so
// a Cancel right after the start stops the search well before its end.
Scenario large()
{
    Scenario s = sixteenH100s();
    s.model = presetModel("meta-llama/Llama-3.1-70B").value();
    s.train.seqLen = 4096;
    s.train.attention = Attention::Flash;
    s.train.globalBatch = 1024;
    s.train.microBatch = 1;
    s.train.gradAccum = 1;
    s.hardware.count = 512;
    s.hardware.sharding = Sharding::Zero3;
    return s;
}

LayoutSearchResult engineSearch(const Scenario& s)
{
    LayoutSearchOptions options;
    options.keep = LayoutSearchWorker::kKeptLayouts;
    return searchLayouts(s, options).value();
}

bool hasHangul(const QString& text)
{
    for (QChar c : text)
        if (c.unicode() >= 0xAC00 && c.unicode() <= 0xD7A3)
            return true;
    return false;
}

// The text of a column of the view's table, row by row.
QVariant cell(const QAbstractItemModel* model, int row, int column, int role = Qt::UserRole)
{
    return model->data(model->index(row, column), role);
}

} // namespace

class TestUiSearch : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_search"));
    }

    // The tab shows what searchLayouts says, row by row, and the sentence
    // built from the engine's comparison of #1 and #2.
    void theTableIsTheEnginesSearch()
    {
        MainWindow window;
        window.setScenario(sixteenH100s());
        QVERIFY(window.plan().has_value());
        QSignalSpy progress(window.document(), &PlanDocument::searchProgress);
        window.showView(MainWindow::View::Search);
        SearchView* view = window.searchView();
        QVERIFY(view->waitForResult());
        QVERIFY(window.document()->search().has_value());

        const LayoutSearchResult expected = engineSearch(sixteenH100s());
        QVERIFY(expected.layouts.size() >= 2);
        LayoutSearchModel* model = view->model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model->rowCount(), static_cast<int>(expected.layouts.size()));
        QCOMPARE(view->table()->model(), model);
        for (int row = 0; row < model->rowCount(); ++row) {
            const LayoutCandidate& c = expected.layouts[static_cast<std::size_t>(row)];
            QCOMPARE(cell(model, row, LayoutSearchModel::Tp).toULongLong(), c.tp);
            QCOMPARE(cell(model, row, LayoutSearchModel::Sp).toBool(), c.sp);
            QCOMPARE(cell(model, row, LayoutSearchModel::Pp).toULongLong(), c.pp);
            QCOMPARE(cell(model, row, LayoutSearchModel::Dp).toULongLong(), c.dp);
            QCOMPARE(cell(model, row, LayoutSearchModel::Sharding).toInt(), static_cast<int>(c.sharding));
            QCOMPARE(cell(model, row, LayoutSearchModel::MicroBatch).toULongLong(), c.microBatch);
            QCOMPARE(cell(model, row, LayoutSearchModel::GradAccum).toULongLong(), c.gradAccum);
            QCOMPARE(cell(model, row, LayoutSearchModel::Checkpointing).toInt(), static_cast<int>(c.checkpointing));
            QCOMPARE(cell(model, row, LayoutSearchModel::PeakReserved).toULongLong(), c.peakReservedBytes);
            QCOMPARE(cell(model, row, LayoutSearchModel::DeviceUsed).toULongLong(), c.deviceUsedBytes);
            QCOMPARE(cell(model, row, LayoutSearchModel::StepTime).toDouble(), c.time.stepSeconds);
            QCOMPARE(cell(model, row, LayoutSearchModel::TokensPerGpu).toDouble(), c.time.tokensPerSecondPerGpu);
            QCOMPARE(cell(model, row, LayoutSearchModel::Mfu).toDouble(), c.time.mfu);
            QCOMPARE(cell(model, row, LayoutSearchModel::Bubble).toDouble(), c.time.bubbleFraction);
            QCOMPARE(cell(model, row, LayoutSearchModel::StepTime, Qt::DisplayRole).toString(),
                     SearchText::seconds(c.time.stepSeconds));
        }
        QCOMPARE(view->why(), SearchText::whyBest(expected.layouts[0], expected.layouts[1]));
        QVERIFY2(view->why().startsWith(QLatin1String("#1 ")), qPrintable(view->why()));
        // The counts and the stated assumptions are the engine's.
        QVERIFY(view->details().contains(SearchText::counts(expected)));
        QVERIFY(view->details().contains(QLatin1String("8 GPUs per node (assumed")));
        QVERIFY(view->details().contains(QLatin1String("60 %")));
        QVERIFY(view->details().contains(QLatin1String("not overlapped")));
        const QString gpus = QStringLiteral("16 × ") + QString::fromStdString(findGpu("h100-sxm-80gb")->name);
        QVERIFY2(view->headline().contains(gpus), qPrintable(view->headline()));
        QVERIFY(view->progressBar()->isHidden());
        QVERIFY(!progress.isEmpty());
        const QList<QVariant> last = progress.constLast();
        QCOMPARE(last.at(0).toInt(), last.at(1).toInt()); // every shape done

        // In Korean the sentences and the headers follow the language.
        QVERIFY(window.languages()->setLanguage(QStringLiteral("ko")));
        QTRY_VERIFY2(hasHangul(view->why()), qPrintable(view->why()));
        QVERIFY2(hasHangul(view->details()), qPrintable(view->details()));
        QVERIFY(hasHangul(model->headerData(LayoutSearchModel::StepTime, Qt::Horizontal).toString()));
        QVERIFY(window.languages()->setLanguage(QStringLiteral("en")));
    }

    // Cancel goes through the engine's progress callback: the search stops
    // early, says so, and Search again runs it to the end.
    void cancelStopsAndTheViewStaysUsable()
    {
        PlanDocument document;
        document.reset(large());
        SearchView view(&document);
        view.show();
        view.showCurrent();
        QVERIFY(view.cancelButton()->isVisible());
        QVERIFY(view.progressBar()->isVisible());
        view.cancelButton()->click();
        QVERIFY(view.waitForResult());
        const auto& cancelled = document.search();
        QVERIFY(cancelled && cancelled->result);
        QVERIFY(cancelled->result->cancelled);
        const LayoutSearchResult full = engineSearch(large());
        QVERIFY2(cancelled->result->evaluated < full.evaluated,
                 qPrintable(QStringLiteral("%1 of %2").arg(cancelled->result->evaluated).arg(full.evaluated)));
        QVERIFY2(view.headline().contains(QLatin1String("cancelled")), qPrintable(view.headline()));
        QVERIFY(!view.cancelButton()->isVisible());
        QVERIFY(!view.progressBar()->isVisible());

        QPushButton* searchAgain = view.searchAgainButton();
        QVERIFY(searchAgain->isVisible());
        searchAgain->click();
        QVERIFY(view.waitForResult());
        QVERIFY(document.search() && document.search()->result);
        QVERIFY(!document.search()->result->cancelled);
        QCOMPARE(document.search()->result->evaluated, full.evaluated);
        QCOMPARE(view.model()->rowCount(), static_cast<int>(full.layouts.size()));
        QVERIFY(!view.headline().contains(QLatin1String("cancelled")));
    }

    // What the search refuses (inference, a GPU without a published peak, a
    // batch no layout divides) is said in the tab, in the UI language.
    void unsupportedScenariosShowTheEnginesReason_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("inference") << 0;
        QTest::newRow("no peak") << 1;
        QTest::newRow("global batch") << 2;
    }

    void unsupportedScenariosShowTheEnginesReason()
    {
        QFETCH(int, kind);
        Scenario s = sixteenH100s();
        if (kind == 0)
            s.mode = Mode::Inference;
        else if (kind == 1)
            s.hardware.gpu = "a10g";
        else {
            // 64 GPUs: tp at most 2 (2 KV heads), pp at most 16 of 24 layers,
            // no cp (1001 tokens do not split into 2 x cp chunks): every dp is even.
            s.hardware.count = 64;
            s.train.globalBatch = 3;
            s.train.seqLen = 1001;
        }
        const auto engine = searchLayouts(s);
        QVERIFY(!engine);
        // The table knows the engine's phrasing: it is translated, not shown raw.
        QVERIFY2(!ErrorText::knownDetail(engine.error().detail).isEmpty(), engine.error().detail.c_str());

        PlanDocument document;
        document.reset(s);
        SearchView view(&document);
        view.showCurrent();
        QVERIFY(view.waitForResult());
        QCOMPARE(view.headline(), ErrorText::knownDetail(engine.error().detail));
        QVERIFY(view.table()->isHidden());
        QCOMPARE(view.model()->rowCount(), 0);
        QVERIFY(!view.applyButton()->isEnabled());
        QVERIFY(view.why().isEmpty());

        LanguageManager languages;
        QVERIFY(languages.setLanguage(QStringLiteral("ko")));
        QTRY_VERIFY2(hasHangul(view.headline()), qPrintable(view.headline()));
        QVERIFY(languages.setLanguage(QStringLiteral("en")));
    }

    // LoRA is not planned with tensor or pipeline parallelism: the search
    // keeps to data parallelism and says why, translated.
    void loraSaysWhyOnlyDataParallelism()
    {
        Scenario s = sixteenH100s();
        s.model = presetModel("meta-llama/Llama-3.1-8B").value();
        s.train.peft.method = PeftMethod::Lora;
        PlanDocument document;
        document.reset(s);
        SearchView view(&document);
        view.showCurrent();
        QVERIFY(view.waitForResult());
        const LayoutSearchResult expected = engineSearch(s);
        QCOMPARE(view.model()->rowCount(), static_cast<int>(expected.layouts.size()));
        for (const LayoutCandidate& c : expected.layouts)
            QVERIFY(c.tp == 1 && c.pp == 1);
        QVERIFY2(view.details().contains(QLatin1String("Most frequent refusal: LoRA, QLoRA and quantized weights")),
                 qPrintable(view.details()));
    }

    // Apply: the selected row's layout becomes the scenario's, as an edit
    // (modified, replanned, undoable); the row is then marked as current.
    void applySetsTheScenariosLayout()
    {
        MainWindow window;
        window.setScenario(sixteenH100s());
        window.showView(MainWindow::View::Search);
        SearchView* view = window.searchView();
        QVERIFY(view->waitForResult());
        const LayoutSearchResult expected = engineSearch(sixteenH100s());
        QVERIFY(view->applyButton()->isEnabled()); // #1 is selected at first
        view->table()->selectRow(1);
        QVERIFY(view->applyButton()->isEnabled());
        view->applyButton()->click();

        const LayoutCandidate& chosen = expected.layouts[1];
        const Scenario applied = window.scenario();
        QCOMPARE(applied.hardware.parallel.tp, chosen.tp);
        QCOMPARE(applied.hardware.parallel.sp, chosen.sp);
        QCOMPARE(applied.hardware.parallel.pp, chosen.pp);
        QCOMPARE(applied.hardware.parallel.cp, chosen.cp);
        QCOMPARE(applied.hardware.sharding, chosen.sharding);
        QCOMPARE(applied.train.microBatch, chosen.microBatch);
        QCOMPARE(applied.train.gradAccum, chosen.gradAccum);
        QCOMPARE(applied.train.checkpointing, chosen.checkpointing);
        QCOMPARE(applied.train.globalBatch, std::uint64_t(32));
        QVERIFY(window.isWindowModified());
        // The other views show it: the plan is the layout's, as the search planned it.
        QVERIFY(window.plan().has_value());
        QCOMPARE(window.plan()->deviceUsedBytes, chosen.deviceUsedBytes);

        // The tab searched the new scenario (the same global batch: the same
        // layouts) and marks the applied one.
        QVERIFY(view->waitForResult());
        QCOMPARE(view->model()->rowCount(), static_cast<int>(expected.layouts.size()));
        QCOMPARE(view->model()->currentRow(), 1);
        QVERIFY2(view->headline().contains(QLatin1String("layout now is #2")), qPrintable(view->headline()));
        QVERIFY(view->model()->data(view->model()->index(1, 0), Qt::FontRole).value<QFont>().bold());

        window.document()->undoStack()->undo();
        window.replanNow();
        QCOMPARE(window.scenario().hardware.sharding, Sharding::Ddp);
        QCOMPARE(window.scenario().train.microBatch, std::uint64_t(2));
        window.setWindowModified(false);
    }
};

QTEST_MAIN(TestUiSearch)
#include "test_ui_search.moc"
