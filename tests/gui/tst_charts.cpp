// The live charts: runs overlay with their own graphs, epochs reach the charts through the
// buffered replot (a burst of epochs costs one replot), hidden runs disappear, and the breakdown
// and speedup charts compute what they draw.
#include <QLabel>
#include <QTabWidget>
#include <QtTest>
#include <algorithm>
#include <vector>

#include <qcustomplot.h>
#include <nlohmann/json.hpp>

#include "core/run/run_config.h"
#include "gui/charts/breakdown_chart.h"
#include "gui/charts/metric_chart.h"
#include "gui/charts/speedup_chart.h"
#include "gui/runs/run_store.h"

using wb::EpochMetrics;
using wb::PhaseTimes;
using wb::RunConfig;
using wb::RunRecord;
using wb::RunStatus;
using wb::gui::BreakdownChart;
using wb::gui::MetricChart;
using wb::gui::RunStore;
using wb::gui::SpeedupChart;

Q_DECLARE_METATYPE(MetricChart::Kind)

namespace {
EpochMetrics makeEpoch(int n, bool validation, double wallMs = 10.0) {
    EpochMetrics e;
    e.epoch = n;
    e.warmup = n == 1;
    e.trainLoss = 1.0 / n;
    e.trainAccuracy = 0.5 + 0.4 * (1.0 - 1.0 / n);
    if (validation) {
        e.valLoss = 1.1 / n;
        e.valAccuracy = e.trainAccuracy - 0.02;
    }
    e.wallMs = wallMs;
    e.elapsedMs = n * wallMs;
    return e;
}

// A finished run whose epochs after warm-up take the given wall times (the warm-up takes 10x the first).
RunRecord recordWithTimes(const std::string& name, const std::vector<double>& wallMs, bool phases) {
    RunRecord r;
    r.name = name;
    r.status = wb::RunStatus::Completed;
    r.epochs.push_back(makeEpoch(1, false, wallMs.front() * 10));
    for (std::size_t i = 0; i < wallMs.size(); ++i)
        r.epochs.push_back(makeEpoch(static_cast<int>(i) + 2, false, wallMs[i]));
    for (EpochMetrics& e : r.epochs)
        if (phases)
            e.phases = PhaseTimes{0.1 * e.wallMs, 0.2 * e.wallMs, 0.3 * e.wallMs, 0.1 * e.wallMs, 0.3 * e.wallMs};
    return r;
}

int addRun(RunStore& store, const std::string& name) {
    RunConfig config;
    config.name = name;
    return store.addPending(config);
}

int addFinishedRun(RunStore& store, const RunRecord& record) {
    const int id = addRun(store, record.name);
    store.finish(id, record);
    return id;
}

void appendEpochs(RunStore& store, int id, int count, bool validation) {
    for (int n = 1; n <= count; ++n) store.appendEpoch(id, makeEpoch(n, validation));
}

// A finished run of `preset`'s execution switches ("custom": the defaults, no preset) whose timed epochs
// take `ms` each.
int addPresetRun(RunStore& store, const QString& name, const QString& preset, double ms) {
    RunConfig config;
    if (preset != "custom") config.execution = wb::presetByName(preset.toStdString()).settings;
    config.name = name.toStdString();
    RunRecord record = recordWithTimes(config.name, {ms, ms * 1.02, ms * 0.98}, false);
    record.config = nlohmann::json(config);
    const int id = store.addPending(config);
    store.finish(id, record);
    return id;
}

// The speedup chart's value label on row `row` (1 = the top row).
QCPItemText* speedupLabel(QCustomPlot& plot, int row) {
    for (int i = 0; i < plot.itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(plot.item(i));
            text && text->position->typeY() == QCPItemPosition::ptPlotCoords && text->position->coords().y() == row)
            return text;
    return nullptr;
}

QCPBars* barsNamed(QCustomPlot& plot, const QString& prefix) {
    for (int i = 0; i < plot.plottableCount(); ++i)
        if (plot.plottable(i)->name().startsWith(prefix)) return qobject_cast<QCPBars*>(plot.plottable(i));
    return nullptr;
}
}  // namespace

class TestCharts : public QObject {
    Q_OBJECT

private slots:
    void overlaysTwoRuns_data();
    void overlaysTwoRuns();
    void eachBatchOfEpochsCostsOneReplot_data();
    void eachBatchOfEpochsCostsOneReplot();
    void aTrainingRunsEpochRedrawsItsLinesOnly();
    void aChartOnAnotherTabCatchesUpWhenShown();
    void hidingARunRemovesItsGraphs();
    void removingARunRemovesItsGraphs();
    void xAxisByElapsedTime_data();
    void xAxisByElapsedTime();
    void logScaleDropsNonPositiveTimes();
    void warmupEpochHasALegendKey();
    void legendNamesEachRunOnce_data();
    void legendNamesEachRunOnce();
    void legendFollowsManyRunsComingAndGoing();
    void longNamesWrapTheLegend();
    void hoverNamesRunEpochAndValue();
    void smoothing_data();
    void smoothing();
    void breakdownSeparatesWhatWasMeasured();
    void speedupNumbers_data();
    void speedupNumbers();
    void speedupComparesOneWorkloadOnly();
    void speedupGroupsRepeats_data();
    void speedupGroupsRepeats();
    void speedupLabels_data();
    void speedupLabels();
    void speedupBaselineIsTheSeedLoop_data();
    void speedupBaselineIsTheSeedLoop();
    void speedupAxisFitsTheBars_data();
    void speedupAxisFitsTheBars();
    void slowerRunIsDrawnLeftOfTheBaseline();
    void speedupTicks_data();
    void speedupTicks();
};

void TestCharts::overlaysTwoRuns_data() {
    QTest::addColumn<MetricChart::Kind>("kind");
    QTest::addColumn<bool>("validation");
    QTest::addColumn<int>("graphs");
    QTest::newRow("loss, train only") << MetricChart::Kind::Loss << false << 2;
    QTest::newRow("loss, train and validation") << MetricChart::Kind::Loss << true << 4;
    QTest::newRow("accuracy, train only") << MetricChart::Kind::Accuracy << false << 2;
    QTest::newRow("accuracy, train and validation") << MetricChart::Kind::Accuracy << true << 4;
    QTest::newRow("epoch time") << MetricChart::Kind::EpochTime << true << 2;
}

void TestCharts::overlaysTwoRuns() {
    QFETCH(MetricChart::Kind, kind);
    QFETCH(bool, validation);
    QFETCH(int, graphs);
    RunStore store;
    MetricChart chart(&store, kind);
    const int a = addRun(store, "A");
    const int b = addRun(store, "B");
    appendEpochs(store, a, 5, validation);
    appendEpochs(store, b, 3, validation);
    QTRY_COMPARE(chart.pointCount(a), 5);  // after the replot timer, not before
    QCOMPARE(chart.pointCount(b), 3);
    QCOMPARE(chart.graphCount(), graphs);
}

void TestCharts::eachBatchOfEpochsCostsOneReplot_data() {
    QTest::addColumn<int>("batches");
    QTest::addColumn<int>("epochsPerBatch");
    QTest::newRow("a burst of 200") << 1 << 200;
    QTest::newRow("10 batches of 20") << 10 << 20;
    QTest::newRow("5 single epochs") << 5 << 1;
}

// Epochs that arrive together (one signal each, no event loop between them) are drawn by one
// replot, however many they are: the replots are counted per batch the chart receives, not per
// epoch. Counts only, so the machine's speed cannot change the outcome.
void TestCharts::eachBatchOfEpochsCostsOneReplot() {
    QFETCH(int, batches);
    QFETCH(int, epochsPerBatch);
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::Loss);
    chart.resize(800, 500);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const int id = addRun(store, "fast");
    QTRY_COMPARE(chart.graphCount(), 1);
    const int before = chart.replotCount();

    int appended = 0;
    for (int batch = 1; batch <= batches; ++batch) {
        for (int i = 0; i < epochsPerBatch; ++i) store.appendEpoch(id, makeEpoch(++appended, true));
        QCOMPARE(chart.replotCount(), before + batch - 1);  // nothing is drawn until the event loop turns
        QTRY_COMPARE(chart.pointCount(id), appended);
        QCOMPARE(chart.replotCount(), before + batch);
    }
}

// A run training beside finished ones: its lines are on a layer of their own, so a new epoch that
// leaves the axes as they were redraws them alone; the window then shows exactly what a whole replot
// draws. Finishing moves the run back among the others.
void TestCharts::aTrainingRunsEpochRedrawsItsLinesOnly() {
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::Loss);
    chart.resize(800, 500);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const int done = addRun(store, "finished");
    store.markStarted(done);
    appendEpochs(store, done, 40, true);  // the axes: epochs 1..40, losses 0.025..1.1
    RunRecord record = store.find(done)->record;
    record.status = RunStatus::Completed;
    store.finish(done, record);
    const int live = addRun(store, "training");
    store.markStarted(live);
    appendEpochs(store, live, 10, true);
    QTRY_COMPARE(chart.pointCount(live), 10);
    QCPLayer* layer = chart.plot().layer("live");
    QVERIFY(layer);
    const auto layerOf = [&chart](const QString& name) {
        for (int i = 0; i < chart.plot().graphCount(); ++i)
            if (chart.plot().graph(i)->name() == name) return chart.plot().graph(i)->layer()->name();
        return QString();
    };
    QCOMPARE(layerOf("training"), QString("live"));
    QCOMPARE(layerOf("finished"), QString("main"));
    const QCPRange keys = chart.plot().xAxis->range();
    store.appendEpoch(live, makeEpoch(11, true));
    QTRY_COMPARE(chart.pointCount(live), 11);
    QCOMPARE(chart.plot().xAxis->range(), keys);  // the axes stayed: the layer alone was redrawn
    const QImage partial = chart.plot().grab().toImage();
    chart.plot().replot();
    const QImage whole = chart.plot().grab().toImage();
    QVERIFY(partial == whole);
    record = store.find(live)->record;
    record.status = RunStatus::Completed;
    store.finish(live, record);
    QTRY_COMPARE(layerOf("training"), QString("main"));
}

// On another tab of a shown window a chart does nothing on its timer, however many epochs come; shown
// again, it draws them all at once.
void TestCharts::aChartOnAnotherTabCatchesUpWhenShown() {
    RunStore store;
    QTabWidget tabs;
    auto* chart = new MetricChart(&store, MetricChart::Kind::Loss);
    tabs.addTab(new QLabel("another tab"), "other");
    tabs.addTab(chart, "Loss");
    tabs.resize(800, 500);
    tabs.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tabs));
    const int id = addRun(store, "training");
    store.markStarted(id);
    QTest::qWait(3 * MetricChart::kRefreshIntervalMs);
    const int before = chart->replotCount();
    appendEpochs(store, id, 5, false);
    QTest::qWait(3 * MetricChart::kRefreshIntervalMs);
    QCOMPARE(chart->replotCount(), before);
    QCOMPARE(chart->pointCount(id), 0);
    tabs.setCurrentWidget(chart);
    QTRY_COMPARE(chart->pointCount(id), 5);
    QVERIFY(chart->replotCount() > before);
}

void TestCharts::hidingARunRemovesItsGraphs() {
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::Loss);
    const int a = addRun(store, "A");
    const int b = addRun(store, "B");
    appendEpochs(store, a, 4, true);
    appendEpochs(store, b, 4, true);
    QTRY_COMPARE(chart.graphCount(), 4);
    store.setVisible(a, false);
    QTRY_COMPARE(chart.graphCount(), 2);
    QCOMPARE(chart.pointCount(a), 0);
    QCOMPARE(chart.pointCount(b), 4);
    store.setVisible(a, true);
    QTRY_COMPARE(chart.graphCount(), 4);
    QTRY_COMPARE(chart.pointCount(a), 4);
}

void TestCharts::removingARunRemovesItsGraphs() {
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::EpochTime);
    const int a = addRun(store, "A");
    const int b = addRun(store, "B");
    appendEpochs(store, a, 3, false);
    appendEpochs(store, b, 3, false);
    QTRY_COMPARE(chart.graphCount(), 2);
    store.remove(a);
    QTRY_COMPARE(chart.graphCount(), 1);
    QCOMPARE(chart.pointCount(b), 3);
}

void TestCharts::xAxisByElapsedTime_data() {
    QTest::addColumn<bool>("recordsElapsed");
    QTest::addColumn<double>("lastKey");
    QTest::newRow("elapsed time recorded") << true << 0.9;
    QTest::newRow("peer without elapsed time: summed wall times") << false << 0.6;
}

void TestCharts::xAxisByElapsedTime() {
    QFETCH(bool, recordsElapsed);
    QFETCH(double, lastKey);
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::Loss);
    chart.setXAxisByTime(true);
    const int id = addRun(store, "A");
    for (int n = 1; n <= 3; ++n) {
        EpochMetrics e = makeEpoch(n, false, 200.0);
        e.elapsedMs = recordsElapsed ? n * 300.0 : 0.0;
        store.appendEpoch(id, e);
    }
    chart.refreshNow();
    QCOMPARE(chart.pointCount(id), 3);
    QCPGraph* graph = chart.plot().graph(0);
    QCOMPARE(graph->data()->at(2)->key, lastKey);
    QCOMPARE(chart.plot().xAxis->label(), QString("Elapsed time (s)"));
}

void TestCharts::logScaleDropsNonPositiveTimes() {
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::EpochTime);
    const int id = addRun(store, "A");
    appendEpochs(store, id, 4, false);
    store.appendEpoch(id, makeEpoch(5, false, 0.0));  // a peer that measured nothing
    chart.refreshNow();
    QCOMPARE(chart.pointCount(id), 5);
    chart.setLogScale(true);
    chart.refreshNow();
    QCOMPARE(chart.plot().yAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(chart.pointCount(id), 4);
}

void TestCharts::warmupEpochHasALegendKey() {
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::EpochTime);
    appendEpochs(store, addRun(store, "A"), 3, false);
    appendEpochs(store, addRun(store, "B"), 3, false);
    chart.refreshNow();
    QCOMPARE(chart.graphCount(), 2);
    QCOMPARE(chart.plot().legend->itemCount(), 3);  // two runs and the warm-up marker's key
    auto* key = qobject_cast<QCPPlottableLegendItem*>(chart.plot().legend->item(2));
    QVERIFY(key);
    QVERIFY(key->plottable()->name().startsWith("warm-up epoch"));
}

namespace {
QStringList legendNames(QCustomPlot& plot) {
    QStringList names;
    for (int i = 0; i < plot.legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i)))
            names << item->plottable()->name();
    return names;
}
}  // namespace

void TestCharts::legendNamesEachRunOnce_data() {
    QTest::addColumn<bool>("validation");
    QTest::addColumn<QStringList>("names");
    QTest::newRow("train only") << false << QStringList{"A", "B"};
    QTest::newRow("train and validation: one key per line style")
        << true << QStringList{"A", "B", "train", "validation"};
}

// Each run's colour is named once; solid and dashed are explained once for all runs.
void TestCharts::legendNamesEachRunOnce() {
    QFETCH(bool, validation);
    QFETCH(QStringList, names);
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::Loss);
    appendEpochs(store, addRun(store, "A"), 3, validation);
    appendEpochs(store, addRun(store, "B"), 3, validation);
    chart.refreshNow();
    QCOMPARE(legendNames(chart.plot()), names);
    QCOMPARE(chart.graphCount(), validation ? 4 : 2);  // the keys are no run's graphs
}

// Hundreds of runs, half of them removed again: the legend names exactly the runs left, in order
// (it is rebuilt at once rather than item by item, which with this many runs took minutes).
void TestCharts::legendFollowsManyRunsComingAndGoing() {
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::Loss);
    std::vector<int> ids;
    for (int i = 0; i < 300; ++i) {
        ids.push_back(addRun(store, "run " + std::to_string(i)));
        appendEpochs(store, ids.back(), 2, false);
    }
    chart.refreshNow();
    QCOMPARE(chart.plot().legend->itemCount(), 300);
    QStringList kept;
    for (int i = 0; i < 300; ++i) {
        if (i % 2 == 0)
            store.remove(ids[static_cast<std::size_t>(i)]);
        else
            kept << QString("run %1").arg(i);
    }
    chart.refreshNow();
    QCOMPARE(legendNames(chart.plot()), kept);
    QCOMPARE(chart.graphCount(), 150);
}

// Names too long for four side by side wrap to more rows instead of being cut; short ones do not.
void TestCharts::longNamesWrapTheLegend() {
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::EpochTime);
    chart.resize(700, 400);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    for (const char* name : {"Seed PyTorch loop · torch · batch 256 · 64-32", "Seed PyTorch loop · batch 256 · 64-32",
                             "Fastest · cuda · batch 256 · 64-32"})
        appendEpochs(store, addRun(store, name), 3, false);
    chart.refreshNow();
    QVERIFY2(chart.plot().legend->wrap() < 3, qPrintable(QString::number(chart.plot().legend->wrap())));
    for (int i = 0; i < chart.plot().legend->itemCount(); ++i) {
        QCPAbstractLegendItem* item = chart.plot().legend->item(i);
        QVERIFY2(item->outerRect().width() >= item->minimumOuterSizeHint().width(), "an entry is cut");
        QVERIFY(item->outerRect().right() <= chart.plot().width());
    }
    chart.resize(1600, 400);
    QTRY_COMPARE(chart.plot().legend->wrap(), 4);  // room again: the entries sit side by side
}

// The crosshair's label lists the runs' values at the cursor's epoch.
void TestCharts::hoverNamesRunEpochAndValue() {
    RunStore store;
    MetricChart chart(&store, MetricChart::Kind::Loss);
    chart.resize(800, 500);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    appendEpochs(store, addRun(store, "A"), 5, true);
    appendEpochs(store, addRun(store, "B"), 5, false);
    chart.refreshNow();
    const QCPGraph* validation = chart.validationGraph(store.runs().front().id);
    const QPointF point = validation->coordsToPixels(3, *makeEpoch(3, true).valLoss);
    QTest::mouseMove(&chart.plot(), point.toPoint());
    QTRY_VERIFY(!chart.hoverText().isEmpty());
    const QString text = chart.hoverText();
    QVERIFY2(text.startsWith("epoch 3\n"), qPrintable(text));
    QVERIFY2(text.contains("A: 0.3333 · validation 0.3667"), qPrintable(text));
    QVERIFY2(text.contains("B: 0.3333"), qPrintable(text));
}

void TestCharts::smoothing_data() {
    QTest::addColumn<std::vector<double>>("values");
    QTest::addColumn<double>("factor");
    QTest::addColumn<std::vector<double>>("expected");
    QTest::newRow("off") << std::vector<double>{1, 5, 2} << 0.0 << std::vector<double>{1, 5, 2};
    // TensorBoard's debiasing: the EMA (0, 5, 7.5) divided by 1 - 0.5^n (0.5, 0.75, 0.875).
    QTest::newRow("half") << std::vector<double>{0, 10, 10} << 0.5 << std::vector<double>{0, 20.0 / 3, 60.0 / 7};
    QTest::newRow("empty") << std::vector<double>{} << 0.6 << std::vector<double>{};
}

void TestCharts::smoothing() {
    QFETCH(std::vector<double>, values);
    QFETCH(double, factor);
    QFETCH(std::vector<double>, expected);
    QCOMPARE(wb::gui::smoothExponential(values, factor), expected);
}

void TestCharts::breakdownSeparatesWhatWasMeasured() {
    RunStore store;
    BreakdownChart chart(&store);
    addFinishedRun(store, recordWithTimes("measured", {10, 20, 30}, true));
    addFinishedRun(store, recordWithTimes("fused", {40, 60}, false));
    chart.refreshNow();

    QCOMPARE(chart.rows().size(), std::size_t(2));
    const auto& measured = chart.rows()[0].breakdown;
    QVERIFY(measured.separable);
    QCOMPARE(measured.phaseMs[1], 4.0);  // forward: 0.2 x the median 20 ms; warm-up excluded
    QCOMPARE(measured.totalMs, 20.0);
    const auto& fused = chart.rows()[1].breakdown;
    QVERIFY(!fused.separable);
    QCOMPARE(fused.totalMs, 50.0);  // the median wall time after warm-up

    QCPBars* notSeparable = barsNamed(chart.plot(), "not separable");
    QVERIFY(notSeparable);
    QCOMPARE(notSeparable->dataCount(), 1);
    QCOMPARE(notSeparable->data()->at(0)->value, 50.0);
    QVERIFY(chart.plot().legend->hasItemWithPlottable(notSeparable));
    QCPBars* forward = barsNamed(chart.plot(), "forward");
    QVERIFY(forward);
    QCOMPARE(forward->dataCount(), 1);  // only the measured run has parts
}

void TestCharts::speedupNumbers_data() {
    QTest::addColumn<int>("baseline");  // index of the picked baseline, -1 for none
    QTest::addColumn<std::vector<double>>("expected");
    QTest::newRow("first picked") << 0 << std::vector<double>{1.0, 4.0, 2.5};
    QTest::newRow("second picked") << 1 << std::vector<double>{0.25, 1.0, 0.625};
    QTest::newRow("none picked: the first run") << -1 << std::vector<double>{1.0, 4.0, 2.5};
}

void TestCharts::speedupNumbers() {
    QFETCH(int, baseline);
    QFETCH(std::vector<double>, expected);
    RunStore store;
    SpeedupChart chart(&store);
    const std::vector<int> ids = {addFinishedRun(store, recordWithTimes("slow", {100, 100, 100}, true)),
                                  addFinishedRun(store, recordWithTimes("fast", {20, 25, 30}, false)),
                                  addFinishedRun(store, recordWithTimes("middle", {40, 40}, true))};
    if (baseline >= 0) store.setBaseline(ids[static_cast<std::size_t>(baseline)]);
    chart.refreshNow();

    QCOMPARE(chart.rows().size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        QVERIFY(chart.rows()[i].speedup.has_value());
        QCOMPARE(*chart.rows()[i].speedup, expected[i]);
        QCOMPARE(chart.rows()[i].baseline, expected[i] == 1.0);
    }
    QCOMPARE(chart.baselineRun(), ids[static_cast<std::size_t>(std::max(baseline, 0))]);
}

// A 569-row CSV was shown 472.5× faster than the built-in 100,000 rows; two identical runs 1.41×.
void TestCharts::speedupComparesOneWorkloadOnly() {
    RunStore store;
    SpeedupChart chart(&store);
    RunRecord base = recordWithTimes("built-in", {100, 102, 98}, false);
    base.dataset.source = "builtin";
    base.dataset.rows = base.dataset.trainRows = 100000;
    RunRecord other = recordWithTimes("bc.csv", {0.2, 0.21, 0.2}, false);
    other.dataset.source = "bc.csv";
    other.dataset.rows = other.dataset.trainRows = 569;
    RunRecord twin = recordWithTimes("same again", {99, 101, 103}, false);
    twin.dataset = base.dataset;
    RunRecord faster = recordWithTimes("faster", {25, 25.5, 24.5}, false);
    faster.dataset = base.dataset;
    const int baseId = addFinishedRun(store, base);
    addFinishedRun(store, other);
    addFinishedRun(store, twin);
    addFinishedRun(store, faster);
    store.setBaseline(baseId);
    chart.refreshNow();

    QCOMPARE(chart.rows().size(), std::size_t(4));
    QVERIFY(!chart.rows()[1].speedup.has_value());
    QVERIFY2(chart.rows()[1].notComparable.startsWith("different data (bc.csv, 569 rows vs builtin, 100000 rows)"),
             qPrintable(chart.rows()[1].notComparable));
    QVERIFY2(chart.rows()[2].verdict.startsWith("no measurable difference"), qPrintable(chart.rows()[2].verdict));
    QVERIFY2(chart.rows()[3].verdict.startsWith(QString::fromUtf8("4.00\u00d7 faster")),
             qPrintable(chart.rows()[3].verdict));
    QCOMPARE(chart.leftOut().size(), 1);
}

void TestCharts::speedupGroupsRepeats_data() {
    QTest::addColumn<std::vector<double>>("seedMedians");  // one run per repeat
    QTest::addColumn<std::vector<double>>("fastestMedians");
    QTest::addColumn<QString>("verdict");
    QTest::newRow("overlapping spreads") << std::vector<double>{100, 120, 140} << std::vector<double>{90, 110, 130}
                                         << "no measurable difference";
    QTest::newRow("apart") << std::vector<double>{100, 104, 108} << std::vector<double>{24, 25, 26}
                           << QString::fromUtf8("4.16\u00d7 faster (3.85\u20134.50\u00d7)");
}

// Three repeats of each preset, as Compare makes them ("Fastest · 2/3"): one bar per preset, its
// ratio the medians' median, its range over the repeats, and the spread rule for the verdict. The
// note names the switches that differ and which of them did nothing on the CPU.
void TestCharts::speedupGroupsRepeats() {
    QFETCH(std::vector<double>, seedMedians);
    QFETCH(std::vector<double>, fastestMedians);
    QFETCH(QString, verdict);
    RunStore store;
    SpeedupChart chart(&store);
    const QString dot = QString::fromUtf8(" \u00b7 ");
    for (std::size_t i = 0; i < seedMedians.size(); ++i)
        for (const char* preset : {"Seed PyTorch loop", "Fastest"}) {
            RunConfig config;
            config.execution = wb::presetByName(preset).settings;
            config.name = QString("%1%2%3/3").arg(preset, dot).arg(i + 1).toStdString();
            const double ms = std::string(preset) == "Fastest" ? fastestMedians[i] : seedMedians[i];
            RunRecord record = recordWithTimes(config.name, {ms, ms, ms}, false);
            record.config = nlohmann::json(config);
            store.finish(store.addPending(config), record);
        }
    chart.refreshNow();

    QCOMPARE(chart.rows().size(), std::size_t(2));
    const auto& seed = chart.rows()[0];
    const auto& fastest = chart.rows()[1];
    QCOMPARE(seed.name, QString("Seed PyTorch loop"));
    QCOMPARE(fastest.name, QString("Fastest"));
    QCOMPARE(seed.runIds.size(), std::size_t(3));
    QCOMPARE(fastest.runs, 3);
    QVERIFY(seed.baseline);
    QVERIFY2(fastest.verdict.startsWith(verdict), qPrintable(fastest.verdict));
    auto sorted = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v;
    };
    const auto s = sorted(seedMedians), f = sorted(fastestMedians);
    QCOMPARE(*fastest.speedup, s[1] / f[1]);
    QCOMPARE(fastest.ratioLow, s.front() / f.back());
    QCOMPARE(fastest.ratioHigh, s.back() / f.front());

    const QString note = chart.switchesNote();
    QVERIFY2(note.contains("did nothing on cpu: launch ("), qPrintable(note));
    QVERIFY2(note.contains("ran: data_path="), qPrintable(note));
    auto* label = chart.findChild<QLabel*>("speedupNote");
    QVERIFY(label && !label->isHidden());
}

void TestCharts::speedupLabels_data() {
    QTest::addColumn<double>("speedup");
    QTest::addColumn<QString>("label");
    QTest::newRow("many times") << 12.345 << QString("12.3×");
    QTest::newRow("whole") << 4.0 << QString("4.0×");
    QTest::newRow("slower") << 0.456 << QString("0.46×");
}

void TestCharts::speedupLabels() {
    QFETCH(double, speedup);
    QFETCH(QString, label);
    QCOMPARE(wb::gui::formatSpeedup(speedup), label);
}

void TestCharts::speedupBaselineIsTheSeedLoop_data() {
    QTest::addColumn<bool>("pick");  // the user picks the first run as the baseline
    QTest::newRow("nothing picked: the Compare's seed loop") << false;
    QTest::newRow("picked: the user's choice") << true;
}

// A run made before the Compare (here a faster custom one) came first; the Compare's seed loop is
// still what the Compare's fixes are measured against, unless the user picks another baseline.
void TestCharts::speedupBaselineIsTheSeedLoop() {
    QFETCH(bool, pick);
    RunStore store;
    SpeedupChart chart(&store);
    const int earlier = addPresetRun(store, "my own run", "custom", 20);
    const int seed = addPresetRun(store, "Seed PyTorch loop", "Seed PyTorch loop", 50);
    addPresetRun(store, "Fastest", "Fastest", 10);
    if (pick) store.setBaseline(earlier);
    chart.refreshNow();

    QCOMPARE(chart.baselineRun(), pick ? earlier : seed);
    QCOMPARE(store.effectiveBaseline().value_or(0), pick ? earlier : seed);  // the runs table's too
    QVERIFY(chart.baselineReason() == (pick ? wb::gui::BaselineReason::Picked : wb::gui::BaselineReason::SeedLoop));
    QCOMPARE(chart.rows()[pick ? 0 : 1].baseline, true);
    if (!pick) {
        QCOMPARE(*chart.rows()[2].speedup, 50.0 / 10.0);
        QVERIFY2(chart.rows()[0].verdict.contains("faster"), qPrintable(chart.rows()[0].verdict));
    }
    const QString title = qobject_cast<QCPTextElement*>(chart.plot().plotLayout()->element(0, 0))->text();
    QVERIFY2(title.contains(pick ? "picked as baseline" : "the seed loop"), qPrintable(title));
}

void TestCharts::speedupAxisFitsTheBars_data() {
    QTest::addColumn<std::vector<double>>("ms");  // the baseline first
    QTest::addColumn<double>("lowest");           // the axis's bounds must lie in [lowest/8, lowest]
    QTest::addColumn<double>("highest");          // ... and in [highest, highest*8]
    // Every bar under 1×: the axis once ran to 22×.
    QTest::newRow("all slower") << std::vector<double>{10, 20, 40} << 0.25 << 1.0;
    QTest::newRow("all faster") << std::vector<double>{100, 50, 20} << 1.0 << 5.0;
    QTest::newRow("both sides") << std::vector<double>{10, 30, 2} << 1.0 / 3 << 5.0;
    QTest::newRow("one run: the baseline alone") << std::vector<double>{10} << 1.0 << 1.0;
}

// The value axis is logarithmic, holds every bar and its label, and stretches no further than the
// labels need: read back from the plot after a layout at a 1,280-pixel-wide window's chart size.
void TestCharts::speedupAxisFitsTheBars() {
    QFETCH(std::vector<double>, ms);
    QFETCH(double, lowest);
    QFETCH(double, highest);
    RunStore store;
    SpeedupChart chart(&store);
    chart.resize(900, 480);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    for (std::size_t i = 0; i < ms.size(); ++i)
        addPresetRun(store, QString("run %1").arg(i + 1), i == 0 ? "Seed PyTorch loop" : "custom", ms[i]);
    chart.refreshNow();
    chart.plot().replot();

    const QCPAxis* axis = chart.plot().xAxis;
    QCOMPARE(axis->scaleType(), QCPAxis::stLogarithmic);
    const QCPRange range = axis->range();
    QVERIFY2(range.lower <= lowest && range.lower >= lowest / 8,
             qPrintable(QString("from %1 (lowest bar %2)").arg(range.lower).arg(lowest)));
    QVERIFY2(range.upper >= highest && range.upper <= highest * 8,
             qPrintable(QString("to %1 (highest bar %2)").arg(range.upper).arg(highest)));
    QVERIFY(range.contains(1.0));
    // Every label lies inside the axis rect, on its side of the bar.
    const QRect inside = chart.plot().axisRect()->rect();
    for (int row = 1; row <= static_cast<int>(ms.size()); ++row) {
        QCPItemText* label = speedupLabel(chart.plot(), row);
        QVERIFY(label);
        const QPointF at = label->position->pixelPosition();
        const double width = QFontMetricsF(label->font()).horizontalAdvance(label->text());
        const bool left = label->positionAlignment() & Qt::AlignRight;
        const double from = left ? at.x() - width : at.x(), to = left ? at.x() : at.x() + width;
        QVERIFY2(from >= inside.left() - 0.5 && to <= inside.right() + 0.5,
                 qPrintable(QString("row %1 '%2': %3 to %4 outside %5 to %6")
                                .arg(row)
                                .arg(label->text())
                                .arg(from)
                                .arg(to)
                                .arg(inside.left())
                                .arg(inside.right())));
    }
}

// 4x slower: the bar runs from 1× to 0.25× (left of the baseline's line) and its label, left of it,
// says "slower" with the interval, as SpeedComparison::label() words it.
void TestCharts::slowerRunIsDrawnLeftOfTheBaseline() {
    RunStore store;
    SpeedupChart chart(&store);
    chart.resize(900, 480);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    addPresetRun(store, "Seed PyTorch loop", "Seed PyTorch loop", 10);
    addPresetRun(store, "slow", "custom", 40);
    addPresetRun(store, "same", "custom", 10);
    chart.refreshNow();
    chart.plot().replot();

    const auto& slow = chart.rows()[1];
    QCOMPARE(*slow.speedup, 0.25);
    QVERIFY2(slow.verdict.startsWith(QString::fromUtf8("4.00\u00d7 slower (")), qPrintable(slow.verdict));
    QCPBars* bar = nullptr;
    for (int i = 0; i < chart.plot().plottableCount(); ++i)
        if (auto* b = qobject_cast<QCPBars*>(chart.plot().plottable(i)); b && b->data()->at(0)->key == 2.0) bar = b;
    QVERIFY(bar);
    QCOMPARE(bar->baseValue(), 1.0);
    QCOMPARE(bar->baseValue() + bar->data()->at(0)->value, 0.25);  // QCPBars draws base to base + value
    QVERIFY(chart.plot().xAxis->coordToPixel(0.25) < chart.plot().xAxis->coordToPixel(1.0));

    QCPItemText* label = speedupLabel(chart.plot(), 2);
    QVERIFY(label);
    QCOMPARE(label->text(), slow.verdict);
    QVERIFY(label->positionAlignment() & Qt::AlignRight);
    QVERIFY(label->position->coords().x() <= 0.25);  // at the outer end of the bar or its range

    QCPItemText* same = speedupLabel(chart.plot(), 3);
    QVERIFY(same);
    QVERIFY2(same->text().startsWith("no measurable difference ("), qPrintable(same->text()));
}

void TestCharts::speedupTicks_data() {
    QTest::addColumn<double>("low");
    QTest::addColumn<double>("high");
    QTest::addColumn<std::vector<double>>("ticks");
    QTest::newRow("around 1") << 0.8 << 1.25 << std::vector<double>{0.8, 1.0, 1.25};
    QTest::newRow("slower") << 0.15 << 1.4 << std::vector<double>{0.2, 0.5, 1.0};
    QTest::newRow("decades") << 0.001 << 5000.0 << std::vector<double>{0.001, 0.01, 0.1, 1, 10, 100, 1000};
}

void TestCharts::speedupTicks() {
    QFETCH(double, low);
    QFETCH(double, high);
    QFETCH(std::vector<double>, ticks);
    const std::vector<double> got = wb::gui::speedupTicks(low, high);
    QCOMPARE(got.size(), ticks.size());
    for (std::size_t i = 0; i < got.size(); ++i) QVERIFY(std::abs(got[i] - ticks[i]) < 1e-9 * ticks[i]);
}

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
