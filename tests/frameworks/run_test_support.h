// Helpers of the suites that run a framework's loop for real: which interpreter to use, a small
// run, training it through the registry, and comparing losses.
#pragma once

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <QProcess>
#include <QTemporaryDir>

#include "core/data/npy_io.h"
#include "core/model/execution_settings.h"
#include "core/model/safetensors.h"
#include "core/run/backend.h"
#include "core/run/run_config.h"
#include "core/run/run_record.h"
#include "core/train/trainer.h"
#include "frameworks/framework_backend.h"
#include "frameworks/python_interpreter.h"

namespace wb::test {

// $<envVar>, else the repository's .venv (bench/peers/setup_venv.sh), else empty (skip).
inline std::string frameworkTestPython(const char* envVar) {
    const QByteArray env = qgetenv(envVar);
    if (!env.isEmpty()) return env.toStdString();
    const QString venv = QDir(WB_TEST_DATA_DIR "/../..").absoluteFilePath(".venv/bin/python");
    return QFile::exists(venv) ? venv.toStdString() : std::string{};
}

// The interpreter of the torch suites: $MLPWB_TEST_PYTHON, else Debian's /usr/bin/python3.
inline std::string torchTestPython() {
    const QByteArray env = qgetenv("MLPWB_TEST_PYTHON");
    return env.isEmpty() ? "/usr/bin/python3" : env.toStdString();
}

// Makes `python` the preferred interpreter and registers the framework backends, where `framework`
// is usable there; else returns why not (the suite skips with it).
inline std::optional<QString> useFrameworkPython(const char* framework, const std::string& python) {
    const FrameworkFacts f = probeFramework(framework, python);
    if (!f.available) return QString("%1 is not usable here: %2").arg(framework, QString::fromStdString(f.reason));
    setPreferredPython(python);
    registerFrameworkBackends();
    return std::nullopt;
}

// 3 epochs of batch 256 in file order, 20% held out, fp32 with the seed loop's switches.
inline RunConfig smallRun(const std::string& backend, const OptimizerSpec& optimizer, const std::string& python) {
    RunConfig c;
    c.name = "parity";
    c.backend = backend;
    c.optimizer = optimizer;
    c.train = {3, 256, false, 7};
    c.prepare = {0.2, true, 7};
    c.execution = presetByName("Seed PyTorch loop").settings;
    c.framework.python = python;
    return c;
}

// PyTorch's defaults for `kind`; SGD with lr 0.05 and Nesterov momentum 0.9.
inline OptimizerSpec parityOptimizer(OptimizerKind kind) {
    OptimizerSpec o = OptimizerSpec::defaults(kind);
    if (kind == OptimizerKind::Sgd) {
        o.lr = 0.05;
        o.momentum = 0.9;
        o.nesterov = true;
    }
    return o;
}

struct Run {
    RunRecord record;
    MlpParams params;
};

inline Run train(const RunConfig& c, const Dataset& ds, const PreparedData& data, const CancelFlag& cancel,
                 const TrainerCallbacks& callbacks = {}) {
    auto backend = BackendRegistry::instance().create(c.backend);
    Trainer trainer(c, ds, data, *backend);
    Run r{trainer.run(cancel, callbacks), {}};
    r.params = trainer.finalParams();
    return r;
}

inline double relative(double a, double b) {
    return std::abs(a - b) / std::max(std::abs(b), 1e-12);
}

// The largest relative difference of the train and validation losses over the epochs.
inline double largestLossDifference(const RunRecord& a, const RunRecord& b) {
    double worst = 0;
    for (std::size_t e = 0; e < std::min(a.epochs.size(), b.epochs.size()); ++e) {
        worst = std::max(worst, relative(a.epochs[e].trainLoss, b.epochs[e].trainLoss));
        if (a.epochs[e].valLoss && b.epochs[e].valLoss)
            worst = std::max(worst, relative(*a.epochs[e].valLoss, *b.epochs[e].valLoss));
    }
    return worst;
}

// `d` relabelled for `task`: three classes (which third of x0 + x1 a row's sum falls in), or a
// regression target (a smooth function of three features, in units far from 1, so that the
// standardisation matters). Binary leaves it as it is.
inline Dataset relabelled(Dataset d, Task task) {
    if (task == Task::Binary) return d;
    std::vector<float> score(d.rows);
    for (std::size_t r = 0; r < d.rows; ++r) {
        const float* x = d.features.data() + r * d.cols;
        score[r] = task == Task::Multiclass ? x[0] + x[1] : 50.0f + 8.0f * x[0] - 5.0f * x[1] + 3.0f * x[2] * x[0];
    }
    d.task = task;
    d.labelMapping.clear();
    if (task == Task::Regression) {
        d.labels = score;
        d.classNames.clear();
    } else {
        std::vector<float> sorted = score;
        std::sort(sorted.begin(), sorted.end());
        const float low = sorted[d.rows / 3], high = sorted[2 * d.rows / 3];
        for (std::size_t r = 0; r < d.rows; ++r) d.labels[r] = score[r] < low ? 0.0f : score[r] < high ? 1.0f : 2.0f;
        d.classNames = {"0", "1", "2"};
    }
    d.computeHash();
    return d;
}

// The loss `kind` (bce_with_logits: the fused form) and regression loss "mse"|"huber" on `c`.
inline RunConfig withTaskLoss(RunConfig c, const QString& loss, const QString& regressionLoss) {
    c.execution.loss = lossKindFromString(loss.toStdString());
    c.model.regressionLoss = regressionLossFromString(regressionLoss.toStdString());
    return c;
}

// The rows of a task-parity test: 3 classes in both loss forms, and a regression with MSE and Huber,
// under the seed loop's switches and a graph's; `eager` adds launch=eager rows ("Seed answer's
// fixes": fp16, which a CPU runs in fp32; the fused loss, as mixed precision refuses the separate one).
inline void addTaskRows(bool eager = false) {
    QTest::addColumn<int>("task");
    QTest::addColumn<QString>("loss");
    QTest::addColumn<QString>("regressionLoss");
    QTest::addColumn<QString>("preset");
    const int k = int(Task::Multiclass), r = int(Task::Regression);
    const QString seed = "Seed PyTorch loop", graph = "Static graph (Keras-like)", fixes = "Seed answer's fixes";
    QTest::newRow("3 classes, CrossEntropyLoss") << k << "bce_with_logits"
                                                 << "mse" << seed;
    QTest::newRow("3 classes, log(softmax) + NLLLoss") << k << "sigmoid_bce"
                                                       << "mse" << seed;
    QTest::newRow("3 classes, CrossEntropyLoss, graph") << k << "bce_with_logits"
                                                        << "mse" << graph;
    QTest::newRow("regression, MSELoss") << r << "bce_with_logits"
                                         << "mse" << seed;
    QTest::newRow("regression, HuberLoss, graph") << r << "bce_with_logits"
                                                  << "huber" << graph;
    if (!eager) return;
    QTest::newRow("3 classes, CrossEntropyLoss, eager") << k << "bce_with_logits"
                                                        << "mse" << fixes;
    QTest::newRow("regression, MSELoss, eager") << r << "bce_with_logits"
                                                << "mse" << fixes;
}

// The small run of `backend` for the current addTaskRows() row, as the exported loop would be
// configured for it: the data's task and the output layer's width said in the configuration.
inline RunConfig taskRun(const std::string& backend, const OptimizerSpec& optimizer, const std::string& python) {
    QFETCH(int, task);
    QFETCH(QString, loss);
    QFETCH(QString, regressionLoss);
    QFETCH(QString, preset);
    RunConfig c = smallRun(backend, optimizer, python);
    c.execution = presetByName(preset.toStdString()).settings;
    c = withTaskLoss(c, loss, regressionLoss);
    c.data.task = static_cast<Task>(task) == Task::Regression ? TaskChoice::Regression : TaskChoice::Multiclass;
    c.model.outputs = static_cast<Task>(task) == Task::Multiclass ? 3 : 1;
    return c;
}

// `framework` and the cpu backend on the same rows of `task` from the same initial weights: the
// train and validation losses epoch by epoch within `tolerance` relative, the same accuracy
// (classification) or MSE and MAE within `tolerance` relative (regression). Returns the largest
// relative loss difference; fails the calling test through QVERIFY.
inline double checkTaskParity(const RunConfig& frameworkRun, const Dataset& dataset, double tolerance) {
    RunConfig cpuRun = frameworkRun;
    cpuRun.backend = "cpu";
    const PreparedData data = prepare(dataset, frameworkRun.prepare);
    CancelFlag never{false};
    const Run f = train(frameworkRun, dataset, data, never), c = train(cpuRun, dataset, data, never);
    [&] {
        QVERIFY2(f.record.status == RunStatus::Completed, f.record.message.c_str());
        QVERIFY2(c.record.status == RunStatus::Completed, c.record.message.c_str());
        QCOMPARE(f.record.epochs.size(), c.record.epochs.size());
    }();
    if (QTest::currentTestFailed()) return 1.0;
    const double worst = largestLossDifference(f.record, c.record);
    qInfo("largest relative loss difference %s vs cpu: %.3g", frameworkRun.backend.c_str(), worst);
    [&] {
        QVERIFY2(worst <= tolerance, qPrintable(QString::number(worst)));
        for (std::size_t e = 0; e < f.record.epochs.size(); ++e) {
            const EpochMetrics &a = f.record.epochs[e], &b = c.record.epochs[e];
            QCOMPARE(a.trainRegression.has_value(), data.task == Task::Regression);
            if (data.task != Task::Regression) {
                QVERIFY(std::abs(a.trainAccuracy - b.trainAccuracy) < 5e-3);
                QVERIFY(std::abs(*a.valAccuracy - *b.valAccuracy) < 5e-3);
                continue;
            }
            QVERIFY2(relative(a.trainRegression->mse, b.trainRegression->mse) <= tolerance,
                     qPrintable(QString::number(e)));
            QVERIFY2(relative(a.trainRegression->mae, b.trainRegression->mae) <= tolerance,
                     qPrintable(QString::number(e)));
            QVERIFY2(relative(a.valRegression->mse, b.valRegression->mse) <= tolerance, qPrintable(QString::number(e)));
            QVERIFY(std::abs(a.valRegression->r2 - b.valRegression->r2) <= tolerance);
        }
        const auto k = static_cast<std::size_t>(data.outputs());
        QCOMPARE(f.params.widths().back(), static_cast<int>(k));
    }();
    return worst;
}

// A stand-in interpreter: answers the availability probe (python -c ...) with `real`, and fails
// on the loop itself with a traceback naming `module`. Returns its path inside `dir`.
inline QString failingPython(const QString& dir, const std::string& real, const char* module) {
    const QString fake = QDir(dir).filePath("python");
    QFile f(fake);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(QByteArray("#!/bin/sh\nif [ \"$1\" = -c ]; then exec ") + QByteArray::fromStdString(real) +
            " \"$@\"; fi\necho 'Traceback (most recent call last):' >&2\n"
            "echo \"ModuleNotFoundError: No module named '" +
            module + "'\" >&2\nexit 1\n");
    f.close();
    f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    return fake;
}

// The exported loop of `c` (a run without a validation split), run by hand on the same rows and
// weights as the backend, reproduces the backend's losses to 1e-6 and writes a RunRecord naming the
// backend. Fails the calling test through QVERIFY (check QTest::currentTestFailed() after it).
inline void checkExportedLoopReproduces(const RunConfig& c, const Dataset& dataset, const std::string& python) {
    const PreparedData data = prepare(dataset, c.prepare);
    CancelFlag never{false};
    const Run backendRun = train(c, dataset, data, never);
    QVERIFY2(backendRun.record.status == RunStatus::Completed, backendRun.record.message.c_str());

    QTemporaryDir dir;
    const std::string x = dir.filePath("x.npy").toStdString(), y = dir.filePath("y.npy").toStdString();
    writeNpy(x, data.trainX.data(), {data.trainRows(), data.cols});
    writeNpy(y, data.trainY.data(), {data.trainRows()});
    const QString loop = dir.filePath("loop.py"), out = dir.filePath("run.json");
    QFile script(loop);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write(QByteArray::fromStdString(frameworkScript(c)));
    script.close();
    // Without --init-weights a loop draws the framework's own initialisation, which the workbench's
    // does not reproduce: hand over the weights the backend started from.
    const std::string init = dir.filePath("init.safetensors").toStdString();
    saveSafetensors(init, initParams(c.model, data.cols, c.train.seed));
    QProcess run;
    run.start(QString::fromStdString(python),
              {loop, "--data", QString::fromStdString(x), "--labels", QString::fromStdString(y), "--init-weights",
               QString::fromStdString(init), "--epochs", QString::number(c.train.epochs), "--out", out});
    QVERIFY(run.waitForFinished(120000));
    QVERIFY2(run.exitCode() == 0, run.readAllStandardError().constData());
    const RunRecord exported = RunRecord::load(out.toStdString());
    QCOMPARE(QString::fromStdString(toString(exported.status)), QString("completed"));
    QCOMPARE(exported.epochs.size(), backendRun.record.epochs.size());
    for (std::size_t e = 0; e < exported.epochs.size(); ++e)
        QVERIFY(relative(exported.epochs[e].trainLoss, backendRun.record.epochs[e].trainLoss) <= 1e-6);
    QCOMPARE(QString::fromStdString(exported.environment.at("backend")), QString::fromStdString(c.backend));
}

}  // namespace wb::test
