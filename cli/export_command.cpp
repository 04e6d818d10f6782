// `mlpwb export`: the training loop a framework backend runs, written out as the user's own script:
// for a problem given as `mlpwb train`'s options, or the fixed loop an answer or an ablation measured
// (--answer, --ablation: the fastest configuration there, read from the file alone).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/train_options.h"
#include "core/data/data_source.h"
#include "core/data/prepare.h"
#include "core/measure/ablation_result.h"
#include "core/measure/answer.h"
#include "core/model/task_loss.h"
#include "core/platform/atomic_file.h"
#include "core/platform/errors.h"
#include "core/platform/output_paths.h"
#include "frameworks/fixed_loop_script.h"
#include "frameworks/framework_backend.h"

namespace wb::cli {

namespace {
struct ExportOptions {
    TrainOptions run;  // the problem and the switches, as for `mlpwb train`
    std::string framework = "torch", out, name;
    std::string answer, ablation;  // the file whose fixed loop to write, instead of a problem
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

// Atomically and executable, or to standard output for "" and "-". `inputs`: the files read, which
// --out must not replace.
int emitScript(const std::string& script, const std::string& out, const std::vector<NamedPath>& inputs) {
    if (out.empty() || out == "-") {
        std::fputs(script.c_str(), stdout);
        return kOk;
    }
    checkOutputs({{"--out", out}}, inputs);
    writeScript(out, script);
    std::fprintf(
        stderr, "wrote %s; run it on the rows you train on:\n  python3 %s --data x.npy --labels y.npy --out run.json\n",
        out.c_str(), out.c_str());
    return kOk;
}

// The problem's options given beside --answer or --ablation: the file holds the whole configuration.
void refuseProblemOptions(const CLI::App& app, const std::string& flag) {
    for (const auto* group : app.get_subcommands([](const CLI::App* s) { return s->get_name().empty(); }))
        for (const auto* option : group->get_options())
            if (option->count() > 0)
                throw ConfigError(flag + " writes the fixed loop as the file recorded it: leave out " +
                                  option->get_name(false, true));
}

// The fixed loop of an answer (on --engine, default torch) or of an ablation (for --engine, default
// its own backend where that is a framework, else torch), from the file alone.
int exportFixedLoop(const ExportOptions& opt, const CLI::App& app) {
    const bool answer = !opt.answer.empty();
    const std::string& file = answer ? opt.answer : opt.ablation;
    refuseProblemOptions(app, answer ? "--answer" : "--ablation");
    const bool engineGiven = app.count("--engine") > 0;
    std::string script;
    if (answer) {
        script = fixedLoopScript(Answer::load(file), opt.framework, file, opt.name);
    } else {
        const AblationResult ablation = AblationResult::load(file);
        const std::string framework =
            engineGiven || !isFrameworkBackend(ablation.backend) ? opt.framework : ablation.backend;
        script = fixedLoopScript(ablation, framework, file, opt.name);
    }
    return emitScript(script, opt.out, {{answer ? "--answer" : "--ablation", file}});
}

int runExport(const ExportOptions& opt, const CLI::App& app) {
    if (!opt.answer.empty() || !opt.ablation.empty()) return exportFixedLoop(opt, app);
    RunConfig config = opt.run.toRunConfig(app);
    followDataTask(config);
    config.backend = opt.framework;
    if (!opt.name.empty()) config.name = opt.name;
    return emitScript(frameworkScript(config), opt.out,
                      {{"--data", opt.run.source.data}, {"--labels", opt.run.source.labels}});
}
}  // namespace

Command addExportCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("export",
                                   "write the training loop a framework backend runs as a Python script: for the "
                                   "problem the options give, or the fixed loop an answer or an ablation measured");
    auto opt = std::make_shared<ExportOptions>();
    opt->run.bindSwitches(*opt->run.bindProblem(*cmd));
    cmd->add_option("--framework,--engine", opt->framework,
                    "torch, keras or jax: whose loop to write (with --answer: whose fixed loop; with --ablation: "
                    "the default is its own backend's)")
        ->check(CLI::IsMember({"torch", "keras", "jax"}));
    auto* answer = cmd->add_option("--answer", opt->answer,
                                   "an answer (mlpwb answer --out): write its fixed loop on --engine, the fastest "
                                   "configuration it measured there (not every fix applied), from the file alone");
    auto* ablation = cmd->add_option("--ablation", opt->ablation,
                                     "an ablation (mlpwb ablate --out): write its fixed loop, as --answer does");
    answer->excludes(ablation);
    cmd->add_option("--out", opt->out, "the script to write (default: standard output)");
    cmd->add_option("--name", opt->name, "the run's name, in the script's docstring and its RunRecord");
    return [opt, cmd] { return runExport(*opt, *cmd); };
}

}  // namespace wb::cli
