// Memory a run will need, estimated before any of it is allocated, and the memory this machine can
// give it: a run that cannot fit is refused with both figures instead of being killed by the kernel
// half-way (or, as before, growing to 23 GB on a 25M-column line).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dataset.h"
#include "errors.h"
#include "prepare.h"
#include "run_config.h"

namespace wb {

// A run that would need more memory than the machine has available. what() is the whole message.
class MemoryError : public Error {
public:
    MemoryError(std::uint64_t neededBytes, std::uint64_t availableBytes, const std::string& what);
    std::uint64_t neededBytes() const { return needed_; }
    std::uint64_t availableBytes() const { return available_; }

private:
    std::uint64_t needed_;
    std::uint64_t available_;
};

struct MemoryItem {
    std::string what;  // "prepared copies (train + validation)"
    std::uint64_t bytes = 0;
};

struct MemoryEstimate {
    std::vector<MemoryItem> items;
    std::uint64_t total() const;
    void add(std::string what, std::uint64_t bytes) { items.push_back({std::move(what), bytes}); }
};

// What is already allocated when the estimate is made: the estimate counts only what is still to come.
enum class MemoryStage {
    BeforeLoad,     // nothing yet: the data set itself is counted
    BeforePrepare,  // the data set is in memory: its prepared copies and the backend's buffers
    BeforeSetup,    // the prepared data is in memory: the backend's buffers only
};

// The shape of the run's data as the estimate needs it.
struct MemoryShape {
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::size_t trainRows = 0;
    std::size_t valRows = 0;
    int outputs = 1;  // the output layer's width: the data's task's (K for K classes)
};

// Adds the bytes backend `name` allocates in its setup (buffers, copies, model, optimizer state).
using BackendMemoryEstimator = std::function<void(const RunConfig&, const MemoryShape&, MemoryEstimate&)>;
// A backend without one is estimated by its prepared data alone (say so in the estimate's items).
void registerBackendMemoryEstimator(const std::string& backend, BackendMemoryEstimator estimator);

// The rows a batch buffer needs: a batch never holds more rows than the data has.
std::size_t batchCapacity(int batchSize, const MemoryShape& shape);

MemoryEstimate estimateRunMemory(const RunConfig& config, const MemoryShape& shape, MemoryStage stage);
MemoryShape shapeOf(const RunConfig& config, std::size_t rows, std::size_t cols);  // the split estimated
MemoryShape shapeOf(const RunConfig& config, const Dataset& dataset);
MemoryShape shapeOf(const PreparedData& data);

// MemAvailable from /proc/meminfo, or the cgroup's room (memory.max - memory.current) when lower;
// nullopt when neither can be read (the check is then skipped). $MLPWB_AVAILABLE_MEMORY (bytes)
// overrides both, so tests and users can ask "would this fit in N bytes?".
std::optional<std::uint64_t> availableMemory();

// Throws MemoryError ("needs 41.2 GiB, 22.8 GiB available: ...", the largest items named) when
// `need` exceeds `available`; nothing when `available` is unknown.
void checkMemory(const MemoryEstimate& need, std::optional<std::uint64_t> available, const std::string& context);

// "41.2 GiB", "512.0 MiB", "900 B".
std::string formatBytes(std::uint64_t bytes);

}  // namespace wb
