#include "memory_budget.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "math_ops.h"
#include "model.h"

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

// The CPU backend's setup (core/cpu_backend.cpp, core/cpu_mlp.h): an aligned copy of the training
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

std::optional<std::uint64_t> readNumberFile(const std::string& path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") return std::nullopt;
    try {
        return std::stoull(text);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<std::uint64_t> memAvailable() {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    std::uint64_t value = 0;
    while (in >> key >> value) {
        std::getline(in, unit);
        if (key == "MemAvailable:") return value * 1024;
    }
    return std::nullopt;
}

// The room left under this process's cgroup v2 limit ("0::/path" in /proc/self/cgroup).
std::optional<std::uint64_t> cgroupRoom() {
    std::ifstream in("/proc/self/cgroup");
    std::string dir = "/sys/fs/cgroup";
    for (std::string line; std::getline(in, line);)
        if (line.rfind("0::", 0) == 0) dir += line.substr(3);
    for (const std::string& d : {dir, std::string("/sys/fs/cgroup")}) {
        const auto max = readNumberFile(d + "/memory.max");
        if (!max) continue;
        const std::uint64_t used = readNumberFile(d + "/memory.current").value_or(0);
        return *max > used ? *max - used : 0;
    }
    return std::nullopt;
}

}  // namespace

MemoryError::MemoryError(std::uint64_t neededBytes, std::uint64_t availableBytes, const std::string& what)
    : Error(what), needed_(neededBytes), available_(availableBytes) {}

std::uint64_t MemoryEstimate::total() const {
    std::uint64_t sum = 0;
    for (const auto& item : items) sum += item.bytes;
    return sum;
}

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

std::optional<std::uint64_t> availableMemory() {
    if (const char* forced = std::getenv("MLPWB_AVAILABLE_MEMORY"); forced && *forced) {
        try {
            return std::stoull(forced);
        } catch (const std::exception&) {
            throw ConfigError(std::string("MLPWB_AVAILABLE_MEMORY must be a number of bytes, got '") + forced + "'");
        }
    }
    const auto mem = memAvailable();
    const auto room = cgroupRoom();
    if (mem && room) return std::min(*mem, *room);
    return mem ? mem : room;
}

void checkMemory(const MemoryEstimate& need, std::optional<std::uint64_t> available, const std::string& context) {
    const std::uint64_t total = need.total();
    if (!available || total <= *available) return;
    std::vector<MemoryItem> items = need.items;
    std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
    std::string largest;
    for (std::size_t i = 0; i < items.size() && i < 3; ++i)
        largest += (i ? ", " : "") + items[i].what + " " + formatBytes(items[i].bytes);
    throw MemoryError(
        total, *available,
        context + " needs " + formatBytes(total) + ", " + formatBytes(*available) + " available (" + largest + ")");
}

std::string formatBytes(std::uint64_t bytes) {
    static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) return std::to_string(bytes) + " B";
    double value = static_cast<double>(bytes) / 1024.0;
    std::size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
    return text;
}

}  // namespace wb
