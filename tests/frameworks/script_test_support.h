// Helpers of the loop-generator suites: a configuration from "switch=value" text, every valid
// switch combination, and a check that generated scripts parse as Python.
#pragma once

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <string>
#include <vector>

#include "run_config.h"

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

// A run with a long name full of quotes and backslashes, for the docstring's escaping.
inline RunConfig quotedRun(const ExecutionSettings& s, int n) {
    RunConfig c;
    c.name = "combination \"" + std::to_string(n) + "\" \\ quoted";
    c.execution = s;
    return c;
}

}  // namespace wb::test
