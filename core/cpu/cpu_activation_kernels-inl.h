// The activations and their derivatives for one CPU target: included by cpu_tile_kernels.cpp once
// per target (Highway's -inl.h convention: the guard below flips with HWY_TARGET_TOGGLE, so each
// pass of foreach_target.h compiles this again in its own HWY_NAMESPACE).
//
// tanh is Eigen's rational approximation written in Highway's operations (the same coefficients and
// order of fused multiply-adds, so v3 and v4 compute the bits a native build's Eigen does; Highway's
// own Tanh goes through expm1 and took 1.8 times as long). sigmoid takes Highway's vector exp
// (hwy/contrib/math, 1 ULP). Their derivatives and relu are plain loops the compiler vectorises for
// the target. The baseline target, and GELU on every target, use core's Eigen
// versions (model/math_ops.h) as the build compiles them: Debian 12's Highway has no erf, and on
// the baseline Eigen's SSE2 tanh is as fast as Highway's.
#if defined(WB_CPU_ACTIVATION_KERNELS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef WB_CPU_ACTIVATION_KERNELS_INL_H_
#undef WB_CPU_ACTIVATION_KERNELS_INL_H_
#else
#define WB_CPU_ACTIVATION_KERNELS_INL_H_
#endif

#include <algorithm>
#include <cstddef>

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include "core/model/math_ops.h"
#include "core/model/step_math.h"

HWY_BEFORE_NAMESPACE();
namespace wb {
namespace HWY_NAMESPACE {
namespace activation {

namespace hn = hwy::HWY_NAMESPACE;
using Floats = hn::ScalableTag<float>;

// Eigen 3.4's generic_fast_tanh_float (Eigen/src/Core/MathFunctionsImpl.h, MPL-2.0), as Eigen
// builds it with FMA: the input clamped to +-7.9988, an odd degree-13 polynomial over an even
// degree-6 one, and z itself where |z| < 0.0004.
template <class V>
V tanh(Floats d, V z) {
    const V x = hn::Max(hn::Min(z, hn::Set(d, 7.99881172180175781f)), hn::Set(d, -7.99881172180175781f));
    const auto tiny = hn::Lt(hn::Abs(z), hn::Set(d, 0.0004f));
    const V x2 = hn::Mul(x, x);
    V p = hn::MulAdd(x2, hn::Set(d, -2.76076847742355e-16f), hn::Set(d, 2.00018790482477e-13f));
    p = hn::MulAdd(x2, p, hn::Set(d, -8.60467152213735e-11f));
    p = hn::MulAdd(x2, p, hn::Set(d, 5.12229709037114e-08f));
    p = hn::MulAdd(x2, p, hn::Set(d, 1.48572235717979e-05f));
    p = hn::MulAdd(x2, p, hn::Set(d, 6.37261928875436e-04f));
    p = hn::MulAdd(x2, p, hn::Set(d, 4.89352455891786e-03f));
    p = hn::Mul(x, p);
    V q = hn::MulAdd(x2, hn::Set(d, 1.19825839466702e-06f), hn::Set(d, 1.18534705686654e-04f));
    q = hn::MulAdd(x2, q, hn::Set(d, 2.26843463243900e-03f));
    q = hn::MulAdd(x2, q, hn::Set(d, 4.89352518554385e-03f));
    // x86's min and max return the other operand for a NaN, where Eigen's keep it: NaN in, NaN out.
    return hn::IfThenElse(hn::IsNaN(z), z, hn::IfThenElse(tiny, x, hn::Div(p, q)));
}

// Vector sigmoid: 1 / (1 + exp(-z)), exp's argument kept >= -87 as math_ops.cpp does (exp(-88.4)
// and below is subnormal, which costs a microcode assist per element; exp(-87) gives the same 1),
// and <= 88, within Highway's Exp's range (it returns garbage past 104; exp(88) = 1.65e38 gives
// sigmoid 6e-39, as good as 0).
template <class V>
V sigmoid(Floats d, V z) {
    const V e = hn::Exp(d, hn::Min(hn::Max(hn::Neg(z), hn::Set(d, -87.0f)), hn::Set(d, 88.0f)));
    return hn::IfThenElse(hn::IsNaN(z), z, hn::Div(hn::Set(d, 1.0f), hn::Add(hn::Set(d, 1.0f), e)));
}

// z[0, n) = f(z) a vector at a time; the last partial vector goes through a zero-padded copy, so
// every element takes the same arithmetic wherever it lies.
template <class F>
void mapInPlace(float* z, std::size_t n, F f) {
    const Floats d;
    const std::size_t lanes = hn::Lanes(d);
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) hn::StoreU(f(d, hn::LoadU(d, z + i)), d, z + i);
    if (i == n) return;
    HWY_ALIGN float tail[hn::MaxLanes(d)] = {};
    std::copy(z + i, z + n, tail);
    hn::Store(f(d, hn::Load(d, tail)), d, tail);
    std::copy(tail, tail + (n - i), z + i);
}

static bool vectorMath() {
    return HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2;  // AVX2 and every AVX-512 target (lower bits are better)
}

// activate() of model/math_ops.h for this target.
static void activate(Activation a, float* z, std::size_t n, float* saved) {
    if (!vectorMath() || a == Activation::Gelu) return wb::activate(a, z, n, saved);
    switch (a) {
        case Activation::Tanh: mapInPlace(z, n, [](Floats d, auto v) { return tanh(d, v); }); return;
        case Activation::Sigmoid: mapInPlace(z, n, [](Floats d, auto v) { return sigmoid(d, v); }); return;
        case Activation::Relu:
            for (std::size_t i = 0; i < n; ++i) z[i] = stepmath::relu(z[i]);
            return;
        case Activation::Gelu:
        case Activation::Identity: return;
    }
}

// activationBackward() of model/math_ops.h for this target.
static void activationBackward(Activation a, const float* z, const float* y, float* dy, std::size_t n,
                               const float* saved) {
    if (!stepmath::elementwiseActivationBackward(a, z, y, dy, n)) wb::activationBackward(a, z, y, dy, n, saved);
}

}  // namespace activation
}  // namespace HWY_NAMESPACE
}  // namespace wb
HWY_AFTER_NAMESPACE();

#endif  // WB_CPU_ACTIVATION_KERNELS_INL_H_
