// The forward and backward pass of an MLP on the CPU over preallocated buffers, a tile of rows at
// a time through every layer (see cpu_tile_kernels.h for the products and why they are not Eigen's).
// Shapes: B = the batch capacity, n <= B the rows of the current batch, w[l] the layer widths,
// p[l] = paddedWidth(w[l]) (a multiple of kLanes), T = kTileRows.
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

    // x: (n, w[0]) row-major. Fills the pre-activations and activations; returns the logits (n, w[L]).
    const float* forward(const float* x, std::size_t n);
    // Gradients of the mean loss from dlogits (n, w[L]) into grads(). `accumulate` adds to the gradient
    // buffers (PyTorch's .grad +=, after a zero_grad) instead of overwriting them. Uses the
    // activations of the last forward() on the same x.
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
    void forwardTile(const float* x, std::size_t first, std::size_t rows);
    void backwardTile(const float* x, const float* dlogits, std::size_t first, std::size_t rows);
    void prepareWeights();
    void storeGradients(bool accumulate);
    std::size_t padded(std::size_t l) const { return padded_[l]; }  // p[l+1], layer l's padded output

    std::vector<LayerSlice> layers_;
    AlignedVector<float> values_;  // (paramCount) weights and biases, MlpParams' layout
    AlignedVector<float> grads_;   // (paramCount)
    Activation activation_;
    // Whether the backward pass needs z itself (relu, gelu); tanh, sigmoid and identity compute
    // f'(z) from f(z) alone, so their z is written straight into post_ and activated in place.
    bool keepPre_;
    std::size_t capacity_;
    std::vector<std::size_t> padded_;          // per layer p[l+1]
    std::vector<AlignedVector<float>> pre_;    // per hidden layer (B, p[l+1]) pre-activation z, if keepPre_
    std::vector<AlignedVector<float>> post_;   // per hidden layer (B, p[l+1]) activation f(z)
    AlignedVector<float> zTile_;               // (T, p[L]) the output layer's z for one tile
    AlignedVector<float> logits_;              // (B, w[L]) the output layer's z, unpadded
    std::vector<AlignedVector<float>> wT_;     // per layer (w[l], p[l+1]) weights transposed, zero padded
    std::vector<AlignedVector<float>> bias_;   // per layer (p[l+1]) biases, zero padded
    std::vector<AlignedVector<float>> wPad_;   // per layer (w[l+1], p[l]) weights, zero padded (l >= 1)
    std::vector<AlignedVector<float>> gradW_;  // per layer (w[l+1], p[l]) weight gradient, padded rows
    std::vector<AlignedVector<float>> gradB_;  // per layer (p[l+1]) bias gradient
    AlignedVector<float> xTile_;               // (T, p[0]) a tile of the inputs, zero padded
    AlignedVector<float> delta_;               // (T, max p) gradient w.r.t. the current layer's z
    AlignedVector<float> deltaPrev_;           // (T, max p) gradient w.r.t. the previous layer's z
};

}  // namespace wb
