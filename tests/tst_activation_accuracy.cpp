// The CPU's vectorised activations and derivatives (math_ops.h: activate, activationBackward, and
// the CPU kernels' own for every target this processor runs, cpu_tile_kernels.h) against a
// double-precision reference over the whole float range: every exponent of both signs, zeros,
// subnormals, the largest floats, ±inf and NaN. Values within 1e-6 (absolute, or relative where
// the value exceeds 1); a NaN reference wants a NaN, an infinite one the same infinity.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/cpu/cpu_tile_kernels.h"
#include "core/model/math_ops.h"
#include "tests/reference_activation.h"

using namespace wb;

Q_DECLARE_METATYPE(wb::Activation)
Q_DECLARE_METATYPE(const wb::CpuKernels*)

namespace {
float fromBits(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// Bit patterns at a stride coprime to 2^32 (every exponent, both signs, NaNs among them) and the
// special values.
std::vector<float> wholeRange() {
    std::vector<float> v;
    for (std::uint64_t bits = 0; bits < (1ull << 32); bits += 40'009)
        v.push_back(fromBits(static_cast<std::uint32_t>(bits)));
    const float inf = std::numeric_limits<float>::infinity();
    for (float s : {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::max(),
                    std::numeric_limits<float>::lowest(), std::numeric_limits<float>::denorm_min(),
                    std::numeric_limits<float>::min(), -3.0f, -1.0f, 1e-4f, 0.5f, 4.0f, 9.0f, -9.0f,
                    // around the CPU backend's cut of GELU's exp(-z^2 / 2) to 0, and where it turns subnormal
                    11.2f, -11.2f, 11.4f, -11.4f, 13.5f, -13.5f})
        v.push_back(s);
    return v;
}

bool matches(double got, double expected) {
    if (std::isnan(expected)) return std::isnan(got);
    if (std::isinf(expected)) return got == expected;
    // The float rounding of the reference itself is within this bound.
    return std::abs(got - expected) <= 1e-6 * std::max(1.0, std::abs(expected));
}

// activate() and activationBackward() of a target's kernels, or math_ops.h's where `k` is null.
void activateWith(const CpuKernels* k, Activation a, float* z, std::size_t n, float* saved = nullptr) {
    k ? k->activate(a, z, n, saved) : activate(a, z, n, saved);
}
void activationBackwardWith(const CpuKernels* k, Activation a, const float* z, const float* y, float* dy, std::size_t n,
                            const float* saved = nullptr) {
    k ? k->activationBackward(a, z, y, dy, n, saved) : activationBackward(a, z, y, dy, n, saved);
}

QString mismatch(const char* what, float z, double got, double expected) {
    return QString("%1 at %2: got %3, expected %4")
        .arg(what)
        .arg(z, 0, 'g', 9)
        .arg(got, 0, 'g', 9)
        .arg(expected, 0, 'g', 9);
}
}  // namespace

class TestActivationAccuracy : public QObject {
    Q_OBJECT

private slots:
    void wholeFloatRange_data() {
        QTest::addColumn<Activation>("activation");
        QTest::addColumn<const CpuKernels*>("kernels");  // null: math_ops.h's
        std::vector<const CpuKernels*> implementations{nullptr};
        for (const CpuKernels* k : allRunnableCpuKernels()) implementations.push_back(k);
        for (const CpuKernels* k : implementations)
            for (const Activation a :
                 {Activation::Tanh, Activation::Sigmoid, Activation::Gelu, Activation::Relu, Activation::Identity})
                QTest::addRow("%s, %s", toString(a).c_str(), k ? toString(k->target).c_str() : "math_ops") << a << k;
    }

    void wholeFloatRange() {
        QFETCH(Activation, activation);
        QFETCH(const CpuKernels*, kernels);
        const std::vector<float> z = wholeRange();
        std::vector<float> y = z;
        activateWith(kernels, activation, y.data(), y.size());
        std::vector<float> dz(z.size(), 1.0f);  // upstream gradient 1: dz is f'(z) itself
        activationBackwardWith(kernels, activation, z.data(), y.data(), dz.data(), dz.size());
        int failures = 0;
        for (std::size_t i = 0; i < z.size() && failures < 5; ++i) {
            const double ref = referenceActivation(activation, z[i]);
            const double dref = referenceDerivative(activation, z[i]);
            if (!matches(y[i], ref)) {
                qWarning().noquote() << mismatch("f", z[i], y[i], ref);
                ++failures;
            }
            if (!matches(dz[i], dref)) {
                qWarning().noquote() << mismatch("f'", z[i], dz[i], dref);
                ++failures;
            }
        }
        QCOMPARE(failures, 0);
    }

    // What activate() saves for the backward pass gives the same derivative, to the bit, as
    // recomputing it; the activations that save nothing leave the buffer alone.
    void savedValuesGiveTheSameDerivative_data() { wholeFloatRange_data(); }
    void savedValuesGiveTheSameDerivative() {
        QFETCH(Activation, activation);
        QFETCH(const CpuKernels*, kernels);
        const std::vector<float> z = wholeRange();
        std::vector<float> y = z, saved(z.size(), -7.0f);
        activateWith(kernels, activation, y.data(), y.size(), saved.data());
        if (!activationSaves(activation))
            QVERIFY(std::all_of(saved.begin(), saved.end(), [](float v) { return v == -7.0f; }));
        std::vector<float> plain(z.size(), 0.75f), reused(z.size(), 0.75f);
        activationBackwardWith(kernels, activation, z.data(), y.data(), plain.data(), plain.size());
        activationBackwardWith(kernels, activation, z.data(), y.data(), reused.data(), reused.size(),
                               activationSaves(activation) ? saved.data() : nullptr);
        QCOMPARE(std::memcmp(plain.data(), reused.data(), plain.size() * sizeof(float)), 0);
    }
};

QTEST_GUILESS_MAIN(TestActivationAccuracy)
#include "tst_activation_accuracy.moc"
