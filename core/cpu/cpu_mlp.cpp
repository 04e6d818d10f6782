#include "core/cpu/cpu_mlp.h"

#include <algorithm>
#include <string>

#include "core/cpu/cpu_tile_kernels.h"
#include "core/model/math_ops.h"
#include "core/platform/errors.h"

namespace wb {

namespace {
// Rows per tile: the tile's inputs, activations and gradients through every layer stay in L1.
constexpr std::size_t kTileRows = 32;

std::size_t width(int w) {
    return static_cast<std::size_t>(w);
}
}  // namespace

CpuMlp::CpuMlp(const MlpParams& initial, Activation activation, std::size_t batchCapacity, WorkerPool* pool,
               std::size_t inputStride, const CpuKernels& kernels)
    : k_(kernels),
      layers_(initial.layers),
      values_(initial.values.begin(), initial.values.end()),
      grads_(initial.count(), 0.0f),
      reduceScratch_(initial.count(), 0.0f),
      activation_(activation),
      keepPre_(activation == Activation::Relu || activation == Activation::Gelu),
      capacity_(batchCapacity),
      ldx_(std::max(inputStride, width(initial.layers.front().in))),
      copyInputs_(ldx_ < kernels.paddedWidth(width(initial.layers.front().in))),
      pool_(pool) {
    std::size_t maxPadded = k_.lanes;
    chunks_.resize(chunkCount(batchCapacity));
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const LayerSlice& s = layers_[l];
        const std::size_t p = k_.paddedWidth(width(s.out));
        padded_.push_back(p);
        maxPadded = std::max(maxPadded, p);
        const bool hidden = l + 1 < layers_.size();
        pre_.emplace_back(hidden && keepPre_ ? batchCapacity * p : 0, 0.0f);
        post_.emplace_back(hidden ? batchCapacity * p : 0, 0.0f);
        saved_.emplace_back(hidden && activationSaves(activation) ? batchCapacity * p : 0, 0.0f);
        wT_.emplace_back(width(s.in) * p, 0.0f);
        bias_.emplace_back(p, 0.0f);
        wPad_.emplace_back(l > 0 ? width(s.out) * padded_[l - 1] : 0, 0.0f);
        for (Chunk& c : chunks_) {
            c.gradW.emplace_back(width(s.out) * k_.paddedWidth(width(s.in)), 0.0f);
            c.gradB.emplace_back(p, 0.0f);
        }
    }
    logits_.resize(batchCapacity * width(layers_.back().out));
    dlogits_.resize(logits_.size());
    for (Chunk& c : chunks_) {
        c.zTile.resize(kTileRows * padded_.back());
        if (copyInputs_) c.xTile.resize(kTileRows * k_.paddedWidth(width(layers_[0].in)), 0.0f);
        c.delta.resize(kTileRows * maxPadded);
        c.deltaPrev.resize(c.delta.size());
        c.grads.resize(initial.count());
    }
}

std::size_t CpuMlp::paddedInputStride(std::size_t inputs, const CpuKernels& kernels) {
    return kernels.paddedWidth(inputs);
}

MlpParams CpuMlp::params() const {
    MlpParams p;
    p.layers = layers_;
    p.values.assign(values_.begin(), values_.end());
    return p;
}

void CpuMlp::checkCapacity(std::size_t n) const {
    if (n > capacity_) throw ConfigError("batch of " + std::to_string(n) + " rows exceeds the buffers' capacity");
}

void CpuMlp::runChunks(std::size_t n, const std::function<void(std::size_t)>& body) {
    const std::size_t count = chunkCount(n);
    if (pool_)
        pool_->run(count, body);
    else
        for (std::size_t c = 0; c < count; ++c) body(c);
}

const float* CpuMlp::forward(const float* x, std::size_t n) {
    checkCapacity(n);
    prepareWeights();
    runChunks(n, [&](std::size_t c) { forwardChunk(x, c, n); });
    return logits_.data();
}

void CpuMlp::forwardLoss(const float* x, std::size_t n, const ChunkLoss& loss) {
    checkCapacity(n);
    prepareWeights();
    const std::size_t out = width(layers_.back().out);
    runChunks(n, [&](std::size_t c) {
        forwardChunk(x, c, n);
        const std::size_t first = c * kChunkRows, rows = std::min(kChunkRows, n - first);
        loss(c, first, rows, logits_.data() + first * out, dlogits_.data() + first * out);
    });
}

void CpuMlp::backwardFromLoss(const float* x, std::size_t n) {
    checkCapacity(n);
    runChunks(n, [&](std::size_t c) { backwardChunk(x, dlogits_.data(), c, n); });
    activeChunks_ = chunkCount(n);
}

void CpuMlp::backward(const float* x, const float* dlogits, std::size_t n, bool accumulate) {
    checkCapacity(n);
    runChunks(n, [&](std::size_t c) { backwardChunk(x, dlogits, c, n); });
    activeChunks_ = chunkCount(n);
    reduceGradients(0, grads_.size(), accumulate);
}

void CpuMlp::reduceGradients(std::size_t first, std::size_t count, bool accumulate) {
    // Chunk by chunk over the range (vectorised loops), which sums each element in chunk order:
    // ((c0 + c1) + c2) + ...; with `accumulate` the sum goes to scratch first, then onto grads.
    float* g = grads_.data();
    float* sum = accumulate ? reduceScratch_.data() : g;  // (paramCount)
    std::copy_n(chunks_[0].grads.data() + first, count, sum + first);
    for (std::size_t c = 1; c < activeChunks_; ++c) {
        const float* part = chunks_[c].grads.data();
        for (std::size_t i = first; i < first + count; ++i) sum[i] += part[i];
    }
    if (accumulate)
        for (std::size_t i = first; i < first + count; ++i) g[i] += sum[i];
}

// The chunk's rows [chunk C, chunk C + C) of (n) through every layer, a tile at a time.
void CpuMlp::forwardChunk(const float* x, std::size_t chunk, std::size_t n) {
    Chunk& c = chunks_[chunk];
    const std::size_t begin = chunk * kChunkRows, end = std::min(n, begin + kChunkRows);
    // No software prefetch: the rows are read in order, which the hardware prefetcher follows (a
    // prefetch loop measured slower on an AMD EPYC).
    for (std::size_t first = begin; first < end; first += kTileRows)
        forwardTile(c, x, first, std::min(kTileRows, end - first));
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
void CpuMlp::forwardTile(Chunk& c, const float* x, std::size_t first, std::size_t rows) {
    const float* in = x + first * ldx_;  // (rows, ldx)
    std::size_t ldIn = ldx_;
    const std::size_t last = layers_.size() - 1;
    for (std::size_t l = 0; l < last; ++l) {
        const std::size_t p = padded(l);
        float* a = post_[l].data() + first * p;                // (rows, p)
        float* z = keepPre_ ? pre_[l].data() + first * p : a;  // (rows, p)
        k_.multiplyRows(in, ldIn, rows, width(layers_[l].in), wT_[l].data(), p, p, bias_[l].data(), z, p);
        if (keepPre_) k_.copyRows(z, p, rows, p, a, p);
        float* saved = saved_[l].empty() ? nullptr : saved_[l].data() + first * p;  // (rows, p)
        k_.activate(activation_, a, rows * p, saved);                               // the tile is still in L1
        in = a;
        ldIn = p;
    }
    const std::size_t out = width(layers_[last].out), p = padded(last);
    k_.multiplyRows(in, ldIn, rows, width(layers_[last].in), wT_[last].data(), p, p, bias_[last].data(), c.zTile.data(),
                    p);
    k_.copyRows(c.zTile.data(), p, rows, out, logits_.data() + first * out, out);  // the logits, unpadded
}

// The chunk's rows back through every layer into its own gradient buffer.
void CpuMlp::backwardChunk(const float* x, const float* dlogits, std::size_t chunk, std::size_t n) {
    Chunk& c = chunks_[chunk];
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        std::fill(c.gradW[l].begin(), c.gradW[l].end(), 0.0f);
        std::fill(c.gradB[l].begin(), c.gradB[l].end(), 0.0f);
    }
    // The tiles in reverse: the last ones forward() touched are the likeliest still in cache.
    const std::size_t begin = chunk * kChunkRows, end = std::min(n, begin + kChunkRows);
    const std::size_t tiles = (end - begin + kTileRows - 1) / kTileRows;
    for (std::size_t t = tiles; t-- > 0;) {
        const std::size_t first = begin + t * kTileRows;
        backwardTile(c, x, dlogits, first, std::min(kTileRows, end - first));
    }
    storeChunkGradients(c);
}

// Rows [first, first + rows) back through every layer, adding to the gradient accumulators.
void CpuMlp::backwardTile(Chunk& c, const float* x, const float* dlogits, std::size_t first, std::size_t rows) {
    const std::size_t last = layers_.size() - 1;
    const std::size_t outL = width(layers_[last].out), pL = padded(last);
    std::fill_n(c.delta.data(), rows * pL, 0.0f);  // (rows, pL)
    k_.copyRows(dlogits + first * outL, outL, rows, outL, c.delta.data(), pL);
    // The weight gradient below reads p[0] columns of each input row: in place when the rows are
    // padded that wide, else from a zero-padded copy of the tile.
    const std::size_t in0 = width(layers_[0].in);
    const std::size_t ldx = copyInputs_ ? k_.paddedWidth(in0) : ldx_;
    const float* xs = copyInputs_ ? c.xTile.data() : x + first * ldx_;  // (rows, ldx)
    if (copyInputs_) k_.copyRows(x + first * ldx_, ldx_, rows, in0, c.xTile.data(), ldx);
    for (std::size_t l = last + 1; l-- > 0;) {
        const LayerSlice& s = layers_[l];
        const std::size_t p = padded(l);
        const std::size_t pIn = l == 0 ? k_.paddedWidth(in0) : padded(l - 1);  // the input width, padded
        const std::size_t ldIn = l == 0 ? ldx : pIn;
        const float* in = l == 0 ? xs : post_[l - 1].data() + first * ldIn;  // (rows, ldIn)
        // gradW (w[l+1], ldIn) += deltaᵀ · in: vectorised over the layer's inputs, which are wider
        // than its outputs in a funnel-shaped MLP (61 → 20 → 10 → 1), so fewer lanes are padding.
        k_.accumulateTransposedProduct(c.delta.data(), p, rows, width(s.out), in, ldIn, pIn, c.gradW[l].data(), pIn);
        k_.accumulateColumnSums(c.delta.data(), p, rows, p, c.gradB[l].data());
        if (l == 0) break;  // no gradient needed for the input
        // deltaPrev (rows, p[l]) = delta · W, then times f'(z) of the previous layer.
        k_.multiplyRows(c.delta.data(), p, rows, width(s.out), wPad_[l].data(), ldIn, ldIn, nullptr, c.deltaPrev.data(),
                        ldIn);
        const float* a = post_[l - 1].data() + first * ldIn;
        const float* z = keepPre_ ? pre_[l - 1].data() + first * ldIn : a;  // unread without keepPre_
        const float* saved = saved_[l - 1].empty() ? nullptr : saved_[l - 1].data() + first * ldIn;
        k_.activationBackward(activation_, z, a, c.deltaPrev.data(), rows * ldIn, saved);
        std::swap(c.delta, c.deltaPrev);
    }
}

// A chunk's accumulators into its gradient, in MlpParams' layout: weights (out, in), biases (out).
void CpuMlp::storeChunkGradients(Chunk& c) {
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const LayerSlice& s = layers_[l];
        const std::size_t in = width(s.in), out = width(s.out), pIn = k_.paddedWidth(in);
        float* gw = c.grads.data() + s.weightOffset;  // (out, in)
        float* gb = c.grads.data() + s.biasOffset;    // (out)
        for (std::size_t j = 0; j < out; ++j) {
            std::copy_n(c.gradW[l].data() + j * pIn, in, gw + j * in);
            gb[j] = c.gradB[l][j];
        }
    }
}

void CpuMlp::zeroGrads() {
    std::fill(grads_.begin(), grads_.end(), 0.0f);
}

}  // namespace wb
