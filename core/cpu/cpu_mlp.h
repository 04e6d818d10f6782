// The forward and backward pass of an MLP on the CPU over preallocated buffers, a tile of rows at
// a time through every layer (see cpu_tile_kernels.h for the products and why they are not Eigen's).
// Shapes: B = the batch capacity, n <= B the rows of the current batch, w[l] the layer widths,
// p[l] = the kernels' paddedWidth(w[l]) (a multiple of half their vector register), T = kTileRows, C = kChunkRows, K =
// ceil(B / C).
//
// Threads: a batch is cut into chunks of C rows, a number that depends on the batch only, never on
// the thread count. Each chunk runs forward, its loss and backward on a thread of the pool, into
// its own gradient buffer; reduceGradients() then adds the chunks' gradients in chunk order. So the
// result is the same to the last bit for every thread count.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "core/cpu/cpu_tile_kernels.h"
#include "core/cpu/worker_pool.h"
#include "core/model/execution_settings.h"
#include "core/model/model.h"
#include "core/platform/aligned_vector.h"

namespace wb {

// Rows per chunk: the unit of work of one thread, and of the fixed-order gradient reduction.
inline constexpr std::size_t kChunkRows = 128;

class CpuMlp {
public:
    // The loss of one chunk, called between its forward and backward pass on the chunk's thread:
    // reads logits (rows, w[L]) of rows [first, first + rows) and writes d(mean loss)/dlogits
    // (rows, w[L]) for them.
    using ChunkLoss = std::function<void(std::size_t chunk, std::size_t first, std::size_t rows, const float* logits,
                                         float* dlogits)>;

    // Allocates every buffer for batches of up to `batchCapacity` rows. `pool` (may be null: one
    // thread) outlives the MLP. `inputStride`: the distance between input rows in floats (0: w[0]);
    // rows padded to inputStride() >= paddedWidth(w[0]) are read in place by the backward pass,
    // narrower ones are copied tile by tile into a padded scratch first.
    // `kernels`: the CPU target's products (cpu_tile_kernels.h), which fix the padding; outlive the MLP.
    CpuMlp(const MlpParams& initial, Activation activation, std::size_t batchCapacity, WorkerPool* pool = nullptr,
           std::size_t inputStride = 0, const CpuKernels& kernels = chosenCpuKernels());

    // The input stride that spares the backward pass its copy: the kernels' paddedWidth(inputs).
    static std::size_t paddedInputStride(std::size_t inputs, const CpuKernels& kernels = chosenCpuKernels());
    const CpuKernels& kernels() const { return k_; }

    // x: (n, ldx) row-major, ldx = the inputStride given at construction, w[0] values per row. Fills the
    // pre-activations and activations; returns the logits (n, w[L]).
    const float* forward(const float* x, std::size_t n);
    // Gradients of the mean loss from dlogits (n, w[L]) into grads(); x as for forward(). `accumulate` adds to the
    // gradient buffers (PyTorch's .grad +=, after a zero_grad) instead of overwriting them. Uses the activations of the
    // last forward() on the same x.
    void backward(const float* x, const float* dlogits, std::size_t n, bool accumulate);
    void zeroGrads();

    // A training step in two passes of the pool, so the phases can be timed apart: forwardLoss()
    // runs forward and `loss` per chunk over x (n, ldx); backwardFromLoss() runs each chunk's
    // backward from the dlogits `loss` wrote, into the chunk's own gradient buffer. Then
    // reduceGradients() over every parameter range.
    void forwardLoss(const float* x, std::size_t n, const ChunkLoss& loss);
    void backwardFromLoss(const float* x, std::size_t n);
    // grads[first, first + count) = the sum of the chunks' gradients in chunk order (added to the
    // present value when `accumulate`). Disjoint ranges may run on different threads.
    void reduceGradients(std::size_t first, std::size_t count, bool accumulate);
    static std::size_t chunkCount(std::size_t n) { return (n + kChunkRows - 1) / kChunkRows; }

    // The parameters, in MlpParams' layout but in aligned storage (see aligned_vector.h).
    float* values() { return values_.data(); }
    const float* values() const { return values_.data(); }
    std::size_t count() const { return values_.size(); }
    const std::vector<LayerSlice>& layers() const { return layers_; }
    MlpParams params() const;
    AlignedVector<float>& grads() { return grads_; }  // (paramCount) same layout as the values

private:
    // A chunk's own scratch and gradient accumulators, so chunks can run on any threads at once.
    struct Chunk {
        AlignedVector<float> zTile;               // (T, p[L]) the output layer's z for one tile
        AlignedVector<float> xTile;               // (T, p[0]) a tile of the inputs, zero padded, if copied
        AlignedVector<float> delta;               // (T, max p) gradient w.r.t. the current layer's z
        AlignedVector<float> deltaPrev;           // (T, max p) gradient w.r.t. the previous layer's z
        std::vector<AlignedVector<float>> gradW;  // per layer (w[l+1], p[l]) weight gradient, padded rows
        std::vector<AlignedVector<float>> gradB;  // per layer (p[l+1]) bias gradient
        AlignedVector<float> grads;               // (paramCount) this chunk's gradient, MlpParams' layout
    };

    void forwardChunk(const float* x, std::size_t chunk, std::size_t n);
    void backwardChunk(const float* x, const float* dlogits, std::size_t chunk, std::size_t n);
    void forwardTile(Chunk& c, const float* x, std::size_t first, std::size_t rows);
    void backwardTile(Chunk& c, const float* x, const float* dlogits, std::size_t first, std::size_t rows);
    void prepareWeights();
    void storeChunkGradients(Chunk& c);
    void checkCapacity(std::size_t n) const;
    void runChunks(std::size_t n, const std::function<void(std::size_t)>& body);
    std::size_t padded(std::size_t l) const { return padded_[l]; }  // p[l+1], layer l's padded output

    const CpuKernels& k_;
    std::vector<LayerSlice> layers_;
    AlignedVector<float> values_;         // (paramCount) weights and biases, MlpParams' layout
    AlignedVector<float> grads_;          // (paramCount)
    AlignedVector<float> reduceScratch_;  // (paramCount) the chunks' sum before it is added to grads_
    Activation activation_;
    // Whether the backward pass needs z itself (relu, gelu); tanh, sigmoid and identity compute
    // f'(z) from f(z) alone, so their z is written straight into post_ and activated in place.
    bool keepPre_;
    std::size_t capacity_;
    std::size_t ldx_;                          // the input rows' stride, >= w[0]
    bool copyInputs_;                          // ldx_ < p[0]: backward copies each tile into xTile
    std::vector<std::size_t> padded_;          // per layer p[l+1]
    std::vector<AlignedVector<float>> pre_;    // per hidden layer (B, p[l+1]) pre-activation z, if keepPre_
    std::vector<AlignedVector<float>> post_;   // per hidden layer (B, p[l+1]) activation f(z)
    std::vector<AlignedVector<float>> saved_;  // per hidden layer (B, p[l+1]) what activate() saves, if any
    AlignedVector<float> logits_;              // (B, w[L]) the output layer's z, unpadded
    AlignedVector<float> dlogits_;             // (B, w[L]) d(mean loss)/dz written by forwardLoss's `loss`
    std::vector<AlignedVector<float>> wT_;     // per layer (w[l], p[l+1]) weights transposed, zero padded
    std::vector<AlignedVector<float>> bias_;   // per layer (p[l+1]) biases, zero padded
    std::vector<AlignedVector<float>> wPad_;   // per layer (w[l+1], p[l]) weights, zero padded (l >= 1)
    std::vector<Chunk> chunks_;                // (K)
    std::size_t activeChunks_ = 0;             // chunks of the last backward pass, to reduce
    WorkerPool* pool_;                         // null: every chunk on the caller
};

}  // namespace wb
