// The persistent epoch's CPU twin (kernels/persistent_twin.h: the kernel's block program, every block
// of the grid, the grid barrier emulated and its flags checked) against
//   * the independent reference, core's CpuMlp + lossAndGrad + Optimizer, within fp32 tolerance,
//     over several epochs, for each activation, odd widths, a partial last batch, a shuffled order;
//   * the fused step's twin, bit for bit, where the tiles are the same: both sum a tile's rows in row
//     order, the tiles in groups of kFusedGroupBlocks and the groups in order, with the same functions;
//   * itself, with the blocks of every grid phase in another order, and with all the lanes of a block
//     taking turns (tests/lane_turnstile.h);
// plus the plans, the refusals and the controls that show the checks can fail.
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "core/cpu/cpu_mlp.h"
#include "core/model/math_ops.h"
#include "core/platform/errors.h"
#include "tests/fused_fixture.h"
#include "tests/lane_turnstile.h"
#include "tests/persistent_fixture.h"
#include "tests/reference_step.h"

using namespace wb;
using namespace wb::test;

Q_DECLARE_METATYPE(wb::Activation)
Q_DECLARE_METATYPE(wb::LossKind)
Q_DECLARE_METATYPE(wb::OptimizerSpec)
Q_DECLARE_METATYPE(wb::GridOrder)
Q_DECLARE_METATYPE(wb::test::LaneOrder)
Q_DECLARE_METATYPE(std::vector<int>)

namespace {

bool sameBits(float a, float b) {
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}
bool sameBits(double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// Whether two float buffers hold the same bits; says where they first differ when they do not.
bool sameBits(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!sameBits(a[i], b[i])) {
            qWarning("%s differ first at %zu: %.9g vs %.9g", what, i, static_cast<double>(a[i]),
                     static_cast<double>(b[i]));
            return false;
        }
    return true;
}

// The columns every data-driven case shares.
void addShapeColumns() {
    QTest::addColumn<std::vector<int>>("hidden");
    QTest::addColumn<int>("inputs");
    QTest::addColumn<Activation>("activation");
    QTest::addColumn<LossKind>("loss");
    QTest::addColumn<OptimizerSpec>("opt");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("batch");
    QTest::addColumn<bool>("shuffled");
    QTest::addColumn<int>("sms");          // the made-up device's multiprocessors: the grid
    QTest::addColumn<int>("sharedKiB");    // its shared memory per block
    QTest::addColumn<int>("maxTileRows");  // the plan's cap (0: none)
}

}  // namespace

class TestPersistentTwin : public QObject {
    Q_OBJECT

private slots:
    void matchesReference_data() {
        addShapeColumns();
        const std::vector<int> seed{20, 10};
        const auto logits = LossKind::BceWithLogits, bce = LossKind::SigmoidBce;
        const auto tanh = Activation::Tanh;
        const OptimizerSpec adam = optimizer(OptimizerKind::Adam, 1e-3),
                            adamFast = optimizer(OptimizerKind::Adam, 1e-2);
        // The seed on an H200's 132 SMs: 3 steps per epoch, the last of 904 rows (57 tiles of 16).
        QTest::newRow("seed tanh adam") << seed << 61 << tanh << logits << adam << 5000 << 2048 << false << 132 << 227
                                        << 0;
        QTest::newRow("seed tanh adam shuffled")
            << seed << 61 << tanh << bce << adam << 5000 << 2048 << true << 132 << 227 << 0;
        // An A100's 108 SMs: tiles of 19 rows, not a power of two.
        QTest::newRow("seed 108 SMs") << seed << 61 << tanh << logits << adam << 5000 << 2048 << true << 108 << 163
                                      << 0;
        // Odd widths and each activation; batches that are not multiples of anything, partial last ones.
        QTest::newRow("7-5-3-1 relu") << std::vector<int>{5, 3} << 7 << Activation::Relu << logits << adamFast << 100
                                      << 37 << false << 4 << 227 << 0;
        QTest::newRow("13-9-1 gelu shuffled") << std::vector<int>{9} << 13 << Activation::Gelu << logits << adamFast
                                              << 230 << 64 << true << 5 << 227 << 0;
        QTest::newRow("19-11-17-1 sigmoid adamw")
            << std::vector<int>{11, 17} << 19 << Activation::Sigmoid << bce << optimizer(OptimizerKind::AdamW, 1e-2)
            << 300 << 100 << true << 7 << 227 << 0;
        QTest::newRow("11-7-1 sigmoid adam") << std::vector<int>{7} << 11 << Activation::Sigmoid << logits << adamFast
                                             << 250 << 60 << false << 6 << 227 << 0;
        QTest::newRow("deep gelu") << std::vector<int>{4, 6, 3, 2} << 5 << Activation::Gelu << logits << adamFast << 150
                                   << 40 << false << 3 << 227 << 0;
        // Little shared memory: short tiles, several per block, each block loops over them.
        QTest::newRow("seed 8 SMs, 24 KiB")
            << seed << 61 << tanh << logits << adam << 3000 << 1024 << true << 8 << 24 << 0;
        // A grid wider than the parameters' quads: some blocks own nothing.
        QTest::newRow("3-2-1 on 40 SMs") << std::vector<int>{2} << 3 << tanh << logits << adamFast << 500 << 200
                                         << false << 40 << 227 << 0;
        QTest::newRow("batch of one") << std::vector<int>{4} << 2 << tanh << bce << adamFast << 9 << 1 << false << 4
                                      << 227 << 0;
        // The other optimizers run on the owners too.
        OptimizerSpec nesterov = optimizer(OptimizerKind::Sgd, 0.05);
        nesterov.momentum = 0.9;
        nesterov.nesterov = true;
        QTest::newRow("seed sgd nesterov")
            << seed << 61 << tanh << logits << nesterov << 3000 << 512 << false << 16 << 227 << 0;
        OptimizerSpec centred = optimizer(OptimizerKind::RmsProp, 1e-3);
        centred.centered = true;
        centred.momentum = 0.5;
        QTest::newRow("seed rmsprop centred")
            << seed << 61 << tanh << bce << centred << 3000 << 512 << true << 16 << 227 << 0;
    }

    void matchesReference() {
        QFETCH(std::vector<int>, hidden);
        QFETCH(int, inputs);
        QFETCH(Activation, activation);
        QFETCH(LossKind, loss);
        QFETCH(OptimizerSpec, opt);
        QFETCH(int, rows);
        QFETCH(int, batch);
        QFETCH(bool, shuffled);
        QFETCH(int, sms);
        QFETCH(int, sharedKiB);
        QFETCH(int, maxTileRows);

        const ModelSpec model = modelOf(hidden, activation);
        const auto cols = static_cast<std::size_t>(inputs);
        const Data data = makeData(static_cast<std::size_t>(rows), cols, 7u);
        const MlpParams initial = initParams(model, cols, 42);
        PersistentRun run(model, cols, loss, opt, batch, initial, deviceOf(sms, static_cast<std::size_t>(sharedKiB)),
                          maxTileRows);
        Reference ref(initial, activation, loss, opt, static_cast<std::size_t>(batch));

        double refLoss = 0.0;
        std::size_t refCorrect = 0;
        for (int e = 0; e < 3; ++e) {
            const std::vector<std::uint32_t> order = permutation(data.rows, 100u + static_cast<unsigned>(e));
            const Data& seen = shuffled ? gathered(data, order) : data;
            run.epoch(data, shuffled ? &order : nullptr);
            double lastStep = 0.0;
            for (std::size_t start = 0; start < seen.rows; start += static_cast<std::size_t>(batch)) {
                const std::size_t n = std::min(static_cast<std::size_t>(batch), seen.rows - start);
                lastStep = ref.step(seen.x.data() + start * cols, seen.y.data() + start, n, refCorrect);
                refLoss += lastStep;
            }
            QCOMPARE(run.stepCount(), (e + 1) * ((rows + batch - 1) / batch));
            const double worst = worstDifference(run.params(), ref.params(), opt, run.stepCount());
            QVERIFY2(worst <= 1.0,
                     qPrintable(QString("epoch %1: parameters off by %2 of the tolerance").arg(e + 1).arg(worst)));
            QVERIFY2(std::abs(run.lossSum() - refLoss) <= 1e-5 * refLoss,
                     qPrintable(QString("loss sum %1 vs %2").arg(run.lossSum(), 0, 'g', 12).arg(refLoss, 0, 'g', 12)));
            QVERIFY(std::abs(run.stepLoss() - lastStep) <= 1e-5 * std::abs(lastStep) + 1e-6);
            QVERIFY2(std::llabs(static_cast<long long>(run.correct()) - static_cast<long long>(refCorrect)) <= 1,
                     qPrintable(QString("correct %1 vs %2").arg(run.correct()).arg(refCorrect)));
        }
        QVERIFY(run.params() != initial.values);
        QCOMPARE(run.nonFiniteStep(), 0);
    }

    // Where the persistent plan cuts the batch into the fused plan's tiles of 16 rows, the epoch must
    // be the fused twin's to the bit: parameters, optimizer state, loss sum, last step loss, count.
    // (Other tile heights sum other row ranges first: then only the tolerance above applies.)
    void sameBitsAsFusedTwin_data() {
        addShapeColumns();
        const std::vector<int> seed{20, 10};
        const auto logits = LossKind::BceWithLogits;
        const OptimizerSpec adam = optimizer(OptimizerKind::Adam, 1e-3),
                            adamFast = optimizer(OptimizerKind::Adam, 1e-2);
        QTest::newRow("seed on 132 SMs") << seed << 61 << Activation::Tanh << logits << adam << 5000 << 2048 << true
                                         << 132 << 227 << 0;
        QTest::newRow("seed on 128 SMs") << seed << 61 << Activation::Tanh << LossKind::SigmoidBce << adam << 5000
                                         << 2048 << false << 128 << 227 << 0;
        QTest::newRow("batch 200 on 13 SMs, relu")
            << seed << 61 << Activation::Relu << logits << adamFast << 700 << 200 << true << 13 << 227 << 0;
        // Tiles capped at 16 on 2 SMs: blocks loop over several tiles (and two groups' worth).
        QTest::newRow("7-5-3-1 gelu, 2 SMs, tiles of 16") << std::vector<int>{5, 3} << 7 << Activation::Gelu << logits
                                                          << adamFast << 300 << 150 << true << 2 << 227 << 16;
        QTest::newRow("19-11-17-1 sigmoid, 3 SMs")
            << std::vector<int>{11, 17} << 19 << Activation::Sigmoid << logits << optimizer(OptimizerKind::AdamW, 1e-2)
            << 290 << 144 << false << 3 << 227 << 16;
    }

    void sameBitsAsFusedTwin() {
        QFETCH(std::vector<int>, hidden);
        QFETCH(int, inputs);
        QFETCH(Activation, activation);
        QFETCH(LossKind, loss);
        QFETCH(OptimizerSpec, opt);
        QFETCH(int, rows);
        QFETCH(int, batch);
        QFETCH(bool, shuffled);
        QFETCH(int, sms);
        QFETCH(int, sharedKiB);
        QFETCH(int, maxTileRows);

        const ModelSpec model = modelOf(hidden, activation);
        const auto cols = static_cast<std::size_t>(inputs);
        const Data data = makeData(static_cast<std::size_t>(rows), cols, 3u);
        const MlpParams initial = initParams(model, cols, 5);
        PersistentRun run(model, cols, loss, opt, batch, initial, deviceOf(sms, static_cast<std::size_t>(sharedKiB)),
                          maxTileRows);
        Twin fused(model, cols, loss, opt, batch, initial);
        QCOMPARE(run.plan().tileRows, fused.plan().tile.tileRows);
        for (int e = 0; e < 2; ++e) {
            const std::vector<std::uint32_t> order = permutation(data.rows, 9u + static_cast<unsigned>(e));
            run.epoch(data, shuffled ? &order : nullptr);
            fused.epoch(data, batch, shuffled ? &order : nullptr);
        }
        QCOMPARE(run.stepCount(), fused.stepCount());
        QVERIFY(sameBits(run.params(), fused.params(), "parameters"));
        for (std::size_t k = 0; k < 3; ++k) QVERIFY(sameBits(run.state()[k], fused.state()[k], "optimizer state"));
        QVERIFY2(sameBits(run.lossSum(), fused.lossSum()),
                 qPrintable(QString("%1 vs %2").arg(run.lossSum(), 0, 'g', 17).arg(fused.lossSum(), 0, 'g', 17)));
        QVERIFY(sameBits(run.stepLoss(), fused.stepLoss()));
        QCOMPARE(run.correct(), fused.correct());
    }

    // Few blocks and many tiles: each block owns more quads than one pass of its lanes can reduce
    // (one lane per quad and group), so the reduction runs in batches of quads; still the fused bits.
    void reductionInBatches() {
        const ModelSpec model = modelOf({20, 10}, Activation::Tanh);
        const OptimizerSpec opt = optimizer(OptimizerKind::Adam, 1e-3);
        const Data data = makeData(3000, 61, 12u);
        const MlpParams initial = initParams(model, 61, 6);
        PersistentRun run(model, 61, LossKind::BceWithLogits, opt, 2048, initial, deviceOf(2), 4);
        Twin fused(model, 61, LossKind::BceWithLogits, opt, 2048, initial, 4);
        QCOMPARE(run.plan().tileRows, 4);
        QVERIFY(run.plan().ownerQuads > 2 * run.plan().quadBatch);
        const std::vector<std::uint32_t> order = permutation(data.rows, 3u);
        run.epoch(data, &order);
        fused.epoch(data, 2048, &order);
        QVERIFY(sameBits(run.params(), fused.params(), "parameters"));
        QVERIFY(sameBits(run.lossSum(), fused.lossSum()));
        QCOMPARE(run.correct(), fused.correct());
    }

    // The grid barrier leaves no race between blocks: any order of the blocks in every grid phase
    // gives the same bits. And without the first barrier, the flag check reports it.
    void blockOrderDoesNotMatter_data() {
        QTest::addColumn<GridOrder>("order");
        QTest::newRow("descending") << GridOrder::Descending;
        QTest::newRow("shuffled") << GridOrder::Shuffled;
    }

    void blockOrderDoesNotMatter() {
        QFETCH(GridOrder, order);
        const ModelSpec model = modelOf({20, 10}, Activation::Tanh);
        const Data data = makeData(3000, 61, 11u);
        const MlpParams initial = initParams(model, 61, 2);
        const OptimizerSpec opt = optimizer(OptimizerKind::Adam, 1e-3);
        PersistentRun a(model, 61, LossKind::BceWithLogits, opt, 1000, initial, deviceOf(20, 24));
        PersistentRun b(model, 61, LossKind::BceWithLogits, opt, 1000, initial, deviceOf(20, 24));
        QVERIFY(a.plan().maxTiles > a.plan().grid);  // blocks with two tiles and with one
        const std::vector<std::uint32_t> shuffle = permutation(data.rows, 4u);
        for (unsigned e = 0; e < 2; ++e) {
            a.epoch(data, &shuffle);
            b.epoch(data, &shuffle, GridSchedule{order, 77u + e, false});
        }
        QVERIFY(sameBits(a.params(), b.params(), "parameters"));
        QVERIFY(sameBits(a.lossSum(), b.lossSum()));
        QCOMPARE(a.correct(), b.correct());
    }

    void missingGridBarrierIsCaught() {
        const ModelSpec model = modelOf({5, 3}, Activation::Tanh);
        const Data data = makeData(100, 7, 1u);
        PersistentRun run(model, 7, LossKind::BceWithLogits, optimizer(OptimizerKind::Adam, 1e-2), 50,
                          initParams(model, 7, 1), deviceOf(4));
        QVERIFY_THROWS_EXCEPTION(GridBarrierError,
                                 run.epoch(data, nullptr, GridSchedule{GridOrder::Ascending, 0, true}));
    }

    // Every block with all kPersistentThreads lanes taking turns in each order must give the one-lane
    // twin's bits, with every lane through the same barriers: the partition of each phase over the
    // lanes and the block barriers between the phases.
    void lanesTakingTurns_data() {
        QTest::addColumn<LaneOrder>("order");
        QTest::newRow("ascending") << LaneOrder::Ascending;
        QTest::newRow("descending") << LaneOrder::Descending;
        QTest::newRow("shuffled") << LaneOrder::Shuffled;
    }

    void lanesTakingTurns() {
        QFETCH(LaneOrder, order);
        const ModelSpec model = modelOf({5, 3}, Activation::Gelu);
        const Data data = makeData(74, 7, 6u);
        const MlpParams initial = initParams(model, 7, 8);
        const OptimizerSpec opt = optimizer(OptimizerKind::Adam, 1e-2);
        PersistentRun one(model, 7, LossKind::BceWithLogits, opt, 40, initial, deviceOf(2), 4);
        PersistentRun many(model, 7, LossKind::BceWithLogits, opt, 40, initial, deviceOf(2), 4);
        QVERIFY(one.plan().maxTiles > one.plan().grid);  // blocks loop over tiles
        QVERIFY(one.plan().maxGroups >= 2);              // a quad's group sums come from several lanes
        one.epoch(data, nullptr);
        std::vector<TurnstileResult> seen;
        const auto runBlock = [&](auto&& body) {
            seen.push_back(runBlockLanes(kPersistentThreads, order, static_cast<unsigned>(seen.size()),
                                         [&](int lane, auto barrier) {
                                             body(fused::Lanes{lane, kPersistentThreads}, barrier);
                                         }));
        };
        persistentEpochOnHost(many.epochArgs(data, nullptr), runBlock);
        for (const TurnstileResult& r : seen) {
            QVERIFY2(r.error.empty(), r.error.c_str());
            QVERIFY(!r.divergent);
        }
        QVERIFY(sameBits(many.params(), one.params(), "parameters"));
        QVERIFY(sameBits(many.state()[1], one.state()[1], "second moments"));
    }

    void plans() {
        const ModelSpec seed = modelOf({20, 10}, Activation::Tanh);
        const OptimizerSpec adam = optimizer(OptimizerKind::Adam, 1e-3);
        const PersistentPlan p = makePersistentPlan(seed, 61, LossKind::BceWithLogits, adam, 2048, deviceOf(132));
        QCOMPARE(p.grid, 132);
        QCOMPARE(p.tileRows, 16);
        QCOMPARE(p.maxTiles, 128);
        QCOMPARE(p.maxGroups, 16);
        QCOMPARE(p.shape.paramCount, 1461);
        QCOMPARE(p.quads, 366);
        QCOMPARE(p.ownerQuads, 3);
        QCOMPARE(p.stateCount, 2);
        QVERIFY(p.smem.bytes <= std::size_t{48} * 1024);  // the seed needs no opt-in shared memory
        qInfo("seed plan: %d blocks, tiles of %d rows, %zu bytes of shared memory, %zu of scratch", p.grid, p.tileRows,
              p.smem.bytes, p.scratch.bytes);
        // The layout of the parameters is MlpParams' (the device copy is one memcpy) and the fused step's.
        const FusedPlan f = makeFusedPlan(seed, 61, LossKind::BceWithLogits, 2048);
        for (int l = 0; l < p.shape.layerCount; ++l) QCOMPARE(p.shape.weightOffset[l], f.shape.weightOffset[l]);
        QCOMPARE(std::memcmp(&p.smem.tile, &f.tile, sizeof(FusedTileLayout)), 0);
        // Few multiprocessors: taller tiles; little shared memory: shorter ones, looped over.
        QCOMPARE(makePersistentPlan(seed, 61, LossKind::BceWithLogits, adam, 2048, deviceOf(40)).tileRows, 52);
        const PersistentPlan small = makePersistentPlan(seed, 61, LossKind::BceWithLogits, adam, 2048, deviceOf(8, 24));
        QVERIFY(small.tileRows < 256 && small.smem.bytes <= std::size_t{24} * 1024);
        const std::vector<stepmath::StepScalars> table = persistentStepTable(stepmath::optimizerScalars(adam), 49, 3);
        QCOMPARE(table.size(), std::size_t{3});
        const stepmath::StepScalars s50 = stepmath::stepScalars(stepmath::optimizerScalars(adam), 50);
        QCOMPARE(table[0].stepSize, s50.stepSize);
        QCOMPARE(table[0].bc2Sqrt, s50.bc2Sqrt);
    }

    void refusals() {
        const ModelSpec seed = modelOf({20, 10}, Activation::Tanh);
        const OptimizerSpec adam = optimizer(OptimizerKind::Adam, 1e-3);
        QVERIFY(!persistentRefusal(seed, 61, adam, Precision::Fp32, 2048, deviceOf(132)).has_value());
        const auto contains = [](const std::optional<std::string>& why, const char* text) {
            return why.has_value() && why->find(text) != std::string::npos;
        };
        QVERIFY(contains(persistentRefusal(seed, 61, adam, Precision::Bf16, 2048, deviceOf(132)), "fp32 only"));
        QVERIFY(contains(persistentRefusal(modelOf(std::vector<int>(kPersistentMaxLayers, 4), Activation::Tanh), 8,
                                           adam, Precision::Fp32, 64, deviceOf(132)),
                         "hidden layers"));
        QVERIFY(contains(
            persistentRefusal(modelOf({1024, 1024}, Activation::Tanh), 61, adam, Precision::Fp32, 2048, deviceOf(132)),
            "shared memory"));
        PersistentDevice noCoop = deviceOf(132);
        noCoop.cooperativeLaunch = false;
        QVERIFY(contains(persistentRefusal(seed, 61, adam, Precision::Fp32, 2048, noCoop), "cooperative"));
        PersistentDevice full = deviceOf(132);
        full.blocksPerSm = 0;
        QVERIFY(contains(persistentRefusal(seed, 61, adam, Precision::Fp32, 2048, full), "resident"));
        QVERIFY_THROWS_EXCEPTION(ConfigError,
                                 makePersistentPlan(seed, 61, LossKind::BceWithLogits, adam, 2048, deviceOf(132, 4)));

        // A step table too short for the epoch, a missing state: refused before any work.
        const Data data = makeData(100, 61, 1u);
        PersistentRun run(seed, 61, LossKind::BceWithLogits, adam, 10, initParams(seed, 61, 1), deviceOf(4));
        PersistentArgs a = run.epochArgs(data, nullptr);
        a.tableLength = 9;
        QVERIFY_THROWS_EXCEPTION(ConfigError, persistentEpochTwin(a));
        a = run.epochArgs(data, nullptr);
        a.state1 = nullptr;
        QVERIFY_THROWS_EXCEPTION(ConfigError, persistentEpochTwin(a));
        QCOMPARE(run.stepCount(), 0);
    }

    // A NaN weight makes every loss NaN: the epoch reports its first step, and keeps an earlier one.
    void nonFiniteStepIsReported() {
        const ModelSpec model = modelOf({5, 3}, Activation::Tanh);
        const Data data = makeData(64, 7, 5u);
        PersistentRun run(model, 7, LossKind::BceWithLogits, optimizer(OptimizerKind::Sgd, 0.1), 32,
                          initParams(model, 7, 3), deviceOf(2));
        run.epoch(data, nullptr);
        QCOMPARE(run.nonFiniteStep(), 0);
        run.params()[0] = std::numeric_limits<float>::quiet_NaN();
        run.epoch(data, nullptr);
        QCOMPARE(run.nonFiniteStep(), 3);
        run.epoch(data, nullptr);
        QCOMPARE(run.nonFiniteStep(), 3);
        QCOMPARE(run.stepCount(), 6);
    }
};

QTEST_GUILESS_MAIN(TestPersistentTwin)
#include "tst_persistent_twin.moc"
