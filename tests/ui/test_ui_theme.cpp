// SPDX-License-Identifier: GPL-3.0-or-later
// Look and keys: View → Theme (dark and light palettes reach the charts'
// backgrounds, axes and signal colors, persist, and a corrupt value falls
// back with a warning), the GPU's two capacities in the panel, tooltips on
// every input, Tab in reading order, and mnemonics on the menus.
#include "charts/breakdownchart.h"
#include "charts/timelineview.h"
#include "inputs/scenariopanel.h"
#include "plan/gpucatalog.h"
#include "shell/mainwindow.h"
#include "style/palette.h"
#include "style/theme.h"
#include "text/memoryunits.h"
#include "views/breakdownview.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QLabel>
#include <QMenuBar>
#include <QSettings>
#include <QtTest>

#include <cmath>

using namespace headroom;

namespace {

// WCAG 2.1 relative luminance and contrast ratio
// (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio).
double luminance(const QColor& c)
{
    auto channel = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

double contrast(const QColor& a, const QColor& b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace

class TestUiTheme : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_theme"));
    }

    void init() { QSettings().clear(); }

    void darkPaletteReachesTheCharts()
    {
        MainWindow window;
        window.theme()->setTheme(Theme::Kind::Dark);
        const QColor darkBase = Theme::darkPalette().color(QPalette::Base);
        const QColor darkText = Theme::darkPalette().color(QPalette::WindowText);
        BreakdownChart* breakdown = window.breakdownView()->chart();
        QCOMPARE(breakdown->palette().color(QPalette::Base), darkBase);
        QImage image = breakdown->toPixmap(400, 300).toImage();
        QCOMPARE(image.pixelColor(2, 2), darkBase);  // a corner: background, nothing drawn
        QCOMPARE(breakdown->yAxis->tickLabelColor(), darkText);
        QCOMPARE(window.timelineView()->yAxis->tickLabelColor(), darkText);
        QVERIFY(Palette::isDark());
        QCOMPARE(QSettings().value(QStringLiteral("theme")).toString(), QStringLiteral("dark"));

        window.theme()->setTheme(Theme::Kind::Light);
        image = breakdown->toPixmap(400, 300).toImage();
        QCOMPARE(image.pixelColor(2, 2), Theme::lightPalette().color(QPalette::Base));
        QCOMPARE(breakdown->yAxis->tickLabelColor(), Theme::lightPalette().color(QPalette::WindowText));
        QVERIFY(!Palette::isDark());
    }

    void themeIsRestoredAndCorruptValuesFallBack()
    {
        QSettings().setValue(QStringLiteral("theme"), QStringLiteral("dark"));
        {
            MainWindow window;
            QCOMPARE(window.theme()->current(), Theme::Kind::Dark);
            QCOMPARE(QApplication::palette().color(QPalette::Window), Theme::darkPalette().color(QPalette::Window));
        }
        QSettings().setValue(QStringLiteral("theme"), QStringLiteral("purple"));
        Theme theme;
        const QString warning = theme.restore();
        QVERIFY2(warning.contains(QLatin1String("purple")), qPrintable(warning));
        QCOMPARE(theme.current(), Theme::Kind::System);
    }

    void signalColorsReadOnBothBackgrounds()
    {
        // The capacity line, the verdict colors and the peak marker: at least
        // 3:1 against the chart background (WCAG 2.1 non-text contrast) in both themes.
        for (bool dark : {false, true}) {
            Palette::setDark(dark);
            const QColor background = (dark ? Theme::darkPalette() : Theme::lightPalette()).color(QPalette::Base);
            for (const QColor& color : {Palette::capacity(), Palette::fits(), Palette::outOfMemory(), Palette::peakMarker()})
                QVERIFY2(contrast(color, background) >= 3.0,
                         qPrintable(QStringLiteral("%1 on %2: %3").arg(color.name(), background.name()).arg(contrast(color, background))));
        }
        Palette::setDark(false);
    }

    void gpuListShowsBothCapacities()
    {
        ScenarioPanel panel;
        auto* gpu = panel.findChild<QComboBox*>(QStringLiteral("gpu"));
        auto* capacity = panel.findChild<QLabel*>(QStringLiteral("gpuCapacity"));
        QVERIFY(gpu && capacity);
        gpu->setCurrentIndex(gpu->findData(QStringLiteral("rtx-4090")));
        const GpuSpec spec = findGpu("rtx-4090").value();
        QVERIFY(gpu->currentText().contains(MemoryUnits::format(static_cast<double>(spec.memoryBytes), 1)));
        QVERIFY2(capacity->text().contains(MemoryUnits::format(static_cast<double>(spec.usableBytes()))), qPrintable(capacity->text()));
    }

    void everyInputHasATooltip()
    {
        // Every combo box, spin box and check box of the panel, the model
        // picker's and the PEFT group's included (LoRA target check boxes
        // are module names, self-explanatory, and are left out).
        ScenarioPanel panel;
        QStringList missing;
        QList<QWidget*> inputs;
        for (QComboBox* combo : panel.findChildren<QComboBox*>())
            inputs << combo;
        for (QAbstractSpinBox* spin : panel.findChildren<QAbstractSpinBox*>())
            inputs << spin;
        for (QAbstractButton* button : panel.findChildren<QAbstractButton*>())
            if (!button->objectName().isEmpty() && !button->objectName().startsWith(QLatin1String("target:")))
                inputs << button;
        QVERIFY(inputs.size() > 25);
        for (QWidget* input : inputs)
            if (input->toolTip().isEmpty())
                missing << (input->objectName().isEmpty() ? QString::fromLatin1(input->metaObject()->className()) + QLatin1Char(':') +
                                                                input->parentWidget()->objectName()
                                                          : input->objectName());
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QStringLiteral(", "))));
    }

    void tabFollowsThePanelTopToBottom()
    {
        ScenarioPanel panel;
        QStringList order;
        QWidget* w = &panel;
        for (int i = 0; i < 500; ++i) {
            w = w->nextInFocusChain();
            if (w == &panel)
                break;
            if (!w->objectName().isEmpty())
                order << w->objectName();
        }
        const QStringList expected = {QStringLiteral("mode"), QStringLiteral("profile"), QStringLiteral("gpu"),
                                      QStringLiteral("gpuCount"), QStringLiteral("sharding"), QStringLiteral("precision"),
                                      QStringLiteral("optimizer"), QStringLiteral("microBatch"), QStringLiteral("seqLen"),
                                      QStringLiteral("checkpointing"), QStringLiteral("attention"), QStringLiteral("inferBatch"),
                                      QStringLiteral("kvCacheDtype")};
        qsizetype last = -1;
        for (const QString& name : expected) {
            const qsizetype at = order.indexOf(name);
            QVERIFY2(at > last, qPrintable(name + QStringLiteral(" out of order: ") + order.join(QLatin1Char(' '))));
            last = at;
        }
    }

    void menusHaveMnemonics()
    {
        MainWindow window;
        QStringList missing;
        std::function<void(QMenu*)> visit = [&](QMenu* menu) {
            for (QAction* action : menu->actions()) {
                if (action->isSeparator() || action->text().isEmpty() || !action->isEnabled())
                    continue;
                // Recent files and languages are data, not commands.
                if (action->data().isValid())
                    continue;
                if (!action->text().contains(QLatin1Char('&')))
                    missing << action->text();
                if (action->menu())
                    visit(action->menu());
            }
        };
        for (QAction* top : window.menuBar()->actions()) {
            if (!top->text().contains(QLatin1Char('&')))
                missing << top->text();
            if (top->menu())
                visit(top->menu());
        }
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QStringLiteral(" | "))));
    }
};

QTEST_MAIN(TestUiTheme)
#include "test_ui_theme.moc"
