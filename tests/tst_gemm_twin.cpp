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

// One row of matchesNaiveLoop_data.
struct TwinCase {
    int m, n, k;
    bool transA, transB;
    int pad;  // extra columns in every leading dimension
    float alpha, beta;
    bool bias, activate;
    Activation activation;
    bool split;
};

TwinCase fetchCase() {
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
    return {m, n, k, transA, transB, pad, alpha, beta, bias, activate, activation, split};
}

// Elements in `rows` rows of leading dimension `ld`: also the offset of row `rows`.
std::size_t cells(int rows, int ld) {
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(ld);
}

// The matrices of one case, their data in place.
struct TwinBuffers {
    std::vector<float> a, b;  // (m, k) and (k, n), or transposed, padded to lda / ldb
    std::vector<float> bv;    // (n) the bias
    std::vector<float> c;     // (m, ldc): kSentinel in the padding, NaN where beta = 0
    std::vector<float> pre;   // (m, ldc) the pre-activations
    std::vector<float> c0;    // (m, ldc) C before the product
    std::vector<float> workspace;
};

GemmArgs shapeOf(const TwinCase& t) {
    GemmArgs g;
    g.m = t.m;
    g.n = t.n;
    g.k = t.k;
    g.alpha = t.alpha;
    g.beta = t.beta;
    g.transA = t.transA;
    g.transB = t.transB;
    g.lda = (t.transA ? t.m : t.k) + t.pad;
    g.ldb = (t.transB ? t.k : t.n) + t.pad;
    g.ldc = t.n + t.pad;
    return g;
}

TwinBuffers buffersFor(const TwinCase& t, const GemmArgs& g) {
    TwinBuffers x;
    x.a = randomMatrix(std::max<std::size_t>(1, cells(t.transA ? t.k : t.m, g.lda)), 1u);
    x.b = randomMatrix(std::max<std::size_t>(1, cells(t.transB ? t.n : t.k, g.ldb)), 2u);
    x.bv = randomMatrix(static_cast<std::size_t>(t.n), 3u);
    x.c = randomMatrix(cells(t.m, g.ldc), 4u);
    x.pre.assign(x.c.size(), kSentinel);
    for (int i = 0; i < t.m; ++i)
        for (int j = t.n; j < g.ldc; ++j) x.c[cells(i, g.ldc) + static_cast<std::size_t>(j)] = kSentinel;
    if (t.beta == 0.0f)  // C must not be read: NaN there would show
        for (int i = 0; i < t.m; ++i)
            for (int j = 0; j < t.n; ++j)
                x.c[cells(i, g.ldc) + static_cast<std::size_t>(j)] = std::numeric_limits<float>::quiet_NaN();
    x.c0 = x.c;
    return x;
}

void pointAt(GemmArgs& g, TwinBuffers& x, const TwinCase& t) {
    g.a = x.a.data();
    g.b = x.b.data();
    g.c = x.c.data();
    g.bias = t.bias ? x.bv.data() : nullptr;
    g.pre = t.activate ? x.pre.data() : nullptr;
    g.activate = t.activate;
    g.activation = t.activation;
}

// Gives `g` a workspace (NaN, so that a slot read before it is written shows), and checks the
// split: the long products split along k into whole tiles, the big C does not.
void giveWorkspace(GemmArgs& g, TwinBuffers& x) {
    x.workspace.assign(gemmWorkspaceBytes(g) / sizeof(float) + 1, std::numeric_limits<float>::quiet_NaN());
    g.workspace = x.workspace.data();
    const GemmSplit cut = gemmSplit(g);
    const int k = g.k;
    const bool long_k = k >= 1000;
    QCOMPARE(cut.slices > 1, long_k);  // the long products split, the big C does not
    QVERIFY(cut.sliceK % kGemmTileK == 0 || cut.slices == 1);
    QVERIFY(static_cast<long>(cut.slices) * cut.sliceK >= k);
    QVERIFY(static_cast<long>(cut.slices - 1) * cut.sliceK < k || k == 0);
}

// The naive loop's C(i, j) in double before alpha, beta and bias, and the sum of its terms' sizes.
struct Dot {
    double sum = 0.0, scale = 0.0;
};

Dot naiveDot(const TwinCase& t, const GemmArgs& g, const TwinBuffers& x, int i, int j) {
    Dot d;
    for (int p = 0; p < t.k; ++p) {
        const double u = t.transA ? x.a[cells(p, g.lda) + static_cast<std::size_t>(i)]
                                  : x.a[cells(i, g.lda) + static_cast<std::size_t>(p)];
        const double v = t.transB ? x.b[cells(j, g.ldb) + static_cast<std::size_t>(p)]
                                  : x.b[cells(p, g.ldb) + static_cast<std::size_t>(j)];
        d.sum += u * v;
        d.scale += std::abs(u * v);
    }
    return d;
}

// C(i, j) (and its pre-activation) against the naive loop, within 1e-5 of the terms' sizes; the
// padding columns (j >= n) untouched.
void checkEntry(const TwinCase& t, const GemmArgs& g, const TwinBuffers& x, int i, int j) {
    const std::size_t at = cells(i, g.ldc) + static_cast<std::size_t>(j);
    if (j >= t.n) {
        QCOMPARE(x.c[at], kSentinel);
        return;
    }
    const Dot d = naiveDot(t, g, x, i, j);
    double z = t.alpha * d.sum;
    if (t.beta != 0.0f) z += t.beta * static_cast<double>(x.c0[at]);
    if (t.bias) z += x.bv[static_cast<std::size_t>(j)];
    const double scale =
        std::abs(t.alpha) * d.scale + (t.beta != 0.0f ? std::abs(t.beta * x.c0[at]) : 0.0) + (t.bias ? 1.0 : 0.0) + 1.0;
    float expected = static_cast<float>(z);
    if (t.activate) {
        QVERIFY2(std::abs(x.pre[at] - z) <= 1e-5 * scale, qPrintable(QString("pre (%1, %2)").arg(i).arg(j)));
        wb::activate(t.activation, &expected, 1);
    }
    QVERIFY2(std::abs(x.c[at] - expected) <= 1e-5 * scale,
             qPrintable(QString("C(%1, %2) = %3, expected %4").arg(i).arg(j).arg(x.c[at]).arg(expected)));
}
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
        const TwinCase t = fetchCase();
        GemmArgs g = shapeOf(t);
        TwinBuffers x = buffersFor(t, g);
        pointAt(g, x, t);
        if (t.split) {
            giveWorkspace(g, x);
            if (QTest::currentTestFailed()) return;
        }
        gemmTwin(g);

        for (int i = 0; i < t.m; ++i) {
            for (int j = 0; j < g.ldc; ++j) {
                checkEntry(t, g, x, i, j);
                if (QTest::currentTestFailed()) return;
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
