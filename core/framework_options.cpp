#include "framework_options.h"

#include <algorithm>
#include <iterator>

#include <nlohmann/json.hpp>

#include "errors.h"

namespace wb {

void FrameworkOptions::validate() const {
    if (device != "auto" && device != "cpu" && device != "cuda")
        throw ConfigError("framework device must be auto, cpu or cuda, got '" + device + "'");
    if (torch.numWorkers < 0 || torch.numWorkers > 256)
        throw ConfigError("DataLoader workers must be between 0 and 256, got " + std::to_string(torch.numWorkers));
    if (torch.prefetchFactor < 0)
        throw ConfigError("prefetch factor must not be negative, got " + std::to_string(torch.prefetchFactor));
    if (torch.prefetchFactor > 0 && torch.numWorkers == 0)
        throw ConfigError(
            "a prefetch factor needs DataLoader workers: PyTorch refuses prefetch_factor with num_workers=0");
}

bool isFrameworkBackend(const std::string& backend) {
    return std::find(std::begin(kFrameworkBackends), std::end(kFrameworkBackends), backend) !=
           std::end(kFrameworkBackends);
}

void to_json(nlohmann::json& j, const TorchOptions& o) {
    j = {{"num_workers", o.numWorkers},
         {"prefetch_factor", o.prefetchFactor},
         {"pin_memory", o.pinMemory},
         {"script_model", o.scriptModel}};
}

void from_json(const nlohmann::json& j, TorchOptions& o) {
    o = TorchOptions{};
    o.numWorkers = j.value("num_workers", o.numWorkers);
    o.prefetchFactor = j.value("prefetch_factor", o.prefetchFactor);
    o.pinMemory = j.value("pin_memory", o.pinMemory);
    o.scriptModel = j.value("script_model", o.scriptModel);
}

void to_json(nlohmann::json& j, const FrameworkOptions& o) {
    j = {{"python", o.python}, {"device", o.device}, {"torch", o.torch}};
}

void from_json(const nlohmann::json& j, FrameworkOptions& o) {
    o = FrameworkOptions{};
    o.python = j.value("python", o.python);
    o.device = j.value("device", o.device);
    if (j.contains("torch")) o.torch = j.at("torch").get<TorchOptions>();
}

}  // namespace wb
