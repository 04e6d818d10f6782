#include "core/run/run_naming.h"

#include <sstream>

namespace wb {

namespace {
std::string number(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

void add(std::string& list, const std::string& item) {
    list += (list.empty() ? "" : ", ") + item;
}

// The switches that differ from the default settings, or the preset's name when one matches.
std::string executionPart(const ExecutionSettings& s, const std::string& backend) {
    if (auto preset = matchingPreset(s, backend)) return *preset;
    const auto defaults = describeSwitches(ExecutionSettings{});
    const auto current = describeSwitches(s);
    std::string part;
    for (std::size_t i = 0; i < current.size(); ++i)
        if (current[i].value != defaults[i].value) add(part, current[i].name + "=" + current[i].value);
    return part.empty() ? "default switches" : part;
}

// What differs from the founding case's model, optimizer and training, shortest first.
std::string setupPart(const RunConfig& c) {
    const RunConfig founding;
    std::string part;
    if (c.model.hidden != founding.model.hidden) {
        std::string widths;
        for (int w : c.model.hidden) widths += (widths.empty() ? "" : "-") + std::to_string(w);
        add(part, widths);
    }
    if (c.model.activation != founding.model.activation) add(part, toString(c.model.activation));
    const OptimizerSpec defaults = OptimizerSpec::defaults(c.optimizer.kind);
    if (c.optimizer.kind != founding.optimizer.kind) add(part, toString(c.optimizer.kind));
    if (c.optimizer.lr != defaults.lr) add(part, "lr " + number(c.optimizer.lr));
    if (c.optimizer.momentum != defaults.momentum) add(part, "momentum " + number(c.optimizer.momentum));
    if (c.optimizer.weightDecay != defaults.weightDecay) add(part, "wd " + number(c.optimizer.weightDecay));
    if (c.train.batchSize != founding.train.batchSize) add(part, "batch " + std::to_string(c.train.batchSize));
    if (c.train.shuffle) add(part, "shuffled");
    return part;
}

// The name without the task: execution, backend, setup.
std::string settingsName(const RunConfig& config) {
    std::string name = executionPart(config.execution, config.backend);
    if (config.backend != "cpu") name += " · " + config.backend;
    if (const std::string setup = setupPart(config); !setup.empty()) name += " · " + setup;
    return name;
}
}  // namespace

std::string taskSuffix(Task task, std::size_t classes) {
    switch (task) {
        case Task::Binary: return {};
        case Task::Multiclass: return classes > 0 ? " · " + std::to_string(classes) + " classes" : " · multiclass";
        case Task::Regression: return " · regression";
    }
    return {};
}

std::string defaultRunName(const RunConfig& config) {
    const TaskChoice chosen = config.data.task;
    const std::string task = chosen == TaskChoice::Regression   ? taskSuffix(Task::Regression)
                             : chosen == TaskChoice::Multiclass ? taskSuffix(Task::Multiclass)
                                                                : std::string();  // Auto: not known yet
    return settingsName(config) + task;
}

std::string defaultRunName(const RunConfig& config, const Dataset& data) {
    return settingsName(config) + taskSuffix(data.task, data.classes());
}

}  // namespace wb
