// The task of a label column and its coding (label_coding.h), through the CSV reader and the .npy
// loader: what auto decides and says why, the class order, the mapping, and every refusal naming
// the column and the problem.
#include <QtTest>

#include <string>
#include <vector>

#include "core/data/csv_reader.h"
#include "core/data/label_coding.h"
#include "core/platform/errors.h"

using namespace wb;

Q_DECLARE_METATYPE(wb::TaskChoice)
Q_DECLARE_METATYPE(wb::Task)

namespace {
// "a,y\n1,<label 0>\n2,<label 1>\n..." : one feature, the label last.
QByteArray csvWithLabels(const QList<QByteArray>& labels) {
    QByteArray csv = "a,y\n";
    for (qsizetype i = 0; i < labels.size(); ++i) csv += QByteArray::number(i) + "," + labels[i] + "\n";
    return csv;
}

// Each of `values` `times` times, in turn.
QList<QByteArray> repeated(const QList<QByteArray>& values, int times) {
    QList<QByteArray> out;
    for (int t = 0; t < times; ++t) out += values;
    return out;
}

QStringList mappingOf(const Dataset& d) {
    QStringList out;
    for (const auto& [text, code] : d.labelMapping) out << QString::fromStdString(text) + "=" + QString::number(code);
    return out;
}
}  // namespace

class TestLabelCoding : public QObject {
    Q_OBJECT

private slots:
    void decides_data() {
        QTest::addColumn<QByteArray>("csv");
        QTest::addColumn<TaskChoice>("choice");
        QTest::addColumn<Task>("task");
        QTest::addColumn<QStringList>("classes");
        QTest::addColumn<QList<float>>("labels");
        QTest::addColumn<QStringList>("mapping");
        QTest::addColumn<QString>("reason");  // a part of the task's reason

        const auto A = TaskChoice::Auto;
        QTest::newRow("0/1 binary") << csvWithLabels({"0", "1", "1"}) << A << Task::Binary << QStringList{"0", "1"}
                                    << QList<float>{0, 1, 1} << QStringList{} << "2 numeric values: binary";
        QTest::newRow("1/2 binary, mapped") << csvWithLabels({"2", "1"}) << A << Task::Binary << QStringList{"1", "2"}
                                            << QList<float>{1, 0} << QStringList{"1=0", "2=1"} << "binary";
        QTest::newRow("text binary") << csvWithLabels({"spam", "ham"}) << A << Task::Binary
                                     << QStringList{"ham", "spam"} << QList<float>{1, 0}
                                     << QStringList{"ham=0", "spam=1"} << "2 text values";
        QTest::newRow("three texts: multiclass, sorted")
            << csvWithLabels({"virginica", "setosa", "versicolor", "setosa"}) << A << Task::Multiclass
            << QStringList{"setosa", "versicolor", "virginica"} << QList<float>{2, 0, 1, 0}
            << QStringList{"setosa=0", "versicolor=1", "virginica=2"} << "3 text values: multiclass";
        QTest::newRow("digits 0..2, 5 rows each")
            << csvWithLabels(repeated({"2", "0", "1"}, 5)) << A << Task::Multiclass << QStringList{"0", "1", "2"}
            << QList<float>{} << QStringList{} << "3 numeric values: multiclass";
        QTest::newRow("classes 3, 10, 20 in numeric order")
            << csvWithLabels(repeated({"10", "3", "20"}, 5)) << A << Task::Multiclass << QStringList{"3", "10", "20"}
            << QList<float>{} << QStringList{"10=1", "20=2", "3=0"} << "multiclass";
        QTest::newRow("regression as asked")
            << csvWithLabels({"1.5", "-2", "3e2"}) << TaskChoice::Regression << Task::Regression << QStringList{}
            << QList<float>{1.5f, -2, 300} << QStringList{} << "regression as asked";
        QTest::newRow("multiclass on two values")
            << csvWithLabels({"b", "a"}) << TaskChoice::Multiclass << Task::Multiclass << QStringList{"a", "b"}
            << QList<float>{1, 0} << QStringList{"a=0", "b=1"} << "multiclass as asked";
        QTest::newRow("multiclass on few integers")
            << csvWithLabels({"7", "8", "9"}) << TaskChoice::Multiclass << Task::Multiclass
            << QStringList{"7", "8", "9"} << QList<float>{0, 1, 2} << QStringList{"7=0", "8=1", "9=2"}
            << "multiclass as asked";
    }

    void decides() {
        QFETCH(QByteArray, csv);
        QFETCH(TaskChoice, choice);
        QFETCH(Task, task);
        QFETCH(QStringList, classes);
        QFETCH(QList<float>, labels);
        QFETCH(QStringList, mapping);
        QFETCH(QString, reason);
        const Dataset d = parseCsv(csv.toStdString(), "t.csv", {}, choice);
        QCOMPARE(int(d.task), int(task));
        QStringList names;
        for (const auto& n : d.classNames) names << QString::fromStdString(n);
        QCOMPARE(names, classes);
        if (!labels.isEmpty())  // empty: not checked row by row
            QCOMPARE(QList<float>(d.labels.begin(), d.labels.end()), labels);
        for (const float y : d.labels)
            if (task != Task::Regression) QVERIFY(y >= 0 && y < float(classes.size()));
        QCOMPARE(mappingOf(d), mapping);
        QVERIFY2(QString::fromStdString(d.taskReason).contains(reason), d.taskReason.c_str());
    }

    void refuses_data() {
        QTest::addColumn<QByteArray>("csv");
        QTest::addColumn<TaskChoice>("choice");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<int>("line");  // 0: no line to name

        const auto A = TaskChoice::Auto;
        QTest::newRow("one value") << csvWithLabels({"x", "x"}) << A << "'y' holds a single value ('x')" << 0;
        QTest::newRow("one value, regression")
            << csvWithLabels({"3", "3"}) << TaskChoice::Regression << "'y' holds a single value (3)" << 0;
        QTest::newRow("fractions under auto") << csvWithLabels({"0.5", "1.5", "2.5"}) << A << "--task regression" << 0;
        QTest::newRow("negative integers under auto")
            << csvWithLabels(repeated({"-1", "0", "1"}, 5)) << A << "--task regression" << 0;
        QTest::newRow("an integer per row under auto (a measured quantity)")
            << csvWithLabels({"25", "301", "150", "88"}) << A << "4 distinct numbers" << 0;
        QTest::newRow("three values for binary")
            << csvWithLabels({"0", "1", "2"}) << TaskChoice::Binary
            << "holds 3 values ('0', '1', '2'); a binary label needs exactly two" << 0;
        QTest::newRow("third text for binary, with its line")
            << csvWithLabels({"spam", "ham", "eggs"}) << TaskChoice::Binary << "a third label value" << 4;
        QTest::newRow("text regression target, with its line")
            << csvWithLabels({"1.5", "cheap"}) << TaskChoice::Regression << "label is not a number" << 3;
        QTest::newRow("text column as regression target") << csvWithLabels({"cheap", "dear"}) << TaskChoice::Regression
                                                          << "a regression target must be a number" << 2;
        QTest::newRow("non-finite target")
            << csvWithLabels({"1", "inf", "2"}) << TaskChoice::Regression << "not a finite number" << 3;
        QList<QByteArray> many;
        for (int i = 0; i <= 1000; ++i) many << "c" + QByteArray::number(i);
        QTest::newRow("1001 text classes") << csvWithLabels(many) << A << "more than 1000 distinct labels" << 1002;
        QList<QByteArray> manyNumbers;
        for (int i = 0; i <= 1000; ++i) manyNumbers << QByteArray::number(i);
        QTest::newRow("1001 numeric classes for multiclass")
            << csvWithLabels(manyNumbers) << TaskChoice::Multiclass << "more than 1000 distinct values" << 0;
    }

    void refuses() {
        QFETCH(QByteArray, csv);
        QFETCH(TaskChoice, choice);
        QFETCH(QString, reason);
        QFETCH(int, line);
        try {
            parseCsv(csv.toStdString(), "t.csv", {}, choice);
            QFAIL("loaded");
        } catch (const DataError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(reason), e.what());
            QVERIFY2(QString::fromUtf8(e.what()).startsWith("t.csv"), e.what());
            if (line) QCOMPARE(e.line(), long(line));
        }
    }

    // The same rules for every loader: the column as the .npy loader hands it over.
    void numericColumnAsAnyLoaderGivesIt() {
        Dataset d;
        d.rows = 15;
        d.labelName = "label";
        LabelColumn column;
        for (int i = 0; i < 15; ++i) column.values.push_back(float(i % 3));
        codeLabels(column, TaskChoice::Auto, "x.npy", d);
        QCOMPARE(int(d.task), int(Task::Multiclass));
        QCOMPARE(d.classes(), std::size_t(3));
        QVERIFY(d.labelMapping.empty());  // 0..2 already are the class indices
        codeLabels(column, TaskChoice::Regression, "x.npy", d);
        QCOMPARE(int(d.task), int(Task::Regression));
        QCOMPARE(d.classes(), std::size_t(0));
        column.values[4] = NAN;
        QVERIFY_THROWS_EXCEPTION(DataError, codeLabels(column, TaskChoice::Regression, "x.npy", d));
    }

    // The task is part of what the hash says: the same numbers as classes or as targets differ, and a
    // binary data set's hash is the one it had before tasks existed.
    void hashKnowsTheTask() {
        const QByteArray csv = csvWithLabels(repeated({"0", "1", "2"}, 5));
        const Dataset classes = parseCsv(csv.toStdString(), "t.csv", {}, TaskChoice::Multiclass);
        const Dataset targets = parseCsv(csv.toStdString(), "t.csv", {}, TaskChoice::Regression);
        QVERIFY(classes.hash != targets.hash);
        Dataset binary = parseCsv(csvWithLabels({"0", "1"}).toStdString(), "t.csv", {});
        const std::string before = binary.hash;
        binary.task = Task::Binary;
        binary.computeHash();
        QCOMPARE(binary.hash, before);
    }
};

QTEST_GUILESS_MAIN(TestLabelCoding)
#include "tst_label_coding.moc"
