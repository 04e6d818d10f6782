// gemm=custom's CPU twin (kernels/gemm_twin.cpp: the kernel's tiles, staging and accumulation)
// against a naive triple loop in double, for awkward shapes (1, 7, 61, 2048 rows; sizes that are
// not multiples of the 32 x 32 tile), every transpose, padded leading dimensions, alpha and beta,
// and the bias + activation epilogue.
#include <QtTest>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/model/math_ops.h"
#include "core/platform/errors.h"
#include "kernels/gemm_custom.h"

using namespace wb;

Q_DECLARE_METATYPE(wb::Activation)

namespace {
std::vector<float> randomMatrix(std::size_t count, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(count);
    for (float& x : v) x = u(rng);
    return v;
}

constexpr float kSentinel = 12345.0f;  // in the padding columns of C, which must stay untouched
}  // namespace

class TestGemmTwin : public QObject {
    Q_OBJECT

private slots:
    void matchesNaiveLoop_data() {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("k");
        QTest::addColumn<bool>("transA");
        QTest::addColumn<bool>("transB");
        QTest::addColumn<int>("pad");  // extra columns in every leading dimension
        QTest::addColumn<float>("alpha");
        QTest::addColumn<float>("beta");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<bool>("activate");
        QTest::addColumn<Activation>("activation");
        QTest::addColumn<bool>("split");  // give a workspace, so long-k products split along k
        const auto none = Activation::Identity;
        QTest::newRow("1x1x1") << 1 << 1 << 1 << false << false << 0 << 1.0f << 0.0f << false << false << none << false;
        for (bool ta : {false, true})
            for (bool tb : {false, true})
                QTest::addRow("7x5x3 %s%s", ta ? "T" : "N", tb ? "T" : "N")
                    << 7 << 5 << 3 << ta << tb << 0 << 1.0f << 0.0f << false << false << none << false;
        // The seed model's products, batch 2048 (rows 2048 = 64 tiles; 61, 20, 10 not multiples of 32).
        QTest::newRow("forward 2048x20x61 tanh")
            << 2048 << 20 << 61 << false << true << 0 << 1.0f << 0.0f << true << true << Activation::Tanh << false;
        QTest::newRow("forward 2048x1x10")
            << 2048 << 1 << 10 << false << true << 0 << 1.0f << 0.0f << true << false << none << false;
        QTest::newRow("dW 20x61x2048") << 20 << 61 << 2048 << true << false << 0 << 1.0f << 0.0f << false << false
                                       << none << false;
        QTest::newRow("dX 2048x61x20") << 2048 << 61 << 20 << false << false << 0 << 1.0f << 0.0f << false << false
                                       << none << false;
        QTest::newRow("61x33x65 TT alpha beta")
            << 61 << 33 << 65 << true << true << 0 << 2.0f << 0.5f << true << false << none << false;
        QTest::newRow("padded 37x29x70 NT relu")
            << 37 << 29 << 70 << false << true << 3 << 1.0f << 0.0f << true << true << Activation::Relu << false;
        QTest::newRow("padded 7x61x7 TN gelu")
            << 7 << 61 << 7 << true << false << 5 << 1.0f << 1.0f << true << true << Activation::Gelu << false;
        QTest::newRow("1x7x2048 sigmoid")
            << 1 << 7 << 2048 << false << false << 1 << 1.0f << 0.0f << true << true << Activation::Sigmoid << false;
        QTest::newRow("k=0 is beta C + bias")
            << 5 << 9 << 0 << false << false << 0 << 1.0f << 0.25f << true << false << none << false;
        // Split-K: the weight gradients of the seed model, and awkward slice ends.
        QTest::newRow("split dW 20x61x2048")
            << 20 << 61 << 2048 << true << false << 0 << 1.0f << 0.0f << false << false << none << true;
        QTest::newRow("split dW 1x10x2048 beta")
            << 1 << 10 << 2048 << true << false << 0 << 1.0f << 0.5f << true << false << none << true;
        QTest::newRow("split 33x7x1000 TT tanh")
            << 33 << 7 << 1000 << true << true << 2 << 0.5f << 0.0f << true << true << Activation::Tanh << true;
        QTest::newRow("no split for a big C")
            << 2048 << 61 << 20 << false << false << 0 << 1.0f << 0.0f << false << false << none << true;
        QTest::newRow("exact tiles 64x64x64")
            << 64 << 64 << 64 << false << false << 0 << 1.0f << 0.0f << false << false << none << false;
    }

    void matchesNaiveLoop() {
        QFETCH(int, m);
        QFETCH(int, n);
        QFETCH(int, k);
        QFETCH(bool, transA);
        QFETCH(bool, transB);
        QFETCH(int, pad);
        QFETCH(float, alpha);
        QFETCH(float, beta);
        QFETCH(bool, bias);
        QFETCH(bool, activate);
        QFETCH(Activation, activation);
        QFETCH(bool, split);

        GemmArgs g;
        g.m = m;
        g.n = n;
        g.k = k;
        g.alpha = alpha;
        g.beta = beta;
        g.transA = transA;
        g.transB = transB;
        g.lda = (transA ? m : k) + pad;
        g.ldb = (transB ? k : n) + pad;
        g.ldc = n + pad;
        const auto size = [](int rows, int ld) {
            return static_cast<std::size_t>(rows) * static_cast<std::size_t>(ld);
        };
        const std::vector<float> a = randomMatrix(std::max<std::size_t>(1, size(transA ? k : m, g.lda)), 1u);
        const std::vector<float> b = randomMatrix(std::max<std::size_t>(1, size(transB ? n : k, g.ldb)), 2u);
        const std::vector<float> bv = randomMatrix(static_cast<std::size_t>(n), 3u);
        std::vector<float> c = randomMatrix(size(m, g.ldc), 4u);
        std::vector<float> pre(c.size(), kSentinel);
        for (int i = 0; i < m; ++i)
            for (int j = n; j < g.ldc; ++j) c[size(i, g.ldc) + static_cast<std::size_t>(j)] = kSentinel;
        if (beta == 0.0f)  // C must not be read: NaN there would show
            for (int i = 0; i < m; ++i)
                for (int j = 0; j < n; ++j)
                    c[size(i, g.ldc) + static_cast<std::size_t>(j)] = std::numeric_limits<float>::quiet_NaN();
        const std::vector<float> c0 = c;
        g.a = a.data();
        g.b = b.data();
        g.c = c.data();
        g.bias = bias ? bv.data() : nullptr;
        g.pre = activate ? pre.data() : nullptr;
        g.activate = activate;
        g.activation = activation;
        std::vector<float> workspace;
        if (split) {
            workspace.assign(gemmWorkspaceBytes(g) / sizeof(float) + 1, std::numeric_limits<float>::quiet_NaN());
            g.workspace = workspace.data();
            const GemmSplit cut = gemmSplit(g);
            const bool long_k = k >= 1000;
            QCOMPARE(cut.slices > 1, long_k);  // the long products split, the big C does not
            QVERIFY(cut.sliceK % kGemmTileK == 0 || cut.slices == 1);
            QVERIFY(static_cast<long>(cut.slices) * cut.sliceK >= k);
            QVERIFY(static_cast<long>(cut.slices - 1) * cut.sliceK < k || k == 0);
        }
        gemmTwin(g);

        for (int i = 0; i < m; ++i) {
            for (int j = 0; j < g.ldc; ++j) {
                const std::size_t at = size(i, g.ldc) + static_cast<std::size_t>(j);
                if (j >= n) {
                    QCOMPARE(c[at], kSentinel);
                    continue;
                }
                double sum = 0.0, scale = 0.0;
                for (int p = 0; p < k; ++p) {
                    const double x = transA ? a[size(p, g.lda) + static_cast<std::size_t>(i)]
                                            : a[size(i, g.lda) + static_cast<std::size_t>(p)];
                    const double y = transB ? b[size(j, g.ldb) + static_cast<std::size_t>(p)]
                                            : b[size(p, g.ldb) + static_cast<std::size_t>(j)];
                    sum += x * y;
                    scale += std::abs(x * y);
                }
                double z = alpha * sum;
                if (beta != 0.0f) z += beta * static_cast<double>(c0[at]);
                if (bias) z += bv[static_cast<std::size_t>(j)];
                scale =
                    std::abs(alpha) * scale + (beta != 0.0f ? std::abs(beta * c0[at]) : 0.0) + (bias ? 1.0 : 0.0) + 1.0;
                float expected = static_cast<float>(z);
                if (activate) {
                    QVERIFY2(std::abs(pre[at] - z) <= 1e-5 * scale, qPrintable(QString("pre (%1, %2)").arg(i).arg(j)));
                    wb::activate(activation, &expected, 1);
                }
                QVERIFY2(std::abs(c[at] - expected) <= 1e-5 * scale,
                         qPrintable(QString("C(%1, %2) = %3, expected %4").arg(i).arg(j).arg(c[at]).arg(expected)));
            }
        }
    }

    void refusesBadArguments() {
        std::vector<float> buf(64, 0.0f);
        GemmArgs g;
        g.m = g.n = g.k = 4;
        g.a = g.b = buf.data();
        g.c = buf.data() + 32;
        g.lda = g.ldb = g.ldc = 4;
        gemmTwin(g);  // fine
        GemmArgs bad = g;
        bad.lda = 3;
        QVERIFY_THROWS_EXCEPTION(ConfigError, gemmTwin(bad));
        bad = g;
        bad.transB = true;
        bad.k = 5;  // B is (n, ldb = 4) but k = 5 columns are needed
        QVERIFY_THROWS_EXCEPTION(ConfigError, gemmTwin(bad));
        bad = g;
        bad.m = -1;
        QVERIFY_THROWS_EXCEPTION(ConfigError, gemmTwin(bad));
        bad = g;
        bad.c = nullptr;
        QVERIFY_THROWS_EXCEPTION(ConfigError, gemmTwin(bad));
    }
};

QTEST_GUILESS_MAIN(TestGemmTwin)
#include "tst_gemm_twin.moc"
