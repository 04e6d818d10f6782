// The fused training step's CPU twin (kernels/fused_twin.cpp: the same per-tile arithmetic, tile
// partition and reduction order as the kernel) against the independent reference: core's CpuMlp
// forward/backward, lossAndGrad and Optimizer, step by step, over several shapes, both losses and
// every optimizer; plus determinism, shuffled row indices, divergence reporting and the limits.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "core/cpu/cpu_mlp.h"
#include "core/model/math_ops.h"
#include "core/model/model.h"
#include "core/model/optimizer.h"
#include "core/platform/errors.h"
#include "kernels/fused_step.h"
#include "tests/fused_fixture.h"
#include "tests/reference_step.h"

using namespace wb;
using namespace wb::test;

Q_DECLARE_METATYPE(wb::Activation)
Q_DECLARE_METATYPE(wb::LossKind)
Q_DECLARE_METATYPE(wb::OptimizerSpec)
Q_DECLARE_METATYPE(std::vector<int>)

namespace {}  // namespace

class TestFusedTwin : public QObject {
    Q_OBJECT

private slots:
    void matchesReference_data() {
        QTest::addColumn<std::vector<int>>("hidden");
        QTest::addColumn<int>("inputs");
        QTest::addColumn<Activation>("activation");
        QTest::addColumn<LossKind>("loss");
        QTest::addColumn<OptimizerSpec>("opt");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("batch");
        QTest::addColumn<bool>("shuffled");
        QTest::addColumn<int>("tileRows");  // 0: the plan's default

        const std::vector<int> seed{20, 10};
        const auto logits = LossKind::BceWithLogits, bce = LossKind::SigmoidBce;
        const auto tanh = Activation::Tanh;
        // The seed case: 3 steps per epoch, the last one partial (904 rows, not a multiple of 16).
        QTest::newRow("seed adam logits")
            << seed << 61 << tanh << logits << optimizer(OptimizerKind::Adam, 1e-3) << 5000 << 2048 << false << 0;
        QTest::newRow("seed adam sigmoid_bce")
            << seed << 61 << tanh << bce << optimizer(OptimizerKind::Adam, 1e-3) << 5000 << 2048 << false << 0;
        QTest::newRow("seed adam shuffled")
            << seed << 61 << tanh << logits << optimizer(OptimizerKind::Adam, 1e-3) << 5000 << 2048 << true << 0;
        QTest::newRow("seed adamw") << seed << 61 << tanh << logits << optimizer(OptimizerKind::AdamW, 1e-2) << 3000
                                    << 1024 << false << 0;
        OptimizerSpec adamL2 = optimizer(OptimizerKind::Adam, 1e-2);
        adamL2.weightDecay = 0.05;
        QTest::newRow("seed adam L2") << seed << 61 << tanh << bce << adamL2 << 3000 << 1024 << false << 0;
        QTest::newRow("seed sgd") << seed << 61 << tanh << logits << optimizer(OptimizerKind::Sgd, 0.1) << 3000 << 512
                                  << false << 0;
        OptimizerSpec momentum = optimizer(OptimizerKind::Sgd, 0.05);
        momentum.momentum = 0.9;
        momentum.dampening = 0.1;
        momentum.weightDecay = 0.01;
        QTest::newRow("seed sgd momentum dampening")
            << seed << 61 << tanh << bce << momentum << 3000 << 512 << false << 0;
        OptimizerSpec nesterov = optimizer(OptimizerKind::Sgd, 0.05);
        nesterov.momentum = 0.9;
        nesterov.nesterov = true;
        QTest::newRow("seed sgd nesterov") << seed << 61 << tanh << logits << nesterov << 3000 << 512 << false << 0;
        QTest::newRow("seed rmsprop") << seed << 61 << tanh << logits << optimizer(OptimizerKind::RmsProp, 1e-3) << 3000
                                      << 512 << false << 0;
        OptimizerSpec centred = optimizer(OptimizerKind::RmsProp, 1e-3);
        centred.centered = true;
        centred.momentum = 0.5;
        centred.weightDecay = 0.01;
        QTest::newRow("seed rmsprop centred momentum")
            << seed << 61 << tanh << bce << centred << 3000 << 512 << false << 0;
        // Odd widths, a batch that is not a multiple of the tile, a last partial batch of 26.
        QTest::newRow("7-5-3-1 adam") << std::vector<int>{5, 3} << 7 << tanh << logits
                                      << optimizer(OptimizerKind::Adam, 1e-2) << 100 << 37 << false << 0;
        QTest::newRow("7-5-3-1 sgd shuffled") << std::vector<int>{5, 3} << 7 << tanh << bce
                                              << optimizer(OptimizerKind::Sgd, 0.1) << 100 << 37 << true << 0;
        QTest::newRow("no hidden layer") << std::vector<int>{} << 6 << tanh << bce
                                         << optimizer(OptimizerKind::Adam, 1e-2) << 90 << 40 << false << 0;
        QTest::newRow("one hidden relu") << std::vector<int>{9} << 13 << Activation::Relu << logits << nesterov << 200
                                         << 64 << false << 0;
        QTest::newRow("deep gelu") << std::vector<int>{4, 6, 3, 2} << 5 << Activation::Gelu << logits << centred << 150
                                   << 40 << false << 0;
        QTest::newRow("sigmoid activation adamw") << std::vector<int>{11, 17} << 19 << Activation::Sigmoid << bce
                                                  << optimizer(OptimizerKind::AdamW, 1e-2) << 300 << 100 << false << 0;
        QTest::newRow("identity sgd") << std::vector<int>{6} << 3 << Activation::Identity << logits
                                      << optimizer(OptimizerKind::Sgd, 0.05) << 50 << 16 << false << 0;
        QTest::newRow("max depth") << std::vector<int>(kFusedMaxLayers - 1, 3) << 4 << tanh << logits
                                   << optimizer(OptimizerKind::Adam, 1e-2) << 80 << 33 << false << 0;
        QTest::newRow("batch of one") << std::vector<int>{4} << 2 << tanh << bce << optimizer(OptimizerKind::Adam, 1e-2)
                                      << 9 << 1 << false << 0;
        // Other tile heights: another partition of the rows and another reduction tree.
        QTest::newRow("seed tile 32") << seed << 61 << tanh << logits << optimizer(OptimizerKind::Adam, 1e-3) << 5000
                                      << 2048 << true << 32;
        QTest::newRow("seed tile 4") << seed << 61 << tanh << bce << optimizer(OptimizerKind::Sgd, 0.1) << 3000 << 500
                                     << false << 4;
        QTest::newRow("wide 61-64-64") << std::vector<int>{64, 64} << 61 << tanh << logits
                                       << optimizer(OptimizerKind::Adam, 1e-3) << 700 << 256 << false << 0;
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
        QFETCH(int, tileRows);

        const ModelSpec model = modelOf(hidden, activation);
        const auto cols = static_cast<std::size_t>(inputs);
        const Data data = makeData(static_cast<std::size_t>(rows), cols, 7u);
        const MlpParams initial = initParams(model, cols, 42);
        Twin twin(model, cols, loss, opt, batch, initial, tileRows);
        if (tileRows != 0) QCOMPARE(twin.plan().tile.tileRows, tileRows);
        Reference ref(initial, activation, loss, opt, static_cast<std::size_t>(batch));

        const int epochs = 3;
        double refLossTotal = 0.0;  // the twin's accumulators run over the whole run, never reset here
        std::size_t refCorrectTotal = 0;
        for (int e = 0; e < epochs; ++e) {
            const std::vector<std::uint32_t> order = permutation(data.rows, 100u + static_cast<unsigned>(e));
            const Data& seen = shuffled ? gathered(data, order) : data;
            twin.epoch(data, batch, shuffled ? &order : nullptr);
            double refLoss = 0.0;
            std::size_t refCorrect = 0;
            for (std::size_t start = 0; start < seen.rows; start += static_cast<std::size_t>(batch)) {
                const std::size_t n = std::min(static_cast<std::size_t>(batch), seen.rows - start);
                refLoss += ref.step(seen.x.data() + start * cols, seen.y.data() + start, n, refCorrect);
            }
            QCOMPARE(twin.stepCount(), (e + 1) * ((rows + batch - 1) / batch));
            const double worst = worstDifference(twin.params(), ref.params(), opt, twin.stepCount());
            QVERIFY2(worst <= 1.0,
                     qPrintable(QString("epoch %1: parameters differ by %2 of the tolerance").arg(e + 1).arg(worst)));
            refLossTotal += refLoss;
            refCorrectTotal += refCorrect;
            QVERIFY2(
                std::abs(twin.lossSum() - refLossTotal) <= 1e-5 * refLossTotal,
                qPrintable(QString("loss sum %1 vs %2").arg(twin.lossSum(), 0, 'g', 12).arg(refLossTotal, 0, 'g', 12)));
            QVERIFY2(std::llabs(static_cast<long long>(twin.correct()) - static_cast<long long>(refCorrectTotal)) <= 1,
                     qPrintable(QString("correct %1 vs %2").arg(twin.correct()).arg(refCorrectTotal)));
            if (e == epochs - 1)
                qInfo("worst parameter difference after %d epochs: %.3g of the tolerance", epochs, worst);
        }
        QCOMPARE(twin.nonFiniteStep(), 0);
    }

    void bitIdenticalAcrossRuns() {
        const ModelSpec model = modelOf({20, 10}, Activation::Tanh);
        const Data data = makeData(5000, 61, 3u);
        const MlpParams initial = initParams(model, 61, 1);
        const std::vector<std::uint32_t> order = permutation(data.rows, 9u);
        const OptimizerSpec opt = optimizer(OptimizerKind::Adam, 1e-3);
        Twin a(model, 61, LossKind::BceWithLogits, opt, 2048, initial);
        Twin b(model, 61, LossKind::BceWithLogits, opt, 2048, initial);
        for (int e = 0; e < 2; ++e) {
            a.epoch(data, 2048, &order);
            b.epoch(data, 2048, &order);
        }
        QVERIFY(a.params() != initial.values);
        QVERIFY(std::memcmp(a.params().data(), b.params().data(), a.params().size() * sizeof(float)) == 0);
        const double la = a.lossSum(), lb = b.lossSum();
        QVERIFY(std::memcmp(&la, &lb, sizeof(double)) == 0);
        QCOMPARE(a.correct(), b.correct());
    }

    void stepLossAndDivergence() {
        const ModelSpec model = modelOf({5, 3}, Activation::Tanh);
        const Data data = makeData(64, 7, 5u);
        MlpParams initial = initParams(model, 7, 3);
        const OptimizerSpec opt = optimizer(OptimizerKind::Sgd, 0.1);
        Twin twin(model, 7, LossKind::BceWithLogits, opt, 32, initial);
        twin.step(data, 0, 32);
        QCOMPARE(twin.stepCount(), 1);
        QCOMPARE(twin.nonFiniteStep(), 0);
        QCOMPARE(twin.stepLoss(), twin.lossSum());
        twin.step(data, 32, 32);
        QVERIFY(std::abs(twin.lossSum() - twin.stepLoss()) > 0.0);
        // A NaN weight makes every logit NaN: the third step reports it.
        twin.params()[0] = std::numeric_limits<float>::quiet_NaN();
        twin.step(data, 0, 32);
        QCOMPARE(twin.nonFiniteStep(), 3);
        twin.step(data, 32, 32);
        QCOMPARE(twin.nonFiniteStep(), 3);  // the first one is kept
        QCOMPARE(twin.stepCount(), 4);
    }

    void plans() {
        const ModelSpec seed = modelOf({20, 10}, Activation::Tanh);
        QVERIFY(!fusedSupports(seed, 61).has_value());
        const FusedPlan plan = makeFusedPlan(seed, 61, LossKind::BceWithLogits, 2048);
        QCOMPARE(plan.shape.layerCount, 3);
        QCOMPARE(static_cast<std::size_t>(plan.shape.paramCount), parameterCount(seed, 61));
        QCOMPARE(plan.tile.tileRows, kFusedPreferredTileRows);
        QCOMPARE(fused::blocksFor(plan, 2048), 128);
        QCOMPARE(fused::blocksFor(plan, 904), 57);  // the seed's last partial batch
        QCOMPARE(plan.scratch.maxBlocks, 128);
        QCOMPARE(plan.scratch.maxGroups, 16);
        QVERIFY(fusedSharedBytes(plan) <= kFusedSharedBudget);
        QVERIFY(fusedScratchBytes(plan) >= 128u * 1461u * sizeof(float));
        // The layout must match MlpParams' exactly (the device copy is one memcpy).
        const MlpParams params = MlpParams::zeros(seed.widths(61));
        for (int l = 0; l < plan.shape.layerCount; ++l)
            QCOMPARE(static_cast<std::size_t>(plan.shape.weightOffset[l]),
                     params.layers[static_cast<std::size_t>(l)].weightOffset);
        // Every odd stride: no two lanes of a warp on one bank in the forward pass.
        for (int l = 0; l < plan.shape.layerCount; ++l) QVERIFY(plan.tile.weightLd[l] % 2 == 1);

        // Wider layers shrink the tile before the model is refused.
        const FusedPlan wide = makeFusedPlan(modelOf({64, 64}, Activation::Tanh), 61, LossKind::BceWithLogits, 512);
        QVERIFY(wide.tile.tileRows < kFusedPreferredTileRows && wide.tile.tileRows >= 1);
        QVERIFY(fusedSharedBytes(wide) <= kFusedSharedBudget);
    }

    void limits() {
        const auto tooDeep = fusedSupports(modelOf(std::vector<int>(kFusedMaxLayers, 4), Activation::Tanh), 8);
        QVERIFY(tooDeep.has_value());
        QVERIFY2(tooDeep->find("hidden layers") != std::string::npos, tooDeep->c_str());
        const auto tooWide = fusedSupports(modelOf({1024, 1024}, Activation::Tanh), 61);
        QVERIFY(tooWide.has_value());
        QVERIFY2(tooWide->find("shared memory") != std::string::npos, tooWide->c_str());
        QVERIFY_THROWS_EXCEPTION(
            ConfigError, makeFusedPlan(modelOf({1024, 1024}, Activation::Tanh), 61, LossKind::BceWithLogits, 2048));
        QVERIFY_THROWS_EXCEPTION(ConfigError,
                                 makeFusedPlan(modelOf({20, 10}, Activation::Tanh), 61, LossKind::BceWithLogits, 0));

        // A batch above the capacity, or a missing optimizer state, is refused before any work.
        const ModelSpec model = modelOf({5, 3}, Activation::Tanh);
        const Data data = makeData(64, 7, 5u);
        Twin twin(model, 7, LossKind::BceWithLogits, optimizer(OptimizerKind::Adam, 1e-3), 32, initParams(model, 7, 3));
        QVERIFY_THROWS_EXCEPTION(ConfigError, twin.step(data, 0, 33));
        QVERIFY_THROWS_EXCEPTION(ConfigError, twin.step(data, 0, 0));
        twin.args().state1 = nullptr;
        QVERIFY_THROWS_EXCEPTION(ConfigError, twin.step(data, 0, 32));
        QCOMPARE(twin.stepCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestFusedTwin)
#include "tst_fused_twin.moc"
