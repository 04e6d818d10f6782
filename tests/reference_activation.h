// The activations and their derivatives in double precision with the standard library: an
// independent reference for the CPU MLP's float kernels (tst_cpu_mlp, tst_gradients,
// tst_activation_accuracy). GELU is the exact (erf) form, PyTorch's default.
#pragma once

#include <cmath>

#include "core/model/model.h"

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

// f'(z).
inline double referenceDerivative(wb::Activation a, double z) {
    switch (a) {
        case wb::Activation::Tanh: return 1 - std::tanh(z) * std::tanh(z);
        case wb::Activation::Relu: return z > 0 ? 1 : 0;
        case wb::Activation::Sigmoid: {
            const double s = 1 / (1 + std::exp(-z));
            return s * (1 - s);
        }
        case wb::Activation::Gelu:
            return 0.5 * (1 + std::erf(z / std::sqrt(2.0))) + z * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
        case wb::Activation::Identity: return 1;
    }
    return 1;
}
