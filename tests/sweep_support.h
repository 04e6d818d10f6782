// Shared by the sweep suites that run the built mlpwb (tst_cli_sweep, tst_sweep_slurm): writing a
// sweep file, reading `mlpwb sweep status --json`, and waiting on trial states.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

#include <QFile>
#include <QString>

#include "tests/cli_runner.h"

// Writes `text` to `path`.
inline void writeText(const QString& path, const QByteArray& text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
}

// A 2 x 3 grid (batch size x learning rate) on the built-in data with a validation split.
inline const QByteArray kGridSpec =
    "name: grid6\n"
    "method: grid\n"
    "metric: {name: val_loss, goal: minimize}\n"
    "parameters:\n"
    "  batch_size: {values: [256, 1024]}\n"
    "  lr: {values: [0.001, 0.003, 0.01]}\n";

// The trial states, by id, from `status --json`'s trials.
inline QStringList statesOf(const nlohmann::json& status) {
    QStringList states;
    if (!status.is_object() || !status.contains("trials")) return states;
    for (const auto& t : status.at("trials")) states << str(t.at("state"));
    return states;
}

// Polls `done` every 50 ms for up to `seconds`; true when it held.
inline bool waitFor(const std::function<bool()>& done, double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
        if (done()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return done();
}

// The trial's state file as JSON (null while it has none).
inline nlohmann::json trialState(const QString& sweepDir, int id) {
    return readJson(sweepDir + QStringLiteral("/trials/%1/state.json").arg(id, 4, 10, QChar('0')));
}
