// The Task rows of the Model section in the whole window: a loaded file shows what auto chose and
// why, and the output layer the preview counts; another task reloads the data with it; a task the
// column cannot be read as shows its refusal in the Data panel, which keeps the data it had; the
// regression loss applies only to a regression; task and loss survive a restart (the RunConfig);
// the class weights apply only to multiclass, are checked as typed and reach the model spec.
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

#include <nlohmann/json.hpp>

#include "gui/panels/data_panel.h"
#include "gui/panels/model_panel.h"
#include "gui/runs/run_folder.h"
#include "gui/training/metatypes.h"
#include "gui/window/main_window.h"
#include "tests/gui/task_csv.h"
#include "tests/test_support.h"

using namespace wb;
using namespace wb::gui;
using namespace wb::gui::testing;

namespace {
constexpr int kLoadTimeoutMs = 60000;  // generous: the build machine is shared

QString text(const QWidget& w, const char* name) {
    return w.findChild<QLabel*>(name)->text();
}

void pick(QComboBox* combo, const QString& value) {
    combo->setCurrentIndex(combo->findData(value));
}

// Opens `path` and waits until it is the data set in use (a failed wait fails the test).
void openAndWait(MainWindow& window, const QString& path) {
    auto* data = window.findChild<DataPanel*>();
    QTRY_VERIFY_WITH_TIMEOUT(data->dataset() != nullptr && !data->isLoading(), kLoadTimeoutMs);
    data->openFile(path);
    QTRY_VERIFY_WITH_TIMEOUT(!data->isLoading() && data->dataset()->source.find("task") != std::string::npos,
                             kLoadTimeoutMs);
}
}  // namespace

class TestTaskChoice : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("MLP Workbench tests");
        QCoreApplication::setApplicationName("tst_task_choice");
        QSettings().clear();
        registerMetaTypes();
        QVERIFY(dir_.isValid());
        setRunFolder(dir_.filePath("runs"));
        classes_ = writeCsv(dir_.filePath("task_classes.csv"), multiclassCsv(60));
        prices_ = writeCsv(dir_.filePath("task_prices.csv"), regressionCsv(60));
    }

    void init() { QSettings().clear(); }

    // Typed into the loaded multiclass data's Class weights field: what the spec gets, and the refusal shown.
    void classWeightsCheckedAsTyped_data() {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<std::vector<float>>("values");
        QTest::addColumn<bool>("balanced");
        QTest::addColumn<QString>("problem");
        QTest::newRow("none") << "" << std::vector<float>{} << false << "";
        QTest::newRow("a list") << "1, 2.5, 0.5" << std::vector<float>{1, 2.5f, 0.5f} << false << "";
        QTest::newRow("balanced") << "balanced" << std::vector<float>{} << true << "";
        QTest::newRow("too few") << "1,2" << std::vector<float>{} << false << "2 given, but the data has 3 classes";
        QTest::newRow("negative") << "1,-2,3" << std::vector<float>{} << false << "class weight 2 is -2";
        QTest::newRow("text") << "1,a,3" << std::vector<float>{} << false << "not a number";
    }

    void classWeightsCheckedAsTyped() {
        QFETCH(QString, typed);
        QFETCH(std::vector<float>, values);
        QFETCH(bool, balanced);
        QFETCH(QString, problem);
        MainWindow window;
        openAndWait(window, classes_);
        if (QTest::currentTestFailed()) return;
        auto* model = window.findChild<ModelPanel*>();
        auto* field = model->findChild<QLineEdit*>("classWeights");
        QVERIFY(field->isEnabled());
        field->setFocus();
        QTest::keyClicks(field, typed);
        const ModelSpec spec = model->modelSpec();
        QCOMPARE(spec.classWeights.values, values);
        QCOMPARE(spec.classWeights.balanced, balanced);
        auto* message = model->findChild<QLabel*>("classWeightsMessage");
        QCOMPARE(message->isVisibleTo(model), !problem.isEmpty());
        QVERIFY2(message->toolTip().contains(problem), qPrintable(message->toolTip()));
        QCOMPARE(model->invalidReason().isEmpty(), problem.isEmpty());
    }

    // The built-in data set is binary: no classes to weigh, so the field is off and the spec carries none.
    void classWeightsOffForBinaryData() {
        MainWindow window;
        auto* data = window.findChild<DataPanel*>();
        QTRY_VERIFY_WITH_TIMEOUT(data->dataset() != nullptr && !data->isLoading(), kLoadTimeoutMs);
        WB_COMPARE_NAME(data->dataset()->task, "binary");
        auto* model = window.findChild<ModelPanel*>();
        QVERIFY(!model->findChild<QLineEdit*>("classWeights")->isEnabled());
        QVERIFY(model->modelSpec().classWeights.empty());
    }

    void autoShowsItsChoiceAndTheOutputs() {
        MainWindow window;
        openAndWait(window, classes_);
        if (QTest::currentTestFailed()) return;
        auto* data = window.findChild<DataPanel*>();
        WB_COMPARE_NAME(data->dataset()->task, "multiclass");
        auto* model = window.findChild<ModelPanel*>();
        QCOMPARE(text(*model, "taskReason"), QString::fromUtf8("auto → multiclass (3 text values)"));
        // 4 inputs, the hidden layers, and one output per class.
        QVERIFY2(text(*model, "parameterCount").endsWith(QString::fromUtf8("→ 3)")),
                 qPrintable(text(*model, "parameterCount")));
        QCOMPARE(model->modelSpec().outputs, 3);
        QVERIFY(!model->findChild<QComboBox*>("regressionLoss")->isEnabled());
    }

    void refusalKeepsTheDataSet_data() {
        QTest::addColumn<QString>("file");  // "classes" or "prices"
        QTest::addColumn<QString>("task");
        QTest::addColumn<QString>("said");  // in the Data panel's error place
        QTest::newRow("3 classes as binary") << "classes"
                                             << "binary"
                                             << "a third label value";
        QTest::newRow("text as a regression target") << "classes"
                                                     << "regression"
                                                     << "must be a number";
    }

    void refusalKeepsTheDataSet() {
        QFETCH(QString, file);
        QFETCH(QString, task);
        QFETCH(QString, said);
        MainWindow window;
        openAndWait(window, file == "classes" ? classes_ : prices_);
        if (QTest::currentTestFailed()) return;
        auto* data = window.findChild<DataPanel*>();
        const auto before = data->dataset();
        QSignalSpy failed(data, &DataPanel::loadFailed);
        pick(window.findChild<QComboBox*>("task"), task);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kLoadTimeoutMs);
        QVERIFY2(text(*data, "errorLabel").contains(said), qPrintable(text(*data, "errorLabel")));
        QVERIFY(text(*data, "errorLabel").contains("stays in use"));
        QCOMPARE(data->dataset(), before);
    }

    // A numeric target: auto refuses it (suggesting regression), regression reads it.
    void regressionReloadsTheData() {
        MainWindow window;
        auto* data = window.findChild<DataPanel*>();
        QTRY_VERIFY_WITH_TIMEOUT(data->dataset() != nullptr && !data->isLoading(), kLoadTimeoutMs);
        QSignalSpy failed(data, &DataPanel::loadFailed);
        data->openFile(prices_);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kLoadTimeoutMs);
        // The advice names the Task field, not the command line's option.
        QVERIFY2(text(*data, "errorLabel").contains(QString::fromUtf8("Task ‘regression’ (Model section)")),
                 qPrintable(text(*data, "errorLabel")));
        QVERIFY(!text(*data, "errorLabel").contains("--task"));
        auto* model = window.findChild<ModelPanel*>();
        pick(window.findChild<QComboBox*>("task"), "regression");
        QTRY_VERIFY_WITH_TIMEOUT(!data->isLoading() && data->dataset()->task == Task::Regression, kLoadTimeoutMs);
        QVERIFY(!data->findChild<QLabel*>("errorLabel")->isVisibleTo(data));
        QVERIFY2(text(*model, "taskReason").contains("regression"), qPrintable(text(*model, "taskReason")));
        QVERIFY(model->findChild<QComboBox*>("regressionLoss")->isEnabled());
        QCOMPARE(model->modelSpec().outputs, 1);
        WB_COMPARE_NAME(window.currentConfig().data.task, "regression");
    }

    void taskAndLossSurviveARestart() {
        {
            MainWindow first;
            auto* model = first.findChild<ModelPanel*>();
            pick(first.findChild<QComboBox*>("task"), "regression");
            pick(first.findChild<QComboBox*>("regressionLoss"), "huber");
            auto* data = first.findChild<DataPanel*>();
            QTRY_VERIFY_WITH_TIMEOUT(
                !data->isLoading() && data->dataset() && data->dataSpec().task == TaskChoice::Regression,
                kLoadTimeoutMs);
            const nlohmann::json config = first.currentConfig();
            QCOMPARE(QString::fromStdString(config.at("data").at("task").get<std::string>()), QString("regression"));
            QCOMPARE(QString::fromStdString(config.at("model").at("regression_loss").get<std::string>()),
                     QString("huber"));
            WB_COMPARE_NAME(model->modelSpec().regressionLoss, "huber");
            first.close();  // saves the configuration
        }
        MainWindow second;
        QCOMPARE(second.findChild<QComboBox*>("task")->currentData().toString(), QString("regression"));
        QCOMPARE(second.findChild<QComboBox*>("regressionLoss")->currentData().toString(), QString("huber"));
        WB_COMPARE_NAME(second.currentConfig().model.regressionLoss, "huber");
        WB_COMPARE_NAME(second.findChild<DataPanel*>()->editedSpec().task, "regression");
    }

private:
    QTemporaryDir dir_;
    QString classes_, prices_;
};

QTEST_MAIN(TestTaskChoice)
#include "tst_task_choice.moc"
