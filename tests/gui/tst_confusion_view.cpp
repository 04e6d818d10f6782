// The Confusion tab: a classification run's matrix over its validation rows, true classes as rows
// and predicted ones as columns, each cell its count and share of the row; the run selected, or the
// newest with a matrix; why a run has none. A small multiclass run trained in the window gets a
// matrix whose rows add up to the validation rows and whose diagonal is the accuracy it reported.
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "gui/charts/confusion_view.h"
#include "gui/panels/data_panel.h"
#include "gui/panels/model_panel.h"
#include "gui/runs/run_folder.h"
#include "gui/runs/run_store.h"
#include "gui/training/metatypes.h"
#include "gui/training/training_controller.h"
#include "gui/window/main_window.h"
#include "tests/gui/task_csv.h"
#include "tests/test_support.h"

using namespace wb;
using namespace wb::gui;

namespace {
constexpr int kRunTimeoutMs = 120000;  // generous: the build machine is shared

RunRecord completed(Task task, std::vector<std::string> classes) {
    RunRecord r;
    r.status = RunStatus::Completed;
    r.dataset.task = task;
    r.dataset.classes = std::move(classes);
    r.dataset.valRows = 30;
    EpochMetrics m;
    m.epoch = 1;
    if (task == Task::Regression) m.trainRegression = RegressionMetrics{1, 1, 0.5};
    r.epochs.push_back(m);
    return r;
}

QString cellText(const ConfusionView& view, int row, int column) {
    const QTableWidgetItem* item = view.table()->item(row, column);
    return item ? item->text() : QString();
}
}  // namespace

class TestConfusionView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("MLP Workbench tests");
        QCoreApplication::setApplicationName("tst_confusion_view");
        QSettings().clear();
        registerMetaTypes();
    }

    void countsAndRowShares() {
        RunStore store;
        ConfusionView view(&store);
        const int id = store.addRecord(completed(Task::Multiclass, {"ant", "bee", "cat"}), {});
        store.setConfusion(id, {8, 2, 0,  //
                                1, 9, 0,  //
                                0, 5, 5});
        QVERIFY(view.shownRun() == id);  // the newest with a matrix, none selected
        QCOMPARE(view.table()->rowCount(), 3);
        QCOMPARE(view.table()->columnCount(), 3);
        QCOMPARE(view.table()->verticalHeaderItem(2)->text(), QString("true cat"));
        QCOMPARE(view.table()->horizontalHeaderItem(1)->text(), QString("predicted bee"));
        QCOMPARE(cellText(view, 0, 0), QString("8\n80.0 %"));
        QCOMPARE(cellText(view, 2, 1), QString("5\n50.0 %"));
        QCOMPARE(cellText(view, 1, 2), QString("0\n0.0 %"));
        QVERIFY2(view.message().contains("30 validation rows") && view.message().contains("73.3 %"),
                 qPrintable(view.message()));
    }

    void binaryWithoutNamesCountsFromZero() {
        RunStore store;
        ConfusionView view(&store);
        const int id = store.addRecord(completed(Task::Binary, {}), {});
        store.setConfusion(id, {3, 1, 2, 4});
        QCOMPARE(view.table()->rowCount(), 2);
        QCOMPARE(view.table()->verticalHeaderItem(1)->text(), QString("true 1"));
        QCOMPARE(cellText(view, 1, 1), QString("4\n66.7 %"));
    }

    void whyARunHasNone_data() {
        QTest::addColumn<bool>("regression");
        QTest::addColumn<QString>("said");
        QTest::newRow("regression") << true << "no classes";
        QTest::newRow("opened from a file") << false << "in memory";
    }

    void whyARunHasNone() {
        QFETCH(bool, regression);
        QFETCH(QString, said);
        RunStore store;
        ConfusionView view(&store);
        const int id = store.addRecord(completed(regression ? Task::Regression : Task::Binary, {}), {});
        view.showRun(id);
        QVERIFY(view.shownRun() == id);
        QCOMPARE(view.table()->rowCount(), 0);
        QVERIFY2(view.message().contains(said), qPrintable(view.message()));
    }

    void smallMulticlassRunHasItsMatrix() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        setRunFolder(dir.filePath("runs"));
        const QString csv = testing::writeCsv(dir.filePath("task_classes.csv"), testing::multiclassCsv(150));
        MainWindow window;
        auto* data = window.findChild<DataPanel*>();
        QTRY_VERIFY_WITH_TIMEOUT(data->dataset() != nullptr && !data->isLoading(), kRunTimeoutMs);
        data->openFile(csv);
        QTRY_VERIFY_WITH_TIMEOUT(!data->isLoading() && data->dataset()->task == Task::Multiclass, kRunTimeoutMs);
        auto* model = window.findChild<ModelPanel*>();
        TrainSpec train = model->trainSpec();
        train.epochs = 5;
        train.batchSize = 16;
        model->setTrainSpec(train);

        QSignalSpy finished(&window.controller(), &TrainingController::runFinished);
        window.runCurrent();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
        const RunEntry& run = window.store().runs().front();
        WB_COMPARE_NAME(run.record.status, "completed");
        QCOMPARE(run.confusion.size(), std::size_t{9});
        const std::size_t valRows = run.record.dataset.valRows;
        QVERIFY(valRows > 0);
        std::size_t total = 0, right = 0;
        for (std::size_t t = 0; t < 3; ++t) {
            std::size_t row = 0;
            for (std::size_t p = 0; p < 3; ++p) row += run.confusion[t * 3 + p];
            QCOMPARE(row, valRows / 3);  // a stratified split of equal classes
            total += row;
            right += run.confusion[t * 3 + t];
        }
        QCOMPARE(total, valRows);
        // The diagonal is what the run's last epoch counted as right, by the same argmax.
        const double accuracy = *run.record.epochs.back().valAccuracy;
        QCOMPARE(right, static_cast<std::size_t>(std::lround(accuracy * double(valRows))));

        auto* view = window.findChild<ConfusionView*>();
        QVERIFY(view);
        QVERIFY(view->shownRun() == run.id);
        QCOMPARE(view->table()->horizontalHeaderItem(2)->text(), QString("predicted virginica"));
        for (int t = 0; t < 3; ++t)
            for (int p = 0; p < 3; ++p)
                QCOMPARE(view->table()->item(t, p)->data(Qt::UserRole).toULongLong(),
                         static_cast<qulonglong>(run.confusion[std::size_t(t * 3 + p)]));
    }
};

QTEST_MAIN(TestConfusionView)
#include "tst_confusion_view.moc"
