// Runs the built mlpwb binary (WB_MLPWB_PATH, set by tests/CMakeLists.txt) with QProcess and reads
// what it wrote: shared by the end-to-end CLI suites (tst_cli, tst_cli_ablate, tst_cli_tasks).
#pragma once

#include <cmath>
#include <string>

#include <QByteArray>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QtTest>

#include <nlohmann/json.hpp>

// What one mlpwb run left: whether it finished in time, its exit code (-1 after a crash or a kill)
// and everything it printed.
struct MlpwbResult {
    bool finished = false;
    int exitCode = -1;
    QByteArray out, err;

    QStringList errLines() const { return QString::fromUtf8(err).split('\n', Qt::SkipEmptyParts); }
    QStringList outLines() const { return QString::fromUtf8(out).split('\n', Qt::SkipEmptyParts); }
    // For QVERIFY2 messages: the exit code and the start of both streams.
    QByteArray describe() const {
        return "exit " + QByteArray::number(exitCode) + "\n--- stdout:\n" + out.left(3000) + "--- stderr:\n" +
               err.left(2000);
    }
};

// Runs mlpwb `args` in `workDir` with stdin closed; a run past `timeoutMs` is killed and reported
// unfinished, so a hung process fails the test instead of hanging ctest.
inline MlpwbResult runMlpwb(const QStringList& args, const QString& workDir, int timeoutMs) {
    QProcess p;
    p.setWorkingDirectory(workDir);
    p.start(QStringLiteral(WB_MLPWB_PATH), args);
    MlpwbResult r;
    if (!p.waitForStarted(timeoutMs)) return r;
    p.closeWriteChannel();
    r.finished = p.waitForFinished(timeoutMs);
    if (!r.finished) {
        p.kill();
        p.waitForFinished();
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

// Runs mlpwb as `const MlpwbResult result` and checks that it finished (a hung process fails the
// test, it never hangs ctest). For a test class with a QTemporaryDir dir_ (the working folder) in a
// file that defines `constexpr int kTimeoutMs`.
#define RUN_MLPWB(result, args)                                           \
    const MlpwbResult result = runMlpwb((args), dir_.path(), kTimeoutMs); \
    QVERIFY2(result.finished, qPrintable(QStringLiteral("mlpwb did not finish within %1 s").arg(kTimeoutMs / 1000)))

// The JSON in `path`; null when the file is missing, a discarded value when it is malformed (neither is
// an object, so `is_object()` checks both).
inline nlohmann::json readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return nullptr;
    return nlohmann::json::parse(f.readAll().toStdString(), nullptr, /*allow_exceptions=*/false);
}

// A JSON string as a QString; empty for anything else (so a QCOMPARE against it fails readably).
inline QString str(const nlohmann::json& j) {
    return j.is_string() ? QString::fromStdString(j.get<std::string>()) : QString();
}

// Whether `printed`, a table's milliseconds, shows `ms` rounded to its own decimals, with at least
// two, three under 1 ms and four under 0.1 ms (so small data sets' epochs do not all read "0.00";
// the table may print more, as its fastest step decides). Independent of how fast the machine ran
// the epochs.
inline bool showsMilliseconds(const QString& printed, double ms) {
    const qsizetype point = printed.indexOf('.');
    if (point < 0) return false;
    const int decimals = static_cast<int>(printed.size() - point - 1);
    if (decimals < (ms < 0.1 ? 4 : ms < 1.0 ? 3 : 2)) return false;
    bool ok = false;
    const double value = printed.toDouble(&ok);
    return ok && std::abs(value - ms) <= 0.5 * std::pow(10.0, -decimals) + 1e-12;
}
