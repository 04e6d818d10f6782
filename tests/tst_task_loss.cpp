// TaskLoss (task_loss.h) for multiclass and regression: hand-computed losses, gradients against
// central finite differences of the mean loss in double, the two multiclass forms agreeing where
// they should and differing where PyTorch's do, argmax accuracy with ties, and class weights
// (PyTorch's CrossEntropyLoss(weight=w): sum w[y] l / sum w[y]) by hand and as resolved for a run.
#include <QtTest>

#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/data/prepare.h"
#include "core/model/step_math.h"
#include "core/model/task_loss.h"
#include "core/platform/errors.h"
#include "core/platform/random.h"

using namespace wb;

Q_DECLARE_METATYPE(wb::LossSpec)

namespace {
// The mean loss of TaskLoss over (n, K) logits, for finite differences.
double meanLoss(const LossSpec& spec, const std::vector<float>& z, const std::vector<float>& y) {
    TaskLoss loss(spec, y.size());
    return loss(z.data(), y.data(), y.size(), nullptr).lossSum / double(y.size());
}

LossSpec spec(Task task, LossKind kind, int outputs, RegressionLoss r = RegressionLoss::Mse) {
    return {task, kind, r, outputs};
}
}  // namespace

class TestTaskLoss : public QObject {
    Q_OBJECT

private slots:
    void crossEntropyByHand() {
        // logits (1, 3) = {1, 2, 3}, target 0: loss = log(e + e^2 + e^3) - 1.
        const std::vector<float> z{1, 2, 3}, y{0};
        std::vector<float> g(3);
        TaskLoss loss(spec(Task::Multiclass, LossKind::BceWithLogits, 3), 1);
        const LossSums s = loss(z.data(), y.data(), 1, g.data());
        const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
        QVERIFY(std::abs(s.lossSum - (lse - 1.0)) < 1e-6);
        QCOMPARE(s.correct, std::size_t(0));  // argmax is class 2
        QVERIFY(std::abs(g[0] - (std::exp(1.0 - lse) - 1.0)) < 1e-6);
        QVERIFY(std::abs(g[2] - std::exp(3.0 - lse)) < 1e-6);
    }

    void gradientsMatchFiniteDifferences_data() {
        QTest::addColumn<LossSpec>("lossSpec");
        QTest::addColumn<double>("scale");
        QTest::newRow("cross-entropy K=3") << spec(Task::Multiclass, LossKind::BceWithLogits, 3) << 2.0;
        QTest::newRow("cross-entropy K=10") << spec(Task::Multiclass, LossKind::BceWithLogits, 10) << 2.0;
        QTest::newRow("log(softmax)+NLL K=3") << spec(Task::Multiclass, LossKind::SigmoidBce, 3) << 2.0;
        QTest::newRow("log(softmax)+NLL K=10") << spec(Task::Multiclass, LossKind::SigmoidBce, 10) << 2.0;
        QTest::newRow("mse") << spec(Task::Regression, LossKind::BceWithLogits, 1) << 2.0;
        QTest::newRow("huber, both sides of 1")
            << spec(Task::Regression, LossKind::BceWithLogits, 1, RegressionLoss::Huber) << 2.0;
    }

    void gradientsMatchFiniteDifferences() {
        QFETCH(LossSpec, lossSpec);
        QFETCH(double, scale);
        const std::size_t n = 7, k = std::size_t(lossSpec.outputs);
        Rng rng(11);
        std::vector<float> z(n * k), y(n), g(n * k);
        for (float& v : z) v = float(rng.normal() * scale);
        for (std::size_t i = 0; i < n; ++i)
            y[i] = lossSpec.task == Task::Multiclass ? float(i % k) : float(rng.normal());
        TaskLoss loss(lossSpec, n);
        loss(z.data(), y.data(), n, g.data());
        for (std::size_t i = 0; i < z.size(); ++i) {
            const float h = 1e-2f;
            std::vector<float> up = z, down = z;
            up[i] += h;
            down[i] -= h;
            const double numeric = (meanLoss(lossSpec, up, y) - meanLoss(lossSpec, down, y)) / (2.0 * h);
            QVERIFY2(std::abs(numeric - g[i]) < 2e-3,
                     qPrintable(QString("logit %1: analytic %2, numeric %3").arg(i).arg(g[i]).arg(numeric)));
        }
    }

    // Where nothing underflows, the separate steps give the fused loss; where the target's
    // probability underflows to 0, log(softmax) + NLL is inf with NaN gradients (as in PyTorch)
    // and CrossEntropyLoss stays finite.
    void separateStepsUnderflowWhereFusedDoesNot() {
        const std::vector<float> mild{0.5f, -1, 2}, extreme{-200, 0, 200}, y{0};
        std::vector<float> gFused(3), gSplit(3);
        TaskLoss fused(spec(Task::Multiclass, LossKind::BceWithLogits, 3), 1);
        TaskLoss split(spec(Task::Multiclass, LossKind::SigmoidBce, 3), 1);
        const double a = fused(mild.data(), y.data(), 1, gFused.data()).lossSum;
        const double b = split(mild.data(), y.data(), 1, gSplit.data()).lossSum;
        QVERIFY(std::abs(a - b) < 1e-5);
        for (int j = 0; j < 3; ++j) QVERIFY(std::abs(gFused[j] - gSplit[j]) < 1e-6);

        QVERIFY(std::isfinite(fused(extreme.data(), y.data(), 1, gFused.data()).lossSum));
        QVERIFY(std::abs(fused(extreme.data(), y.data(), 1, gFused.data()).lossSum - 400.0) < 1e-3);
        QVERIFY(std::isinf(split(extreme.data(), y.data(), 1, gSplit.data()).lossSum));
        QVERIFY(std::isnan(gSplit[0]));
    }

    void accuracyTakesTheFirstLargestLogit() {
        const std::vector<float> z{1, 3, 3, /**/ 5, 5, 0}, y{1, 1};
        TaskLoss loss(spec(Task::Multiclass, LossKind::BceWithLogits, 3), 2);
        QCOMPARE(loss(z.data(), y.data(), 2, nullptr).correct, std::size_t(1));  // row 0: class 1; row 1: class 0
    }

    void regressionSums() {
        const std::vector<float> z{1, -1, 4}, t{0, 1, 1.5f};
        TaskLoss mse(spec(Task::Regression, LossKind::BceWithLogits, 1), 3);
        TaskLoss huber(spec(Task::Regression, LossKind::BceWithLogits, 1, RegressionLoss::Huber), 3);
        const LossSums m = mse(z.data(), t.data(), 3, nullptr);
        QCOMPARE(m.lossSum, 1.0 + 4.0 + 6.25);
        QCOMPARE(m.squaredError, m.lossSum);
        QCOMPARE(m.absoluteError, 1.0 + 2.0 + 2.5);
        // Huber: |d| = 1 is linear (1 - 0.5), 2 -> 1.5, 2.5 -> 2.
        QCOMPARE(huber(z.data(), t.data(), 3, nullptr).lossSum, 0.5 + 1.5 + 2.0);
    }

    // rowLoss (what the CUDA loss kernel runs per row) on a binary row is lossAndGrad's formula.
    void rowLossOfABinaryRowIsTheBinaryLoss() {
        for (const LossKind kind : {LossKind::BceWithLogits, LossKind::SigmoidBce}) {
            const std::vector<float> z{-3.5f, 0.25f, 7}, y{1, 0, 1};
            std::vector<float> want(3);
            std::size_t correct = 0;
            const double sum = lossAndGrad(kind, z.data(), y.data(), 3, want.data(), &correct);
            double rows = 0;
            std::size_t right = 0;
            for (std::size_t i = 0; i < 3; ++i) {
                float g = 0;
                const auto r = stepmath::rowLoss(spec(Task::Binary, kind, 1), &z[i], y[i], 1.0f / 3, 1.0f, &g);
                rows += r.loss;
                right += r.right ? 1 : 0;
                QCOMPARE(g, want[i]);
            }
            QVERIFY(std::abs(rows - sum) < 1e-6);
            QCOMPARE(right, correct);
        }
    }

    // A class index outside 0..K-1 (never from prepare()) is a NaN loss with zero gradients, not a
    // read out of bounds.
    void labelOutsideTheClassesIsNaN() {
        const std::vector<float> z{1, 2, 3};
        std::vector<float> g{9, 9, 9};
        for (const float label : {3.0f, -1.0f, NAN}) {
            const auto r = stepmath::rowLoss(spec(Task::Multiclass, LossKind::BceWithLogits, 3), z.data(), label, 1.0f,
                                             1.0f, g.data());
            QVERIFY(std::isnan(r.loss));
            QCOMPARE(g, (std::vector<float>{0, 0, 0}));
        }
    }

    // Two rows, K = 3, weights {2, 1, 0.5}: row 0 (logits {1, 2, 3}, class 0) weighs 2, row 1 (logits
    // {0.5, -1, 2}, class 2) 0.5, so the batch's weight is 2.5, the loss (2 l0 + 0.5 l1) / 2.5 and
    // row i's gradient w_i (softmax(z_i) - onehot(y_i)) / 2.5; both loss forms agree here.
    void weightedLossByHand_data() {
        QTest::addColumn<int>("kind");
        QTest::newRow("CrossEntropyLoss(weight)") << int(LossKind::BceWithLogits);
        QTest::newRow("log(softmax) + NLLLoss(weight)") << int(LossKind::SigmoidBce);
    }

    void weightedLossByHand() {
        QFETCH(int, kind);
        const std::vector<float> weights{2.0f, 1.0f, 0.5f};
        LossSpec s = spec(Task::Multiclass, LossKind(kind), 3);
        s.classWeights = weights.data();
        const std::vector<float> z{1, 2, 3, 0.5f, -1, 2}, y{0, 2};
        std::vector<float> g(6);
        TaskLoss loss(s, 2);
        const LossSums sums = loss(z.data(), y.data(), 2, g.data());

        const double z0[] = {1, 2, 3}, z1[] = {0.5, -1, 2}, w0 = 2.0, w1 = 0.5, total = w0 + w1;
        const double lse0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
        const double lse1 = std::log(std::exp(0.5) + std::exp(-1.0) + std::exp(2.0));
        const double l0 = lse0 - 1.0, l1 = lse1 - 2.0;
        QCOMPARE(sums.weightSum, total);
        QVERIFY(std::abs(sums.lossSum - (w0 * l0 + w1 * l1)) < 1e-5);
        QVERIFY(std::abs(sums.meanLoss(2) - (w0 * l0 + w1 * l1) / total) < 1e-6);
        for (int j = 0; j < 3; ++j) {
            const double want0 = w0 * (std::exp(z0[j] - lse0) - (j == 0 ? 1.0 : 0.0)) / total;
            const double want1 = w1 * (std::exp(z1[j] - lse1) - (j == 2 ? 1.0 : 0.0)) / total;
            QVERIFY2(std::abs(g[j] - want0) < 1e-6, qPrintable(QString("row 0, logit %1: %2").arg(j).arg(g[j])));
            QVERIFY2(std::abs(g[3 + j] - want1) < 1e-6,
                     qPrintable(QString("row 1, logit %1: %2").arg(j).arg(g[3 + j])));
        }

        // A chunk holding row 1 alone, told the batch's weight, writes the same gradient; untold, it refuses.
        std::vector<float> chunk(3);
        TaskLoss part(s, 1);
        QCOMPARE(part.batchWeight(y.data(), 2), total);
        part(z.data() + 3, y.data() + 1, 1, chunk.data(), 2, total);
        for (int j = 0; j < 3; ++j) QCOMPARE(chunk[j], g[3 + j]);
        QVERIFY_THROWS_EXCEPTION(ConfigError, part(z.data() + 3, y.data() + 1, 1, chunk.data(), 2));
    }

    // Equal weights change nothing: the weighted mean is the plain mean, the gradients equal to rounding.
    void equalWeightsAreThePlainMean() {
        const std::vector<float> ones(3, 1.0f);
        LossSpec plain = spec(Task::Multiclass, LossKind::BceWithLogits, 3), weighted = plain;
        weighted.classWeights = ones.data();
        Rng rng(5);
        std::vector<float> z(3 * 7), y(7), g0(z.size()), g1(z.size());
        for (float& v : z) v = rng.uniform(-3.0f, 3.0f);
        for (std::size_t i = 0; i < y.size(); ++i) y[i] = float(i % 3);
        TaskLoss a(plain, 7), b(weighted, 7);
        const LossSums s0 = a(z.data(), y.data(), 7, g0.data()), s1 = b(z.data(), y.data(), 7, g1.data());
        QCOMPARE(s1.meanLoss(7), s0.meanLoss(7));
        for (std::size_t k = 0; k < z.size(); ++k) QVERIFY(std::abs(g0[k] - g1[k]) <= 1e-7f);
    }

    // What a run trains with: `balanced` = rows / (K count_k) over the training split (scikit-learn);
    // a list as given; refusals name the numbers.
    void resolvesClassWeightsForARun() {
        PreparedData d;
        d.task = Task::Multiclass;
        d.classes = 3;
        d.trainY = {0, 0, 0, 0, 0, 0, 1, 1, 2, 2};  // counts 6, 2, 2 of 10 rows
        QCOMPARE(resolveClassWeights(parseClassWeights("balanced"), d),
                 (std::vector<float>{float(10.0 / 18), float(10.0 / 6), float(10.0 / 6)}));
        QCOMPARE(resolveClassWeights(parseClassWeights("1,2.5,0.5"), d), (std::vector<float>{1, 2.5f, 0.5f}));
        QVERIFY(resolveClassWeights(ClassWeights{}, d).empty());
        QVERIFY_THROWS_EXCEPTION(ConfigError, resolveClassWeights(parseClassWeights("1,2"), d));
        d.trainY = {0, 0, 1, 1};  // class 2 has no training rows
        QVERIFY_THROWS_EXCEPTION(ConfigError, resolveClassWeights(parseClassWeights("balanced"), d));
        d.task = Task::Binary;
        d.classes = 2;
        QVERIFY_THROWS_EXCEPTION(ConfigError, resolveClassWeights(parseClassWeights("1,2"), d));
        for (const char* bad : {"1,-2,3", "1,0,3", "1,inf,3", "1,nan,3", "1,x,3", "1,,3", "1,2,"})
            QVERIFY_THROWS_EXCEPTION(ConfigError, parseClassWeights(bad));
    }

    // The model's JSON: no key without class weights (older configs and records read the same),
    // "balanced" before a run resolves it, the numbers (and where they came from) after; each reads back.
    void classWeightsInTheModelJson_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("json");
        QTest::newRow("none") << ""
                              << "null";
        QTest::newRow("a list") << "1,2.5,0.5"
                                << "[1.0,2.5,0.5]";
        QTest::newRow("balanced") << "balanced"
                                  << "\"balanced\"";
    }

    void classWeightsInTheModelJson() {
        QFETCH(QString, text);
        QFETCH(QString, json);
        ModelSpec m;
        m.classWeights = parseClassWeights(text.toStdString());
        const nlohmann::json j = m;
        QCOMPARE(QString::fromStdString(j.value("class_weights", nlohmann::json()).dump()), json);
        QVERIFY(!j.contains("class_weights_balanced"));
        QVERIFY(j.get<ModelSpec>().classWeights == m.classWeights);
        QCOMPARE(QString::fromStdString(toString(m.classWeights)), text);

        m.classWeights.values = {0.5f, 2.0f};  // as a run resolves `balanced` (or keeps a list)
        const nlohmann::json resolved = m;
        QCOMPARE(resolved.value("class_weights_balanced", false), m.classWeights.balanced);
        QVERIFY(resolved.get<ModelSpec>().classWeights == m.classWeights);
    }

    void refusesOutputsTheTaskCannotHave() {
        QVERIFY_THROWS_EXCEPTION(ConfigError, TaskLoss(spec(Task::Regression, LossKind::BceWithLogits, 3), 4));
        QVERIFY_THROWS_EXCEPTION(ConfigError, TaskLoss(spec(Task::Binary, LossKind::BceWithLogits, 2), 4));
    }
};

QTEST_GUILESS_MAIN(TestTaskLoss)
#include "tst_task_loss.moc"
