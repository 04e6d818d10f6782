#include "math_ops.h"

#include <algorithm>

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include "step_math.h"

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
                Block e = (-ConstArrayMap(v, len(count))).exp();  // (count) exp(-z)
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
    switch (a) {
        case Activation::Tanh:
            for (std::size_t i = 0; i < n; ++i) dy[i] = stepmath::tanhBackward(y[i], dy[i]);
            return;
        case Activation::Relu:
            for (std::size_t i = 0; i < n; ++i) dy[i] = stepmath::reluBackward(z[i], dy[i]);
            return;
        case Activation::Sigmoid:
            for (std::size_t i = 0; i < n; ++i) dy[i] = stepmath::sigmoidBackward(y[i], dy[i]);
            return;
        case Activation::Gelu:
            forBlocks(n, [&](std::size_t first, std::size_t count) {
                const ConstArrayMap in(z + first, len(count));
                alignas(64) float scratch[kBlock];  // erf(z / sqrt 2) when the forward pass did not save it
                if (!saved) ArrayMap(scratch, len(count)) = (in * stepmath::kInvSqrt2).erf();
                const float* e = saved ? saved + first : scratch;  // (count)
                Block g = (-0.5f * in.square()).exp();             // (count) exp(-z^2 / 2)
                float* d = dy + first;
                for (std::size_t i = 0; i < count; ++i)
                    d[i] = stepmath::geluBackwardFrom(z[first + i], e[i], g[len(i)], d[i]);
            });
            return;
        case Activation::Identity: return;
    }
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
