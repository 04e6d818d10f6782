// The Accuracy chart and the runs table follow each run's task: accuracy for classification, R²
// (or the MAE, when picked) for a regression, whose accuracy is null and never drawn as 0. Runs of
// both tasks overlaid: the newest shown run decides, the other task's runs have no points and are
// counted in the legend, not named as if they drew a line. A record
// from before tasks (no "task" key) is a binary run.
#include <QtTest>

#include <qcustomplot.h>

#include "gui/charts/metric_chart.h"
#include "gui/runs/run_store.h"
#include "gui/runs/runs_table_model.h"
#include "tests/test_support.h"

using namespace wb;
using namespace wb::gui;

Q_DECLARE_METATYPE(wb::gui::MetricChart::Quality)

namespace {

const QString kOldRecord = QStringLiteral(WB_TEST_DATA_DIR "/peers/torch_resident.json");

// R² 0.5, 0.6, ... over the epochs, as a regression's record holds it (accuracy 0: null in the file).
RunRecord regressionRecord(int epochs) {
    RunRecord r;
    r.status = RunStatus::Completed;
    r.dataset.task = Task::Regression;
    for (int i = 0; i < epochs; ++i) {
        EpochMetrics m;
        m.epoch = i + 1;
        m.trainLoss = 1.0 / (i + 1);
        m.valLoss = 1.2 / (i + 1);
        m.trainRegression = RegressionMetrics{4.0, 1.5, 0.5 + 0.1 * i};
        m.valRegression = RegressionMetrics{5.0, 1.75, 0.4 + 0.1 * i};
        m.wallMs = 10;
        r.epochs.push_back(m);
    }
    return r;
}

RunRecord classificationRecord(int epochs) {
    RunRecord r;
    r.status = RunStatus::Completed;
    r.dataset.task = Task::Multiclass;
    for (int i = 0; i < epochs; ++i) {
        EpochMetrics m;
        m.epoch = i + 1;
        m.trainLoss = 1.0 / (i + 1);
        m.trainAccuracy = 0.8;
        m.valLoss = 1.1 / (i + 1);
        m.valAccuracy = 0.75;
        m.wallMs = 10;
        r.epochs.push_back(m);
    }
    return r;
}

QString cell(const RunsTableModel& model, int row, int column) {
    return model.data(model.index(row, column)).toString();
}

}  // namespace

class TestTaskCharts : public QObject {
    Q_OBJECT

private slots:
    void newestRunDecidesTheMetric_data() {
        QTest::addColumn<QString>("runs");  // oldest first: r = regression, c = classification
        QTest::addColumn<MetricChart::Quality>("quality");
        QTest::addColumn<QString>("axis");
        QTest::newRow("regression") << "r" << MetricChart::Quality::R2 << QString::fromUtf8("R²");
        QTest::newRow("classification") << "c" << MetricChart::Quality::Accuracy << "Accuracy (%)";
        QTest::newRow("regression newest") << "cr" << MetricChart::Quality::R2 << QString::fromUtf8("R²");
        QTest::newRow("classification newest") << "rc" << MetricChart::Quality::Accuracy << "Accuracy (%)";
    }

    // Each run of the shown metric's task has its 3 points; the others none (not a line at 0).
    void newestRunDecidesTheMetric() {
        QFETCH(QString, runs);
        QFETCH(MetricChart::Quality, quality);
        QFETCH(QString, axis);
        RunStore store;
        MetricChart chart(&store, MetricChart::Kind::Accuracy);
        std::vector<std::pair<int, bool>> ids;  // id, regression
        for (QChar kind : runs) {
            const bool regression = kind == 'r';
            ids.emplace_back(store.addRecord(regression ? regressionRecord(3) : classificationRecord(3), {}),
                             regression);
        }
        chart.refreshNow();
        QCOMPARE(static_cast<int>(chart.quality()), static_cast<int>(quality));
        QCOMPARE(chart.plot().yAxis->label(), axis);
        for (const auto& [id, regression] : ids) {
            const bool shown = regression == (quality == MetricChart::Quality::R2);
            QCOMPARE(chart.pointCount(id), shown ? 3 : 0);
        }
        // The legend names the runs that draw a line and counts the others, which draw none.
        QStringList legend;
        for (int i = 0; i < chart.plot().legend->itemCount(); ++i)
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(chart.plot().legend->item(i)))
                legend << item->plottable()->name();
        int others = 0;
        for (const auto& [id, regression] : ids) {
            const bool shown = regression == (quality == MetricChart::Quality::R2);
            others += shown ? 0 : 1;
            QCOMPARE(legend.contains(store.find(id)->name), shown);
        }
        const QString count = QString("%1 shown run without ").arg(others);
        QCOMPARE(std::any_of(legend.begin(), legend.end(), [&](const QString& l) { return l.startsWith(count); }),
                 others > 0);
        const auto& [newest, regression] = ids.back();
        const QCPGraph* train = chart.trainGraph(newest);
        QVERIFY(train);
        QCOMPARE(train->data()->at(2)->value, regression ? 0.7 : 80.0);
        QCOMPARE(chart.validationGraph(newest)->data()->at(0)->value, regression ? 0.4 : 75.0);
    }

    void maeCanBePicked() {
        RunStore store;
        MetricChart chart(&store, MetricChart::Kind::Accuracy);
        const int id = store.addRecord(regressionRecord(2), {});
        chart.setQuality(MetricChart::Quality::Mae);
        chart.refreshNow();
        QCOMPARE(static_cast<int>(chart.quality()), static_cast<int>(MetricChart::Quality::Mae));
        QVERIFY(chart.plot().yAxis->label().contains("absolute error"));
        QCOMPARE(chart.trainGraph(id)->data()->at(0)->value, 1.5);
        chart.setQuality(std::nullopt);  // back to following the task
        chart.refreshNow();
        QCOMPARE(static_cast<int>(chart.quality()), static_cast<int>(MetricChart::Quality::R2));
    }

    void tableShowsAccuracyOrR2() {
        RunStore store;
        RunsTableModel model(&store);
        store.addRecord(classificationRecord(2), {});
        store.addRecord(regressionRecord(2), {});
        QCOMPARE(cell(model, 0, RunsTableModel::TrainAccuracy), QString("80.0 %"));
        QCOMPARE(cell(model, 0, RunsTableModel::ValAccuracy), QString("75.0 %"));
        QCOMPARE(cell(model, 1, RunsTableModel::TrainAccuracy), QString::fromUtf8("R² 0.600 · MAE 1.5"));
        QCOMPARE(cell(model, 1, RunsTableModel::ValAccuracy), QString::fromUtf8("R² 0.500 · MAE 1.75"));
        // Sorted by R² for a regression, not by its null accuracy.
        QCOMPARE(model.data(model.index(1, RunsTableModel::TrainAccuracy), RunsTableModel::SortRole).toDouble(), 0.6);
    }

    // A record from before tasks has no "task": a binary run, drawn as accuracy.
    void oldRecordLoadsAsBinary() {
        RunStore store;
        MetricChart chart(&store, MetricChart::Kind::Accuracy);
        const int id = store.addFromFile(kOldRecord);
        const RunEntry* run = store.find(id);
        QVERIFY(run);
        WB_COMPARE_NAME(run->task(), "binary");
        WB_COMPARE_NAME(run->record.dataset.task, "binary");
        chart.refreshNow();
        QCOMPARE(static_cast<int>(chart.quality()), static_cast<int>(MetricChart::Quality::Accuracy));
        QCOMPARE(chart.pointCount(id), 3);
        QCOMPARE(chart.trainGraph(id)->data()->at(2)->value, 67.3);
    }
};

QTEST_MAIN(TestTaskCharts)
#include "tst_task_charts.moc"
