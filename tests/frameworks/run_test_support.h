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

#include "backend.h"
#include "execution_settings.h"
#include "run_config.h"
#include "run_record.h"
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

inline Run train(const RunConfig& c, const Dataset& ds, const PreparedData& data, const CancelFlag& cancel) {
    auto backend = BackendRegistry::instance().create(c.backend);
    Trainer trainer(c, ds, data, *backend);
    Run r{trainer.run(cancel), {}};
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

}  // namespace wb::test
