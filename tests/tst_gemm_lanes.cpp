// gemm=custom's kernel body with all of a block's threads: gemmOnHost runs every block of the
// launcher's grid through gemm::blockThread (the very function the kernel calls) on kGemmThreads
// lanes taking turns (tests/lane_turnstile.h) in ascending, descending and shuffled order, and must
// give bit for bit what the one-lane twin gives, every lane through the same barriers. The twin
// suite (tst_gemm_twin) checks the arithmetic against a naive loop; this one checks the staging
// partition over the lanes and the two barriers of every stage.
#include <QtTest>

#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/model/model.h"
#include "kernels/gemm_custom.h"
#include "tests/lane_turnstile.h"

using namespace wb;
using namespace wb::test;

Q_DECLARE_METATYPE(wb::test::LaneOrder)

namespace {
std::vector<float> randomMatrix(std::size_t count, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(count);
    for (float& x : v) x = u(rng);
    return v;
}

// One product's operands and outputs; run() computes C (and `pre`) with the given executor.
struct Product {
    GemmArgs g;
    std::vector<float> a, b, bias, c, pre, workspace;

    Product(int m, int n, int k, bool transA, bool transB, float beta, bool split) {
        g.m = m;
        g.n = n;
        g.k = k;
        g.transA = transA;
        g.transB = transB;
        g.beta = beta;
        g.lda = transA ? m : k;
        g.ldb = transB ? k : n;
        g.ldc = n;
        a = randomMatrix(static_cast<std::size_t>(m) * static_cast<std::size_t>(k), 1u);
        b = randomMatrix(static_cast<std::size_t>(k) * static_cast<std::size_t>(n), 2u);
        bias = randomMatrix(static_cast<std::size_t>(n), 3u);
        c = randomMatrix(static_cast<std::size_t>(m) * static_cast<std::size_t>(n), 4u);
        pre.assign(c.size(), 0.0f);
        g.activate = true;
        g.activation = Activation::Tanh;
        if (split) workspace.assign(gemmWorkspaceBytes(g) / sizeof(float) + 1, std::numeric_limits<float>::quiet_NaN());
    }

    template <typename Run>
    void run(Run&& execute) {
        g.a = a.data();
        g.b = b.data();
        g.c = c.data();
        g.bias = bias.data();
        g.pre = pre.data();
        g.workspace = workspace.empty() ? nullptr : workspace.data();
        execute(g);
    }
};

bool sameBits(const std::vector<float>& x, const std::vector<float>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}
}  // namespace

class TestGemmLanes : public QObject {
    Q_OBJECT

private slots:
    void sameAsOneLane_data() {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("k");
        QTest::addColumn<bool>("transA");
        QTest::addColumn<bool>("transB");
        QTest::addColumn<float>("beta");
        QTest::addColumn<bool>("split");
        QTest::addColumn<LaneOrder>("order");
        for (LaneOrder order : {LaneOrder::Ascending, LaneOrder::Descending, LaneOrder::Shuffled}) {
            const char* o = orderName(order);
            // The seed model's products at a batch of 70 (not a multiple of the 32-row tile).
            QTest::addRow("forward 70x20x61 NT, %s", o) << 70 << 20 << 61 << false << true << 0.0f << false << order;
            QTest::addRow("dX 70x61x20 NN, %s", o) << 70 << 61 << 20 << false << false << 0.0f << false << order;
            QTest::addRow("dW 20x61x70 TN beta, %s", o) << 20 << 61 << 70 << true << false << 1.0f << false << order;
            // Split-K: 8 slices of 4 stages each.
            QTest::addRow("split dW 10x20x1024 TN, %s", o)
                << 10 << 20 << 1024 << true << false << 0.0f << true << order;
            QTest::addRow("33x7x65 TT, %s", o) << 33 << 7 << 65 << true << true << 0.5f << false << order;
        }
    }

    void sameAsOneLane() {
        QFETCH(int, m);
        QFETCH(int, n);
        QFETCH(int, k);
        QFETCH(bool, transA);
        QFETCH(bool, transB);
        QFETCH(float, beta);
        QFETCH(bool, split);
        QFETCH(LaneOrder, order);

        Product one(m, n, k, transA, transB, beta, split), many(m, n, k, transA, transB, beta, split);
        one.run([](const GemmArgs& g) { gemmTwin(g); });
        if (split) QVERIFY(gemmSplit(one.g).slices > 1);
        const int stagesPerBlock = (gemmSplit(one.g).sliceK + kGemmTileK - 1) / kGemmTileK;
        std::vector<TurnstileResult> seen;
        many.run([&](const GemmArgs& g) {
            gemmOnHost(g, [&](auto&& body) {
                seen.push_back(runBlockLanes(kGemmThreads, order, static_cast<unsigned>(seen.size()), body));
            });
        });
        const int blocks =
            ((m + kGemmTile - 1) / kGemmTile) * ((n + kGemmTile - 1) / kGemmTile) * gemmSplit(one.g).slices;
        QCOMPARE(static_cast<int>(seen.size()), blocks);
        for (const TurnstileResult& r : seen) {
            QVERIFY2(r.error.empty(), r.error.c_str());
            QVERIFY(!r.divergent);
            QVERIFY(r.phases >= 1 && r.phases <= 2 * stagesPerBlock + 1);  // two barriers a stage
        }
        QVERIFY(sameBits(many.c, one.c));
        QVERIFY(sameBits(many.pre, one.pre));
    }
};

QTEST_GUILESS_MAIN(TestGemmLanes)
#include "tst_gemm_lanes.moc"
