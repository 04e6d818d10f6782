// prepare(): split sizes and stratification, file order within each part, seeded determinism,
// standardisation fitted on the training rows only, constant columns, and refused splits.
#include <QtTest>

#include <cmath>
#include <limits>
#include <vector>

#include "core/data/prepare.h"
#include "core/platform/errors.h"

namespace {

// rows x 2: column 0 is the row index (so tests can tell which row went where), column 1 is
// 3 * index + 1. `positives` labels of 1 are spread evenly over the rows.
wb::Dataset indexedData(std::size_t rows, std::size_t positives) {
    wb::Dataset d;
    d.rows = rows;
    d.cols = 2;
    for (std::size_t r = 0; r < rows; ++r) {
        d.features.push_back(static_cast<float>(r));
        d.features.push_back(static_cast<float>(3 * r + 1));
        const bool one = (r + 1) * positives / rows > r * positives / rows;
        d.labels.push_back(one ? 1.0f : 0.0f);
    }
    return d;
}

// Column 0 of x (n, 2) as row indices.
std::vector<std::size_t> rowIds(const std::vector<float>& x) {
    std::vector<std::size_t> ids;
    for (std::size_t i = 0; i < x.size(); i += 2) ids.push_back(static_cast<std::size_t>(x[i]));
    return ids;
}

std::size_t countOnes(const std::vector<float>& y) {
    return static_cast<std::size_t>(std::count(y.begin(), y.end(), 1.0f));
}

void compareFloats(const std::vector<float>& got, const std::vector<double>& want) {
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
        QVERIFY2(std::abs(got[i] - want[i]) < 1e-6,
                 qPrintable(QString("at %1: %2 != %3").arg(i).arg(got[i]).arg(want[i])));
}

}  // namespace

class TestPrepare : public QObject {
    Q_OBJECT

private slots:
    void splitSizes_data();
    void splitSizes();
    void keepsFileOrder();
    void seededDeterminism();
    void noSplitKeepsEverything();
    void standardizeFitsTrainOnly();
    void standardizedTrainIsZScored();
    void invalidSplits_data();
    void invalidSplits();
    void splitsLeavingAPartEmpty_data();
    void splitsLeavingAPartEmpty();
    void stratifiesEveryClass();
    void refusesAClassOfOneRow();
    void regressionTargetsStandardisedOnTrainingRows();
};

// Three classes of 30, 20 and 10 rows: each gives round(0.3 * its rows) to validation.
void TestPrepare::stratifiesEveryClass() {
    wb::Dataset d = indexedData(60, 0);
    d.task = wb::Task::Multiclass;
    d.classNames = {"a", "b", "c"};
    for (std::size_t r = 0; r < 60; ++r) d.labels[r] = r < 30 ? 0.0f : r < 50 ? 1.0f : 2.0f;
    const wb::PreparedData p = wb::prepare(d, {0.3, false, 5});
    QCOMPARE(p.classes, std::size_t(3));
    QCOMPARE(p.outputs(), 3);
    QCOMPARE(std::count(p.valY.begin(), p.valY.end(), 0.0f), 9);
    QCOMPARE(std::count(p.valY.begin(), p.valY.end(), 1.0f), 6);
    QCOMPARE(std::count(p.valY.begin(), p.valY.end(), 2.0f), 3);
    QCOMPARE(p.trainRows(), std::size_t(42));
}

void TestPrepare::refusesAClassOfOneRow() {
    wb::Dataset d = indexedData(21, 0);
    d.task = wb::Task::Multiclass;
    d.classNames = {"a", "b", "lonely"};
    d.labelName = "species";
    for (std::size_t r = 0; r < 21; ++r) d.labels[r] = r < 10 ? 0.0f : r < 20 ? 1.0f : 2.0f;
    try {
        wb::prepare(d, {0.2, false, 5});
        QFAIL("prepared");
    } catch (const wb::DataError& e) {
        QVERIFY2(QString(e.what()).contains("'species': class 'lonely' has a single row"), e.what());
    }
    QCOMPARE(wb::prepare(d, {0.0, false, 5}).trainRows(), std::size_t(21));  // without a split it trains
}

// Targets 0..9, the last 3 held out (seed-dependent which): train targets get mean 0 and std 1 with
// the training rows' statistics, and the validation targets the same transform.
void TestPrepare::regressionTargetsStandardisedOnTrainingRows() {
    wb::Dataset d = indexedData(10, 0);
    d.task = wb::Task::Regression;
    for (std::size_t r = 0; r < 10; ++r) d.labels[r] = float(r) * 10.0f;
    const wb::PreparedData p = wb::prepare(d, {0.3, false, 5});
    QCOMPARE(p.classes, std::size_t(0));
    QCOMPARE(p.valRows(), std::size_t(3));
    double mean = 0, sq = 0;
    for (std::size_t r : rowIds(p.trainX)) mean += 10.0 * double(r);
    mean /= double(p.trainRows());
    for (std::size_t r : rowIds(p.trainX)) sq += (10.0 * double(r) - mean) * (10.0 * double(r) - mean);
    const double sd = std::sqrt(sq / double(p.trainRows()));
    QVERIFY(std::abs(p.targetMean - mean) < 1e-9);
    QVERIFY(std::abs(p.targetStd - sd) < 1e-9);
    const auto valIds = rowIds(p.valX);
    for (std::size_t i = 0; i < valIds.size(); ++i)
        QVERIFY(std::abs(p.valY[i] - (10.0 * double(valIds[i]) - mean) / sd) < 1e-5);
}

void TestPrepare::splitSizes_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("positives");
    QTest::addColumn<double>("valSplit");
    QTest::addColumn<int>("trainRows");
    QTest::addColumn<int>("valRows");
    QTest::addColumn<int>("valPositives");
    // Per class, round(valSplit * classCount) rows go to validation (halves round up).
    QTest::newRow("100 rows, half positive, 0.2") << 100 << 50 << 0.2 << 80 << 20 << 10;
    QTest::newRow("100 rows, 30 positive, 0.25") << 100 << 30 << 0.25 << 74 << 26 << 8;
    QTest::newRow("10 rows, 3 positive, 0.5") << 10 << 3 << 0.5 << 4 << 6 << 2;
    QTest::newRow("1000 rows, no positives, 0.1") << 1000 << 0 << 0.1 << 900 << 100 << 0;
    QTest::newRow("7 rows, all positive, 0.3") << 7 << 7 << 0.3 << 5 << 2 << 2;
    QTest::newRow("999 rows, 333 positive, 0.15") << 999 << 333 << 0.15 << 849 << 150 << 50;
    QTest::newRow("50 rows, no split") << 50 << 20 << 0.0 << 50 << 0 << 0;
}

void TestPrepare::splitSizes() {
    QFETCH(int, rows);
    QFETCH(int, positives);
    QFETCH(double, valSplit);
    QFETCH(int, trainRows);
    QFETCH(int, valRows);
    QFETCH(int, valPositives);
    const wb::Dataset d = indexedData(rows, positives);
    const wb::PreparedData p = wb::prepare(d, {valSplit, false, 5});
    QCOMPARE(p.cols, std::size_t(2));
    QCOMPARE(p.trainRows(), std::size_t(trainRows));
    QCOMPARE(p.valRows(), std::size_t(valRows));
    QCOMPARE(p.trainX.size(), std::size_t(2 * trainRows));
    QCOMPARE(p.valX.size(), std::size_t(2 * valRows));
    QCOMPARE(countOnes(p.valY), std::size_t(valPositives));
    QCOMPARE(countOnes(p.trainY) + countOnes(p.valY), std::size_t(positives));
    // Stratified: the validation part has the data set's class fraction, within one row.
    const double expected = static_cast<double>(valRows) * positives / rows;
    QVERIFY(std::abs(static_cast<double>(countOnes(p.valY)) - expected) <= 1.0);
}

void TestPrepare::keepsFileOrder() {
    const wb::Dataset d = indexedData(200, 70);
    const wb::PreparedData p = wb::prepare(d, {0.3, false, 11});
    const auto train = rowIds(p.trainX), val = rowIds(p.valX);
    QVERIFY(std::is_sorted(train.begin(), train.end()));
    QVERIFY(std::is_sorted(val.begin(), val.end()));
    std::vector<int> seen(d.rows, 0);
    for (std::size_t i = 0; i < train.size(); ++i) {
        ++seen[train[i]];
        QCOMPARE(p.trainY[i], d.labels[train[i]]);
        QCOMPARE(p.trainX[2 * i + 1], d.features[2 * train[i] + 1]);
    }
    for (std::size_t i = 0; i < val.size(); ++i) {
        ++seen[val[i]];
        QCOMPARE(p.valY[i], d.labels[val[i]]);
    }
    QVERIFY(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));  // a partition
}

void TestPrepare::seededDeterminism() {
    const wb::Dataset d = indexedData(500, 200);
    const wb::PreparedData a = wb::prepare(d, {0.2, true, 42});
    const wb::PreparedData b = wb::prepare(d, {0.2, true, 42});
    const wb::PreparedData c = wb::prepare(d, {0.2, true, 43});
    QVERIFY(a.trainX == b.trainX);
    QVERIFY(a.valX == b.valX);
    QVERIFY(a.mean == b.mean);
    QCOMPARE(c.valRows(), a.valRows());
    QVERIFY(rowIds(wb::prepare(d, {0.2, false, 42}).valX) != rowIds(wb::prepare(d, {0.2, false, 43}).valX));
}

void TestPrepare::noSplitKeepsEverything() {
    const wb::Dataset d = indexedData(30, 12);
    const wb::PreparedData p = wb::prepare(d, {0.0, false, 1});
    QVERIFY(p.trainX == d.features);
    QVERIFY(p.trainY == d.labels);
    QCOMPARE(p.valRows(), std::size_t(0));
    QVERIFY(p.valX.empty());
    QVERIFY(p.mean.empty());
    QVERIFY(p.stddev.empty());
}

void TestPrepare::standardizeFitsTrainOnly() {
    // Rows 0-3: (2, 7) label 0; rows 4-6: (10, 7) label 1. A split of 0.5 sends round(2.0) = 2
    // class-0 rows and round(1.5) = 2 class-1 rows to validation, whichever rows are picked:
    // train = {2, 2, 10}: mean 14/3, population std 8*sqrt(2)/3 (all 7 rows would give mean 46/7).
    // Column 1 is constant: mean 7, std 1, so it maps to 0.
    wb::Dataset d;
    d.rows = 7;
    d.cols = 2;
    for (int r = 0; r < 7; ++r) {
        d.features.push_back(r < 4 ? 2.0f : 10.0f);
        d.features.push_back(7.0f);
        d.labels.push_back(r < 4 ? 0.0f : 1.0f);
    }
    const wb::PreparedData p = wb::prepare(d, {0.5, true, 3});
    const double low = -1.0 / std::sqrt(2.0), high = std::sqrt(2.0);
    compareFloats(p.mean, {14.0 / 3.0, 7.0});
    compareFloats(p.stddev, {8.0 * std::sqrt(2.0) / 3.0, 1.0});
    compareFloats(p.trainX, {low, 0, low, 0, high, 0});
    compareFloats(p.valX, {low, 0, low, 0, high, 0, high, 0});  // with the TRAIN mean and std
    QVERIFY(p.trainY == std::vector<float>({0, 0, 1}));
    QVERIFY(p.valY == std::vector<float>({0, 0, 1, 1}));
}

void TestPrepare::standardizedTrainIsZScored() {
    const wb::Dataset d = indexedData(1000, 400);
    const wb::PreparedData p = wb::prepare(d, {0.25, true, 8});
    for (std::size_t c = 0; c < p.cols; ++c) {
        double sum = 0.0, sumSq = 0.0;
        for (std::size_t r = 0; r < p.trainRows(); ++r) {
            const double v = p.trainX[r * p.cols + c];
            sum += v;
            sumSq += v * v;
        }
        const double n = static_cast<double>(p.trainRows());
        QVERIFY(std::abs(sum / n) < 1e-5);
        QVERIFY(std::abs(sumSq / n - 1.0) < 1e-4);
    }
}

void TestPrepare::invalidSplits_data() {
    QTest::addColumn<double>("valSplit");
    QTest::newRow("negative") << -0.1;
    QTest::newRow("one") << 1.0;
    QTest::newRow("above one") << 1.5;
    QTest::newRow("NaN") << std::numeric_limits<double>::quiet_NaN();
    QTest::newRow("infinity") << std::numeric_limits<double>::infinity();
}

void TestPrepare::invalidSplits() {
    QFETCH(double, valSplit);
    const wb::Dataset d = indexedData(100, 50);
    QVERIFY_THROWS_EXCEPTION(wb::ConfigError, wb::prepare(d, {valSplit, true, 1}));
}

void TestPrepare::splitsLeavingAPartEmpty_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("positives");
    QTest::addColumn<double>("valSplit");
    QTest::newRow("1 row, 0.5: no training rows") << 1 << 1 << 0.5;
    QTest::newRow("10 rows, 0.99: no training rows") << 10 << 5 << 0.99;
    QTest::newRow("1 row, 0.2: no validation rows") << 1 << 0 << 0.2;
    QTest::newRow("4 rows, 0.1: no validation rows") << 4 << 2 << 0.1;
    QTest::newRow("no rows at all") << 0 << 0 << 0.0;
}

void TestPrepare::splitsLeavingAPartEmpty() {
    QFETCH(int, rows);
    QFETCH(int, positives);
    QFETCH(double, valSplit);
    const wb::Dataset d = indexedData(rows, positives);
    try {
        wb::prepare(d, {valSplit, true, 1});
        QFAIL("expected a ConfigError");
    } catch (const wb::ConfigError& e) {
        QVERIFY2(std::string(e.what()).size() > 20, e.what());  // a sentence, not a code
    }
}

QTEST_GUILESS_MAIN(TestPrepare)
#include "tst_prepare.moc"
