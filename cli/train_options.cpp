#include "cli/train_options.h"

#include <charconv>

#include "core/platform/errors.h"
#include "core/run/run_naming.h"
#include "frameworks/python_interpreter.h"

namespace wb::cli {

std::vector<std::string> splitList(const std::string& s) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start <= s.size() && !s.empty()) {
        const auto comma = s.find(',', start);
        const auto end = comma == std::string::npos ? s.size() : comma;
        if (end > start) items.push_back(s.substr(start, end - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return items;
}

namespace {
std::vector<int> parseLayers(const std::string& s) {
    std::vector<int> widths;
    for (const auto& item : splitList(s)) {
        int w = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), w);
        if (ec != std::errc{} || end != item.data() + item.size())
            throw ConfigError("--layers expects comma-separated widths like 20,10; got '" + s + "'");
        widths.push_back(w);
    }
    return widths;
}

bool given(const CLI::App& app, const char* flag) {
    return app.count(flag) > 0;
}

std::string extensionOf(const std::string& path) {
    const auto dot = path.rfind('.');
    return dot == std::string::npos ? "" : path.substr(dot);
}
}  // namespace

void DataOptions::bind(CLI::Option_group& group) {
    group.add_option("--data", data, "CSV or .npy file (features, or features + label column)");
    group.add_option("--labels", labels, ".npy labels (rows) to go with a .npy --data");
    group.add_flag("--builtin", builtin, "train on the built-in seed-like data set (the default without --data)");
    group.add_option("--rows", rows, "rows of the built-in data set")->check(CLI::Range(1, 100000000));
    group.add_option("--data-seed", dataSeed, "seed of the built-in data set");
    group.add_option("--label", label, "label column: name or 0-based index (default: the last column)");
    group.add_option("--header", header, "auto|yes|no");
    group.add_option("--delimiter", delimiter, "auto|,|;|tab");
    group.add_option("--ignore", ignore, "columns to leave out: COL,COL (names or indices)");
    group.add_option("--skip-lines", skipLines, "lines to skip before the header or first row");
    group.add_option("--max-columns", maxColumns, "refuse a CSV with more columns on a line (a memory guard)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    group.add_option("--missing", missing, "missing cells: error|drop|mean");
    group.add_option("--task", task,
                     "auto|binary|multiclass|regression: what the label is learned as (auto: two values are "
                     "binary, text or whole-number classes multiclass; a regression is never guessed)");
}

DataSpec DataOptions::toDataSpec() const {
    DataSpec spec;
    if (!data.empty()) {
        if (builtin) throw ConfigError("--builtin and --data exclude each other");
        spec.path = data;
        spec.labelsPath = labels;
        spec.kind = extensionOf(data) == ".npy" ? DataSpec::Kind::Npy : DataSpec::Kind::Csv;
    } else if (!labels.empty()) {
        throw ConfigError("--labels needs --data");
    }
    spec.rows = rows;
    spec.seed = dataSeed;
    spec.csv.label = label;
    spec.csv.header = headerModeFromString(header);
    spec.csv.delimiter = delimiterFromString(delimiter);
    spec.csv.ignore = splitList(ignore);
    spec.csv.skipLines = skipLines;
    spec.csv.maxColumns = maxColumns;
    spec.csv.missing = missingPolicyFromString(missing);
    spec.task = taskChoiceFromString(task);
    return spec;
}

void TrainOptions::bind(CLI::App& app) {
    bindSwitches(*bindProblem(app));
    auto* o = app.add_option_group("Output");
    o->add_option("--name", name, "name of the run (default: the preset's, or 'custom')");
    o->add_option("--out", out, "RunRecord JSON, rewritten after every epoch");
    o->add_option("--csv", csv, "per-epoch metrics as CSV");
    o->add_option("--init-weights", initWeights, "start from these weights (safetensors)");
    o->add_option("--save-weights", saveWeights, "save the final weights (safetensors)");
    o->add_flag("--quiet", quiet, "print only the summary");
}

void TrainOptions::bindSwitches(CLI::Option_group& group) {
    group.add_option("--preset", preset, "an execution preset (see `mlpwb presets`)");
    for (const SwitchSpec& spec : switchSpecs()) {
        std::string values;
        for (const auto& value : spec.values) values += (values.empty() ? "" : "|") + value.name;
        group.add_option(spec.option(), switches[spec.name], values + ": " + spec.help);
    }
}

CLI::Option_group* TrainOptions::bindProblem(CLI::App& app) {
    auto* d = app.add_option_group("Data");
    source.bind(*d);
    d->add_option("--val-split", valSplit, "fraction held out for validation (stratified)")
        ->check(CLI::Range(0.0, 0.99));
    d->add_flag("--no-standardize", noStandardize, "do not standardise the features");

    auto* m = app.add_option_group("Model and optimizer");
    m->add_option("--layers", layers, "hidden widths, e.g. 20,10");
    m->add_option("--activation", activation, "tanh|relu|sigmoid|gelu|identity");
    m->add_option("--init", init, "torch (nn.Linear default) | glorot (Keras)");
    m->add_option("--regression-loss", regressionLoss, "mse|huber: the loss of a regression (--task regression)");
    m->add_option("--class-weights", classWeights,
                  "LIST|balanced: multiclass class weights, one positive number per class in the class order "
                  "(as CrossEntropyLoss(weight=...)), or balanced = rows / (K count) over the training split");
    m->add_option("--optimizer", optimizer, "adam|adamw|sgd|rmsprop");
    m->add_option("--lr", lr, "learning rate (default: PyTorch's for the optimizer)");
    m->add_option("--beta1", beta1, "Adam beta1");
    m->add_option("--beta2", beta2, "Adam beta2");
    m->add_option("--eps", eps, "epsilon");
    m->add_option("--weight-decay", weightDecay, "weight decay");
    m->add_option("--momentum", momentum, "SGD/RMSprop momentum");
    m->add_option("--dampening", dampening, "SGD dampening");
    m->add_flag("--nesterov", nesterov, "SGD Nesterov momentum");
    m->add_option("--alpha", alpha, "RMSprop smoothing constant");
    m->add_flag("--centered", centered, "centred RMSprop");

    auto* t = app.add_option_group("Training");
    t->add_option("--epochs", epochs, "epochs")->check(CLI::Range(1, 1000000));
    t->add_option("--batch-size", batchSize, "batch size")->check(CLI::Range(1, 10000000));
    t->add_flag("--shuffle", shuffle, "reshuffle the rows every epoch (off, as in the founding loop)");
    t->add_option("--seed", seed, "seed of the initial weights, the split and the shuffling");
    t->add_option("--divergence-factor", divergenceFactor,
                  "end as diverged when the loss exceeds this many times the first epoch's (0: never)");

    auto* x = app.add_option_group("Execution");
    x->add_option("--backend", backend,
                  "cpu|cuda|torch|keras|jax (the frameworks run in your Python, in a subprocess)");
    x->add_option("--device", device, "CUDA device index");
    x->add_option("--threads", threads, "CPU backend threads (default 0: the machine's hardware threads)")
        ->check(CLI::Range(0, 1024));

    auto* f = app.add_option_group("Framework backends (--backend torch|keras|jax)");
    f->add_option("--python", python, "the interpreter (default: $MLPWB_PYTHON, else python3 on PATH)");
    f->add_option("--framework-device", frameworkDevice, "auto|cpu|cuda (auto: CUDA when the framework sees one)");
    f->add_option("--torch-workers", torch.numWorkers, "DataLoader num_workers (data_path=per_sample_gather)")
        ->check(CLI::Range(0, 256));
    f->add_option("--torch-prefetch", torch.prefetchFactor, "DataLoader prefetch_factor (needs --torch-workers)")
        ->check(CLI::Range(0, 1024));
    f->add_flag("--torch-pin-memory", torch.pinMemory, "DataLoader pin_memory=True");
    f->add_flag("--torch-script", torch.scriptModel, "compile the model with TorchScript (torch.jit.script)");
    return x;
}

RunConfig TrainOptions::toRunConfig(const CLI::App& app, bool validate) const {
    RunConfig c;
    c.data = source.toDataSpec();
    c.prepare = {valSplit, !noStandardize, seed};

    c.model.hidden = parseLayers(layers);
    c.model.activation = activationFromString(activation);
    c.model.init = initKindFromString(init);
    c.model.regressionLoss = regressionLossFromString(regressionLoss);
    c.model.classWeights = parseClassWeights(classWeights);

    c.optimizer = OptimizerSpec::defaults(optimizerKindFromString(optimizer));
    if (given(app, "--lr")) c.optimizer.lr = lr;
    if (given(app, "--beta1")) c.optimizer.beta1 = beta1;
    if (given(app, "--beta2")) c.optimizer.beta2 = beta2;
    if (given(app, "--eps")) c.optimizer.eps = eps;
    if (given(app, "--weight-decay")) c.optimizer.weightDecay = weightDecay;
    if (given(app, "--momentum")) c.optimizer.momentum = momentum;
    if (given(app, "--dampening")) c.optimizer.dampening = dampening;
    if (given(app, "--alpha")) c.optimizer.alpha = alpha;
    c.optimizer.nesterov = nesterov;
    c.optimizer.centered = centered;

    c.train = {epochs, batchSize, shuffle, seed, divergenceFactor};

    if (!preset.empty()) c.execution = presetByName(preset).settings;
    for (const auto& [switchName, value] : switches)
        if (!value.empty()) setSwitch(c.execution, switchName, value);

    c.backend = backend;
    c.device = device;
    c.threads = threads;
    c.framework = {python, frameworkDevice, torch};
    // The registry's probes and `mlpwb info` ask the interpreter the user named.
    if (!python.empty()) setPreferredPython(python);
    c.initWeights = initWeights;
    c.name = !name.empty() ? name : defaultRunName(c);
    if (validate) c.validate();
    return c;
}

}  // namespace wb::cli
