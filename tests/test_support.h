// Small helpers shared by the test suites.
#pragma once

#include <optional>

#include <QFile>
#include <QString>
#include <QtTest>

#include "core/platform/errors.h"

// Compares an enum of the core by its name (QCOMPARE cannot print enum classes), e.g.
// WB_COMPARE_NAME(record.status, "completed").
#define WB_COMPARE_NAME(value, expected) QCOMPARE(QString::fromStdString(wb::toString(value)), QString(expected))

// The DataError that `load` throws, or nullopt when it throws none (other exceptions propagate).
template <typename F>
std::optional<wb::DataError> dataErrorOf(F&& load) {
    try {
        load();
    } catch (const wb::DataError& e) {
        return e;
    }
    return std::nullopt;
}

// Sets an environment variable (inherited by the programs a test starts) for one scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const QByteArray& value) : name_(name) { qputenv(name, value); }
    ~ScopedEnv() { qunsetenv(name_); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
};

// The text of the file at `path` (UTF-8); empty when it cannot be read.
inline QString readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}
