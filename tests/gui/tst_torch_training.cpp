// The whole window with the user's PyTorch: the interpreter chosen in the panel, a small "Seed
// PyTorch loop" queued on torch and the same on the cpu, both trained by the real controller, both
// in the run store with their epochs and overlaid in the charts. Skips with the reason where the
// interpreter ($MLPWB_TEST_PYTHON, else Debian's /usr/bin/python3) cannot import torch.
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "frameworks/framework_backend.h"
#include "frameworks/python_interpreter.h"
#include "gui/charts/metric_chart.h"
#include "gui/panels/data_panel.h"
#include "gui/panels/execution_panel.h"
#include "gui/panels/model_panel.h"
#include "gui/runs/run_folder.h"
#include "gui/runs/run_store.h"
#include "gui/training/metatypes.h"
#include "gui/training/training_controller.h"
#include "gui/window/main_window.h"

using namespace wb;
using namespace wb::gui;

namespace {
constexpr int kTimeoutMs = 240000;  // generous: PyTorch starts in seconds on a shared 2-core machine

QString testPython() {
    const QByteArray env = qgetenv("MLPWB_TEST_PYTHON");
    return env.isEmpty() ? QString("/usr/bin/python3") : QString::fromLocal8Bit(env);
}
}  // namespace

class TestTorchTraining : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("MLP Workbench tests");
        QCoreApplication::setApplicationName("tst_torch_training");
        QSettings().clear();
        registerMetaTypes();
        QVERIFY(runFolder_.isValid());
        setRunFolder(runFolder_.path());  // empty: no run of an earlier test run is restored
        const FrameworkFacts f = probeFramework("torch", testPython().toStdString());
        if (!f.available) QSKIP(qPrintable("PyTorch is not usable here: " + QString::fromStdString(f.reason)));
        registerFrameworkBackends();
    }

    void torchAndCpuRunsTrainSideBySide() {
        MainWindow window;
        auto* panel = window.findChild<ExecutionPanel*>();
        panel->setPython(testPython());
        auto* data = window.findChild<DataPanel*>();
        DataSpec spec = data->dataSpec();
        spec.rows = 3000;
        data->setDataSpec(spec);
        data->loadBuiltin();
        QTRY_VERIFY_WITH_TIMEOUT(data->dataset() && data->dataset()->rows == 3000, kTimeoutMs);
        auto* model = window.findChild<ModelPanel*>();
        TrainSpec train = model->trainSpec();
        train.epochs = 3;
        train.batchSize = 256;
        model->setTrainSpec(train);
        panel->selectPreset("Seed PyTorch loop");
        QTRY_VERIFY_WITH_TIMEOUT(!panel->checkingBackends(), kTimeoutMs);

        QSignalSpy finished(&window.controller(), &TrainingController::runFinished);
        panel->setBackend("torch");
        QVERIFY2(panel->valid(), qPrintable(panel->invalidReason()));
        QCOMPARE(window.currentConfig().backend, std::string("torch"));
        window.runCurrent();
        panel->setBackend("cpu");
        window.runCurrent();
        QCOMPARE(window.store().runs().size(), std::size_t{2});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, kTimeoutMs);

        const RunEntry& torch = window.store().runs()[0];
        const RunEntry& cpu = window.store().runs()[1];
        QCOMPARE(torch.backend(), QString("torch"));
        QCOMPARE(cpu.backend(), QString("cpu"));
        for (const RunEntry* run : {&torch, &cpu}) {
            QVERIFY2(run->record.status == RunStatus::Completed, run->record.message.c_str());
            QCOMPARE(run->record.epochs.size(), std::size_t{3});
            QCOMPARE(run->preset(), QString("Seed PyTorch loop"));  // ours, not a peer's
            QCOMPARE(QString::fromStdString(run->runConfig->framework.python), testPython());
        }
        QVERIFY(torch.record.environment.count("torch_version"));
        // The same workload: only the backend differs.
        QCOMPARE(torch.record.config.at("model"), cpu.record.config.at("model"));
        QCOMPARE(torch.runConfig->execution, cpu.runConfig->execution);
        for (auto* chart : window.findChildren<MetricChart*>()) {
            chart->refreshNow();
            QCOMPARE(chart->pointCount(torch.id), 3);
            QCOMPARE(chart->pointCount(cpu.id), 3);
        }
    }

private:
    QTemporaryDir runFolder_;
};

QTEST_MAIN(TestTorchTraining)
#include "tst_torch_training.moc"
