// The metric charts' papercuts from issue 17: a one-epoch run is visible, a diverged run does not
// flatten the others, the legend hides and shows runs, 30 runs stay told apart, smoothing is
// TensorBoard's, the x axis counts samples, the controls drive the charts and a zoom holds.
#include <QCheckBox>
#include <QComboBox>
#include <QSlider>
#include <QToolButton>
#include <QtTest>
#include <cmath>
#include <set>
#include <vector>

#include <qcustomplot.h>

#include "gui/charts/chart_controls.h"
#include "gui/charts/metric_chart.h"
#include "gui/runs/run_store.h"

using wb::EpochMetrics;
using wb::RunConfig;
using wb::RunRecord;
using wb::gui::ChartControls;
using wb::gui::MetricChart;
using wb::gui::RunStore;
using wb::gui::XAxis;

namespace {
EpochMetrics epoch(int n, double trainLoss, std::optional<double> valLoss) {
    EpochMetrics e;
    e.epoch = n;
    e.trainLoss = trainLoss;
    e.trainAccuracy = 0.8;
    e.valLoss = valLoss;
    e.valAccuracy = valLoss ? std::optional<double>(0.78) : std::nullopt;
    e.wallMs = 10.0;
    e.elapsedMs = 10.0 * n;
    return e;
}

int addRun(RunStore& store, const QString& name, int epochs) {
    RunConfig config;
    config.name = name.toStdString();
    const int id = store.addPending(config);
    for (int n = 1; n <= epochs; ++n) store.appendEpoch(id, epoch(n, 1.0 / n, 1.1 / n));
    return id;
}

bool samePen(const QPen& a, const QPen& b) {
    return a.style() == b.style() && a.dashPattern() == b.dashPattern() && a.widthF() == b.widthF();
}

QCPAbstractLegendItem* legendItemNamed(QCustomPlot& plot, const QString& name) {
    for (int i = 0; i < plot.legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i)))
            if (item->plottable()->name() == name) return item;
    return nullptr;
}
}  // namespace

class TestChartPapercuts : public QObject {
    Q_OBJECT

private slots:
    void fewPointsDrawMarkers_data();
    void fewPointsDrawMarkers();
    void divergedRunKeepsTheRange_data();
    void divergedRunKeepsTheRange();
    void legendClickHidesAndShowsARun();
    void legendCanBePutAway();
    void thirtyRunsStayApart();
    void smoothingIsTensorBoards_data();
    void smoothingIsTensorBoards();
    void smoothingSliderDrivesTheCharts();
    void xAxisBySamplesSeen_data();
    void xAxisBySamplesSeen();
    void zoomHoldsWhileRunsGrow();
    void dragZoomsOrPans_data();
    void dragZoomsOrPans();
};

void TestChartPapercuts::fewPointsDrawMarkers_data() {
    QTest::addColumn<int>("epochs");
    QTest::addColumn<bool>("markers");
    QTest::newRow("1 epoch: a marker, else nothing shows") << 1 << true;
    QTest::newRow("2 epochs") << 2 << true;
    QTest::newRow("5 epochs: a line is enough") << 5 << false;
}

void TestChartPapercuts::fewPointsDrawMarkers() {
    QFETCH(int, epochs);
    QFETCH(bool, markers);
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::Loss);
    const int id = addRun(store, "short", epochs);
    chart.refreshNow();
    QCOMPARE(chart.pointCount(id), epochs);
    for (const QCPGraph* graph : {chart.trainGraph(id), chart.validationGraph(id)}) {
        QVERIFY(graph);
        QCOMPARE(graph->scatterStyle().shape() != QCPScatterStyle::ssNone, markers);
    }
}

void TestChartPapercuts::divergedRunKeepsTheRange_data() {
    QTest::addColumn<double>("badValue");
    QTest::addColumn<bool>("diverged");
    QTest::newRow("diverged: val loss 1.9e9") << 1.9e9 << true;
    QTest::newRow("infinite loss") << std::numeric_limits<double>::infinity() << false;
    QTest::newRow("NaN loss") << std::numeric_limits<double>::quiet_NaN() << false;
}

// The other run's curve (losses 0.2 .. 1.1) keeps the height of the plot.
void TestChartPapercuts::divergedRunKeepsTheRange() {
    QFETCH(double, badValue);
    QFETCH(bool, diverged);
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::Loss);
    addRun(store, "sane", 5);
    RunRecord record;
    record.name = "blew up";
    record.status = diverged ? wb::RunStatus::Diverged : wb::RunStatus::Completed;
    for (int n = 1; n <= 4; ++n) record.epochs.push_back(epoch(n, 0.9 / n, 1.0 / n));
    record.epochs.push_back(epoch(5, badValue / 4, badValue));
    const int bad = addRun(store, "blew up", 0);
    store.finish(bad, record);
    chart.refreshNow();
    const QCPRange y = chart.plot().yAxis->range();
    QVERIFY2(y.upper < 2.0 && y.upper > 1.1, qPrintable(QString("%1 .. %2").arg(y.lower).arg(y.upper)));
    QVERIFY(y.lower <= 0.2);
}

void TestChartPapercuts::legendClickHidesAndShowsARun() {
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::Loss);
    chart.resize(800, 500);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const int a = addRun(store, "A", 3);
    addRun(store, "B", 3);
    chart.refreshNow();
    QCPAbstractLegendItem* item = legendItemNamed(chart.plot(), "A");
    QVERIFY(item);
    QTest::mouseClick(&chart.plot(), Qt::LeftButton, {}, item->rect().center());
    QTRY_VERIFY(!store.find(a)->visible);
    chart.refreshNow();
    QCOMPARE(chart.graphCount(), 2);  // B's train and validation
    item = legendItemNamed(chart.plot(), "A");
    QVERIFY2(item, "a hidden run stays in the legend, to be clicked back");
    QTest::mouseClick(&chart.plot(), Qt::LeftButton, {}, item->rect().center());
    QTRY_VERIFY(store.find(a)->visible);
}

void TestChartPapercuts::legendCanBePutAway() {
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::Loss);
    chart.resize(800, 500);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    addRun(store, "A", 3);
    chart.refreshNow();
    const int withLegend = chart.plot().axisRect()->rect().height();
    chart.setLegendShown(false);
    QVERIFY(!chart.plot().legend->visible());
    QVERIFY2(chart.plot().axisRect()->rect().height() > withLegend, "the plot gets the legend's room");
    chart.setLegendShown(true);
    QVERIFY(chart.plot().legend->visible());
    QCOMPARE(chart.plot().axisRect()->rect().height(), withLegend);
}

// The first 12 runs wear 12 colours; a later run that shares a hue with another differs from it in
// its line's pattern, and each run's validation line differs from its train line.
void TestChartPapercuts::thirtyRunsStayApart() {
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::Loss);
    std::vector<int> ids;
    for (int i = 0; i < 30; ++i) ids.push_back(addRun(store, QString("run %1").arg(i + 1), 3));
    chart.refreshNow();
    std::set<QRgb> firstColors;
    for (int i = 0; i < 12; ++i) firstColors.insert(store.find(ids[i])->color.rgb());
    QCOMPARE(firstColors.size(), std::size_t(12));
    for (int i = 0; i < 30; ++i) {
        const QPen train = chart.trainGraph(ids[i])->pen();
        QVERIFY(!samePen(train, chart.validationGraph(ids[i])->pen()));
        if (i < 12) continue;
        for (int j = i % 12; j < i; j += 12)  // the earlier runs of the same palette hue (12 colours)
            QVERIFY2(!samePen(train, chart.trainGraph(ids[j])->pen()),
                     qPrintable(QString("run %1 and run %2").arg(i + 1).arg(j + 1)));
    }
}

void TestChartPapercuts::smoothingIsTensorBoards_data() {
    QTest::addColumn<std::vector<double>>("values");
    QTest::addColumn<double>("factor");
    QTest::addColumn<std::vector<double>>("expected");
    QTest::newRow("0: raw values") << std::vector<double>{1, 5, 2} << 0.0 << std::vector<double>{1, 5, 2};
    // last = 0.6*0 + 0.4*2 = 0.8, / (1 - 0.6) = 2; last = 0.6*0.8 + 0.4*4 = 2.08, / (1 - 0.36) = 3.25;
    // last = 0.6*2.08 + 0.4*1 = 1.648, / (1 - 0.216) = 2.1020408...
    QTest::newRow("0.6, debiased") << std::vector<double>{2, 4, 1} << 0.6
                                   << std::vector<double>{2, 3.25, 1.648 / 0.784};
    QTest::newRow("constant stays") << std::vector<double>{3, 3, 3} << 0.9 << std::vector<double>{3, 3, 3};
    QTest::newRow("NaN passes through") << std::vector<double>{2, std::nan(""), 4} << 0.6
                                        << std::vector<double>{2, std::nan(""), 3.25};
}

void TestChartPapercuts::smoothingIsTensorBoards() {
    QFETCH(std::vector<double>, values);
    QFETCH(double, factor);
    QFETCH(std::vector<double>, expected);
    const std::vector<double> smoothed = wb::gui::smoothExponential(values, factor);
    QCOMPARE(smoothed.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        if (std::isnan(expected[i])) {
            QVERIFY(std::isnan(smoothed[i]));
            continue;
        }
        QVERIFY2(std::abs(smoothed[i] - expected[i]) < 1e-12, qPrintable(QString::number(smoothed[i], 'g', 17)));
    }
}

// The slider's hundredths reach every chart; back at 0 the curves are the raw values again.
void TestChartPapercuts::smoothingSliderDrivesTheCharts() {
    RunStore store;
    MetricChart loss(&store, MetricChart::Kind::Loss);
    MetricChart time(&store, MetricChart::Kind::EpochTime);
    ChartControls controls;
    controls.addChart(&loss);
    controls.addChart(&time);
    const int id = addRun(store, "A", 3);  // train losses 1, 1/2, 1/3
    controls.smoothingSlider()->setValue(60);
    loss.refreshNow();
    QCOMPARE(loss.trainGraph(id)->data()->at(1)->value, wb::gui::smoothExponential({1.0, 0.5, 1.0 / 3}, 0.6)[1]);
    QVERIFY(loss.trainGraph(id)->data()->at(1)->value != 0.5);
    controls.smoothingSlider()->setValue(0);
    loss.refreshNow();
    QCOMPARE(loss.trainGraph(id)->data()->at(1)->value, 0.5);

    controls.logLossBox()->setChecked(true);
    loss.refreshNow();
    time.refreshNow();
    QCOMPARE(loss.plot().yAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(time.plot().yAxis->scaleType(), QCPAxis::stLinear);  // "Log time" is its own box
    controls.xAxisBox()->setCurrentIndex(controls.xAxisBox()->findData(static_cast<int>(XAxis::ElapsedTime)));
    QCOMPARE(loss.xAxisMode(), XAxis::ElapsedTime);
    QCOMPARE(time.xAxisMode(), XAxis::ElapsedTime);
    controls.legendBox()->setChecked(false);
    QVERIFY(!loss.plot().legend->visible());

    QVERIFY(!controls.resetZoomButton()->isEnabled());
    loss.plot().xAxis->setRange(1.5, 2.5);  // as a zoom box does
    QVERIFY(controls.resetZoomButton()->isEnabled());
    controls.resetZoomButton()->click();
    QVERIFY(!loss.userZoomed());
    QVERIFY(!controls.resetZoomButton()->isEnabled());
}

void TestChartPapercuts::xAxisBySamplesSeen_data() {
    QTest::addColumn<int>("recordRows");           // the record's dataset.train_rows, 0: not written yet
    QTest::addColumn<double>("samplesPerSecond");  // the epochs' samples/s (10 ms per epoch)
    QTest::addColumn<double>("perEpoch");          // the key step expected
    QTest::addColumn<bool>("byEpoch");
    QTest::newRow("rows in the record") << 800 << 0.0 << 800.0 << false;
    QTest::newRow("a run still training: samples/s x wall time") << 0 << 80000.0 << 800.0 << false;
    QTest::newRow("a peer that says neither: by epoch") << 0 << 0.0 << 1.0 << true;
}

void TestChartPapercuts::xAxisBySamplesSeen() {
    QFETCH(int, recordRows);
    QFETCH(double, samplesPerSecond);
    QFETCH(double, perEpoch);
    QFETCH(bool, byEpoch);
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::Loss);
    chart.setXAxis(XAxis::SamplesSeen);
    RunRecord record;
    record.name = "A";
    record.status = wb::RunStatus::Completed;
    record.dataset.trainRows = static_cast<std::size_t>(recordRows);
    for (int n = 1; n <= 3; ++n) {
        record.epochs.push_back(epoch(n, 1.0 / n, std::nullopt));
        record.epochs.back().samplesPerSecond = samplesPerSecond;
    }
    const int id = addRun(store, "A", 0);
    store.finish(id, record);
    chart.refreshNow();
    QCOMPARE(chart.pointCount(id), 3);
    for (int e = 1; e <= 3; ++e) QCOMPARE(chart.trainGraph(id)->data()->at(e - 1)->key, e * perEpoch);
    QCOMPARE(chart.crosshairText(3 * perEpoch).contains("training rows unknown"), byEpoch);
}

// Once the user has zoomed, new epochs do not snap the view back; the reset does.
void TestChartPapercuts::zoomHoldsWhileRunsGrow() {
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::Loss);
    const int id = addRun(store, "A", 5);
    chart.refreshNow();
    QVERIFY(!chart.userZoomed());
    QSignalSpy zoomed(&chart, &MetricChart::zoomChanged);
    chart.plot().xAxis->setRange(2, 3);  // as a zoom box or a drag does
    QVERIFY(chart.userZoomed());
    QCOMPARE(zoomed.count(), 1);
    for (int n = 6; n <= 9; ++n) store.appendEpoch(id, epoch(n, 1.0 / n, 1.1 / n));
    chart.refreshNow();
    QCOMPARE(chart.plot().xAxis->range(), QCPRange(2, 3));
    chart.fitToData();
    QVERIFY(!chart.userZoomed());
    QVERIFY(chart.plot().xAxis->range().upper >= 9);
}

void TestChartPapercuts::dragZoomsOrPans_data() {
    QTest::addColumn<bool>("ctrl");
    QTest::newRow("drag: zoom into the box") << false;
    QTest::newRow("Ctrl+drag: pan") << true;
}

// A drag inside the axes draws a box and zooms into it (QCustomPlot's selection-rect zoom); with
// Ctrl it pans, keeping the width of the view.
void TestChartPapercuts::dragZoomsOrPans() {
    QFETCH(bool, ctrl);
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::Loss);
    chart.resize(800, 500);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    addRun(store, "A", 10);
    chart.refreshNow();
    QCustomPlot& plot = chart.plot();
    const QRect axes = plot.axisRect()->rect();
    const QPoint from = axes.topLeft() + QPoint(axes.width() / 4, axes.height() / 4);
    const QPoint to = axes.center();
    const QCPRange before = plot.xAxis->range();
    const QCPRange box(plot.xAxis->pixelToCoord(from.x()), plot.xAxis->pixelToCoord(to.x()));
    const Qt::KeyboardModifiers modifiers = ctrl ? Qt::ControlModifier : Qt::NoModifier;
    QTest::mousePress(&plot, Qt::LeftButton, modifiers, from);
    QTest::mouseMove(&plot, (from + to) / 2);
    QTest::mouseMove(&plot, to);
    QTest::mouseRelease(&plot, Qt::LeftButton, modifiers, to);
    QVERIFY(chart.userZoomed());
    const QCPRange after = plot.xAxis->range();
    const QCPRange expected = ctrl ? QCPRange(before.lower - box.size(), before.upper - box.size()) : box;
    QVERIFY2(std::abs(after.lower - expected.lower) < 0.05 * before.size() &&
                 std::abs(after.upper - expected.upper) < 0.05 * before.size(),
             qPrintable(QString("%1 .. %2, expected %3 .. %4")
                            .arg(after.lower)
                            .arg(after.upper)
                            .arg(expected.lower)
                            .arg(expected.upper)));
}

QTEST_MAIN(TestChartPapercuts)
#include "tst_chart_papercuts.moc"
