// The activations in double precision with the standard library: an independent reference for the
// CPU MLP's float kernels (tst_cpu_mlp, tst_gradients).
#pragma once

#include <cmath>

#include "model.h"

inline double referenceActivation(wb::Activation a, double z) {
    switch (a) {
        case wb::Activation::Tanh: return std::tanh(z);
        case wb::Activation::Relu: return z > 0 ? z : 0;
        case wb::Activation::Sigmoid: return 1 / (1 + std::exp(-z));
        case wb::Activation::Gelu: return 0.5 * z * (1 + std::erf(z / std::sqrt(2.0)));
        case wb::Activation::Identity: return z;
    }
    return z;
}
