// Repeats of one configuration drawn as one line with a band in the metric charts: the band's numbers
// (median and range, mean and its 95 % interval, against hand-computed values), the runs it groups
// (the same configuration and name apart from the repeat index; hidden runs left out; another
// configuration never joined), and every repeat drawn alone again when asked.
#include <QtTest>
#include <vector>

#include <qcustomplot.h>
#include <nlohmann/json.hpp>

#include "core/run/run_config.h"
#include "gui/charts/breakdown_chart.h"
#include "gui/charts/chart_controls.h"
#include "gui/charts/chart_math.h"
#include "gui/charts/metric_chart.h"
#include "gui/runs/run_store.h"

using wb::EpochMetrics;
using wb::RunConfig;
using wb::RunRecord;
using wb::gui::BandKind;
using wb::gui::BandPoint;
using wb::gui::MetricChart;
using wb::gui::RunStore;

Q_DECLARE_METATYPE(std::vector<double>)

namespace {
// A finished run of `name` and learning rate `lr` whose train loss at epoch n is scale / n.
int addRun(RunStore& store, const QString& name, double scale, double lr = 1e-3, int epochs = 4) {
    RunConfig config;
    config.name = name.toStdString();
    config.optimizer.lr = lr;
    RunRecord record;
    record.name = config.name;
    record.status = wb::RunStatus::Completed;
    record.config = nlohmann::json(config);
    for (int n = 1; n <= epochs; ++n) {
        EpochMetrics e;
        e.epoch = n;
        e.trainLoss = scale / n;
        e.wallMs = 10 * scale;
        e.elapsedMs = n * 10 * scale;
        e.phases = wb::PhaseTimes{1 * scale, 2 * scale, 3 * scale, 3 * scale, 1 * scale};  // 10 * scale in all
        record.epochs.push_back(e);
    }
    const int id = store.addPending(config);
    store.finish(id, record);
    return id;
}

double valueAt(const QCPGraph* graph, int index) {
    return graph->data()->at(index)->value;
}
}  // namespace

class RepeatBandsTest : public QObject {
    Q_OBJECT

private slots:
    void bandNumbers_data() {
        QTest::addColumn<std::vector<double>>("values");
        QTest::addColumn<int>("kind");
        QTest::addColumn<double>("center");
        QTest::addColumn<double>("low");
        QTest::addColumn<double>("high");
        const int range = int(BandKind::MedianRange), mean = int(BandKind::MeanInterval);
        QTest::newRow("median of three") << std::vector<double>{3, 1, 2} << range << 2.0 << 1.0 << 3.0;
        QTest::newRow("median of four") << std::vector<double>{4, 1, 3, 2} << range << 2.5 << 1.0 << 4.0;
        QTest::newRow("one value") << std::vector<double>{7} << range << 7.0 << 7.0 << 7.0;
        // mean 2, standard deviation 1, t(2 d.o.f., 97.5 %) = 4.303: 2 -+ 4.303 / sqrt(3).
        QTest::newRow("mean of three") << std::vector<double>{1, 2, 3} << mean << 2.0 << 2 - 4.303 / std::sqrt(3.0)
                                       << 2 + 4.303 / std::sqrt(3.0);
        // 40 values of 0 and 1 alternating: mean 0.5, sd 0.5064, the normal's 1.96 past 30 d.o.f.
        std::vector<double> many;
        for (int i = 0; i < 40; ++i) many.push_back(i % 2);
        const double half = 1.96 * std::sqrt(10.0 / 39) / std::sqrt(40.0);
        QTest::newRow("mean of forty") << many << mean << 0.5 << 0.5 - half << 0.5 + half;
        QTest::newRow("mean of one") << std::vector<double>{5} << mean << 5.0 << 5.0 << 5.0;
    }
    void bandNumbers() {
        QFETCH(std::vector<double>, values);
        QFETCH(int, kind);
        QFETCH(double, center);
        QFETCH(double, low);
        QFETCH(double, high);
        const BandPoint b = wb::gui::repeatBand(values, static_cast<BandKind>(kind));
        QVERIFY2(std::abs(b.center - center) < 1e-9, qPrintable(QString::number(b.center)));
        QVERIFY2(std::abs(b.low - low) < 1e-9, qPrintable(QString::number(b.low)));
        QVERIFY2(std::abs(b.high - high) < 1e-9, qPrintable(QString::number(b.high)));
    }

    // Three repeats of "Fastest" and one other run: four lines each alone; one band and one line
    // with the band's numbers epoch by epoch; four lines again when asked.
    void repeatsBecomeOneBand() {
        RunStore store;
        MetricChart chart(&store, MetricChart::Kind::Loss);
        const int first = addRun(store, "Fastest \u00b7 1/3", 1.0);
        addRun(store, "Fastest \u00b7 2/3", 2.0);
        addRun(store, "Fastest \u00b7 3/3", 4.0);
        const int seed = addRun(store, "Seed", 8.0);
        QTRY_COMPARE(chart.graphCount(), 4);
        QCOMPARE(chart.bandCount(), 0);

        chart.setRepeats(MetricChart::Repeats::MedianRange);
        QTRY_COMPARE(chart.graphCount(), 2);
        QCOMPARE(chart.bandCount(), 1);
        const QCPGraph* line = chart.trainGraph(first);
        QVERIFY(line && chart.trainGraph(seed));
        QCOMPARE(line->name(), QString("Fastest (3 repeats: median, min\u2013max)"));
        QCOMPARE(line->dataCount(), 4);
        for (int e = 0; e < 4; ++e) {  // losses 1/n, 2/n, 4/n: median 2/n, range 1/n .. 4/n
            const double n = e + 1;
            QCOMPARE(valueAt(line, e), 2 / n);
            QCOMPARE(valueAt(chart.bandEdge(first, false), e), 1 / n);
            QCOMPARE(valueAt(chart.bandEdge(first, true), e), 4 / n);
        }
        QCOMPARE(chart.bandEdge(seed, false), nullptr);

        chart.setRepeats(MetricChart::Repeats::MeanInterval);
        QTRY_COMPARE(chart.trainGraph(first)->name(), QString("Fastest (3 repeats: mean, 95 % CI)"));
        line = chart.trainGraph(first);
        const BandPoint b = wb::gui::repeatBand({1, 2, 4}, BandKind::MeanInterval);
        QCOMPARE(valueAt(line, 0), b.center);
        QCOMPARE(valueAt(chart.bandEdge(first, false), 0), b.low);
        QCOMPARE(valueAt(chart.bandEdge(first, true), 0), b.high);

        chart.setRepeats(MetricChart::Repeats::EachRun);
        QTRY_COMPARE(chart.graphCount(), 4);
        QCOMPARE(chart.bandCount(), 0);
        QCOMPARE(valueAt(chart.trainGraph(first), 0), 1.0);
    }

    // Only shown runs of the same configuration join a band: a hidden repeat leaves it, a repeat
    // of another learning rate is its own line, and a configuration left with one run is a line.
    void onlyShownRepeatsOfOneConfigurationJoin() {
        RunStore store;
        MetricChart chart(&store, MetricChart::Kind::EpochTime);
        chart.setRepeats(MetricChart::Repeats::MedianRange);
        const int a = addRun(store, "Fastest \u00b7 1/3", 1.0);
        const int b = addRun(store, "Fastest \u00b7 2/3", 2.0);
        const int c = addRun(store, "Fastest \u00b7 3/3", 3.0);
        const int other = addRun(store, "Fastest \u00b7 1/2", 5.0, 1e-2);  // another lr: another configuration
        QTRY_COMPARE(chart.bandCount(), 1);
        QCOMPARE(chart.graphCount(), 2);
        QVERIFY(chart.trainGraph(other));
        QCOMPARE(chart.trainGraph(other)->name(), QString("Fastest \u00b7 1/2"));
        QCOMPARE(valueAt(chart.trainGraph(a), 1), 20.0);  // the median of 10, 20, 30 ms

        store.setVisible(a, false);  // the band now leads with b: median of 20 and 30
        QTRY_VERIFY(chart.trainGraph(b) && chart.bandEdge(b, false));
        QCOMPARE(chart.trainGraph(b)->name(), QString("Fastest (2 repeats: median, min\u2013max)"));
        QCOMPARE(valueAt(chart.trainGraph(b), 1), 25.0);
        store.setVisible(b, false);  // one left: a plain line of its own name
        QTRY_COMPARE(chart.bandCount(), 0);
        QCOMPARE(chart.trainGraph(c)->name(), QString("Fastest \u00b7 3/3"));
    }

    // A repeat still training: its new epochs reach its band (the band is led by another run).
    void aTrainingRepeatMovesItsBand() {
        RunStore store;
        MetricChart chart(&store, MetricChart::Kind::Loss);
        chart.setRepeats(MetricChart::Repeats::MedianRange);
        const int first = addRun(store, "Fastest \u00b7 1/3", 1.0);
        addRun(store, "Fastest \u00b7 2/3", 2.0);
        RunConfig config;
        config.name = "Fastest \u00b7 3/3";
        config.optimizer.lr = 1e-3;
        const int live = store.addPending(config);
        const auto epoch = [](int n) {
            EpochMetrics e;
            e.epoch = n;
            e.trainLoss = 10.0 / n;
            e.wallMs = 100;
            return e;
        };
        store.appendEpoch(live, epoch(1));
        QTRY_COMPARE(chart.bandCount(), 1);
        QTRY_COMPARE(valueAt(chart.trainGraph(first), 1), 0.75);  // epoch 2: the median of 0.5 and 1
        store.appendEpoch(live, epoch(2));
        QTRY_COMPARE(valueAt(chart.trainGraph(first), 1), 1.0);  // the median of 0.5, 1 and 5
        QCOMPARE(valueAt(chart.bandEdge(first, true), 1), 5.0);
    }

    // The Time breakdown draws the repeats of one configuration as one bar: each phase's median over
    // them, the spread of their totals; another configuration keeps its own bar.
    void breakdownDrawsRepeatsAsOneBar() {
        RunStore store;
        wb::gui::BreakdownChart chart(&store);
        const int first = addRun(store, "Fastest \u00b7 1/3", 1.0);
        addRun(store, "Fastest \u00b7 2/3", 2.0);
        addRun(store, "Fastest \u00b7 3/3", 4.0);
        const int seed = addRun(store, "Seed", 8.0);
        QTRY_COMPARE(chart.rows().size(), std::size_t{2});
        const auto& bar = chart.rows().front();
        QCOMPARE(bar.runId, first);
        QCOMPARE(bar.repeats, 3);
        QCOMPARE(bar.name, QString("Fastest (3 repeats)"));
        QVERIFY(bar.breakdown.separable);
        QCOMPARE(bar.breakdown.phaseMs[2], 6.0);  // backward: 3, 6, 12 ms
        QCOMPARE(bar.breakdown.totalMs, 20.0);
        QCOMPARE(bar.lowMs, 10.0);
        QCOMPARE(bar.highMs, 40.0);
        QCOMPARE(chart.rows().back().runId, seed);
        QCOMPARE(chart.rows().back().repeats, 1);
        store.setVisible(first, false);  // two repeats left: still one bar
        QTRY_COMPARE(chart.rows().front().repeats, 2);
        QCOMPARE(chart.rows().front().breakdown.totalMs, 30.0);
    }

    // The chart controls' box sets every chart they control.
    void theControlsChooseTheBand() {
        RunStore store;
        MetricChart loss(&store, MetricChart::Kind::Loss), time(&store, MetricChart::Kind::EpochTime);
        wb::gui::ChartControls controls;
        controls.addChart(&loss);
        controls.addChart(&time);
        QComboBox* box = controls.repeatsBox();
        QVERIFY(box);
        QCOMPARE(box->count(), 3);
        box->setCurrentIndex(2);
        QCOMPARE(loss.repeats(), MetricChart::Repeats::MeanInterval);
        QCOMPARE(time.repeats(), MetricChart::Repeats::MeanInterval);
        box->setCurrentIndex(0);
        QCOMPARE(loss.repeats(), MetricChart::Repeats::EachRun);
    }
};

QTEST_MAIN(RepeatBandsTest)
#include "tst_repeat_bands.moc"
