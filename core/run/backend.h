// The interface every execution backend implements (CPU here; CUDA in kernels/), and the
// registry front ends ask which backends exist.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/data/prepare.h"
#include "core/model/execution_settings.h"
#include "core/model/loss_spec.h"
#include "core/model/model.h"
#include "core/model/optimizer.h"
#include "core/platform/cancel_flag.h"
#include "core/run/epoch_metrics.h"
#include "core/run/run_config.h"

namespace wb {

// What a backend needs to train: the prepared data, the model, the optimizer and the switches.
struct TrainingProblem {
    const PreparedData* data = nullptr;  // outlives the run
    ModelSpec model;
    OptimizerSpec optimizer;
    ExecutionSettings execution;
    int batchSize = 2048;
    MlpParams initialParams;
    // The run's stop flag, for a setup that waits (a framework backend starting its interpreter);
    // null = cannot be cancelled during setup. A cancel seen in setup makes the first epoch cancelled.
    const CancelFlag* cancel = nullptr;
    // The whole run, for a backend that generates its loop from it (a framework backend); outlives
    // the run. Null for callers that only train (tests, the parity check).
    const RunConfig* config = nullptr;
    // Threads of the CPU backend (RunConfig::threads); 0 = the machine's hardware threads.
    int threads = 0;
};

// A pass over rows without updating anything: the loss and metric sums (loss_spec.h).
using EvalResult = LossSums;

// The result of one pass over the training rows: its loss and metric sums (loss_spec.h), and more.
struct EpochResult : LossSums {
    std::size_t samples = 0;  // samples processed (fewer when cancelled)
    bool cancelled = false;
    std::optional<int> nonFiniteStep;  // 1-based step whose loss was not finite
    std::optional<PhaseTimes> phases;  // null where not separable
    std::optional<double> deviceMs;
    // Set by a backend that times the epoch itself (a framework's subprocess, so that interpreter
    // start and imports stay out of it), validation included; null = the trainer's clock.
    std::optional<double> wallMs;
    // The validation split's loss and accuracy, when the backend computed them within the epoch
    // (a framework backend); null = the trainer calls evaluate().
    std::optional<EvalResult> validation;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;        // "cpu", "cuda"
    virtual std::string deviceName() const = 0;  // CPU model or GPU name
    // Allocates everything the run needs (no allocation per step afterwards).
    virtual void setup(const TrainingProblem& problem) = 0;
    // One epoch over the training rows in `order` (a permutation of row indices), or in file order
    // when `order` is null. Checks `cancel` between steps.
    virtual EpochResult trainEpoch(const std::vector<std::uint32_t>* order, const CancelFlag& cancel) = 0;
    // Loss and accuracy on (rows, cols) features without updating anything.
    virtual EvalResult evaluate(const float* x, const float* y, std::size_t rows) = 0;
    virtual MlpParams parameters() const = 0;
    // The switches this backend ignores under `s`, each with the reason ({"launch", "a CPU launches no
    // kernels"}). The same list as BackendRegistry::notApplicable for this backend's name.
    virtual std::vector<IgnoredSwitch> notApplicable(const ExecutionSettings& s) const = 0;
    // Extra facts for the RunRecord environment (threads, driver versions, ...).
    virtual std::vector<std::pair<std::string, std::string>> environment() const = 0;
};

struct BackendInfo {
    std::string name;  // "cpu", "cuda"
    bool available = false;
    std::string device;                                        // device name when available
    std::string reason;                                        // why not, when unavailable
    std::vector<std::pair<std::string, std::string>> details;  // compute capability, driver, ...
};

// Front ends ask the registry; the CUDA backend adds itself when compiled in.
class BackendRegistry {
public:
    using Factory = std::function<std::unique_ptr<Backend>(int device)>;
    using Probe = std::function<BackendInfo()>;
    // What Backend::notApplicable answers, without an instance (and without a device).
    using IgnoredFn = std::function<std::vector<IgnoredSwitch>(const ExecutionSettings&)>;
    static BackendRegistry& instance();
    void add(std::string name, Probe probe, Factory factory, IgnoredFn ignored);
    std::vector<BackendInfo> list() const;
    // Throws ConfigError for an unknown name, DeviceError when the backend is unavailable.
    std::unique_ptr<Backend> create(const std::string& name, int device = 0) const;
    // The probe of backend `name` when it can train here; throws as create() does otherwise.
    BackendInfo requireAvailable(const std::string& name) const;
    // The switches backend `name` ignores under `s`, also when it is unavailable on this machine.
    // Throws ConfigError for an unknown name, DeviceError for "cuda" in a build without it.
    std::vector<IgnoredSwitch> notApplicable(const std::string& name, const ExecutionSettings& s) const;

private:
    BackendRegistry();
    struct Entry {
        std::string name;
        Probe probe;
        Factory factory;
        IgnoredFn ignored;
    };
    const Entry& entry(const std::string& name) const;  // throws as notApplicable
    std::vector<Entry> entries_;
};

}  // namespace wb
