// Helpers of the suites that run a framework's loop for real: which interpreter to use, a small
// run, training it through the registry, and comparing losses.
#pragma once

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <string>

#include <QProcess>
#include <QTemporaryDir>

#include "backend.h"
#include "execution_settings.h"
#include "framework_backend.h"
#include "npy_io.h"
#include "run_config.h"
#include "run_record.h"
#include "safetensors.h"
#include "trainer.h"

namespace wb::test {

// $<envVar>, else the repository's .venv (bench/peers/setup_venv.sh), else empty (skip).
inline std::string frameworkTestPython(const char* envVar) {
    const QByteArray env = qgetenv(envVar);
    if (!env.isEmpty()) return env.toStdString();
    const QString venv = QDir(WB_TEST_DATA_DIR "/../..").absoluteFilePath(".venv/bin/python");
    return QFile::exists(venv) ? venv.toStdString() : std::string{};
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
