// Backpropagation of the CPU MLP against central finite differences of the mean loss, for every
// activation and both losses.
#include <QtTest>

#include <cmath>

#include "core/cpu/cpu_mlp.h"
#include "core/model/math_ops.h"
#include "core/platform/random.h"
#include "tests/reference_activation.h"

using namespace wb;

Q_DECLARE_METATYPE(wb::Activation)
Q_DECLARE_METATYPE(wb::LossKind)

class TestGradients : public QObject {
    Q_OBJECT

private:
    static constexpr std::size_t kRows = 16, kInputs = 5;

    // An independent reference: the MLP's mean loss computed in double precision with plain loops,
    // so central differences with a tiny step are accurate and rarely straddle a relu kink.
    static double referenceLoss(const MlpParams& p, const std::vector<double>& values, Activation a, LossKind loss,
                                const std::vector<float>& x, const std::vector<float>& y) {
        double sum = 0;
        for (std::size_t r = 0; r < kRows; ++r) {
            std::vector<double> in(x.begin() + r * kInputs, x.begin() + (r + 1) * kInputs);
            for (std::size_t l = 0; l < p.layers.size(); ++l) {
                const LayerSlice& s = p.layers[l];
                std::vector<double> out(s.out);
                for (int o = 0; o < s.out; ++o) {
                    double z = values[s.biasOffset + o];
                    for (int i = 0; i < s.in; ++i) z += values[s.weightOffset + o * s.in + i] * in[i];
                    out[o] = l + 1 < p.layers.size() ? referenceActivation(a, z) : z;
                }
                in = out;
            }
            const double z = in[0], label = y[r];
            const double prob = 1 / (1 + std::exp(-z));
            sum += loss == LossKind::BceWithLogits ? std::max(z, 0.0) - z * label + std::log1p(std::exp(-std::abs(z)))
                                                   : -(label * std::log(prob) + (1 - label) * std::log(1 - prob));
        }
        return sum / kRows;
    }

private slots:
    void matchesFiniteDifferences_data() {
        QTest::addColumn<Activation>("activation");
        QTest::addColumn<LossKind>("loss");
        const std::pair<Activation, const char*> acts[] = {{Activation::Tanh, "tanh"},
                                                           {Activation::Relu, "relu"},
                                                           {Activation::Sigmoid, "sigmoid"},
                                                           {Activation::Gelu, "gelu"},
                                                           {Activation::Identity, "identity"}};
        for (const auto& [a, name] : acts) {
            QTest::addRow("%s/bce_with_logits", name) << a << LossKind::BceWithLogits;
            QTest::addRow("%s/sigmoid_bce", name) << a << LossKind::SigmoidBce;
        }
    }

    void matchesFiniteDifferences() {
        QFETCH(Activation, activation);
        QFETCH(LossKind, loss);
        ModelSpec spec;
        spec.hidden = {7, 4};
        spec.activation = activation;
        Rng rng(42);
        std::vector<float> x(kRows * kInputs), y(kRows);
        for (auto& v : x) v = static_cast<float>(rng.normal());
        for (std::size_t i = 0; i < kRows; ++i) y[i] = static_cast<float>(i % 2);

        CpuMlp mlp(initParams(spec, kInputs, 7), activation, kRows);
        const float* logits = mlp.forward(x.data(), kRows);
        std::vector<float> dlogits(kRows);
        lossAndGrad(loss, logits, y.data(), kRows, dlogits.data(), nullptr);
        mlp.backward(x.data(), dlogits.data(), kRows, /*accumulate=*/false);
        const auto analytic = mlp.grads();

        const MlpParams p = mlp.params();
        std::vector<double> values(p.values.begin(), p.values.end());
        const double h = 1e-6;
        for (std::size_t k = 0; k < values.size(); ++k) {
            const double saved = values[k];
            values[k] = saved + h;
            const double up = referenceLoss(p, values, activation, loss, x, y);
            values[k] = saved - h;
            const double down = referenceLoss(p, values, activation, loss, x, y);
            values[k] = saved;
            const double numeric = (up - down) / (2 * h);
            const double tolerance = 1e-5 + 1e-3 * std::abs(numeric);  // float32 analytic vs double numeric
            if (std::abs(numeric - analytic[k]) > tolerance)
                QFAIL(
                    qPrintable(QString("parameter %1: analytic %2, numeric %3").arg(k).arg(analytic[k]).arg(numeric)));
        }
    }

    void accumulateAddsToExistingGradients() {
        ModelSpec spec;
        CpuMlp mlp(initParams(spec, kInputs, 3), Activation::Tanh, kRows);
        std::vector<float> x(kRows * kInputs, 0.5f), dlogits(kRows, 0.1f);
        mlp.forward(x.data(), kRows);
        mlp.backward(x.data(), dlogits.data(), kRows, false);
        const auto once = mlp.grads();
        mlp.backward(x.data(), dlogits.data(), kRows, true);
        for (std::size_t k = 0; k < once.size(); ++k) QCOMPARE(mlp.grads()[k], 2.0f * once[k]);
        mlp.zeroGrads();
        for (float g : mlp.grads()) QCOMPARE(g, 0.0f);
    }
};

QTEST_GUILESS_MAIN(TestGradients)
#include "tst_gradients.moc"
