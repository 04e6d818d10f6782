// The one rule for the metric beside the loss (quality_metric.h): accuracy for a classification, R^2
// for a regression, and no value where a run's task has none (never a 0 in its place).
#include <QtTest>

#include "core/run/quality_metric.h"

using namespace wb;

Q_DECLARE_METATYPE(wb::Task)
Q_DECLARE_METATYPE(wb::QualityMetric)

namespace {
// A classification epoch (accuracy 0.9, validation 0.8) or a regression one (R^2 0.7 and MAE 1.5 on
// the training rows, R^2 0.6 on the validation split); `split` false: no validation side.
EpochMetrics epochOf(Task task, bool split) {
    EpochMetrics e;
    if (task == Task::Regression) {
        e.trainRegression = RegressionMetrics{2.0, 1.5, 0.7};
        if (split) e.valRegression = RegressionMetrics{3.0, 1.8, 0.6};
    } else {
        e.trainAccuracy = 0.9;
        if (split) e.valAccuracy = 0.8;
    }
    return e;
}
}  // namespace

class TestQualityMetric : public QObject {
    Q_OBJECT

private slots:
    void metricFollowsTheTask_data() {
        QTest::addColumn<Task>("task");
        QTest::addColumn<QualityMetric>("metric");
        QTest::addColumn<QString>("name");
        QTest::newRow("binary") << Task::Binary << QualityMetric::Accuracy << "accuracy";
        QTest::newRow("multiclass") << Task::Multiclass << QualityMetric::Accuracy << "accuracy";
        QTest::newRow("regression") << Task::Regression << QualityMetric::R2 << QString::fromUtf8("R²");
    }
    void metricFollowsTheTask() {
        QFETCH(Task, task);
        QFETCH(QualityMetric, metric);
        QFETCH(QString, name);
        QCOMPARE(qualityFor(task), metric);
        QCOMPARE(QString::fromStdString(qualityName(qualityFor(task))), name);
    }

    void valueOfAnEpoch_data() {
        QTest::addColumn<Task>("task");
        QTest::addColumn<QualityMetric>("metric");
        QTest::addColumn<bool>("split");
        QTest::addColumn<bool>("validation");
        QTest::addColumn<double>("expected");  // NaN: no value
        const double none = std::nan("");
        QTest::newRow("accuracy, train") << Task::Binary << QualityMetric::Accuracy << true << false << 0.9;
        QTest::newRow("accuracy, validation") << Task::Multiclass << QualityMetric::Accuracy << true << true << 0.8;
        QTest::newRow("accuracy, no split") << Task::Binary << QualityMetric::Accuracy << false << true << none;
        QTest::newRow("R2, train") << Task::Regression << QualityMetric::R2 << true << false << 0.7;
        QTest::newRow("R2, validation") << Task::Regression << QualityMetric::R2 << true << true << 0.6;
        QTest::newRow("R2, no split") << Task::Regression << QualityMetric::R2 << false << true << none;
        QTest::newRow("MAE, train") << Task::Regression << QualityMetric::Mae << true << false << 1.5;
        QTest::newRow("no accuracy of a regression")
            << Task::Regression << QualityMetric::Accuracy << true << false << none;
        QTest::newRow("no R2 of a classification") << Task::Binary << QualityMetric::R2 << true << false << none;
    }
    void valueOfAnEpoch() {
        QFETCH(Task, task);
        QFETCH(QualityMetric, metric);
        QFETCH(bool, split);
        QFETCH(bool, validation);
        QFETCH(double, expected);
        const std::optional<double> value = qualityValue(metric, epochOf(task, split), validation);
        QCOMPARE(value.has_value(), !std::isnan(expected));
        if (value) QCOMPARE(*value, expected);
    }
};

QTEST_GUILESS_MAIN(TestQualityMetric)
#include "tst_quality_metric.moc"
