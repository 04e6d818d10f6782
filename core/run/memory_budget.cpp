#include "core/run/memory_budget.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "core/model/math_ops.h"
#include "core/model/model.h"

namespace wb {

namespace {

constexpr std::uint64_t kFloat = sizeof(float);

std::uint64_t floats(std::uint64_t n) {
    return n * kFloat;
}

std::map<std::string, BackendMemoryEstimator>& estimators() {
    static std::map<std::string, BackendMemoryEstimator> m;
    return m;
}

std::mutex& estimatorsMutex() {
    static std::mutex m;
    return m;
}

// Optimizer state in parameter-sized buffers (PyTorch's: Adam keeps m and v, SGD a momentum buffer).
std::uint64_t optimizerBuffers(const OptimizerSpec& o) {
    switch (o.kind) {
        case OptimizerKind::Adam:
        case OptimizerKind::AdamW: return 2;
        case OptimizerKind::Sgd: return o.momentum > 0 ? 1 : 0;
        case OptimizerKind::RmsProp: return 1 + (o.momentum > 0 ? 1 : 0) + (o.centered ? 1 : 0);
    }
    return 2;
}

// Padded widths, as the tiled kernels round them (generously: to a multiple of 16).
std::uint64_t padded(int width) {
    return (static_cast<std::uint64_t>(width) + 15) / 16 * 16;
}

// The CPU backend's setup (core/cpu/cpu_backend.cpp, core/cpu/cpu_mlp.h): an aligned copy of the training
// rows, a shuffled copy when shuffling contiguous views, batch buffers, the model's values, gradients
// and padded copies, and the optimizer's state.
void estimateCpu(const RunConfig& config, const MemoryShape& shape, MemoryEstimate& e) {
    const std::uint64_t rows = shape.trainRows, cols = shape.cols;
    const std::uint64_t batch = batchCapacity(config.train.batchSize, shape);
    const std::uint64_t stride = padded(static_cast<int>(cols));  // rows are copied padded
    e.add("the CPU backend's copy of the training rows", floats(rows * stride));
    if (config.train.shuffle && config.execution.dataPath != DataPath::PerSampleGather)
        e.add("the shuffled copy of the training rows", floats(rows * (stride + 1)) + rows * sizeof(std::uint32_t));
    std::uint64_t activations = batch * (stride + 4);  // gathered rows, labels, logits, loss gradient
    std::uint64_t params = 0;
    ModelSpec model = config.model;
    model.outputs = shape.outputs;
    const std::vector<int> widths = model.widths(shape.cols);
    for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
        const std::uint64_t perLayer = activationSaves(config.model.activation) ? 3 : 2;  // z, f(z), saved
        activations += perLayer * batch * padded(widths[l + 1]);
        params += padded(widths[l]) * padded(widths[l + 1]) + padded(widths[l + 1]);
    }
    e.add("batch buffers (" + std::to_string(batch) + " rows)", floats(activations));
    e.add("model: weights, gradients and padded copies", floats(5 * params));
    e.add("optimizer state", floats(optimizerBuffers(config.optimizer) * params));
}

bool registerBuiltins() {
    registerBackendMemoryEstimator("cpu", estimateCpu);
    return true;
}

}  // namespace

void registerBackendMemoryEstimator(const std::string& backend, BackendMemoryEstimator estimator) {
    const std::lock_guard lock(estimatorsMutex());
    estimators()[backend] = std::move(estimator);
}

std::size_t batchCapacity(int batchSize, const MemoryShape& shape) {
    const std::size_t most = std::max<std::size_t>({shape.trainRows, shape.valRows, 1});
    return std::min(static_cast<std::size_t>(std::max(batchSize, 1)), most);
}

MemoryShape shapeOf(const RunConfig& config, std::size_t rows, std::size_t cols) {
    MemoryShape s{rows, cols, rows, 0, 1};
    if (config.prepare.valSplit > 0) {
        // prepare() rounds per class; one more row than the share bounds it
        s.valRows = std::min(rows, static_cast<std::size_t>(static_cast<double>(rows) * config.prepare.valSplit) + 1);
        s.trainRows = rows - s.valRows;
    }
    return s;
}

MemoryShape shapeOf(const RunConfig& config, const Dataset& dataset) {
    MemoryShape s = shapeOf(config, dataset.rows, dataset.cols);
    s.outputs = outputsFor(dataset.task, dataset.classes());
    return s;
}

MemoryShape shapeOf(const PreparedData& data) {
    return {data.trainRows() + data.valRows(), data.cols, data.trainRows(), data.valRows(), data.outputs()};
}

MemoryEstimate estimateRunMemory(const RunConfig& config, const MemoryShape& shape, MemoryStage stage) {
    static const bool builtins = registerBuiltins();
    (void)builtins;
    MemoryEstimate e;
    const std::uint64_t table = floats(static_cast<std::uint64_t>(shape.rows) * (shape.cols + 1));
    if (stage == MemoryStage::BeforeLoad) e.add("the data set", table);
    if (stage != MemoryStage::BeforeSetup) e.add("its prepared copies (train + validation)", table);
    BackendMemoryEstimator estimator;
    {
        const std::lock_guard lock(estimatorsMutex());
        const auto it = estimators().find(config.backend);
        if (it != estimators().end()) estimator = it->second;
    }
    if (estimator) estimator(config, shape, e);
    return e;
}

void checkRunFits(const RunConfig& config, const MemoryShape& shape, MemoryStage stage, const std::string& context) {
    checkMemory(estimateRunMemory(config, shape, stage), availableMemory(), context);
}

}  // namespace wb
