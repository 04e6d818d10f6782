// CpuMlp's forward and backward pass against a double-precision reference with plain loops, for
// shapes the tiled kernels must handle at their edges: a single row, batches that are not a
// multiple of the tile, layers narrower and wider than one register, and every activation.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/cpu/cpu_mlp.h"
#include "core/platform/errors.h"
#include "core/platform/random.h"
#include "tests/reference_activation.h"

using namespace wb;

Q_DECLARE_METATYPE(wb::Activation)
Q_DECLARE_METATYPE(const wb::CpuKernels*)

namespace {
double derivative(Activation a, double z) {
    switch (a) {
        case Activation::Tanh: return 1 - std::tanh(z) * std::tanh(z);
        case Activation::Relu: return z > 0 ? 1 : 0;
        case Activation::Sigmoid: return referenceActivation(a, z) * (1 - referenceActivation(a, z));
        case Activation::Gelu:
            return 0.5 * (1 + std::erf(z / std::sqrt(2.0))) + z * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
        case Activation::Identity: return 1;
    }
    return 1;
}

// Logits (rows) and the gradient (paramCount) of sum(logit * dlogit) by backpropagation in double.
struct Reference {
    std::vector<double> logits, grads;
};

Reference reference(const MlpParams& p, Activation act, const std::vector<float>& x, const std::vector<float>& dl,
                    std::size_t rows) {
    Reference ref{std::vector<double>(rows), std::vector<double>(p.count(), 0.0)};
    const auto& v = p.values;
    for (std::size_t r = 0; r < rows; ++r) {
        // Forward, keeping every layer's input and z.
        std::vector<std::vector<double>> inputs, zs;
        std::vector<double> in(x.begin() + long(r * p.layers[0].in), x.begin() + long((r + 1) * p.layers[0].in));
        for (std::size_t l = 0; l < p.layers.size(); ++l) {
            const LayerSlice& s = p.layers[l];
            std::vector<double> z(std::size_t(s.out)), out(std::size_t(s.out));
            for (int o = 0; o < s.out; ++o) {
                z[o] = v[s.biasOffset + o];
                for (int i = 0; i < s.in; ++i) z[o] += double(v[s.weightOffset + o * s.in + i]) * in[i];
                out[o] = l + 1 < p.layers.size() ? referenceActivation(act, z[o]) : z[o];
            }
            inputs.push_back(in);
            zs.push_back(z);
            in = out;
        }
        ref.logits[r] = in[0];
        // Backward.
        std::vector<double> delta{dl[r]};
        for (std::size_t l = p.layers.size(); l-- > 0;) {
            const LayerSlice& s = p.layers[l];
            std::vector<double> prev(std::size_t(s.in), 0.0);
            for (int o = 0; o < s.out; ++o) {
                ref.grads[s.biasOffset + o] += delta[o];
                for (int i = 0; i < s.in; ++i) {
                    ref.grads[s.weightOffset + o * s.in + i] += delta[o] * inputs[l][i];
                    prev[i] += delta[o] * v[s.weightOffset + o * s.in + i];
                }
            }
            if (l == 0) break;
            for (int i = 0; i < s.in; ++i) prev[i] *= derivative(act, zs[l - 1][i]);
            delta = prev;
        }
    }
    return ref;
}

bool close(double got, double want) {
    return std::abs(got - want) <= 1e-4 * std::abs(want) + 1e-5;
}
}  // namespace

class TestCpuMlp : public QObject {
    Q_OBJECT

private slots:
    void matchesReference_data() {
        QTest::addColumn<int>("inputs");
        QTest::addColumn<QList<int>>("hidden");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("capacity");
        QTest::addColumn<Activation>("activation");
        QTest::addColumn<const CpuKernels*>("kernels");
        const QList<Activation> activations{Activation::Tanh, Activation::Relu, Activation::Sigmoid, Activation::Gelu,
                                            Activation::Identity};
        // Every CPU target this processor runs: each has its own padding, register blocks and rounding.
        for (const CpuKernels* k : allRunnableCpuKernels())
            for (const Activation a : activations) {
                const QByteArray name = QByteArray::fromStdString(toString(a) + ", " + toString(k->target));
                QTest::newRow("7-5-3-1, one row, " + name) << 7 << QList<int>{5, 3} << 1 << 4 << a << k;
                QTest::newRow("7-5-3-1, 37 rows, " + name) << 7 << QList<int>{5, 3} << 37 << 37 << a << k;
                QTest::newRow("61-20-10-1, 70 of 96 rows, " + name) << 61 << QList<int>{20, 10} << 70 << 96 << a << k;
                QTest::newRow("3-40-17-1, 33 rows, " + name) << 3 << QList<int>{40, 17} << 33 << 40 << a << k;
                QTest::newRow("2-1, 9 rows, " + name) << 2 << QList<int>{} << 9 << 9 << a << k;
            }
    }

    void matchesReference() {
        QFETCH(int, inputs);
        QFETCH(QList<int>, hidden);
        QFETCH(int, rows);
        QFETCH(int, capacity);
        QFETCH(Activation, activation);
        QFETCH(const CpuKernels*, kernels);
        ModelSpec spec;
        spec.hidden.assign(hidden.begin(), hidden.end());
        spec.activation = activation;
        const MlpParams params = initParams(spec, std::size_t(inputs), 11);
        const auto n = std::size_t(rows);
        Rng rng(5);
        std::vector<float> x(n * std::size_t(inputs)), dl(n);
        for (auto& v : x) v = static_cast<float>(rng.normal());
        for (auto& v : dl) v = static_cast<float>(rng.normal()) / float(n);

        CpuMlp mlp(params, activation, std::size_t(capacity), nullptr, 0, *kernels);
        const float* logits = mlp.forward(x.data(), n);
        const Reference ref = reference(params, activation, x, dl, n);
        for (std::size_t r = 0; r < n; ++r)
            QVERIFY2(close(logits[r], ref.logits[r]), qPrintable(QString("logit %1").arg(r)));

        mlp.backward(x.data(), dl.data(), n, /*accumulate=*/false);
        for (std::size_t k = 0; k < params.count(); ++k)
            QVERIFY2(close(mlp.grads()[k], ref.grads[k]), qPrintable(QString("gradient %1").arg(k)));

        // accumulate: a second backward adds the same gradient again (PyTorch's .grad +=).
        mlp.backward(x.data(), dl.data(), n, /*accumulate=*/true);
        for (std::size_t k = 0; k < params.count(); ++k)
            QVERIFY2(close(mlp.grads()[k], 2 * ref.grads[k]), qPrintable(QString("accumulated gradient %1").arg(k)));
    }

    // Rows padded to paddedInputStride() are read in place by the backward pass; unpadded rows are
    // copied into a padded tile first. Both read the same numbers, so the results agree to the bit,
    // whatever lies in the padding.
    void paddedInputRowsGiveTheSameBits_data() {
        QTest::addColumn<int>("inputs");
        QTest::newRow("61 inputs (padded to 64)") << 61;
        QTest::newRow("3 inputs") << 3;
        QTest::newRow("a multiple of the padding") << int(CpuMlp::paddedInputStride(17));
    }
    void paddedInputRowsGiveTheSameBits() {
        QFETCH(int, inputs);
        const auto in = std::size_t(inputs), n = std::size_t(150), ldx = CpuMlp::paddedInputStride(in);
        QVERIFY(ldx >= in);
        ModelSpec spec;
        spec.activation = Activation::Gelu;
        const MlpParams params = initParams(spec, in, 3);
        Rng rng(8);
        std::vector<float> x(n * in), padded(n * ldx, std::nanf("")), dl(n);  // NaN padding: must be unread
        for (auto& v : x) v = static_cast<float>(rng.normal());
        for (auto& v : dl) v = static_cast<float>(rng.normal()) / float(n);
        for (std::size_t r = 0; r < n; ++r) std::copy_n(x.data() + r * in, in, padded.data() + r * ldx);

        CpuMlp plain(params, spec.activation, n), inPlace(params, spec.activation, n, nullptr, ldx);
        const float* a = plain.forward(x.data(), n);
        const float* b = inPlace.forward(padded.data(), n);
        for (std::size_t r = 0; r < n; ++r) QCOMPARE(b[r], a[r]);
        plain.backward(x.data(), dl.data(), n, false);
        inPlace.backward(padded.data(), dl.data(), n, false);
        for (std::size_t k = 0; k < params.count(); ++k)
            QVERIFY2(plain.grads()[k] == inPlace.grads()[k], qPrintable(QString("gradient %1").arg(k)));
    }

    // Every CPU target gives the same bits run after run (its sums run in a fixed order).
    void eachTargetIsDeterministic_data() {
        QTest::addColumn<const CpuKernels*>("kernels");
        for (const CpuKernels* k : allRunnableCpuKernels()) QTest::newRow(toString(k->target).c_str()) << k;
    }
    void eachTargetIsDeterministic() {
        QFETCH(const CpuKernels*, kernels);
        ModelSpec spec;  // the founding shape, 61-20-10-1 tanh
        const MlpParams params = initParams(spec, 61, 4);
        const std::size_t n = 300;
        Rng rng(9);
        std::vector<float> x(n * 61), dl(n);
        for (auto& v : x) v = static_cast<float>(rng.normal());
        for (auto& v : dl) v = static_cast<float>(rng.normal()) / float(n);
        std::vector<std::vector<float>> runs;
        for (int run = 0; run < 2; ++run) {
            CpuMlp mlp(params, spec.activation, n, nullptr, 0, *kernels);
            const float* logits = mlp.forward(x.data(), n);
            std::vector<float> out(logits, logits + n);
            mlp.backward(x.data(), dl.data(), n, false);
            out.insert(out.end(), mlp.grads().begin(), mlp.grads().end());
            runs.push_back(std::move(out));
        }
        QCOMPARE(std::memcmp(runs[0].data(), runs[1].data(), runs[0].size() * sizeof(float)), 0);
    }

    void rejectsBatchesAboveCapacity() {
        ModelSpec spec;
        CpuMlp mlp(initParams(spec, 4, 1), Activation::Tanh, 8);
        std::vector<float> x(9 * 4, 0.0f);
        QVERIFY_THROWS_EXCEPTION(ConfigError, mlp.forward(x.data(), 9));
    }
};

QTEST_APPLESS_MAIN(TestCpuMlp)
#include "tst_cpu_mlp.moc"
