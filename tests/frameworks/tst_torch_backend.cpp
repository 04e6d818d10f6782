// The torch backend in real PyTorch: the same losses as the cpu backend from the same weights,
// Stop cutting a run short, a Python failure as a `failed` run with its traceback, and an exported
// loop that reproduces its run. Skips with the reason where the interpreter has no PyTorch
// ($MLPWB_TEST_PYTHON, else Debian's /usr/bin/python3).
#include <QtTest>

#include "core/data/builtin_data.h"
#include "frameworks/python_interpreter.h"
#include "tests/frameworks/run_test_support.h"
#include "tests/test_support.h"

using namespace wb;

class TorchBackendTest : public QObject {
    Q_OBJECT
    Dataset dataset_ = generateSeedLike(3000, 11);
    std::string python_ = test::torchTestPython();

private slots:
    void initTestCase() {
        if (const auto why = test::useFrameworkPython("torch", python_)) QSKIP(qPrintable(*why));
    }

    void sameLossesAsCpu_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("preset");
        QTest::newRow("adam, seed loop") << int(OptimizerKind::Adam) << "Seed PyTorch loop";
        QTest::newRow("adam, answer's fixes") << int(OptimizerKind::Adam) << "Static graph (Keras-like)";
        QTest::newRow("sgd nesterov") << int(OptimizerKind::Sgd) << "Seed PyTorch loop";
        QTest::newRow("rmsprop") << int(OptimizerKind::RmsProp) << "Seed PyTorch loop";
    }
    // Epoch by epoch, within 1e-4 relative after 3 epochs (fp32 in both).
    void sameLossesAsCpu() {
        QFETCH(int, kind);
        QFETCH(QString, preset);
        const OptimizerSpec o = test::parityOptimizer(static_cast<OptimizerKind>(kind));
        RunConfig torchRun = test::smallRun("torch", o, python_), cpuRun = test::smallRun("cpu", o, python_);
        torchRun.execution = cpuRun.execution = presetByName(preset.toStdString()).settings;
        const PreparedData data = prepare(dataset_, torchRun.prepare);
        CancelFlag never{false};
        const test::Run t = test::train(torchRun, dataset_, data, never),
                        c = test::train(cpuRun, dataset_, data, never);
        QVERIFY2(t.record.status == RunStatus::Completed, t.record.message.c_str());
        QCOMPARE(t.record.epochs.size(), c.record.epochs.size());
        const double worst = test::largestLossDifference(t.record, c.record);
        QVERIFY2(worst <= 1e-4, qPrintable(QString::number(worst)));
        for (std::size_t e = 0; e < t.record.epochs.size(); ++e)
            QVERIFY(std::abs(t.record.epochs[e].trainAccuracy - c.record.epochs[e].trainAccuracy) < 2e-3);
        QCOMPARE(t.params.count(), c.params.count());
        for (std::size_t i = 0; i < t.params.count(); ++i)
            QVERIFY2(std::abs(t.params.values[i] - c.params.values[i]) < 1e-4, qPrintable(QString::number(i)));
        QCOMPARE(QString::fromStdString(t.record.environment.at("framework")), QString("torch"));
        QVERIFY(!t.record.environment.at("torch_version").empty());
    }

    // Stop, set after the second epoch, ends the interpreter and the run: cancelled, with only the
    // epochs the loop had written before it saw the stop. Counted, not timed: the loop writes ahead
    // of the trainer by at most what the pipe (64 KiB) and one read (8 KiB) hold, under 1,000 lines
    // of 100+ bytes, so a stop that did nothing would run on to all 100,000 epochs.
    void stopCutsTheRunShort() {
        RunConfig c = test::smallRun("torch", OptimizerSpec{}, python_);
        c.train.epochs = 100000;
        const PreparedData data = prepare(dataset_, c.prepare);
        CancelFlag cancel{false};
        const test::Run r = test::train(c, dataset_, data, cancel, {[&](const EpochMetrics& m, const RunRecord&) {
                                            if (m.epoch == 2) cancel.store(true);
                                        }});
        WB_COMPARE_NAME(r.record.status, "cancelled");
        const std::size_t epochs = r.record.epochs.size();
        qInfo("%zu epochs of %d before the run ended", epochs, c.train.epochs);
        QVERIFY(epochs >= 2);
        QVERIFY2(epochs < 1000, qPrintable(QString("%1 epochs after a stop at the second").arg(epochs)));
        QCOMPARE(QString::fromStdString(r.record.message), QString("cancelled during epoch %1").arg(epochs + 1));
    }

    // An interpreter that fails (here: an import error in the loop) makes a `failed` run whose
    // message carries the end of the traceback.
    void pythonErrorFailsTheRun() {
        QTemporaryDir dir;
        RunConfig c = test::smallRun("torch", OptimizerSpec{}, python_);
        c.framework.python = test::failingPython(dir.path(), python_, "torch").toStdString();
        const PreparedData data = prepare(dataset_, c.prepare);
        CancelFlag never{false};
        const test::Run r = test::train(c, dataset_, data, never);
        WB_COMPARE_NAME(r.record.status, "failed");
        QVERIFY2(r.record.message.find("No module named 'torch'") != std::string::npos, r.record.message.c_str());
        QVERIFY2(r.record.message.find("exited with status 1") != std::string::npos, r.record.message.c_str());
    }

    // A multiclass (K = 3) and a regression run from the same initial weights: the same losses as
    // the cpu backend within 1e-4 relative after 3 epochs, and the same accuracy or MSE, MAE, R^2.
    void tasksMatchCpu_data() { test::addTaskRows(true); }
    void tasksMatchCpu() {
        QFETCH(int, task);
        const RunConfig c = test::taskRun("torch", test::parityOptimizer(OptimizerKind::Adam), python_);
        test::checkTaskParity(c, test::relabelled(dataset_, static_cast<Task>(task)), 1e-4);
    }

    // The exported loop of a multiclass and a regression run reproduces the backend's losses.
    void exportedTaskLoopReproducesItsRun_data() { test::addTaskRows(); }
    void exportedTaskLoopReproducesItsRun() {
        QFETCH(int, task);
        RunConfig c = test::taskRun("torch", OptimizerSpec{}, python_);
        c.prepare.valSplit = 0;
        test::checkExportedLoopReproduces(c, test::relabelled(dataset_, static_cast<Task>(task)), python_);
    }

    // The exported loop, run by hand on the same rows and weights, reproduces the backend's losses.
    void exportedLoopReproducesItsRun() {
        RunConfig c = test::smallRun("torch", OptimizerSpec{}, python_);
        c.prepare.valSplit = 0;
        test::checkExportedLoopReproduces(c, dataset_, python_);
    }
};

QTEST_GUILESS_MAIN(TorchBackendTest)
#include "tst_torch_backend.moc"
