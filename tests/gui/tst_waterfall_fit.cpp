// The waterfall at the size it gets: at the Ablation tab's and the Answer tab's default sizes no label
// is wider than its bar, the value axis's title is no longer than the axis, and the title wraps
// instead of being cut; with room the labels are whole again.
#include <QFontMetrics>
#include <QtTest>

#include <qcustomplot.h>

#include "core/measure/ablation_result.h"
#include "gui/charts/waterfall_chart.h"

using wb::AblationResult;
using wb::gui::WaterfallChart;

namespace {
const QString kAblation = QStringLiteral(WB_TEST_DATA_DIR "/../../docs/ablation-torch.json");

int widestLine(const QString& text, const QFont& font) {
    int widest = 0;
    for (const QString& line : text.split('\n')) widest = std::max(widest, QFontMetrics(font).horizontalAdvance(line));
    return widest;
}

std::vector<QCPItemText*> valueLabels(QCustomPlot& plot) {
    std::vector<QCPItemText*> labels;
    for (int i = 0; i < plot.itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(plot.item(i)); text && text->visible()) labels.push_back(text);
    return labels;
}
}  // namespace

class TestWaterfallFit : public QObject {
    Q_OBJECT

private slots:
    void labelsFitTheirBars_data();
    void labelsFitTheirBars();
};

void TestWaterfallFit::labelsFitTheirBars_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("whole");  // every value label shows all its lines
    QTest::newRow("the tab's default size") << QSize(760, 330) << false;
    QTest::newRow("the Answer tab's, beside the engines' chart") << QSize(480, 200) << false;
    QTest::newRow("a large export") << QSize(2600, 900) << true;
}

void TestWaterfallFit::labelsFitTheirBars() {
    QFETCH(QSize, size);
    QFETCH(bool, whole);
    WaterfallChart chart;
    chart.resize(size);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.setResult(AblationResult::load(kAblation.toStdString()));
    chart.plot().replot();
    QCustomPlot& plot = chart.plot();

    const double barPx = plot.axisRect()->width() / plot.xAxis->range().size();
    const auto labels = valueLabels(plot);
    QCOMPARE(labels.size(), chart.bars().size());
    for (std::size_t i = 0; i < labels.size(); ++i) {
        QVERIFY2(widestLine(labels[i]->text(), labels[i]->font()) <= barPx, qPrintable(labels[i]->text()));
        if (whole) QCOMPARE(labels[i]->text(), chart.bars()[i].label);
    }
    auto ticker = plot.xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    for (const QString& tick : ticker->ticks()) {
        QVERIFY2(widestLine(tick, plot.xAxis->tickLabelFont()) <= barPx, qPrintable(tick));
        QVERIFY2(!tick.contains(QChar(0x2026)), qPrintable(tick));  // a cut name says nothing: never elided
    }
    // Names too long for their bars give way to the fixes' numbers in the order applied, and the
    // axis says so; with room, every bar has its name.
    const QStringList ticks = ticker->ticks().values();
    const bool numbered = ticks.front() == "seed";
    QCOMPARE(numbered, !whole);
    if (numbered) {
        QCOMPARE(ticks.mid(1, 3), QStringList({"1", "2", "3"}));
        QCOMPARE(ticks.back(), QString("fixed"));
        QVERIFY2(plot.xAxis->label().startsWith("fixes numbered in the order applied"),
                 qPrintable(plot.xAxis->label()));
    } else {
        QVERIFY(ticks.front().startsWith("baseline"));
        QVERIFY(plot.xAxis->label().isEmpty());
    }
    // The rotated value title is no longer than its axis (else it runs into the chart's title).
    const int valueTitle = QFontMetrics(plot.yAxis->labelFont()).horizontalAdvance(plot.yAxis->label());
    QVERIFY2(valueTitle <= plot.axisRect()->height(), qPrintable(plot.yAxis->label()));
    auto* title = qobject_cast<QCPTextElement*>(plot.plotLayout()->element(0, 0));
    QVERIFY(title);
    QVERIFY2(widestLine(title->text(), title->font()) <= plot.width(), qPrintable(title->text()));
    QVERIFY(QString(title->text())
                .replace(QChar(0x0a), QChar(0x20))
                .endsWith("in the order applied"));  // wrapped, not cut: one order, said so
}

QTEST_MAIN(TestWaterfallFit)
#include "tst_waterfall_fit.moc"
