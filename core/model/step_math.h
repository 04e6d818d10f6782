// The one definition of the per-element maths of a training step, for the host and the device:
// activations and their derivatives, the per-sample losses and their gradients, and one element of
// each optimizer's update. core's CPU loops call these functions (math_ops.cpp, cpu_loss.cpp,
// optimizer.cpp) and the CUDA kernels (kernels/) include this same header, so a formula is written
// once. The transcendental functions are the one part with a second form: the CPU's vectorised
// loops compute tanh, exp, log, log1p and erf with Eigen's packet maths and pass the values to the
// `...From` formulas below; the scalar forms here call libm (or CUDA's device maths), which differ
// from Eigen's by a few ulp. tst_step_math checks the vectorised loops against this scalar source.
//
// CUDA-free: no CUDA header is included; under nvcc the functions become __host__ __device__, for
// the host compiler WB_HD is empty. Maths is called through the global C functions (::tanhf,
// ::expf, ...), which CUDA declares for the device and <math.h> declares for the host.
#pragma once

#include <math.h>  // NOLINT(modernize-deprecated-headers): the global ::tanhf, ::expf, ... (see above)

#include <cstddef>

#include "core/data/task.h"
#include "core/model/loss_spec.h"
#include "core/model/math_ops.h"
#include "core/model/model.h"
#include "core/model/optimizer.h"

#ifdef __CUDACC__
#define WB_HD __host__ __device__
#else
#define WB_HD
#endif

namespace wb::stepmath {

// std::max's semantics (a NaN first argument is returned), unlike fmaxf, which drops a NaN.
WB_HD inline float maxOf(float a, float b) {
    return (a < b) ? b : a;
}

// ---- Activations --------------------------------------------------------------------------------

constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;

// Each formula takes its transcendental part as an argument, so the CPU's vectorised loops can
// supply it from Eigen's packet maths and still share the formula.

// sigmoid given e = exp(-z).
WB_HD inline float sigmoidFrom(float e) {
    return 1.0f / (1.0f + e);
}
WB_HD inline float relu(float z) {
    return z > 0.0f ? z : 0.0f;
}
// Exact GELU (PyTorch's default), x Phi(x), given erfTerm = erf(z / sqrt 2).
WB_HD inline float geluFrom(float z, float erfTerm) {
    return 0.5f * z * (1.0f + erfTerm);
}

// dz = dy f'(z) for each activation, from what it needs: tanh and sigmoid their output y, relu z.
WB_HD inline float tanhBackward(float y, float dy) {
    return dy * (1.0f - y * y);
}
WB_HD inline float sigmoidBackward(float y, float dy) {
    return dy * (y * (1.0f - y));
}
WB_HD inline float reluBackward(float z, float dy) {
    return z > 0.0f ? dy : 0.0f;
}
// GELU's derivative Phi(z) + z phi(z), given erfTerm = erf(z / sqrt 2) and expTerm = exp(-z^2 / 2).
WB_HD inline float geluBackwardFrom(float z, float erfTerm, float expTerm, float dy) {
    return dy * (0.5f * (1.0f + erfTerm) + z * kInvSqrt2Pi * expTerm);
}

WB_HD inline float sigmoid(float z) {
    return sigmoidFrom(::expf(-z));
}

// y = f(z).
WB_HD inline float activate(Activation a, float z) {
    switch (a) {
        case Activation::Tanh: return ::tanhf(z);
        case Activation::Relu: return relu(z);
        case Activation::Sigmoid: return sigmoid(z);
        case Activation::Gelu: return geluFrom(z, ::erff(z * kInvSqrt2));
        case Activation::Identity: return z;
    }
    return z;
}

// dz = dy * f'(z), given z and y = f(z) (tanh and sigmoid use y, relu and gelu use z).
WB_HD inline float activationBackward(Activation a, float z, float y, float dy) {
    switch (a) {
        case Activation::Tanh: return tanhBackward(y, dy);
        case Activation::Relu: return reluBackward(z, dy);
        case Activation::Sigmoid: return sigmoidBackward(y, dy);
        case Activation::Gelu: return geluBackwardFrom(z, ::erff(z * kInvSqrt2), ::expf(-0.5f * z * z), dy);
        case Activation::Identity: return dy;
    }
    return dy;
}

// ---- Losses of a binary label (one logit z, one label y in {0, 1}) -------------------------------

// BCEWithLogits: max(z,0) - z y + log(1 + exp(-|z|)), finite for any finite z; given
// softplusTerm = log1p(exp(-|z|)).
WB_HD inline float bceWithLogitsFrom(float z, float y, float softplusTerm) {
    return maxOf(z, 0.0f) - z * y + softplusTerm;
}
// Sigmoid + BCELoss given logP = log(p) and log1mP = log(1 - p): BCELoss clamps each log at -100.
WB_HD inline float sigmoidBceFrom(float y, float logP, float log1mP) {
    return -(y * maxOf(logP, -100.0f) + (1.0f - y) * maxOf(log1mP, -100.0f));
}

// The per-sample loss; `p` = sigmoid(z), which the caller needs anyway.
WB_HD inline float sampleLoss(LossKind kind, float z, float y, float p) {
    if (kind == LossKind::BceWithLogits) return bceWithLogitsFrom(z, y, ::log1pf(::expf(-::fabsf(z))));
    return sigmoidBceFrom(y, ::logf(p), ::logf(1.0f - p));
}

// BCELoss's backward, then the sigmoid's: PyTorch's two separate steps.
WB_HD inline float sigmoidBceGrad(float y, float p, float invN) {
    const float dp = (p - y) / maxOf((1.0f - p) * p, 1e-12f) * invN;
    return dp * (p * (1.0f - p));
}

// d(mean loss)/dz for this sample, with invN = 1 / (rows of the batch).
WB_HD inline float lossGrad(LossKind kind, float y, float p, float invN) {
    if (kind == LossKind::BceWithLogits) return (p - y) * invN;
    return sigmoidBceGrad(y, p, invN);
}

// Whether the prediction (p >= 0.5) matches the label.
WB_HD inline bool isCorrect(float p, float y) {
    return (p >= 0.5f) == (y >= 0.5f);
}

// ---- Losses of K logits per row (multiclass) ---------------------------------------------------
// The `loss` switch keeps its meaning: bce_with_logits stands for the fused CrossEntropyLoss on the
// logits, sigmoid_bce for the separate steps torch.log(torch.softmax(z, 1)) + NLLLoss.

// CrossEntropyLoss of one row given lse = log(sum_k exp(z_k)) (computed as m + log sum exp(z - m)
// with m = max z, which never overflows) and zy = the target's logit.
WB_HD inline float crossEntropyFrom(float lse, float zy) {
    return lse - zy;
}
// NLLLoss of log(softmax): -log(p_y), not clamped (torch.log(0) is -inf, and so is this).
WB_HD inline float softmaxNllFrom(float logPy) {
    return -logPy;
}
// CrossEntropyLoss' d(mean loss)/dz_k: (p_k - [k = y]) / N.
WB_HD inline float crossEntropyGrad(float pk, bool isTarget, float invN) {
    return (pk - (isTarget ? 1.0f : 0.0f)) * invN;
}
// The separate steps' backward, as PyTorch chains them: NLLLoss gives g_y = -1/N at the target,
// log's backward g_y / p_y, softmax's backward p_k (g_k - sum_j g_j p_j) = p_k (g_k - g_y p_y).
// A p_y that underflowed to 0 gives -inf * 0 = NaN, as in PyTorch.
WB_HD inline float softmaxNllGrad(float pk, bool isTarget, float py, float invN) {
    const float gy = -invN / py;
    return pk * ((isTarget ? gy : 0.0f) - gy * py);
}

// ---- Losses of one output per row (regression) -------------------------------------------------

// MSELoss of one row: (z - t)^2.
WB_HD inline float squaredError(float z, float t) {
    const float d = z - t;
    return d * d;
}
// HuberLoss (delta 1), equal to SmoothL1Loss (beta 1): 0.5 d^2 within 1, |d| - 0.5 beyond.
WB_HD inline float huber(float z, float t) {
    const float d = ::fabsf(z - t);
    return d < 1.0f ? 0.5f * d * d : d - 0.5f;
}
// d(mean loss)/dz for the regression loss chosen.
WB_HD inline float regressionGrad(RegressionLoss loss, float z, float t, float invN) {
    const float d = z - t;
    if (loss == RegressionLoss::Mse) return 2.0f * d * invN;
    return (d < -1.0f ? -1.0f : d > 1.0f ? 1.0f : d) * invN;
}
WB_HD inline float regressionLoss(RegressionLoss loss, float z, float t) {
    return loss == RegressionLoss::Mse ? squaredError(z, t) : huber(z, t);
}

// ---- One row of any task's loss ---------------------------------------------------------------

struct RowLoss {
    float loss = 0.0f;                                // the row's loss times its class weight
    float weight = 1.0f;                              // the row's class weight (1 without weights)
    bool right = false;                               // classification: the prediction is the label
    float squaredError = 0.0f, absoluteError = 0.0f;  // regression: (z - t)^2 and |z - t|
};

// Whether `label` names one of `classes` classes (0..classes-1; a fraction truncates, as the int
// conversion does). Checked on the float, before any conversion: converting a NaN or out-of-range
// float to an integer is undefined behaviour.
WB_HD inline bool isClassLabel(float label, int classes) {
    return label >= 0.0f && label < static_cast<float>(classes);
}

// The class weight of a row labelled `label`: spec.classWeights[label] (1 without weights); NaN
// for a label outside 0..K-1, which multiclassRow reports as a NaN loss anyway.
WB_HD inline float classWeightOf(const LossSpec& spec, float label) {
    if (!spec.classWeights || spec.task != Task::Multiclass) return 1.0f;
    if (!isClassLabel(label, spec.outputs)) return ::nanf("");
    return spec.classWeights[static_cast<int>(label)];
}

// A multiclass row: the first largest logit predicts (torch.argmax); m = that logit keeps every
// exp(z - m) <= 1. A label outside 0..K-1 gives a NaN loss and zero gradients instead of a read
// out of bounds (prepare() never lets one through). `weight` = the row's class weight w[y]: the
// loss is w l and the gradient w dl/dz * invN, so with invN = 1 / (sum of the batch's weights) the
// batch's gradient is PyTorch's weighted mean's (w = 1, invN = 1/N: the plain mean, bit for bit).
WB_HD inline RowLoss multiclassRow(LossKind kind, const float* z, int k, float label, float weight, float invN,
                                   float scale, float* g) {
    RowLoss r;
    if (!isClassLabel(label, k)) {
        r.loss = ::nanf("");
        r.weight = weight;
        for (int j = 0; g && j < k; ++j) g[j] = 0.0f;
        return r;
    }
    const int y = static_cast<int>(label);
    int best = 0;
    for (int j = 1; j < k; ++j)
        if (z[j] > z[best]) best = j;
    const float m = z[best];
    float sum = 0.0f;
    for (int j = 0; j < k; ++j) sum += ::expf(z[j] - m);
    const float py = ::expf(z[y] - m) / sum;
    const bool fused = kind == LossKind::BceWithLogits;
    r.loss = weight * (fused ? crossEntropyFrom(m + ::logf(sum), z[y]) : softmaxNllFrom(::logf(py)));
    r.weight = weight;
    r.right = best == y;
    const float rowScale = weight * invN;
    for (int j = 0; g && j < k; ++j) {
        const float pj = ::expf(z[j] - m) / sum;
        g[j] = (fused ? crossEntropyGrad(pj, j == y, rowScale) : softmaxNllGrad(pj, j == y, py, rowScale)) * scale;
    }
    return r;
}

// One row of `spec`'s loss from its logits z (outputs) and label; writes g (outputs) =
// d(mean loss)/dz * scale unless g is null. invN = 1 / (rows of the batch), or with class weights
// 1 / (sum of the batch's row weights, classWeightOf); scale = the fp16 loss scale (1 otherwise).
// The CPU (task_loss.cpp) and the CUDA loss kernel both run this per row.
WB_HD inline RowLoss rowLoss(const LossSpec& spec, const float* z, float label, float invN, float scale, float* g) {
    RowLoss r;
    if (spec.task == Task::Multiclass)
        return multiclassRow(spec.kind, z, spec.outputs, label, classWeightOf(spec, label), invN, scale, g);
    if (spec.task == Task::Regression) {
        r.loss = regressionLoss(spec.regression, z[0], label);
        r.squaredError = squaredError(z[0], label);
        r.absoluteError = ::fabsf(z[0] - label);
        if (g) g[0] = regressionGrad(spec.regression, z[0], label, invN) * scale;
        return r;
    }
    const float p = sigmoid(z[0]);
    r.loss = sampleLoss(spec.kind, z[0], label, p);
    r.right = isCorrect(p, label);
    if (g) g[0] = lossGrad(spec.kind, label, p, invN) * scale;
    return r;
}

// The sum of the class weights of labels (n), in double, in row order: the denominator of a
// weighted batch's mean (its float is what invN inverts). The CPU and the CUDA batch-weight kernel
// (one thread per row, a fixed tree) agree to rounding.
inline double batchWeightSum(const LossSpec& spec, const float* labels, std::size_t n) {
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum += static_cast<double>(classWeightOf(spec, labels[i]));
    return sum;
}

// ---- Optimizers ---------------------------------------------------------------------------------

// The hyper-parameters of one optimizer as the element-wise update reads them: doubles where core
// computes in double (per-step scalars), floats where it casts before the element loop.
struct OptimizerScalars {
    OptimizerKind kind = OptimizerKind::Adam;
    double lrD = 1e-3, beta1D = 0.9, beta2D = 0.999;  // for the per-step scalars
    float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weightDecay = 0.0f;
    float decay = 1.0f;  // AdamW: 1 - lr * weight_decay, computed in double
    float momentum = 0.0f, dampening = 0.0f, alpha = 0.99f;
    bool nesterov = false, centered = false;
};

// The values that change with the step number t (1 for the first step).
struct StepScalars {
    float stepSize = 0.0f;  // Adam/AdamW: lr / (1 - beta1^t)
    float bc2Sqrt = 1.0f;   // Adam/AdamW: sqrt(1 - beta2^t)
    bool firstStep = true;  // SGD: the momentum buffer starts as a copy of the gradient
};

// Host only: the scalars of `spec`, cast as core's Optimizer casts them.
inline OptimizerScalars optimizerScalars(const OptimizerSpec& spec) {
    OptimizerScalars s;
    s.kind = spec.kind;
    s.lrD = spec.lr;
    s.beta1D = spec.beta1;
    s.beta2D = spec.beta2;
    s.lr = static_cast<float>(spec.lr);
    s.beta1 = static_cast<float>(spec.beta1);
    s.beta2 = static_cast<float>(spec.beta2);
    s.eps = static_cast<float>(spec.eps);
    s.weightDecay = static_cast<float>(spec.weightDecay);
    s.decay = static_cast<float>(1.0 - spec.lr * spec.weightDecay);
    s.momentum = static_cast<float>(spec.momentum);
    s.dampening = static_cast<float>(spec.dampening);
    s.alpha = static_cast<float>(spec.alpha);
    s.nesterov = spec.nesterov;
    s.centered = spec.centered;
    return s;
}

// How many (paramCount) state buffers the optimizer needs, in the order updateElement takes them:
// Adam/AdamW: m, v. SGD: momentum buffer (when momentum != 0). RMSprop: square average, gradient
// average (centred), momentum buffer (momentum > 0) — always three slots, unused ones may be null.
inline int optimizerStateCount(const OptimizerScalars& s) {
    switch (s.kind) {
        case OptimizerKind::Adam:
        case OptimizerKind::AdamW: return 2;
        case OptimizerKind::Sgd: return s.momentum != 0.0f ? 1 : 0;
        case OptimizerKind::RmsProp: return 3;
    }
    return 0;
}

// The scalars of step t (t >= 1), in double then cast, as core's beginStep.
WB_HD inline StepScalars stepScalars(const OptimizerScalars& s, long t) {
    StepScalars out;
    out.firstStep = t == 1;
    if (s.kind == OptimizerKind::Adam || s.kind == OptimizerKind::AdamW) {
        const double bc1 = 1.0 - ::pow(s.beta1D, static_cast<double>(t));
        const double bc2 = 1.0 - ::pow(s.beta2D, static_cast<double>(t));
        out.stepSize = static_cast<float>(s.lrD / bc1);
        out.bc2Sqrt = static_cast<float>(::sqrt(bc2));
    }
    return out;
}

// Adam (L2 in the gradient) and AdamW (decoupled decay): m, v are this element's moments.
WB_HD inline void adamElement(const OptimizerScalars& s, const StepScalars& t, float& p, float grad, float& m,
                              float& v) {
    if (s.kind == OptimizerKind::AdamW)
        p *= s.decay;
    else if (s.weightDecay != 0.0f)
        grad += s.weightDecay * p;
    m = m * s.beta1 + grad * (1.0f - s.beta1);
    v = v * s.beta2 + grad * grad * (1.0f - s.beta2);
    const float denom = ::sqrtf(v) / t.bc2Sqrt + s.eps;
    p -= t.stepSize * (m / denom);
}

// SGD with momentum, dampening, Nesterov and weight decay; `buf` is untouched without momentum.
WB_HD inline void sgdElement(const OptimizerScalars& s, const StepScalars& t, float& p, float grad, float& buf) {
    float d = grad;
    if (s.weightDecay != 0.0f) d += s.weightDecay * p;
    if (s.momentum != 0.0f) {
        buf = t.firstStep ? d : buf * s.momentum + d * (1.0f - s.dampening);
        d = s.nesterov ? d + s.momentum * buf : buf;
    }
    p -= s.lr * d;
}

// RMSprop, plain or centred, with optional momentum; `avg` (centred) and `buf` (momentum) are
// untouched when unused.
WB_HD inline void rmspropElement(const OptimizerScalars& s, float& p, float grad, float& sq, float& avg, float& buf) {
    if (s.weightDecay != 0.0f) grad += s.weightDecay * p;
    sq = sq * s.alpha + grad * grad * (1.0f - s.alpha);
    float denom;
    if (s.centered) {
        avg = avg * s.alpha + grad * (1.0f - s.alpha);
        denom = ::sqrtf(sq - avg * avg) + s.eps;
    } else {
        denom = ::sqrtf(sq) + s.eps;
    }
    if (s.momentum > 0.0f) {
        buf = buf * s.momentum + grad / denom;
        p -= s.lr * buf;
    } else {
        p -= s.lr * (grad / denom);
    }
}

// One element of any optimizer on values (registers in a kernel): `p` and `grad` the parameter
// and its gradient, s0..s2 its state in the order of optimizerStateCount; a state the optimizer
// does not use is neither read nor written.
WB_HD inline void updateValues(const OptimizerScalars& s, const StepScalars& t, float& p, float grad, float& s0,
                               float& s1, float& s2) {
    switch (s.kind) {
        case OptimizerKind::Adam:
        case OptimizerKind::AdamW: adamElement(s, t, p, grad, s0, s1); return;
        case OptimizerKind::Sgd: sgdElement(s, t, p, grad, s0); return;
        case OptimizerKind::RmsProp: rmspropElement(s, p, grad, s0, s1, s2); return;
    }
}

// Element i of (paramCount) arrays: params, grads and the state buffers (null where unused).
// The values are loaded into locals, updated and stored back, never bound by reference to either
// an array element or a local dummy: a reference that may point at a local forces it into local
// memory, so the kernel got a 16-byte stack frame (ptxas, sm_90); now it has none. A state the
// optimizer leaves alone is stored back unchanged, the same value.
WB_HD inline void updateElement(const OptimizerScalars& s, const StepScalars& t, float* params, const float* grads,
                                float* state0, float* state1, float* state2, std::size_t i) {
    float p = params[i];
    float s0 = state0 ? state0[i] : 0.0f;
    float s1 = state1 ? state1[i] : 0.0f;
    float s2 = state2 ? state2[i] : 0.0f;
    updateValues(s, t, p, grads[i], s0, s1, s2);
    params[i] = p;
    if (state0) state0[i] = s0;
    if (state1) state1[i] = s1;
    if (state2) state2[i] = s2;
}

// activationBackward() (math_ops.h) for the activations whose derivative is plain arithmetic on y
// or z (tanh, relu, sigmoid, identity), over n values: true when it handled `a`. Host code, always
// inlined, so that every CPU target's kernels (cpu/cpu_activation_kernels-inl.h) vectorise these
// loops for their own instruction set.
[[gnu::always_inline]] inline bool elementwiseActivationBackward(Activation a, const float* z, const float* y,
                                                                 float* dy, std::size_t n) {
    switch (a) {
        case Activation::Tanh:
            for (std::size_t i = 0; i < n; ++i) dy[i] = tanhBackward(y[i], dy[i]);
            return true;
        case Activation::Relu:
            for (std::size_t i = 0; i < n; ++i) dy[i] = reluBackward(z[i], dy[i]);
            return true;
        case Activation::Sigmoid:
            for (std::size_t i = 0; i < n; ++i) dy[i] = sigmoidBackward(y[i], dy[i]);
            return true;
        case Activation::Identity: return true;
        case Activation::Gelu: return false;
    }
    return false;
}

}  // namespace wb::stepmath
