// Helpers of the loop-generator suites: a configuration from "switch=value" text, every valid
// switch combination, and a check that generated scripts parse as Python.
#pragma once

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <string>
#include <vector>

#include "core/run/run_config.h"

namespace wb::test {

inline RunConfig configWith(const QString& assignments) {
    RunConfig c;
    c.name = "generator test";
    c.execution = ExecutionSettings{};
    for (const QString& a : assignments.split(' ', Qt::SkipEmptyParts)) {
        const QStringList kv = a.split('=');
        setSwitch(c.execution, kv[0].toStdString(), kv[1].toStdString());
    }
    return c;
}

// Every valid combination of the switches (those ExecutionSettings::refusal() lets through).
inline std::vector<ExecutionSettings> allValidSettings() {
    std::vector<ExecutionSettings> all{ExecutionSettings{}};
    for (const auto& sw : describeSwitches(ExecutionSettings{})) {
        std::vector<ExecutionSettings> next;
        for (const auto& s : all)
            for (const auto& v : sw.values) {
                ExecutionSettings t = s;
                setSwitch(t, sw.name, v);
                next.push_back(t);
            }
        all = std::move(next);
    }
    std::erase_if(all, [](const ExecutionSettings& s) { return s.refusal().has_value(); });
    return all;
}

// The class weights of the "weighted multiclass" rows: three classes weighted 0.5, 2 and 1.25.
inline const std::vector<float> kClassWeights{0.5f, 2.0f, 1.25f};

// configWith(assignments) for a data set read as `task` ("multiclass": 3 classes; "weighted
// multiclass": the same with kClassWeights; "regression", with `regressionLoss` "mse" or "huber"),
// as a run configures it once the data is loaded.
inline RunConfig configForTask(const QString& assignments, const QString& task, const QString& regressionLoss = "mse") {
    RunConfig c = configWith(assignments);
    const bool weighted = task == "weighted multiclass";
    if (weighted) c.model.classWeights.values = kClassWeights;
    c.data.task = taskChoiceFromString(weighted ? "multiclass" : task.toStdString());
    c.model.outputs = c.data.task == TaskChoice::Multiclass ? 3 : 1;
    c.model.regressionLoss = regressionLossFromString(regressionLoss.toStdString());
    return c;
}

// The columns of a generator's per-task rows: settings, task, regression loss, present, absent.
inline void addTaskColumns() {
    QTest::addColumn<QString>("settings");
    QTest::addColumn<QString>("task");
    QTest::addColumn<QString>("regressionLoss");
    QTest::addColumn<QStringList>("present");
    QTest::addColumn<QStringList>("absent");
}

// Every valid combination of the switches for a multiclass (plain and weighted) and a regression data set.
inline std::vector<RunConfig> allTaskConfigs() {
    std::vector<RunConfig> all;
    for (const auto& s : allValidSettings())
        for (const char* task : {"multiclass", "weighted multiclass", "regression"}) {
            RunConfig c = configForTask("", task);
            c.execution = s;
            all.push_back(c);
        }
    return all;
}

enum class Parsed { Yes, No, NoPython };

// Whether every script parses as Python (python3's ast module); `error` says where it does not.
inline Parsed parsesAsPython(const std::vector<std::string>& scripts, QString& error) {
    QTemporaryDir dir;
    QStringList files;
    for (std::size_t i = 0; i < scripts.size(); ++i) {
        const QString path = dir.filePath(QString("loop%1.py").arg(i));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly)) {
            error = "cannot write " + path;
            return Parsed::No;
        }
        f.write(QByteArray::fromStdString(scripts[i]));
        files << path;
    }
    QProcess python;
    python.start(
        "python3",
        QStringList{"-c", "import ast, sys\nfor p in sys.argv[1:]:\n    ast.parse(open(p).read(), p)"} + files);
    if (!python.waitForStarted()) return Parsed::NoPython;
    if (!python.waitForFinished(120000)) {
        error = "python3 did not finish parsing within 120 s";
        return Parsed::No;
    }
    error = QString::fromUtf8(python.readAllStandardError());
    return python.exitCode() == 0 ? Parsed::Yes : Parsed::No;
}

// Fails the running test for every string of `present` missing from `script` and every string of
// `absent` found in it (each one reported, not only the first).
inline void expectSnippets(const QString& script, const QStringList& present, const QStringList& absent) {
    for (const QString& p : present) QVERIFY2(script.contains(p), qPrintable("missing: " + p));
    for (const QString& a : absent) QVERIFY2(!script.contains(a), qPrintable("unexpected: " + a));
}

// Whether the script `generate` makes of every configuration of allTaskConfigs() parses as Python.
template <typename Generate>
Parsed taskScriptsParse(const Generate& generate, QString& error) {
    std::vector<std::string> scripts;
    for (const RunConfig& c : allTaskConfigs()) scripts.push_back(generate(c));
    return parsesAsPython(scripts, error);
}

// A run with a long name full of quotes and backslashes, for the docstring's escaping.
inline RunConfig quotedRun(const ExecutionSettings& s, int n) {
    RunConfig c;
    c.name = "combination \"" + std::to_string(n) + "\" \\ quoted";
    c.execution = s;
    return c;
}

}  // namespace wb::test
