// The tiled products of the CPU backend (cpu_tile_kernels.h) against plain double-precision loops,
// for shapes that exercise every block and tail: rows not a multiple of the row block, inner sizes
// not a multiple of the inner block, one to three registers of output, leading dimensions wider
// than the data; under every CPU target this binary holds and this processor runs.
#include <QtTest>

#include <cmath>
#include <vector>

#include "core/cpu/cpu_tile_kernels.h"
#include "core/platform/random.h"

using namespace wb;

Q_DECLARE_METATYPE(const wb::CpuKernels*)

class TestTileKernels : public QObject {
    Q_OBJECT

private:
    // The padded width of the current row's `full` and `half` registers of the target.
    static std::size_t paddedFromFetched(const CpuKernels& k) {
        QFETCH(int, full);
        QFETCH(int, half);
        return std::size_t(full) * k.lanes + std::size_t(half) * k.padLanes;
    }

    static std::vector<float> randomMatrix(std::size_t rows, std::size_t ld, std::uint64_t seed) {
        Rng rng(seed);
        std::vector<float> m(rows * ld);
        for (auto& v : m) v = static_cast<float>(rng.normal());
        return m;
    }

    // |got - want| within float rounding of a sum of `terms` products of unit-scale values.
    static void compareClose(float got, double want, std::size_t terms, const char* what) {
        const double tolerance = 1e-6 * (static_cast<double>(terms) + 1) * (1 + std::abs(want));
        if (std::abs(got - want) > tolerance)
            QFAIL(qPrintable(QString("%1: got %2, want %3").arg(what).arg(double(got)).arg(want)));
    }

    // Widths in the target's registers: `full` whole registers and `half` (0 or 1) half registers.
    static void addShapes() {
        QTest::addColumn<const CpuKernels*>("kernels");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("inner");
        QTest::addColumn<int>("full");
        QTest::addColumn<int>("half");
        struct Shape {
            const char* name;
            int rows, inner, full, half;
        };
        const Shape shapes[] = {{"one row, one input", 1, 1, 1, 0},
                                {"half a register", 5, 7, 0, 1},
                                {"one and a half registers (a 20-wide layer)", 11, 61, 1, 1},
                                {"two and a half registers", 9, 10, 2, 1},
                                {"three and a half registers", 17, 20, 3, 1},
                                {"7 rows, 5 inputs", 7, 5, 1, 0},
                                {"13 rows, 61 inputs, 2 registers", 13, 61, 2, 0},
                                {"9 rows, 15 inputs, 3 registers", 9, 15, 3, 0},
                                {"32 rows, 8 inputs, 4 registers", 32, 8, 4, 0},
                                {"no rows", 0, 3, 1, 0}};
        for (const CpuKernels* k : allRunnableCpuKernels())
            for (const Shape& s : shapes)
                QTest::addRow("%s: %s", toString(k->target).c_str(), s.name)
                    << k << s.rows << s.inner << s.full << s.half;
    }

private slots:
    void multiplyRowsMatchesLoops_data() { addShapes(); }
    void multiplyRowsMatchesLoops() {
        QFETCH(const CpuKernels*, kernels);
        QFETCH(int, rows);
        QFETCH(int, inner);
        const auto n = std::size_t(rows), k = std::size_t(inner), w = paddedFromFetched(*kernels);
        const std::size_t lanes = kernels->lanes;
        const std::size_t lda = k + 3, ldb = w + lanes, ldo = w + 2 * lanes;  // wider than the data
        const auto a = randomMatrix(n, lda, 1), b = randomMatrix(k, ldb, 2), bias = randomMatrix(1, w, 3);
        for (const bool withBias : {false, true}) {
            std::vector<float> out(n * ldo, -7.0f);
            kernels->multiplyRows(a.data(), lda, n, k, b.data(), ldb, w, withBias ? bias.data() : nullptr, out.data(),
                                  ldo);
            for (std::size_t r = 0; r < n; ++r)
                for (std::size_t c = 0; c < ldo; ++c) {
                    if (c >= w) {  // beyond the width: untouched
                        QCOMPARE(out[r * ldo + c], -7.0f);
                        continue;
                    }
                    double want = withBias ? bias[c] : 0.0;
                    for (std::size_t i = 0; i < k; ++i) want += double(a[r * lda + i]) * b[i * ldb + c];
                    compareClose(out[r * ldo + c], want, k, "multiplyRows");
                }
        }
    }

    void accumulateTransposedProductMatchesLoops_data() { addShapes(); }
    void accumulateTransposedProductMatchesLoops() {
        QFETCH(const CpuKernels*, kernels);
        QFETCH(int, rows);
        QFETCH(int, inner);
        const auto n = std::size_t(rows), k = std::size_t(inner), w = paddedFromFetched(*kernels);
        const std::size_t lanes = kernels->lanes;
        const std::size_t lda = k + 1, ldd = w + lanes, ldacc = w + lanes;
        const auto a = randomMatrix(n, lda, 4), d = randomMatrix(n, ldd, 5);
        auto acc = randomMatrix(k, ldacc, 6);  // accumulates onto what is there
        const auto before = acc;
        kernels->accumulateTransposedProduct(a.data(), lda, n, k, d.data(), ldd, w, acc.data(), ldacc);
        for (std::size_t i = 0; i < k; ++i)
            for (std::size_t c = 0; c < ldacc; ++c) {
                if (c >= w) {
                    QCOMPARE(acc[i * ldacc + c], before[i * ldacc + c]);
                    continue;
                }
                double want = before[i * ldacc + c];
                for (std::size_t r = 0; r < n; ++r) want += double(a[r * lda + i]) * d[r * ldd + c];
                compareClose(acc[i * ldacc + c], want, n, "accumulateTransposedProduct");
            }
    }

    void columnSumsAndCopiesMatchLoops_data() { addShapes(); }
    void columnSumsAndCopiesMatchLoops() {
        QFETCH(const CpuKernels*, kernels);
        QFETCH(int, rows);
        QFETCH(int, inner);
        const auto n = std::size_t(rows), w = paddedFromFetched(*kernels);
        const std::size_t ldd = w + 5;
        const auto d = randomMatrix(n, ldd, 7);
        auto sums = randomMatrix(1, w, 8);
        const auto before = sums;
        kernels->accumulateColumnSums(d.data(), ldd, n, w, sums.data());
        for (std::size_t c = 0; c < w; ++c) {
            double want = before[c];
            for (std::size_t r = 0; r < n; ++r) want += d[r * ldd + c];
            compareClose(sums[c], want, n, "accumulateColumnSums");
        }
        // copyRows: `inner` columns (any count, not only whole registers) between two strides.
        const auto cols = std::size_t(inner) + 17;
        const auto src = randomMatrix(n, cols + 2, 9);
        std::vector<float> dst(n * (cols + 9), -1.0f);
        kernels->copyRows(src.data(), cols + 2, n, cols, dst.data(), cols + 9);
        for (std::size_t r = 0; r < n; ++r)
            for (std::size_t c = 0; c < cols + 9; ++c)
                QCOMPARE(dst[r * (cols + 9) + c], c < cols ? src[r * (cols + 2) + c] : -1.0f);
    }

    void paddedWidthRoundsUp_data() {
        QTest::addColumn<const CpuKernels*>("kernels");
        for (const CpuKernels* k : allRunnableCpuKernels()) QTest::addRow("%s", toString(k->target).c_str()) << k;
    }
    void paddedWidthRoundsUp() {
        QFETCH(const CpuKernels*, kernels);
        const std::size_t lanes = kernels->lanes, pad = kernels->padLanes;
        QCOMPARE(pad * 2, lanes);
        QCOMPARE(kernels->paddedWidth(1), pad);
        QCOMPARE(kernels->paddedWidth(pad), pad);
        QCOMPARE(kernels->paddedWidth(lanes + 1), lanes + pad);
        QVERIFY(kernels->paddedWidth(61) >= 61 && kernels->paddedWidth(61) < 61 + pad &&
                kernels->paddedWidth(61) % pad == 0);
    }
};

QTEST_APPLESS_MAIN(TestTileKernels)
#include "tst_tile_kernels.moc"
