// `mlpwb export`: the training loop a framework backend runs, written out as the user's own script.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "atomic_file.h"
#include "commands.h"
#include "data_source.h"
#include "errors.h"
#include "exit_codes.h"
#include "framework_backend.h"
#include "output_paths.h"
#include "prepare.h"
#include "task_loss.h"
#include "train_options.h"

namespace wb::cli {

namespace {
struct ExportOptions {
    TrainOptions run;  // the problem and the switches, as for `mlpwb train`
    std::string framework = "torch", out, name;
};

// Atomically, like every output, then executable (the script starts with #!/usr/bin/env python3).
void writeScript(const std::string& path, const std::string& text) {
    writeFileAtomically(path, text, "script");
    std::error_code ec;
    std::filesystem::permissions(
        writeTarget(path),
        std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec | std::filesystem::perms::others_exec,
        std::filesystem::perm_options::add, ec);
}

// The loop's output layer and loss follow the data's task: under auto the data decides it, and only
// the data counts a multiclass task's classes. Read it as `mlpwb train` would; a binary or regression
// task is known without it (one output either way).
// Class weights are checked against the data, and `balanced` counted over the training split, as a
// run's Trainer does, so the script holds the numbers a run of the same configuration trains with.
void followDataTask(RunConfig& config) {
    const bool weighted = !config.model.classWeights.empty();
    if (!weighted && (config.data.task == TaskChoice::Binary || config.data.task == TaskChoice::Regression)) return;
    const Dataset data = loadDataset(config.data);
    config.model.outputs = outputsFor(data.task, data.classes());
    if (weighted)
        config.model.classWeights.values =
            resolveClassWeights(config.model.classWeights, prepare(data, config.prepare));
}

int runExport(const ExportOptions& opt, const CLI::App& app) {
    RunConfig config = opt.run.toRunConfig(app);
    followDataTask(config);
    config.backend = opt.framework;
    if (!opt.name.empty()) config.name = opt.name;
    const std::string script = frameworkScript(config);
    if (opt.out.empty() || opt.out == "-") {
        std::fputs(script.c_str(), stdout);
        return kOk;
    }
    checkOutputs({{"--out", opt.out}}, {{"--data", opt.run.source.data}, {"--labels", opt.run.source.labels}});
    writeScript(opt.out, script);
    std::fprintf(
        stderr, "wrote %s; run it on the rows you train on:\n  python3 %s --data x.npy --labels y.npy --out run.json\n",
        opt.out.c_str(), opt.out.c_str());
    return kOk;
}
}  // namespace

Command addExportCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("export", "write the training loop a framework backend runs as a Python script");
    auto opt = std::make_shared<ExportOptions>();
    opt->run.bindSwitches(*opt->run.bindProblem(*cmd));
    cmd->add_option("--framework", opt->framework, "torch, keras or jax: whose loop to write")
        ->check(CLI::IsMember({"torch", "keras", "jax"}));
    cmd->add_option("--out", opt->out, "the script to write (default: standard output)");
    cmd->add_option("--name", opt->name, "the run's name, in the script's docstring and its RunRecord");
    return [opt, cmd] { return runExport(*opt, *cmd); };
}

}  // namespace wb::cli
