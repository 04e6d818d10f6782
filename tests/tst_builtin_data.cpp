// The built-in seed-like generator: deterministic in the seed, the documented shape, balanced 0/1
// labels, columns that look like tabular data, and labels no single feature gives away.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/data/builtin_data.h"
#include "core/platform/errors.h"

namespace {

// Column c of d as doubles: (rows)
std::vector<double> column(const wb::Dataset& d, std::size_t c) {
    std::vector<double> v(d.rows);
    for (std::size_t r = 0; r < d.rows; ++r) v[r] = d.features[r * d.cols + c];
    return v;
}

double median(std::vector<double> v) {
    auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}

double positives(const wb::Dataset& d) {
    return static_cast<double>(std::count(d.labels.begin(), d.labels.end(), 1.0f)) / static_cast<double>(d.rows);
}

bool isBinary(const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x == 0.0 || x == 1.0; });
}

}  // namespace

class TestBuiltinData : public QObject {
    Q_OBJECT

private slots:
    void sameSeedSameData();
    void differentSeedDiffers();
    void shapeAndNames();
    void customFeatureCount();
    void smallerIsPrefix();
    void labelsBinaryAndBalanced_data();
    void labelsBinaryAndBalanced();
    void notTriviallySeparable_data();
    void notTriviallySeparable();
    void looksTabular();
    void invalidSizes();
};

void TestBuiltinData::sameSeedSameData() {
    const wb::Dataset a = wb::generateSeedLike(3000, 42);
    const wb::Dataset b = wb::generateSeedLike(3000, 42);
    QVERIFY(a.features == b.features);
    QVERIFY(a.labels == b.labels);
    QVERIFY(!a.hash.empty());
    QCOMPARE(a.hash, b.hash);
}

void TestBuiltinData::differentSeedDiffers() {
    const wb::Dataset a = wb::generateSeedLike(3000, 1);
    const wb::Dataset b = wb::generateSeedLike(3000, 2);
    QVERIFY(a.features != b.features);
    QVERIFY(a.labels != b.labels);
    QVERIFY(a.hash != b.hash);
}

void TestBuiltinData::shapeAndNames() {
    const wb::Dataset d = wb::generateSeedLike(500, 7);
    QCOMPARE(d.rows, std::size_t(500));
    QCOMPARE(d.cols, std::size_t(61));
    QCOMPARE(d.cols, wb::kSeedFeatures);
    QCOMPARE(d.features.size(), std::size_t(500 * 61));
    QCOMPARE(d.labels.size(), std::size_t(500));
    QCOMPARE(d.source, std::string("builtin"));
    QCOMPARE(d.labelName, std::string("label"));
    QCOMPARE(d.columnNames.size(), std::size_t(61));
    QCOMPARE(d.columnNames.front(), std::string("f0"));
    QCOMPARE(d.columnNames[17], std::string("f17"));
    QCOMPARE(d.columnNames.back(), std::string("f60"));
    QVERIFY(std::all_of(d.features.begin(), d.features.end(), [](float x) { return std::isfinite(x); }));
}

void TestBuiltinData::customFeatureCount() {
    const wb::Dataset d = wb::generateSeedLike(200, 3, 5);
    QCOMPARE(d.cols, std::size_t(5));
    QCOMPARE(d.features.size(), std::size_t(200 * 5));
    QCOMPARE(d.columnNames.back(), std::string("f4"));
}

void TestBuiltinData::smallerIsPrefix() {
    // Row i depends only on the seed and i, so 1000 rows start with the 400 rows.
    const wb::Dataset small = wb::generateSeedLike(400, 9);
    const wb::Dataset large = wb::generateSeedLike(1000, 9);
    QVERIFY(std::equal(small.features.begin(), small.features.end(), large.features.begin()));
    QVERIFY(std::equal(small.labels.begin(), small.labels.end(), large.labels.begin()));
}

void TestBuiltinData::labelsBinaryAndBalanced_data() {
    QTest::addColumn<quint64>("seed");
    for (quint64 seed : {1ULL, 2ULL, 7ULL, 42ULL, 12345ULL, 987654321ULL})
        QTest::addRow("seed %llu", static_cast<unsigned long long>(seed)) << seed;
}

void TestBuiltinData::labelsBinaryAndBalanced() {
    QFETCH(quint64, seed);
    const wb::Dataset d = wb::generateSeedLike(20000, seed);
    QVERIFY(std::all_of(d.labels.begin(), d.labels.end(), [](float y) { return y == 0.0f || y == 1.0f; }));
    const double p = positives(d);
    QVERIFY2(p >= 0.35 && p <= 0.65, qPrintable(QString("positive fraction %1").arg(p)));
}

void TestBuiltinData::notTriviallySeparable_data() {
    QTest::addColumn<quint64>("seed");
    QTest::newRow("seed 1") << quint64(1);
    QTest::newRow("seed 42") << quint64(42);
}

void TestBuiltinData::notTriviallySeparable() {
    // No single feature, thresholded at its median either way round, predicts > 90 % of labels.
    QFETCH(quint64, seed);
    const wb::Dataset d = wb::generateSeedLike(20000, seed);
    for (std::size_t c = 0; c < d.cols; ++c) {
        const std::vector<double> v = column(d, c);
        const double m = median(v);
        std::size_t agree = 0;
        for (std::size_t r = 0; r < d.rows; ++r) agree += (v[r] > m) == (d.labels[r] == 1.0f);
        const double best = static_cast<double>(std::max(agree, d.rows - agree)) / static_cast<double>(d.rows);
        QVERIFY2(best < 0.9, qPrintable(QString("feature f%1 matches %2 of labels").arg(c).arg(best)));
    }
}

void TestBuiltinData::looksTabular() {
    // Some 0/1 flags, some positive right-skewed amounts, and scales that differ by decades.
    const wb::Dataset d = wb::generateSeedLike(5000, 11);
    int binary = 0, skewed = 0;
    double minSd = 1e300, maxSd = 0.0;
    for (std::size_t c = 0; c < d.cols; ++c) {
        const std::vector<double> v = column(d, c);
        if (isBinary(v)) {
            ++binary;
            continue;
        }
        double mean = 0.0, var = 0.0;
        for (double x : v) mean += x;
        mean /= static_cast<double>(v.size());
        for (double x : v) var += (x - mean) * (x - mean);
        const double sd = std::sqrt(var / static_cast<double>(v.size()));
        minSd = std::min(minSd, sd);
        maxSd = std::max(maxSd, sd);
        const bool positive = std::all_of(v.begin(), v.end(), [](double x) { return x > 0.0; });
        if (positive && mean > median(v) + 0.1 * sd) ++skewed;
    }
    QVERIFY2(binary >= 2, qPrintable(QString("%1 binary columns").arg(binary)));
    QVERIFY2(skewed >= 2, qPrintable(QString("%1 skewed columns").arg(skewed)));
    QVERIFY2(maxSd / minSd > 100.0, qPrintable(QString("scales %1 .. %2").arg(minSd).arg(maxSd)));
}

void TestBuiltinData::invalidSizes() {
    QVERIFY_THROWS_EXCEPTION(wb::ConfigError, wb::generateSeedLike(0, 1));
    QVERIFY_THROWS_EXCEPTION(wb::ConfigError, wb::generateSeedLike(10, 1, 0));
}

QTEST_GUILESS_MAIN(TestBuiltinData)
#include "tst_builtin_data.moc"
