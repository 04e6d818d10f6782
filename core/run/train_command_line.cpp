#include "core/run/train_command_line.h"

#include <charconv>

namespace wb {

namespace {
std::string number(double v) {
    char text[32];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, v);  // the shortest text that reads back
    return ec == std::errc{} ? std::string(text, end) : std::to_string(v);
}

std::string joined(const std::vector<std::string>& items) {
    std::string s;
    for (const auto& item : items) s += (s.empty() ? "" : ",") + item;
    return s;
}

std::string delimiterName(char d) {
    switch (d) {
        case 0: return "auto";
        case '\t': return "tab";
        default: return std::string(1, d);
    }
}

struct Options {
    std::vector<std::string> list;
    void add(const std::string& name, const std::string& value) { list.push_back("--" + name + "=" + value); }
    void flag(const std::string& name, bool on) { add(name, on ? "true" : "false"); }
};

void addData(Options& o, const RunConfig& c) {
    const DataSpec& d = c.data;
    if (d.kind == DataSpec::Kind::Builtin) {
        o.flag("builtin", true);
        o.add("rows", std::to_string(d.rows));
        o.add("data-seed", std::to_string(d.seed));
    } else {
        o.add("data", d.path);
        if (!d.labelsPath.empty()) o.add("labels", d.labelsPath);
    }
    if (d.kind == DataSpec::Kind::Csv) {
        if (!d.csv.label.empty()) o.add("label", d.csv.label);
        o.add("header", toString(d.csv.header));
        o.add("delimiter", delimiterName(d.csv.delimiter));
        if (!d.csv.ignore.empty()) o.add("ignore", joined(d.csv.ignore));
        o.add("skip-lines", std::to_string(d.csv.skipLines));
        o.add("max-columns", std::to_string(d.csv.maxColumns));
        o.add("missing", toString(d.csv.missing));
    }
    o.add("task", toString(d.task));
    o.add("val-split", number(c.prepare.valSplit));
    o.flag("no-standardize", !c.prepare.standardize);
}

void addModelAndOptimizer(Options& o, const RunConfig& c) {
    std::vector<std::string> widths;
    for (int w : c.model.hidden) widths.push_back(std::to_string(w));
    o.add("layers", joined(widths));
    o.add("activation", toString(c.model.activation));
    o.add("init", toString(c.model.init));
    o.add("regression-loss", toString(c.model.regressionLoss));
    if (!c.model.classWeights.empty()) o.add("class-weights", toString(c.model.classWeights));
    const OptimizerSpec& p = c.optimizer;
    o.add("optimizer", toString(p.kind));
    o.add("lr", number(p.lr));
    o.add("beta1", number(p.beta1));
    o.add("beta2", number(p.beta2));
    o.add("eps", number(p.eps));
    o.add("weight-decay", number(p.weightDecay));
    o.add("momentum", number(p.momentum));
    o.add("dampening", number(p.dampening));
    o.add("alpha", number(p.alpha));
    o.flag("nesterov", p.nesterov);
    o.flag("centered", p.centered);
}

void addTrainingAndExecution(Options& o, const RunConfig& c) {
    o.add("epochs", std::to_string(c.train.epochs));
    o.add("batch-size", std::to_string(c.train.batchSize));
    o.flag("shuffle", c.train.shuffle);
    o.add("seed", std::to_string(c.train.seed));
    o.add("divergence-factor", number(c.train.divergenceFactor));
    for (const auto& spec : switchSpecs()) o.list.push_back(spec.option() + "=" + spec.get(c.execution));
    o.add("backend", c.backend);
    o.add("device", std::to_string(c.device));
    o.add("threads", std::to_string(c.threads));
    if (!c.framework.python.empty()) o.add("python", c.framework.python);
    o.add("framework-device", c.framework.device);
    o.add("torch-workers", std::to_string(c.framework.torch.numWorkers));
    o.add("torch-prefetch", std::to_string(c.framework.torch.prefetchFactor));
    o.flag("torch-pin-memory", c.framework.torch.pinMemory);
    o.flag("torch-script", c.framework.torch.scriptModel);
    if (!c.initWeights.empty()) o.add("init-weights", c.initWeights);
}
}  // namespace

std::vector<std::string> trainCommandLine(const RunConfig& config) {
    Options o;
    addData(o, config);
    addModelAndOptimizer(o, config);
    addTrainingAndExecution(o, config);
    return o.list;
}

}  // namespace wb
