// Small helpers shared by the test suites.
#pragma once

#include <QString>
#include <QtTest>

// Compares an enum of the core by its name (QCOMPARE cannot print enum classes), e.g.
// WB_COMPARE_NAME(record.status, "completed").
#define WB_COMPARE_NAME(value, expected) QCOMPARE(QString::fromStdString(wb::toString(value)), QString(expected))
