// The keras backend in real Keras (model.fit on TensorFlow): nearly the same losses as the cpu
// backend from the same weights (Keras' optimizer formulas differ slightly from PyTorch's), a
// Python failure as a `failed` run, and an exported loop that reproduces its run. Skips with the
// reason without an interpreter that has Keras 3 ($MLPWB_TEST_KERAS_PYTHON, else the repository's
// .venv).
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "core/data/builtin_data.h"
#include "core/data/npy_io.h"
#include "core/model/safetensors.h"
#include "frameworks/framework_backend.h"
#include "frameworks/python_interpreter.h"
#include "tests/frameworks/run_test_support.h"
#include "tests/test_support.h"

using namespace wb;

class KerasBackendTest : public QObject {
    Q_OBJECT
    Dataset dataset_ = generateSeedLike(3000, 11);
    std::string python_;

private slots:
    void initTestCase() {
        python_ = test::frameworkTestPython("MLPWB_TEST_KERAS_PYTHON");
        if (python_.empty())
            QSKIP("no interpreter with Keras: set MLPWB_TEST_KERAS_PYTHON or run bench/peers/setup_venv.sh");
        const FrameworkFacts f = probeFramework("keras", python_);
        if (!f.available) QSKIP(qPrintable("Keras is not usable here: " + QString::fromStdString(f.reason)));
        setPreferredPython(python_);
        registerFrameworkBackends();
    }

    void sameLossesAsCpu_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("preset");
        QTest::addColumn<double>("lossTolerance");
        QTest::addColumn<double>("paramTolerance");
        QTest::newRow("adam, seed loop") << int(OptimizerKind::Adam) << "Seed PyTorch loop" << 5e-5 << 5e-4;
        QTest::newRow("adam, XLA") << int(OptimizerKind::Adam) << "Fastest" << 5e-5 << 5e-4;
        QTest::newRow("sgd nesterov") << int(OptimizerKind::Sgd) << "Static graph (Keras-like)" << 1e-5 << 1e-5;
        QTest::newRow("rmsprop") << int(OptimizerKind::RmsProp) << "Static graph (Keras-like)" << 5e-4 << 5e-2;
    }
    // Epoch by epoch, train and validation loss after 3 epochs (fp32 in both), within a tolerance
    // that follows Keras' formulas. Measured (Keras 3.15.1, TensorFlow 2.21, CPU), largest relative
    // loss difference / largest parameter difference: adam 7.5e-6 / 4.7e-5 (epsilon added before
    // the bias correction), sgd+nesterov 1.0e-7 / 6.0e-8 (the same formula), rmsprop 9.9e-5 / 4.6e-3
    // (epsilon under the square root, passed as eps**2: parameters whose gradient is near eps take a
    // different first step of up to lr).
    void sameLossesAsCpu() {
        QFETCH(int, kind);
        QFETCH(QString, preset);
        QFETCH(double, lossTolerance);
        QFETCH(double, paramTolerance);
        const OptimizerSpec o = test::parityOptimizer(static_cast<OptimizerKind>(kind));
        RunConfig kerasRun = test::smallRun("keras", o, python_), cpuRun = test::smallRun("cpu", o, python_);
        kerasRun.execution = cpuRun.execution = presetByName(preset.toStdString()).settings;
        const PreparedData data = prepare(dataset_, kerasRun.prepare);
        CancelFlag never{false};
        const test::Run k = test::train(kerasRun, dataset_, data, never),
                        c = test::train(cpuRun, dataset_, data, never);
        QVERIFY2(k.record.status == RunStatus::Completed, k.record.message.c_str());
        QCOMPARE(k.record.epochs.size(), c.record.epochs.size());
        const double worst = test::largestLossDifference(k.record, c.record);
        qInfo("largest relative loss difference keras vs cpu: %.3g", worst);
        QVERIFY2(worst <= lossTolerance, qPrintable(QString::number(worst)));
        for (std::size_t e = 0; e < k.record.epochs.size(); ++e)
            QVERIFY(std::abs(k.record.epochs[e].trainAccuracy - c.record.epochs[e].trainAccuracy) < 5e-3);
        double param = 0;
        for (std::size_t i = 0; i < k.params.count(); ++i)
            param = std::max(param, double(std::abs(k.params.values[i] - c.params.values[i])));
        qInfo("largest parameter difference keras vs cpu: %.3g", param);
        QVERIFY2(param <= paramTolerance, qPrintable(QString::number(param)));
        QCOMPARE(QString::fromStdString(k.record.environment.at("framework")), QString("keras"));
        QVERIFY(!k.record.environment.at("keras_version").empty());
    }

    // An interpreter that fails on the loop makes a `failed` run with the end of the traceback.
    void pythonErrorFailsTheRun() {
        QTemporaryDir dir;
        RunConfig c = test::smallRun("keras", OptimizerSpec{}, python_);
        c.framework.python = test::failingPython(dir.path(), python_, "keras").toStdString();
        const PreparedData data = prepare(dataset_, c.prepare);
        CancelFlag never{false};
        const test::Run r = test::train(c, dataset_, data, never);
        WB_COMPARE_NAME(r.record.status, "failed");
        QVERIFY2(r.record.message.find("No module named 'keras'") != std::string::npos, r.record.message.c_str());
        QVERIFY2(r.record.message.find("exited with status 1") != std::string::npos, r.record.message.c_str());
    }

    // A multiclass (K = 3) and a regression run from the same initial weights: the same losses as
    // the cpu backend within 1e-4 relative after 3 epochs, and the same accuracy or MSE, MAE, R^2.
    void tasksMatchCpu_data() { test::addTaskRows(); }
    void tasksMatchCpu() {
        QFETCH(int, task);
        const RunConfig c = test::taskRun("keras", test::parityOptimizer(OptimizerKind::Adam), python_);
        test::checkTaskParity(c, test::relabelled(dataset_, static_cast<Task>(task)), 1e-4);
    }

    // The exported loop of a multiclass and a regression run reproduces the backend's losses.
    void exportedTaskLoopReproducesItsRun_data() { test::addTaskRows(); }
    void exportedTaskLoopReproducesItsRun() {
        QFETCH(int, task);
        RunConfig c = test::taskRun("keras", OptimizerSpec{}, python_);
        c.prepare.valSplit = 0;
        test::checkExportedLoopReproduces(c, test::relabelled(dataset_, static_cast<Task>(task)), python_);
    }

    // The exported loop, run by hand on the same rows and weights, reproduces the backend's losses.
    void exportedLoopReproducesItsRun() {
        RunConfig c = test::smallRun("keras", OptimizerSpec{}, python_);
        c.prepare.valSplit = 0;
        test::checkExportedLoopReproduces(c, dataset_, python_);
    }
};

QTEST_GUILESS_MAIN(KerasBackendTest)
#include "tst_keras_backend.moc"
