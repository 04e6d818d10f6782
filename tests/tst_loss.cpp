// The two losses: values against hand-computed numbers, stability at extreme logits, PyTorch's
// clamping, gradients and the accuracy threshold.
#include <QtTest>

#include <cmath>

#include "core/model/math_ops.h"

using namespace wb;

Q_DECLARE_METATYPE(wb::LossKind)

class TestLoss : public QObject {
    Q_OBJECT

private slots:
    void sampleLossValues_data() {
        QTest::addColumn<LossKind>("kind");
        QTest::addColumn<float>("logit");
        QTest::addColumn<float>("label");
        QTest::addColumn<double>("expected");
        // -log(sigmoid(z)) for y=1, -log(1-sigmoid(z)) for y=0.
        QTest::newRow("logits z=0") << LossKind::BceWithLogits << 0.0f << 1.0f << std::log(2.0);
        QTest::newRow("logits z=2 y=1") << LossKind::BceWithLogits << 2.0f << 1.0f << std::log1p(std::exp(-2.0));
        QTest::newRow("logits z=2 y=0") << LossKind::BceWithLogits << 2.0f << 0.0f << 2.0 + std::log1p(std::exp(-2.0));
        QTest::newRow("logits z=100 y=0") << LossKind::BceWithLogits << 100.0f << 0.0f << 100.0;
        QTest::newRow("logits z=-100 y=1") << LossKind::BceWithLogits << -100.0f << 1.0f << 100.0;
        QTest::newRow("logits z=100 y=1") << LossKind::BceWithLogits << 100.0f << 1.0f << 0.0;
        QTest::newRow("sigmoid z=0") << LossKind::SigmoidBce << 0.0f << 0.0f << std::log(2.0);
        QTest::newRow("sigmoid z=-3 y=1") << LossKind::SigmoidBce << -3.0f << 1.0f << std::log1p(std::exp(3.0));
        // sigmoid(100) rounds to 1 in float, so log(1 - p) = -inf and BCELoss clamps it at -100.
        QTest::newRow("sigmoid clamp z=100 y=0") << LossKind::SigmoidBce << 100.0f << 0.0f << 100.0;
        // sigmoid(-200) = 0 in float: log(p) = -inf, clamped at -100.
        QTest::newRow("sigmoid clamp z=-200 y=1") << LossKind::SigmoidBce << -200.0f << 1.0f << 100.0;
    }

    void sampleLossValues() {
        QFETCH(LossKind, kind);
        QFETCH(float, logit);
        QFETCH(float, label);
        QFETCH(double, expected);
        const double got = sampleLoss(kind, logit, label);
        QVERIFY2(std::isfinite(got), "loss must stay finite");
        QVERIFY2(std::abs(got - expected) <= 1e-5 * std::max(1.0, expected),
                 qPrintable(QString("got %1, expected %2").arg(got, 0, 'g', 10).arg(expected, 0, 'g', 10)));
    }

    void extremeLogitsGiveFiniteGradients() {
        const float logits[] = {100.0f, -100.0f, 100.0f, -100.0f};
        const float labels[] = {0.0f, 1.0f, 1.0f, 0.0f};
        for (LossKind kind : {LossKind::BceWithLogits, LossKind::SigmoidBce}) {
            float grad[4];
            const double sum = lossAndGrad(kind, logits, labels, 4, grad, nullptr);
            QVERIFY(std::isfinite(sum));
            for (float g : grad) QVERIFY(std::isfinite(g));
        }
        float grad[4];
        lossAndGrad(LossKind::BceWithLogits, logits, labels, 4, grad, nullptr);
        QCOMPARE(grad[0], 0.25f);   // (sigmoid(100) - 0) / 4
        QCOMPARE(grad[1], -0.25f);  // (sigmoid(-100) - 1) / 4
    }

    void gradientIsOfTheMean() {
        const float logits[] = {0.5f, -1.0f};
        const float labels[] = {1.0f, 0.0f};
        float grad[2];
        lossAndGrad(LossKind::BceWithLogits, logits, labels, 2, grad, nullptr);
        const double s0 = 1.0 / (1.0 + std::exp(-0.5)), s1 = 1.0 / (1.0 + std::exp(1.0));
        QVERIFY(std::abs(grad[0] - (s0 - 1.0) / 2.0) < 1e-7);
        QVERIFY(std::abs(grad[1] - s1 / 2.0) < 1e-7);
        float gradSigmoid[2];
        lossAndGrad(LossKind::SigmoidBce, logits, labels, 2, gradSigmoid, nullptr);
        QVERIFY(std::abs(gradSigmoid[0] - grad[0]) < 1e-6);  // same maths away from saturation
        QVERIFY(std::abs(gradSigmoid[1] - grad[1]) < 1e-6);
    }

    void accuracyThresholdsAtHalf() {
        const float logits[] = {0.0f, 0.0f, 1e-3f, -1e-3f, 5.0f};
        const float labels[] = {1.0f, 0.0f, 1.0f, 0.0f, 0.0f};
        std::size_t correct = 0;
        lossAndGrad(LossKind::BceWithLogits, logits, labels, 5, nullptr, &correct);
        QCOMPARE(correct, std::size_t{3});  // p = 0.5 counts as class 1
    }
};

QTEST_GUILESS_MAIN(TestLoss)
#include "tst_loss.moc"
