// Memory a run will need, estimated before any of it is allocated, and the memory this machine can
// give it: a run that cannot fit is refused with both figures instead of being killed by the kernel
// half-way (or, as before, growing to 23 GB on a 25M-column line).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/prepare.h"
#include "core/platform/machine_memory.h"
#include "core/run/run_config.h"

namespace wb {

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

// Refuses (MemoryError) a run whose estimate at `stage` exceeds what this machine has available;
// `context` starts the message ("this run", "each run of the answer").
void checkRunFits(const RunConfig& config, const MemoryShape& shape, MemoryStage stage, const std::string& context);

}  // namespace wb
