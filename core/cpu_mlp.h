// The forward and backward pass of an MLP on the CPU with Eigen, over preallocated buffers.
// Shapes: B = the batch capacity, n <= B the rows of the current batch, w[l] the layer widths.
#pragma once

#include <vector>

#include "aligned_vector.h"
#include "execution_settings.h"
#include "model.h"

namespace wb {

class CpuMlp {
public:
    // Allocates every buffer for batches of up to `batchCapacity` rows.
    CpuMlp(const MlpParams& initial, Activation activation, std::size_t batchCapacity);

    // x: (n, w[0]) row-major. Fills the pre-activations and activations; returns the logits (n).
    const float* forward(const float* x, std::size_t n);
    // Gradients of the mean loss from dlogits (n) into grads(). `accumulate` adds to the gradient
    // buffers (PyTorch's .grad +=, after a zero_grad) instead of overwriting them.
    void backward(const float* x, const float* dlogits, std::size_t n, bool accumulate);
    void zeroGrads();

    // The parameters, in MlpParams' layout but in aligned storage (see aligned_vector.h).
    float* values() { return values_.data(); }
    const float* values() const { return values_.data(); }
    std::size_t count() const { return values_.size(); }
    const std::vector<LayerSlice>& layers() const { return layers_; }
    MlpParams params() const;
    AlignedVector<float>& grads() { return grads_; }  // (paramCount) same layout as the values

private:
    std::vector<LayerSlice> layers_;
    AlignedVector<float> values_;  // (paramCount) weights and biases, MlpParams' layout
    AlignedVector<float> grads_;   // (paramCount)
    Activation activation_;
    std::size_t capacity_;
    std::vector<AlignedVector<float>> pre_;   // per layer (B, w[l+1]) pre-activation z
    std::vector<AlignedVector<float>> post_;  // per hidden layer (B, w[l+1]) activation f(z)
    AlignedVector<float> delta_;              // (B, max width) gradient w.r.t. the current layer's z
    AlignedVector<float> deltaPrev_;          // (B, max width) gradient w.r.t. the previous layer's z
};

}  // namespace wb
