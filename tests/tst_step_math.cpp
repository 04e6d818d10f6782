// The vectorised CPU loops (math_ops.cpp, cpu_loss.cpp, optimizer.cpp) against the scalar source they
// share, core/model/step_math.h: every activation and its derivative, both losses and their gradients,
// and every optimizer's update over several steps, including extreme inputs.
#include <QtTest>

#include <cmath>
#include <limits>
#include <vector>

#include "core/model/math_ops.h"
#include "core/model/optimizer.h"
#include "core/model/step_math.h"

using namespace wb;

Q_DECLARE_METATYPE(wb::Activation)
Q_DECLARE_METATYPE(wb::LossKind)
Q_DECLARE_METATYPE(wb::OptimizerSpec)

namespace {
// Equal to float rounding: core's tanh and logistic are Eigen's vectorised approximations, and the
// compiler may contract a*b+c differently in the two places.
bool close(double got, double expected, double rel = 2e-6, double abs = 1e-30) {
    if (std::isnan(expected)) return std::isnan(got);
    if (std::isinf(expected)) return got == expected;
    return std::abs(got - expected) <= rel * std::abs(expected) + abs;
}

QString mismatch(const char* what, double at, double got, double expected) {
    return QString("%1 at %2: got %3, expected %4")
        .arg(what)
        .arg(at, 0, 'g', 9)
        .arg(got, 0, 'g', 9)
        .arg(expected, 0, 'g', 9);
}

// Inputs from tiny to saturating, both signs.
const std::vector<float> kInputs = {-1e4f,  -200.0f, -100.0f, -30.0f, -17.0f, -8.0f,  -3.0f,  -1.0f, -0.5f,
                                    -1e-3f, -1e-7f,  0.0f,    1e-7f,  1e-3f,  0.25f,  0.5f,   1.0f,  2.0f,
                                    3.0f,   5.0f,    8.0f,    17.0f,  30.0f,  100.0f, 200.0f, 1e4f};

OptimizerSpec spec(OptimizerKind kind, double lr) {
    OptimizerSpec s = OptimizerSpec::defaults(kind);
    s.lr = lr;
    return s;
}
}  // namespace

class TestStepMath : public QObject {
    Q_OBJECT

private slots:
    void activations_data() {
        QTest::addColumn<Activation>("activation");
        QTest::newRow("tanh") << Activation::Tanh;
        QTest::newRow("relu") << Activation::Relu;
        QTest::newRow("sigmoid") << Activation::Sigmoid;
        QTest::newRow("gelu") << Activation::Gelu;
        QTest::newRow("identity") << Activation::Identity;
    }

    void activations() {
        QFETCH(Activation, activation);
        std::vector<float> y = kInputs;
        activate(activation, y.data(), y.size());
        // Upstream gradients of mixed sizes, so the derivative is checked times something.
        std::vector<float> dy(kInputs.size());
        for (std::size_t i = 0; i < dy.size(); ++i) dy[i] = 0.5f + static_cast<float>(i % 5) * 0.75f;
        std::vector<float> dz = dy;
        activationBackward(activation, kInputs.data(), y.data(), dz.data(), dz.size());
        for (std::size_t i = 0; i < kInputs.size(); ++i) {
            const float z = kInputs[i];
            const float got = stepmath::activate(activation, z);
            // Absolute 1e-6: near z = -3 gelu cancels in 1 + erf, and the erfs differ by a few ulp.
            QVERIFY2(close(got, y[i], 2e-6, 1e-6), qPrintable(mismatch("f", z, got, y[i])));
            // The derivative from core's own y, so only the derivative formula is compared.
            const float d = stepmath::activationBackward(activation, z, y[i], dy[i]);
            QVERIFY2(close(d, dz[i], 2e-6, 1e-6), qPrintable(mismatch("f'", z, d, dz[i])));
            QVERIFY(std::isfinite(got) && std::isfinite(d));
        }
    }

    void losses_data() {
        QTest::addColumn<LossKind>("kind");
        QTest::addColumn<float>("label");
        QTest::newRow("bce_with_logits y=0") << LossKind::BceWithLogits << 0.0f;
        QTest::newRow("bce_with_logits y=1") << LossKind::BceWithLogits << 1.0f;
        QTest::newRow("sigmoid_bce y=0") << LossKind::SigmoidBce << 0.0f;
        QTest::newRow("sigmoid_bce y=1") << LossKind::SigmoidBce << 1.0f;
    }

    void losses() {
        QFETCH(LossKind, kind);
        QFETCH(float, label);
        const std::size_t n = kInputs.size();
        const std::vector<float> labels(n, label);
        std::vector<float> dlogits(n);
        std::size_t correct = 0;
        const double sum = lossAndGrad(kind, kInputs.data(), labels.data(), n, dlogits.data(), &correct);
        const float invN = 1.0f / static_cast<float>(n);
        double mySum = 0.0;
        std::size_t myCorrect = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const float z = kInputs[i];
            const float p = stepmath::sigmoid(z);
            const float loss = stepmath::sampleLoss(kind, z, label, p);
            const double expected = sampleLoss(kind, z, label);
            QVERIFY2(close(loss, expected, 2e-6, 1e-7), qPrintable(mismatch("loss", z, loss, expected)));
            QVERIFY2(std::isfinite(loss), "loss must stay finite, clamped or stable");
            const float g = stepmath::lossGrad(kind, label, p, invN);
            QVERIFY2(close(g, dlogits[i], 2e-6, 1e-12), qPrintable(mismatch("dloss/dz", z, g, dlogits[i])));
            mySum += loss;
            myCorrect += stepmath::isCorrect(p, label) ? 1 : 0;
        }
        QCOMPARE(myCorrect, correct);
        QVERIFY(close(mySum, sum, 1e-6));
    }

    void clampAndStability() {
        // sigmoid(100) is 1 in float: BCELoss's clamped log gives exactly 100; the stable form too.
        QCOMPARE(stepmath::sampleLoss(LossKind::SigmoidBce, 100.0f, 0.0f, stepmath::sigmoid(100.0f)), 100.0f);
        QCOMPARE(stepmath::sampleLoss(LossKind::BceWithLogits, 100.0f, 0.0f, stepmath::sigmoid(100.0f)), 100.0f);
        // A NaN logit stays NaN (std::max semantics), so divergence is seen, not clamped away.
        const float nan = std::numeric_limits<float>::quiet_NaN();
        QVERIFY(std::isnan(stepmath::sampleLoss(LossKind::SigmoidBce, nan, 1.0f, stepmath::sigmoid(nan))));
        QVERIFY(std::isnan(stepmath::sampleLoss(LossKind::BceWithLogits, nan, 1.0f, stepmath::sigmoid(nan))));
    }

    void optimizers_data() {
        QTest::addColumn<OptimizerSpec>("spec");
        OptimizerSpec s = spec(OptimizerKind::Adam, 1e-3);
        QTest::newRow("adam") << s;
        s.weightDecay = 0.1;
        QTest::newRow("adam L2") << s;
        s = spec(OptimizerKind::Adam, 0.05);
        s.beta1 = 0.5;
        s.beta2 = 0.9;
        s.eps = 1e-3;
        QTest::newRow("adam betas eps") << s;
        QTest::newRow("adamw") << spec(OptimizerKind::AdamW, 1e-2);
        s = spec(OptimizerKind::AdamW, 1e-2);
        s.weightDecay = 0.5;
        QTest::newRow("adamw strong decay") << s;
        QTest::newRow("sgd") << spec(OptimizerKind::Sgd, 0.1);
        s = spec(OptimizerKind::Sgd, 0.1);
        s.weightDecay = 0.01;
        QTest::newRow("sgd weight decay") << s;
        s = spec(OptimizerKind::Sgd, 0.1);
        s.momentum = 0.9;
        QTest::newRow("sgd momentum") << s;
        s.dampening = 0.3;
        QTest::newRow("sgd momentum dampening") << s;
        s = spec(OptimizerKind::Sgd, 0.1);
        s.momentum = 0.9;
        s.nesterov = true;
        s.weightDecay = 0.01;
        QTest::newRow("sgd nesterov decay") << s;
        QTest::newRow("rmsprop") << spec(OptimizerKind::RmsProp, 1e-2);
        s = spec(OptimizerKind::RmsProp, 1e-2);
        s.centered = true;
        QTest::newRow("rmsprop centred") << s;
        s.momentum = 0.5;
        QTest::newRow("rmsprop centred momentum") << s;
        s = spec(OptimizerKind::RmsProp, 1e-2);
        s.momentum = 0.9;
        s.weightDecay = 0.05;
        s.alpha = 0.9;
        QTest::newRow("rmsprop momentum decay") << s;
    }

    void optimizers() {
        QFETCH(OptimizerSpec, spec);
        const std::vector<float> start = {1.0f, -2.0f, 0.5f, 0.0f, 1e-20f, 3e4f, -7.25f};
        // Five steps of gradients, tiny to huge, both signs, zeros.
        const std::vector<std::vector<float>> grads = {{0.5f, -0.1f, 2.0f, 0.0f, 1e-20f, 1e6f, -1e-6f},
                                                       {-0.25f, 0.3f, 1.0f, 1e-3f, 0.0f, -1e6f, 5.0f},
                                                       {0.125f, 0.3f, -3.0f, -1e-3f, 1e-30f, 1e3f, 5.0f},
                                                       {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f},
                                                       {1e-8f, -4.0f, 0.75f, 1.0f, -1e-10f, 0.5f, -0.5f}};
        auto reference = makeOptimizer(spec, start.size());
        std::vector<float> expected = start;

        const stepmath::OptimizerScalars scalars = stepmath::optimizerScalars(spec);
        std::vector<float> got = start;
        std::vector<std::vector<float>> state(3, std::vector<float>(start.size(), 0.0f));
        const int stateCount = stepmath::optimizerStateCount(scalars);
        float* slot[3] = {nullptr, nullptr, nullptr};
        for (int k = 0; k < stateCount; ++k) slot[k] = state[static_cast<std::size_t>(k)].data();

        for (std::size_t t = 0; t < grads.size(); ++t) {
            reference->beginStep();
            reference->update(expected.data(), grads[t].data(), 0, expected.size());
            const stepmath::StepScalars step = stepmath::stepScalars(scalars, static_cast<long>(t + 1));
            for (std::size_t i = 0; i < got.size(); ++i)
                stepmath::updateElement(scalars, step, got.data(), grads[t].data(), slot[0], slot[1], slot[2], i);
            for (std::size_t i = 0; i < got.size(); ++i)
                QVERIFY2(close(got[i], expected[i], 1e-6, 1e-30),
                         qPrintable(mismatch("param", static_cast<double>(i), got[i], expected[i]) +
                                    QString(" after step %1").arg(t + 1)));
        }
    }

    void stateCounts() {
        QCOMPARE(stepmath::optimizerStateCount(stepmath::optimizerScalars(spec(OptimizerKind::Adam, 1e-3))), 2);
        QCOMPARE(stepmath::optimizerStateCount(stepmath::optimizerScalars(spec(OptimizerKind::AdamW, 1e-3))), 2);
        QCOMPARE(stepmath::optimizerStateCount(stepmath::optimizerScalars(spec(OptimizerKind::Sgd, 1e-3))), 0);
        OptimizerSpec m = spec(OptimizerKind::Sgd, 1e-3);
        m.momentum = 0.9;
        QCOMPARE(stepmath::optimizerStateCount(stepmath::optimizerScalars(m)), 1);
        QCOMPARE(stepmath::optimizerStateCount(stepmath::optimizerScalars(spec(OptimizerKind::RmsProp, 1e-2))), 3);
    }
};

QTEST_GUILESS_MAIN(TestStepMath)
#include "tst_step_math.moc"
