// What a run on a framework backend (torch, keras, jax) needs beyond the shared switches: the
// interpreter, the device, and the framework's own knobs that no shared switch expresses.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/run/engines.h"  // isFrameworkBackend, for the users of this header

namespace wb {

// The DataLoader and compilation knobs the founding post and its answer name (torch backend only).
struct TorchOptions {
    int numWorkers = 0;        // DataLoader(num_workers=...): worker processes gathering rows
    int prefetchFactor = 0;    // DataLoader(prefetch_factor=...), batches per worker; 0 = PyTorch's default
    bool pinMemory = false;    // DataLoader(pin_memory=...): collate into pinned memory (CUDA only)
    bool scriptModel = false;  // torch.jit.script(model): the model compiled with TorchScript
    bool operator==(const TorchOptions&) const = default;
};

struct FrameworkOptions {
    std::string python;           // interpreter; empty = $MLPWB_PYTHON, else python3 on PATH
    std::string device = "auto";  // auto (CUDA when the framework sees one) | cpu | cuda
    TorchOptions torch;
    // Throws ConfigError for a negative worker count, a prefetch factor without workers, ...
    void validate() const;
    bool operator==(const FrameworkOptions&) const = default;
};

// The torch options by the names an ablation fix sets ("torch.num_workers" -> "2"): num_workers,
// prefetch_factor, pin_memory, script_model. Booleans read true/false.
bool isTorchOption(const std::string& name);
// Whether `name` is one of the DataLoader's options (they act only with data_path=per_sample_gather).
bool isDataLoaderOption(const std::string& name);
std::string torchOptionValue(const TorchOptions& o, const std::string& name);             // throws ConfigError
void setTorchOption(TorchOptions& o, const std::string& name, const std::string& value);  // throws ConfigError

void to_json(nlohmann::json& j, const TorchOptions& o);
void from_json(const nlohmann::json& j, TorchOptions& o);
void to_json(nlohmann::json& j, const FrameworkOptions& o);
void from_json(const nlohmann::json& j, FrameworkOptions& o);

}  // namespace wb
