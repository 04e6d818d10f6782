// The loops that apply an optimizer's element formula (step_math.h) over [offset, offset + n) of
// the flat parameter buffer. Always inlined where they are used, so each copy is compiled for its
// caller's instruction set: the build's baseline in optimizer.cpp, and every CPU target's in
// cpu/cpu_tile_kernels.cpp, whose tables the CPU backend hands to makeOptimizer (OptimizerLoops).
// The scalars are copied to locals first: no aliasing with the parameters, so the compiler
// unswitches the formula's branches on them and vectorises the loop.
#pragma once

#include <cstddef>

#include "core/model/optimizer.h"
#include "core/model/step_math.h"

namespace wb::optimizerloops {

// Adam and AdamW: m, v (paramCount) the moments.
[[gnu::always_inline]] inline void adam(const stepmath::OptimizerScalars& scalars, const stepmath::StepScalars& step,
                                        float* p, const float* g, float* m, float* v, std::size_t offset,
                                        std::size_t n) {
    const stepmath::OptimizerScalars s = scalars;
    const stepmath::StepScalars t = step;
    for (std::size_t i = offset; i < offset + n; ++i) stepmath::adamElement(s, t, p[i], g[i], m[i], v[i]);
}

// SGD: buf (paramCount) the momentum buffer, null without momentum (neither read nor written).
[[gnu::always_inline]] inline void sgd(const stepmath::OptimizerScalars& scalars, const stepmath::StepScalars& step,
                                       float* p, const float* g, float* buf, std::size_t offset, std::size_t n) {
    const stepmath::OptimizerScalars s = scalars;
    const stepmath::StepScalars t = step;
    float unused = 0.0f;
    for (std::size_t i = offset; i < offset + n; ++i) stepmath::sgdElement(s, t, p[i], g[i], buf ? buf[i] : unused);
}

// RMSprop: sq (paramCount) the square average; avg (centred) and buf (momentum), null when unused.
[[gnu::always_inline]] inline void rmsprop(const stepmath::OptimizerScalars& scalars, float* p, const float* g,
                                           float* sq, float* avg, float* buf, std::size_t offset, std::size_t n) {
    const stepmath::OptimizerScalars s = scalars;
    float unusedAvg = 0.0f, unusedBuf = 0.0f;
    for (std::size_t i = offset; i < offset + n; ++i)
        stepmath::rmspropElement(s, p[i], g[i], sq[i], avg ? avg[i] : unusedAvg, buf ? buf[i] : unusedBuf);
}

}  // namespace wb::optimizerloops

// Defines, where it stands, the three loops as functions and `const OptimizerLoops NAME` pointing at
// them. A macro, because where the functions are written decides their instruction set: inside a CPU
// target's pass (cpu/cpu_tile_kernels.cpp) they get the target's, in optimizer.cpp the build's.
#define WB_DEFINE_OPTIMIZER_LOOPS(NAME)                                                                            \
    void NAME##Adam(const stepmath::OptimizerScalars& s, const stepmath::StepScalars& t, float* p, const float* g, \
                    float* m, float* v, std::size_t offset, std::size_t n) {                                       \
        optimizerloops::adam(s, t, p, g, m, v, offset, n);                                                         \
    }                                                                                                              \
    void NAME##Sgd(const stepmath::OptimizerScalars& s, const stepmath::StepScalars& t, float* p, const float* g,  \
                   float* buf, std::size_t offset, std::size_t n) {                                                \
        optimizerloops::sgd(s, t, p, g, buf, offset, n);                                                           \
    }                                                                                                              \
    void NAME##RmsProp(const stepmath::OptimizerScalars& s, float* p, const float* g, float* sq, float* avg,       \
                       float* buf, std::size_t offset, std::size_t n) {                                            \
        optimizerloops::rmsprop(s, p, g, sq, avg, buf, offset, n);                                                 \
    }                                                                                                              \
    const OptimizerLoops NAME {                                                                                    \
        &NAME##Adam, &NAME##Sgd, &NAME##RmsProp                                                                    \
    }
