// Runs trained in the window are named with their data's task, so that a multiclass or regression run
// tells apart from a binary one in the runs table and the legends: "… · 3 classes", "… · regression".
// (Binary names are unchanged: tst_run_naming.)
#include <QComboBox>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "gui/panels/data_panel.h"
#include "gui/panels/model_panel.h"
#include "gui/runs/run_folder.h"
#include "gui/runs/run_store.h"
#include "gui/training/metatypes.h"
#include "gui/training/training_controller.h"
#include "gui/window/main_window.h"
#include "tests/gui/task_csv.h"

using namespace wb;
using namespace wb::gui;
using namespace wb::gui::testing;

namespace {
constexpr int kTimeoutMs = 120000;  // generous: the build machine is shared; nothing here is timed
}  // namespace

class TestRunNames : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("MLP Workbench tests");
        QCoreApplication::setApplicationName("tst_run_names");
        QSettings().clear();
        registerMetaTypes();
        QVERIFY(dir_.isValid());
    }

    void nameCarriesTheTask_data() {
        QTest::addColumn<QString>("task");  // the Task field's choice
        QTest::addColumn<QString>("suffix");
        QTest::newRow("multiclass by auto") << "auto" << QString::fromUtf8(" · 3 classes");
        QTest::newRow("regression") << "regression" << QString::fromUtf8(" · regression");
    }
    void nameCarriesTheTask() {
        QFETCH(QString, task);
        QFETCH(QString, suffix);
        const bool regression = task == "regression";
        setRunFolder(dir_.filePath("runs-" + task));  // a window per row: none sees the other's run
        QSettings().clear();
        const QString csv = writeCsv(dir_.filePath(regression ? "prices.csv" : "classes.csv"),
                                     regression ? regressionCsv(60) : multiclassCsv(60));
        MainWindow window;
        auto* data = window.findChild<DataPanel*>();
        QTRY_VERIFY_WITH_TIMEOUT(data->dataset() != nullptr && !data->isLoading(), kTimeoutMs);
        data->openFile(csv);  // auto refuses the prices (a number to predict): the Task field reads them
        if (regression) {
            QTRY_VERIFY_WITH_TIMEOUT(!data->isLoading(), kTimeoutMs);
            auto* choice = window.findChild<QComboBox*>("task");
            choice->setCurrentIndex(choice->findData(task));
        }
        QTRY_VERIFY_WITH_TIMEOUT(
            !data->isLoading() && data->dataset()->source.find(regression ? "prices" : "classes") != std::string::npos,
            kTimeoutMs);
        auto* model = window.findChild<ModelPanel*>();
        TrainSpec train = model->trainSpec();
        train.epochs = 2;
        train.batchSize = 16;
        model->setTrainSpec(train);

        QSignalSpy finished(&window.controller(), &TrainingController::runFinished);
        window.runCurrent();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
        const RunEntry& run = window.store().runs().front();
        QVERIFY2(run.name.endsWith(suffix), qPrintable(run.name));
        QVERIFY2(QString::fromStdString(run.record.name).endsWith(suffix), run.record.name.c_str());
    }

private:
    QTemporaryDir dir_;
};

QTEST_MAIN(TestRunNames)
#include "tst_run_names.moc"
