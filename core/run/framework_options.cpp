#include "core/run/framework_options.h"

#include <algorithm>
#include <iterator>

#include <nlohmann/json.hpp>

#include "core/platform/errors.h"
#include "core/platform/json_fields.h"

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

namespace {
constexpr const char* kTorchPrefix = "torch.";

int parseCount(const std::string& name, const std::string& value) {
    try {
        std::size_t used = 0;
        const int n = std::stoi(value, &used);
        if (used == value.size() && n >= 0) return n;
    } catch (const std::exception&) {
    }
    throw ConfigError(name + " expects a count (0, 1, 2, ...), got '" + value + "'");
}

bool parseFlag(const std::string& name, const std::string& value) {
    if (value == "true" || value == "1") return true;
    if (value == "false" || value == "0") return false;
    throw ConfigError(name + " expects true or false, got '" + value + "'");
}
}  // namespace

bool isTorchOption(const std::string& name) {
    return name.rfind(kTorchPrefix, 0) == 0;
}

bool isDataLoaderOption(const std::string& name) {
    return name == "torch.num_workers" || name == "torch.prefetch_factor" || name == "torch.pin_memory";
}

std::string torchOptionValue(const TorchOptions& o, const std::string& name) {
    if (name == "torch.num_workers") return std::to_string(o.numWorkers);
    if (name == "torch.prefetch_factor") return std::to_string(o.prefetchFactor);
    if (name == "torch.pin_memory") return o.pinMemory ? "true" : "false";
    if (name == "torch.script_model") return o.scriptModel ? "true" : "false";
    throw ConfigError("unknown torch option '" + name +
                      "' (valid: torch.num_workers, torch.prefetch_factor, torch.pin_memory, torch.script_model)");
}

void setTorchOption(TorchOptions& o, const std::string& name, const std::string& value) {
    torchOptionValue(o, name);  // throws for an unknown name
    if (name == "torch.num_workers") o.numWorkers = parseCount(name, value);
    if (name == "torch.prefetch_factor") o.prefetchFactor = parseCount(name, value);
    if (name == "torch.pin_memory") o.pinMemory = parseFlag(name, value);
    if (name == "torch.script_model") o.scriptModel = parseFlag(name, value);
}

void to_json(nlohmann::json& j, const TorchOptions& o) {
    j = {{"num_workers", o.numWorkers},
         {"prefetch_factor", o.prefetchFactor},
         {"pin_memory", o.pinMemory},
         {"script_model", o.scriptModel}};
}

void from_json(const nlohmann::json& j, TorchOptions& o) {
    o = TorchOptions{};
    o.numWorkers = fieldOr(j, "num_workers", o.numWorkers);
    o.prefetchFactor = fieldOr(j, "prefetch_factor", o.prefetchFactor);
    o.pinMemory = fieldOr(j, "pin_memory", o.pinMemory);
    o.scriptModel = fieldOr(j, "script_model", o.scriptModel);
}

void to_json(nlohmann::json& j, const FrameworkOptions& o) {
    j = {{"python", o.python}, {"device", o.device}, {"torch", o.torch}};
}

void from_json(const nlohmann::json& j, FrameworkOptions& o) {
    o = FrameworkOptions{};
    o.python = fieldOr(j, "python", o.python);
    o.device = fieldOr(j, "device", o.device);
    if (j.contains("torch")) o.torch = withinField("torch", [&] { return j.at("torch").get<TorchOptions>(); });
}

}  // namespace wb
