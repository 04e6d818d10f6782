#include "sweep/sweep_metric.h"

#include <array>

#include "core/run/run_record.h"

namespace wb::sweep {

namespace {
constexpr std::array<const char*, 13> kFigures = {
    "val_loss",  "val_accuracy", "train_loss", "train_accuracy",  "val_mse",      "val_mae", "val_r2",
    "train_mse", "train_mae",    "train_r2",   "median_epoch_ms", "min_epoch_ms", "total_ms"};
constexpr std::array<const char*, 5> kShortNames = {"loss", "accuracy", "mse", "mae", "r2"};
}  // namespace

bool isMetricName(const std::string& name) {
    for (const char* f : kFigures)
        if (name == f) return true;
    for (const char* f : kShortNames)
        if (name == f) return true;
    return false;
}

std::string metricNames() {
    std::string list;
    for (const char* f : kFigures) list += (list.empty() ? "" : ", ") + std::string(f);
    for (const char* f : kShortNames) list += ", " + std::string(f);
    return list;
}

Goal defaultGoal(const std::string& name) {
    const bool higherIsBetter = name.find("accuracy") != std::string::npos || name.find("r2") != std::string::npos;
    return higherIsBetter ? Goal::Maximize : Goal::Minimize;
}

nlohmann::json summaryFigures(const RunRecord& record) {
    const nlohmann::json summary = summaryJson(record.summary());
    nlohmann::json figures = nlohmann::json::object();
    for (const char* f : kFigures) figures[f] = nullptr;
    if (summary.at("final").is_object())
        for (const auto& [key, value] : summary.at("final").items()) figures[key] = value;
    for (const char* key : {"median_epoch_ms", "min_epoch_ms", "total_ms"}) figures[key] = summary.at(key);
    figures["epochs"] = record.epochs.size();
    figures["record_status"] = toString(record.status);
    return figures;
}

std::optional<double> metricValue(const nlohmann::json& figures, const std::string& name) {
    auto number = [&](const std::string& key) -> std::optional<double> {
        const auto it = figures.find(key);
        if (it == figures.end() || !it->is_number()) return std::nullopt;
        return it->get<double>();
    };
    for (const char* s : kShortNames)
        if (name == s) {
            if (auto v = number("val_" + name)) return v;
            return number("train_" + name);
        }
    return number(name);
}

}  // namespace wb::sweep
