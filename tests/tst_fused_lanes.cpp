// The fused step's kernel body with all of a block's threads: fusedStepOnHost runs every block's
// tile, every group's reduction and the update on kFusedThreads lanes taking turns
// (tests/lane_turnstile.h) in ascending, descending and shuffled order in every phase, as the GPU's
// threads may, and must give bit for bit what the one-lane twin gives, with every lane through the
// same barriers. The twin suite (tst_fused_twin) checks the arithmetic; this one checks what only
// many threads can get wrong: the partition of the work over the lanes and the barriers between
// the phases. A control shows that a missing barrier is caught.
#include <QtTest>

#include <cstring>
#include <vector>

#include "core/model/model.h"
#include "kernels/fused_step.h"
#include "tests/fused_fixture.h"
#include "tests/lane_turnstile.h"

using namespace wb;
using namespace wb::test;

Q_DECLARE_METATYPE(wb::Activation)
Q_DECLARE_METATYPE(wb::LossKind)
Q_DECLARE_METATYPE(wb::OptimizerSpec)
Q_DECLARE_METATYPE(wb::test::LaneOrder)
Q_DECLARE_METATYPE(std::vector<int>)

namespace {

// Runs each block of a host step on kFusedThreads turnstile lanes and keeps what each block saw.
// `dropBarrier` (>= 0) leaves out that barrier of every lane: the control of the harness itself.
struct LaneRunner {
    LaneOrder order = LaneOrder::Ascending;
    int dropBarrier = -1;
    std::vector<TurnstileResult>* seen = nullptr;

    template <typename Body>
    void operator()(Body&& body) const {
        const auto seed = static_cast<unsigned>(seen->size());
        seen->push_back(runBlockLanes(kFusedThreads, order, seed, [&](int lane, auto barrier) {
            int calls = 0;
            body(fused::Lanes{lane, kFusedThreads}, [&] {
                if (calls++ != dropBarrier) barrier();
            });
        }));
    }
};

// Whether two float buffers hold the same bits; says where they first differ when they do not.
bool sameBits(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
    if (a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0) return true;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) {
            qWarning("%s differ first at %zu: %.9g with many lanes, %.9g with one", what, i, static_cast<double>(a[i]),
                     static_cast<double>(b[i]));
            break;
        }
    return false;
}

// Two fused runs from the same weights: one stepped by the one-lane twin, one by many lanes.
struct Pair {
    Twin one;
    Twin many;
    Data data;
};

Pair makePair(const std::vector<int>& hidden, int inputs, Activation a, LossKind loss, const OptimizerSpec& opt,
              int batch) {
    const ModelSpec model = modelOf(hidden, a);
    const auto cols = static_cast<std::size_t>(inputs);
    const MlpParams initial = initParams(model, cols, 11);
    return Pair{Twin(model, cols, loss, opt, batch, initial), Twin(model, cols, loss, opt, batch, initial),
                makeData(static_cast<std::size_t>(2 * batch), cols, 5u)};
}

}  // namespace

class TestFusedLanes : public QObject {
    Q_OBJECT

private slots:
    void sameAsOneLane_data() {
        QTest::addColumn<std::vector<int>>("hidden");
        QTest::addColumn<int>("inputs");
        QTest::addColumn<Activation>("activation");
        QTest::addColumn<LossKind>("loss");
        QTest::addColumn<OptimizerSpec>("opt");
        QTest::addColumn<int>("batch");
        QTest::addColumn<LaneOrder>("order");

        OptimizerSpec nesterov = optimizer(OptimizerKind::Sgd, 0.05);
        nesterov.momentum = 0.9;
        nesterov.nesterov = true;
        OptimizerSpec centred = optimizer(OptimizerKind::RmsProp, 1e-3);
        centred.centered = true;
        centred.momentum = 0.5;
        const auto tanh = Activation::Tanh;
        const auto logits = LossKind::BceWithLogits, bce = LossKind::SigmoidBce;
        for (LaneOrder order : {LaneOrder::Ascending, LaneOrder::Descending, LaneOrder::Shuffled}) {
            const char* o = orderName(order);
            // 13 tiles of 16 rows, the last of 8; two reduction groups, the second of 5 blocks.
            QTest::addRow("seed 61-20-10-1 adam, batch 200, %s", o)
                << std::vector<int>{20, 10} << 61 << tanh << logits << optimizer(OptimizerKind::Adam, 1e-3) << 200
                << order;
            QTest::addRow("7-5-3-1 sigmoid_bce nesterov, batch 37, %s", o)
                << std::vector<int>{5, 3} << 7 << tanh << bce << nesterov << 37 << order;
            QTest::addRow("no hidden layer, batch 40, %s", o)
                << std::vector<int>{} << 6 << tanh << bce << optimizer(OptimizerKind::Adam, 1e-2) << 40 << order;
            QTest::addRow("deep gelu rmsprop, batch 37, %s", o)
                << std::vector<int>{4, 6, 3, 2} << 5 << Activation::Gelu << logits << centred << 37 << order;
            // Wider than the lanes (4,096 weight-gradient units) and a smaller tile.
            QTest::addRow("wide 61-64-64 adamw, batch 50, %s", o)
                << std::vector<int>{64, 64} << 61 << tanh << logits << optimizer(OptimizerKind::AdamW, 1e-2) << 50
                << order;
            QTest::addRow("batch of one, %s", o) << std::vector<int>{4} << 2 << Activation::Relu << bce
                                                 << optimizer(OptimizerKind::Adam, 1e-2) << 1 << order;
        }
    }

    void sameAsOneLane() {
        QFETCH(std::vector<int>, hidden);
        QFETCH(int, inputs);
        QFETCH(Activation, activation);
        QFETCH(LossKind, loss);
        QFETCH(OptimizerSpec, opt);
        QFETCH(int, batch);
        QFETCH(LaneOrder, order);

        Pair p = makePair(hidden, inputs, activation, loss, opt, batch);
        const int layers = p.one.plan().shape.layerCount;
        const int tiles = fused::blocksFor(p.one.plan(), batch);
        for (int step = 0; step < 2; ++step) {
            const std::int64_t first = static_cast<std::int64_t>(step) * batch;
            p.one.step(p.data, first, batch);
            std::vector<TurnstileResult> seen;
            fusedStepOnHost(p.many.stepArgs(p.data, first, batch), LaneRunner{order, -1, &seen});

            const int groups = fused::groupsFor(tiles);
            QCOMPARE(static_cast<int>(seen.size()), tiles + groups + 1);
            for (std::size_t b = 0; b < seen.size(); ++b) {
                QVERIFY2(seen[b].error.empty(), seen[b].error.c_str());
                QVERIFY2(!seen[b].divergent, qPrintable(QString("block %1: lanes left at different barriers").arg(b)));
                // A tile passes a barrier after loading and after each layer forward, and between the
                // layers backward; the reductions have none.
                const int expected = static_cast<int>(b) < tiles ? 2 * layers + 1 : 1;
                QCOMPARE(seen[b].phases, expected);
            }
        }
        QVERIFY(p.one.lossSum() > 0.0);
        QVERIFY(sameBits(p.many.params(), p.one.params(), "parameters"));
        for (std::size_t s = 0; s < p.one.state().size(); ++s)
            QVERIFY(sameBits(p.many.state()[s], p.one.state()[s], "optimizer states"));
        QCOMPARE(p.many.stepCount(), 2);
        QCOMPARE(p.many.lossSum(), p.one.lossSum());
        QCOMPARE(p.many.stepLoss(), p.one.stepLoss());
        QCOMPARE(p.many.correct(), p.one.correct());
        QCOMPARE(p.many.nonFiniteStep(), 0);
    }

    // The harness's own control: without the barrier between the first two layers forward, lane 0
    // (first in ascending order) computes row 0 of the second layer from activations of the first
    // that lanes 1..19 have not written yet (the poisoned NaN), so the step must come out different
    // from the one-lane twin's.
    void missingBarrierIsCaught() {
        Pair p =
            makePair({20, 10}, 61, Activation::Tanh, LossKind::BceWithLogits, optimizer(OptimizerKind::Adam, 1e-3), 64);
        p.one.step(p.data, 0, 64);
        std::vector<TurnstileResult> seen;
        fusedStepOnHost(p.many.stepArgs(p.data, 0, 64), LaneRunner{LaneOrder::Ascending, 1, &seen});
        QVERIFY(!seen.empty());
        QCOMPARE(seen.front().phases, 2 * 3);  // one barrier fewer
        QVERIFY(std::memcmp(p.many.params().data(), p.one.params().data(), p.one.params().size() * sizeof(float)) != 0);
    }

    // And a barrier that some lanes never reach (a hang on the GPU) is reported, not waited on.
    void divergentBarrierIsReported() {
        const TurnstileResult r = runBlockLanes(64, LaneOrder::Ascending, 0u, [](int lane, auto barrier) {
            if (lane % 2 == 0) barrier();
        });
        QVERIFY(r.divergent);
        QVERIFY(r.error.empty());
    }
};

QTEST_GUILESS_MAIN(TestFusedLanes)
#include "tst_fused_lanes.moc"
