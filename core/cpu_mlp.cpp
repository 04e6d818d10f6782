#include "cpu_mlp.h"

#include <algorithm>
#include <string>

#include "cpu_tile_kernels.h"
#include "errors.h"
#include "math_ops.h"

namespace wb {

namespace {
// Rows per tile: the tile's inputs, activations and gradients through every layer stay in L1.
constexpr std::size_t kTileRows = 32;

// How many tiles ahead forward() and backward() prefetch the inputs.
constexpr std::size_t kPrefetchTiles = 2;

// Prefetches [p, p + bytes) into the cache, one request per 64-byte line.
void prefetch(const float* p, std::size_t bytes) {
    const char* c = reinterpret_cast<const char*>(p);
    for (std::size_t b = 0; b < bytes; b += 64) __builtin_prefetch(c + b);
}

std::size_t width(int w) {
    return static_cast<std::size_t>(w);
}
}  // namespace

CpuMlp::CpuMlp(const MlpParams& initial, Activation activation, std::size_t batchCapacity)
    : layers_(initial.layers),
      values_(initial.values.begin(), initial.values.end()),
      grads_(initial.count(), 0.0f),
      activation_(activation),
      keepPre_(activation == Activation::Relu || activation == Activation::Gelu),
      capacity_(batchCapacity) {
    std::size_t maxPadded = kLanes;
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const LayerSlice& s = layers_[l];
        const std::size_t p = paddedWidth(width(s.out));
        padded_.push_back(p);
        maxPadded = std::max(maxPadded, p);
        const bool hidden = l + 1 < layers_.size();
        pre_.emplace_back(hidden && keepPre_ ? batchCapacity * p : 0, 0.0f);
        post_.emplace_back(hidden ? batchCapacity * p : 0, 0.0f);
        wT_.emplace_back(width(s.in) * p, 0.0f);
        bias_.emplace_back(p, 0.0f);
        wPad_.emplace_back(l > 0 ? width(s.out) * padded_[l - 1] : 0, 0.0f);
        gradW_.emplace_back(width(s.out) * paddedWidth(width(s.in)), 0.0f);
        gradB_.emplace_back(p, 0.0f);
    }
    logits_.resize(batchCapacity * width(layers_.back().out));
    zTile_.resize(kTileRows * padded_.back());
    xTile_.resize(kTileRows * paddedWidth(width(layers_[0].in)), 0.0f);
    delta_.resize(kTileRows * maxPadded);
    deltaPrev_.resize(delta_.size());
}

MlpParams CpuMlp::params() const {
    MlpParams p;
    p.layers = layers_;
    p.values.assign(values_.begin(), values_.end());
    return p;
}

const float* CpuMlp::forward(const float* x, std::size_t n) {
    if (n > capacity_) throw ConfigError("batch of " + std::to_string(n) + " rows exceeds the buffers' capacity");
    prepareWeights();
    const std::size_t rowBytes = width(layers_[0].in) * sizeof(float);
    for (std::size_t first = 0; first < n; first += kTileRows) {
        // The batch usually comes from memory, not cache: ask for a later tile while this one computes.
        const std::size_t ahead = first + kPrefetchTiles * kTileRows;
        if (ahead < n) prefetch(x + ahead * width(layers_[0].in), std::min(kTileRows, n - ahead) * rowBytes);
        forwardTile(x, first, std::min(kTileRows, n - first));
    }
    return logits_.data();
}

// The weights in the layouts the kernels read, once per step: transposed (in, p) for the forward
// product, and padded rows (out, p[l]) for the backward product into the previous layer.
void CpuMlp::prepareWeights() {
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const LayerSlice& s = layers_[l];
        const std::size_t in = width(s.in), out = width(s.out), p = padded(l);
        const float* w = values_.data() + s.weightOffset;  // (out, in)
        for (std::size_t j = 0; j < out; ++j) {
            for (std::size_t k = 0; k < in; ++k) wT_[l][k * p + j] = w[j * in + k];
            bias_[l][j] = values_[s.biasOffset + j];
        }
        if (l == 0) continue;
        const std::size_t pp = padded(l - 1);
        for (std::size_t j = 0; j < out; ++j) std::copy_n(w + j * in, in, wPad_[l].data() + j * pp);
    }
}

// Rows [first, first + rows) through every layer.
void CpuMlp::forwardTile(const float* x, std::size_t first, std::size_t rows) {
    const float* in = x + first * width(layers_[0].in);  // (rows, w[0])
    std::size_t ldIn = width(layers_[0].in);
    const std::size_t last = layers_.size() - 1;
    for (std::size_t l = 0; l < last; ++l) {
        const std::size_t p = padded(l);
        float* a = post_[l].data() + first * p;                // (rows, p)
        float* z = keepPre_ ? pre_[l].data() + first * p : a;  // (rows, p)
        multiplyRows(in, ldIn, rows, width(layers_[l].in), wT_[l].data(), p, p, bias_[l].data(), z, p);
        if (keepPre_) copyRows(z, p, rows, p, a, p);
        activate(activation_, a, rows * p);  // the tile is still in L1
        in = a;
        ldIn = p;
    }
    const std::size_t out = width(layers_[last].out), p = padded(last);
    multiplyRows(in, ldIn, rows, width(layers_[last].in), wT_[last].data(), p, p, bias_[last].data(), zTile_.data(), p);
    copyRows(zTile_.data(), p, rows, out, logits_.data() + first * out, out);  // the logits, unpadded
}

void CpuMlp::backward(const float* x, const float* dlogits, std::size_t n, bool accumulate) {
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        std::fill(gradW_[l].begin(), gradW_[l].end(), 0.0f);
        std::fill(gradB_[l].begin(), gradB_[l].end(), 0.0f);
    }
    // The tiles in reverse: the last ones forward() touched are the likeliest still in cache.
    const std::size_t tiles = (n + kTileRows - 1) / kTileRows;
    const std::size_t rowBytes = width(layers_[0].in) * sizeof(float);
    for (std::size_t t = tiles; t-- > 0;) {
        const std::size_t first = t * kTileRows;
        if (t >= kPrefetchTiles)
            prefetch(x + (first - kPrefetchTiles * kTileRows) * width(layers_[0].in), kTileRows * rowBytes);
        backwardTile(x, dlogits, first, std::min(kTileRows, n - first));
    }
    storeGradients(accumulate);
}

// Rows [first, first + rows) back through every layer, adding to the gradient accumulators.
void CpuMlp::backwardTile(const float* x, const float* dlogits, std::size_t first, std::size_t rows) {
    const std::size_t last = layers_.size() - 1;
    const std::size_t outL = width(layers_[last].out), pL = padded(last);
    std::fill_n(delta_.data(), rows * pL, 0.0f);  // (rows, pL)
    copyRows(dlogits + first * outL, outL, rows, outL, delta_.data(), pL);
    const std::size_t in0 = width(layers_[0].in), p0 = paddedWidth(in0);
    copyRows(x + first * in0, in0, rows, in0, xTile_.data(), p0);  // padded: see the weight gradient below
    for (std::size_t l = last + 1; l-- > 0;) {
        const LayerSlice& s = layers_[l];
        const std::size_t p = padded(l);
        const std::size_t ldIn = l == 0 ? p0 : padded(l - 1);
        const float* in = l == 0 ? xTile_.data() : post_[l - 1].data() + first * ldIn;  // (rows, ldIn)
        // gradW (w[l+1], ldIn) += deltaᵀ · in: vectorised over the layer's inputs, which are wider
        // than its outputs in a funnel-shaped MLP (61 → 20 → 10 → 1), so fewer lanes are padding.
        accumulateTransposedProduct(delta_.data(), p, rows, width(s.out), in, ldIn, ldIn, gradW_[l].data(), ldIn);
        accumulateColumnSums(delta_.data(), p, rows, p, gradB_[l].data());
        if (l == 0) break;  // no gradient needed for the input
        // deltaPrev (rows, p[l]) = delta · W, then times f'(z) of the previous layer.
        multiplyRows(delta_.data(), p, rows, width(s.out), wPad_[l].data(), ldIn, ldIn, nullptr, deltaPrev_.data(),
                     ldIn);
        const float* a = post_[l - 1].data() + first * ldIn;
        const float* z = keepPre_ ? pre_[l - 1].data() + first * ldIn : a;  // unread without keepPre_
        activationBackward(activation_, z, a, deltaPrev_.data(), rows * ldIn);
        std::swap(delta_, deltaPrev_);
    }
}

// The accumulators into grads_, in MlpParams' layout: weights (out, in), biases (out).
void CpuMlp::storeGradients(bool accumulate) {
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const LayerSlice& s = layers_[l];
        const std::size_t in = width(s.in), out = width(s.out), pIn = paddedWidth(in);
        float* gw = grads_.data() + s.weightOffset;  // (out, in)
        float* gb = grads_.data() + s.biasOffset;    // (out)
        for (std::size_t j = 0; j < out; ++j) {
            const float* row = gradW_[l].data() + j * pIn;  // (pIn)
            for (std::size_t k = 0; k < in; ++k) gw[j * in + k] = (accumulate ? gw[j * in + k] : 0.0f) + row[k];
            gb[j] = (accumulate ? gb[j] : 0.0f) + gradB_[l][j];
        }
    }
}

void CpuMlp::zeroGrads() {
    std::fill(grads_.begin(), grads_.end(), 0.0f);
}

}  // namespace wb
