#include "core/model/math_ops.h"

#include <algorithm>
#include <cstring>

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include "core/model/step_math.h"

namespace wb {

namespace {
using ArrayMap = Eigen::Map<Eigen::ArrayXf>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXf>;

// The vectorised loops take the transcendental part of a formula from Eigen's packet maths into a
// block on the stack, then apply step_math's formula to it element by element (a loop of plain
// arithmetic that the compiler vectorises). kBlock floats: 1 KiB, stays in L1.
constexpr std::size_t kBlock = 256;
using Block = Eigen::Array<float, Eigen::Dynamic, 1, 0, kBlock, 1>;

// Calls body(first, count) for consecutive blocks of at most kBlock elements of [0, n).
template <class Body>
void forBlocks(std::size_t n, Body body) {
    for (std::size_t first = 0; first < n; first += kBlock) body(first, std::min(kBlock, n - first));
}

Eigen::Index len(std::size_t n) {
    return static_cast<Eigen::Index>(n);
}

// exp(-z^2 / 2) over a block, exactly 0 where it is below exp(-64) = 1.6e-28 (|z| > 11.3): the
// slope's term z phi(z) there is below 1e-27, and dropping it keeps the backward pass out of the
// subnormal range, where x86 cores take a microcode assist per operation (Eigen's exp returns
// subnormals from -87.3 down to -inf, and a product of a tiny slope with the upstream gradient
// gets there too). On an AMD EPYC (cpu_step_bench's activation table) GELU's backward pass took
// 5.06 ns per element on pre-activations spread over +-400 against 2.18 over +-4; with the cut,
// 2.65 and 2.29. A NaN z still gives NaN (the erf term carries it).
Block expHalfSquare(const ConstArrayMap& z) {
    constexpr float kLimit = 64.0f;
    const Block halfSquare = 0.5f * z.square();
    // Nothing to cut (the usual case, on standardised inputs): exp alone. A NaN takes the cut path.
    if (halfSquare.maxCoeff<Eigen::PropagateNaN>() < kLimit) return (-halfSquare).exp();
    Block e = (-halfSquare.min(kLimit)).exp();
    // e = 0 where halfSquare >= kLimit (or is NaN), as a vector blend of 8 lanes at a time: GCC does
    // not vectorise a plain loop with ?:, and Eigen 3.4's select() runs one element at a time.
    using Lanes = float __attribute__((vector_size(8 * sizeof(float))));
    const std::size_t n = static_cast<std::size_t>(e.size()), whole = n / 8 * 8;
    for (std::size_t i = 0; i < whole; i += 8) {
        Lanes h, v;
        std::memcpy(&h, halfSquare.data() + i, sizeof h);
        std::memcpy(&v, e.data() + i, sizeof v);
        v = h < kLimit ? v : Lanes{};
        std::memcpy(e.data() + i, &v, sizeof v);
    }
    for (std::size_t i = whole; i < n; ++i)
        if (!(halfSquare[len(i)] < kLimit)) e[len(i)] = 0.0f;
    return e;
}
}  // namespace

bool activationSaves(Activation a) {
    return a == Activation::Gelu;
}

void activate(Activation a, float* z, std::size_t n, float* saved) {
    switch (a) {
        case Activation::Tanh: ArrayMap(z, len(n)) = ConstArrayMap(z, len(n)).tanh(); return;
        case Activation::Relu:
            for (std::size_t i = 0; i < n; ++i) z[i] = stepmath::relu(z[i]);
            return;
        case Activation::Sigmoid:
            forBlocks(n, [&](std::size_t first, std::size_t count) {
                float* v = z + first;
                // (count) exp(-z), its argument kept >= -87: Eigen's exp clamps at -88.4 and returns
                // a subnormal there, and 1 + (a subnormal) takes a microcode assist per element (2.2x
                // the time on z spread over +-400); exp(-87) = 1.6e-38 gives the same 1 / (1 + e) = 1.
                Block e = (-ConstArrayMap(v, len(count))).max(-87.0f).exp();
                for (std::size_t i = 0; i < count; ++i) v[i] = stepmath::sigmoidFrom(e[len(i)]);
            });
            return;
        case Activation::Gelu:
            forBlocks(n, [&](std::size_t first, std::size_t count) {
                float* v = z + first;
                alignas(64) float scratch[kBlock];           // erf(z / sqrt 2) when not saved
                float* e = saved ? saved + first : scratch;  // (count)
                ArrayMap(e, len(count)) = (ConstArrayMap(v, len(count)) * stepmath::kInvSqrt2).erf();
                for (std::size_t i = 0; i < count; ++i) v[i] = stepmath::geluFrom(v[i], e[i]);
            });
            return;
        case Activation::Identity: return;
    }
}

void activationBackward(Activation a, const float* z, const float* y, float* dy, std::size_t n, const float* saved) {
    if (stepmath::elementwiseActivationBackward(a, z, y, dy, n)) return;
    // GELU, the one left: Phi(z) + z phi(z), its erf saved by activate() or computed here.
    forBlocks(n, [&](std::size_t first, std::size_t count) {
        const ConstArrayMap in(z + first, len(count));
        alignas(64) float scratch[kBlock];  // erf(z / sqrt 2) when the forward pass did not save it
        if (!saved) ArrayMap(scratch, len(count)) = (in * stepmath::kInvSqrt2).erf();
        const float* e = saved ? saved + first : scratch;  // (count)
        Block g = expHalfSquare(in);                       // (count) exp(-z^2 / 2)
        float* d = dy + first;
        for (std::size_t i = 0; i < count; ++i) d[i] = stepmath::geluBackwardFrom(z[first + i], e[i], g[len(i)], d[i]);
    });
}

double sampleLoss(LossKind kind, float logit, float label) {
    return stepmath::sampleLoss(kind, logit, label, stepmath::sigmoid(logit));
}

double lossAndGrad(LossKind kind, const float* logits, const float* labels, std::size_t n, float* dlogits,
                   std::size_t* correct) {
    double sum = 0.0;
    std::size_t right = 0;
    const float invN = 1.0f / static_cast<float>(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float p = stepmath::sigmoid(logits[i]);
        sum += stepmath::sampleLoss(kind, logits[i], labels[i], p);
        right += stepmath::isCorrect(p, labels[i]) ? 1 : 0;
        if (dlogits) dlogits[i] = stepmath::lossGrad(kind, labels[i], p, invN);
    }
    if (correct) *correct = right;
    return sum;
}

}  // namespace wb
