// The index arithmetic of a linear layer's three products (kernels/layer_products.h): the operands and
// leading dimensions handed to cuBLAS (fp32, and the padded 16-bit copies of the mixed-precision
// paths), run through a plain column-major GEMM here, and the GemmArgs
// handed to the custom GEMM, run through its CPU twin, must both equal the row-major products computed
// with naive loops. Widths are not multiples of anything, so a swapped dimension cannot hide.
#include <QtTest>

#include <vector>

#include "core/platform/random.h"
#include "kernels/layer_products.h"

using namespace wb;

namespace {
constexpr int kRows = 37, kIn = 13, kOut = 7;

std::vector<float> randomValues(std::size_t count, std::uint64_t seed) {
    Rng rng(seed);
    std::vector<float> v(count);
    for (float& x : v) x = rng.uniform(-1.0f, 1.0f);
    return v;
}

// C (m, n) = op(A) op(B) + beta C, column-major, as cuBLAS defines it.
void columnMajorGemm(const ColumnMajorProduct& p, const float* a, const float* b, float beta, float* c) {
    for (int j = 0; j < p.n; ++j)
        for (int i = 0; i < p.m; ++i) {
            double sum = 0;
            for (int q = 0; q < p.k; ++q) {
                const float av = p.transA ? a[q + i * p.lda] : a[i + q * p.lda];
                const float bv = p.transB ? b[j + q * p.ldb] : b[q + j * p.ldb];
                sum += static_cast<double>(av) * bv;
            }
            float& out = c[i + j * p.ldc];
            out = static_cast<float>(sum) + (beta != 0.0f ? beta * out : 0.0f);
        }
}

void compareAll(const std::vector<float>& got, const std::vector<float>& want) {
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        QVERIFY2(std::abs(got[i] - want[i]) <= 1e-5f * (1.0f + std::abs(want[i])), qPrintable(QString::number(i)));
}

struct Layer {
    std::vector<float> x = randomValues(kRows * kIn, 1);    // (n, in)
    std::vector<float> w = randomValues(kOut * kIn, 2);     // (out, in)
    std::vector<float> dz = randomValues(kRows * kOut, 3);  // (n, out)
    std::vector<float> gw0 = randomValues(kOut * kIn, 4);   // (out, in) gradient already there

    // Naive row-major references.
    std::vector<float> z() const {
        std::vector<float> r(kRows * kOut);
        for (int i = 0; i < kRows; ++i)
            for (int j = 0; j < kOut; ++j) {
                double s = 0;
                for (int k = 0; k < kIn; ++k) s += static_cast<double>(x[i * kIn + k]) * w[j * kIn + k];
                r[i * kOut + j] = static_cast<float>(s);
            }
        return r;
    }
    std::vector<float> gw(bool accumulate) const {
        std::vector<float> r(kOut * kIn);
        for (int j = 0; j < kOut; ++j)
            for (int k = 0; k < kIn; ++k) {
                double s = 0;
                for (int i = 0; i < kRows; ++i) s += static_cast<double>(dz[i * kOut + j]) * x[i * kIn + k];
                r[j * kIn + k] = static_cast<float>(s) + (accumulate ? gw0[j * kIn + k] : 0.0f);
            }
        return r;
    }
    // The padded 16-bit layouts of layer_products.h (as floats here): zeros around the real values.
    static std::vector<float> padded(const std::vector<float>& v, int rows, int cols, int paddedRows) {
        const auto ld = static_cast<std::size_t>(paddedWidth(cols));
        const auto c = static_cast<std::size_t>(cols);
        std::vector<float> r(static_cast<std::size_t>(paddedRows) * ld, 0.0f);
        for (std::size_t i = 0; i < static_cast<std::size_t>(rows); ++i)
            for (std::size_t j = 0; j < c; ++j) r[i * ld + j] = v[i * c + j];
        return r;
    }
    std::vector<float> xPadded() const { return padded(x, kRows, kIn, kRows); }
    std::vector<float> wPadded() const { return padded(w, kOut, kIn, paddedWidth(kOut)); }
    std::vector<float> dzPadded() const { return padded(dz, kRows, kOut, kRows); }

    std::vector<float> dx() const {
        std::vector<float> r(kRows * kIn);
        for (int i = 0; i < kRows; ++i)
            for (int k = 0; k < kIn; ++k) {
                double s = 0;
                for (int j = 0; j < kOut; ++j) s += static_cast<double>(dz[i * kOut + j]) * w[j * kIn + k];
                r[i * kIn + k] = static_cast<float>(s);
            }
        return r;
    }
};
}  // namespace

class TestLayerProducts : public QObject {
    Q_OBJECT

private slots:
    void cublasForward() {
        const Layer l;
        std::vector<float> z(kRows * kOut, -7.0f);
        columnMajorGemm(forwardProduct(kRows, kIn, kOut), l.w.data(), l.x.data(), 0.0f, z.data());
        compareAll(z, l.z());
    }

    void cublasWeightGrad_data() {
        QTest::addColumn<bool>("accumulate");
        QTest::newRow("write") << false;
        QTest::newRow("accumulate") << true;
    }
    void cublasWeightGrad() {
        QFETCH(bool, accumulate);
        const Layer l;
        std::vector<float> gw = l.gw0;
        columnMajorGemm(weightGradProduct(kRows, kIn, kOut), l.x.data(), l.dz.data(), accumulate ? 1.0f : 0.0f,
                        gw.data());
        compareAll(gw, l.gw(accumulate));
    }

    void cublasInputGrad() {
        const Layer l;
        std::vector<float> dx(kRows * kIn, -7.0f);
        columnMajorGemm(inputGradProduct(kRows, kIn, kOut), l.w.data(), l.dz.data(), 0.0f, dx.data());
        compareAll(dx, l.dx());
    }

    // The mixed-precision products over the padded copies give the unpadded results, in the
    // unpadded fp32 outputs; the padding is what a real layer has (13 -> 16, 7 -> 8).
    void paddedProducts() {
        QCOMPARE(paddedWidth(61), 64);
        QCOMPARE(paddedWidth(20), 24);
        QCOMPARE(paddedWidth(1), 8);
        QCOMPARE(paddedWidth(16), 16);
        const Layer l;
        const ColumnMajorProduct f = paddedForwardProduct(kRows, kIn, kOut);
        QVERIFY(f.lda % kHalfPad == 0 && f.ldb % kHalfPad == 0 && f.k % kHalfPad == 0);
        std::vector<float> z(kRows * kOut, -7.0f);
        columnMajorGemm(f, l.wPadded().data(), l.xPadded().data(), 0.0f, z.data());
        compareAll(z, l.z());

        const ColumnMajorProduct g = paddedWeightGradProduct(kRows, kIn, kOut);
        QVERIFY(g.lda % kHalfPad == 0 && g.ldb % kHalfPad == 0);
        std::vector<float> gw = l.gw0;
        columnMajorGemm(g, l.xPadded().data(), l.dzPadded().data(), 1.0f, gw.data());
        compareAll(gw, l.gw(true));

        const ColumnMajorProduct d = paddedInputGradProduct(kRows, kIn, kOut);
        QVERIFY(d.lda % kHalfPad == 0 && d.ldb % kHalfPad == 0 && d.k % kHalfPad == 0);
        std::vector<float> dx(kRows * kIn, -7.0f);
        columnMajorGemm(d, l.wPadded().data(), l.dzPadded().data(), 0.0f, dx.data());
        compareAll(dx, l.dx());
    }

    void customForward() {
        const Layer l;
        std::vector<float> z(kRows * kOut, -7.0f);
        const GemmArgs g = wb::customForward(l.x.data(), l.w.data(), z.data(), kRows, kIn, kOut);
        checkGemmArgs(g);
        gemmTwin(g);
        compareAll(z, l.z());
    }

    void customWeightGrad_data() { cublasWeightGrad_data(); }
    void customWeightGrad() {
        QFETCH(bool, accumulate);
        const Layer l;
        std::vector<float> gw = l.gw0;
        const GemmArgs g = wb::customWeightGrad(l.dz.data(), l.x.data(), gw.data(), kRows, kIn, kOut, accumulate);
        checkGemmArgs(g);
        gemmTwin(g);
        compareAll(gw, l.gw(accumulate));
    }

    void customInputGrad() {
        const Layer l;
        std::vector<float> dx(kRows * kIn, -7.0f);
        const GemmArgs g = wb::customInputGrad(l.dz.data(), l.w.data(), dx.data(), kRows, kIn, kOut);
        checkGemmArgs(g);
        gemmTwin(g);
        compareAll(dx, l.dx());
    }
};

QTEST_GUILESS_MAIN(TestLayerProducts)
#include "tst_layer_products.moc"
