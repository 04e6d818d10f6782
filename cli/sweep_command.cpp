// `mlpwb sweep`: many configurations of `mlpwb train` at once, on this machine or a SLURM cluster.
//   mlpwb sweep SPEC.yaml --out DIR [--engine local|slurm] [train options: the base configuration]
//   mlpwb sweep status DIR [--json] · resume DIR · report DIR · run-trial DIR ID (what engines start)
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/sweep_bayes.h"
#include "cli/sweep_commands.h"
#include "cli/sweep_engine_run.h"
#include "cli/sweep_trials.h"
#include "cli/train_options.h"
#include "core/platform/errors.h"
#include "sweep/slurm_engine.h"
#include "sweep/sweep_folder.h"

namespace wb::cli {

namespace {
struct SweepOptions {
    std::string spec, out;
    EngineChoice engine;
    bool noFollow = false;
    bool dryRun = false;
    TrainOptions base;  // only for the flags' help and checks: the base options are read back as text
};

// The `mlpwb train` options given to `mlpwb sweep`, as text again ("--rows=5000", "--builtin=true"):
// the base every trial's parameters are added to, kept in sweep.json.
std::vector<std::string> baseArgsOf(const CLI::App& cmd) {
    std::vector<std::string> args;
    for (const auto* group : cmd.get_subcommands([](const CLI::App* s) { return s->get_name().empty(); }))
        for (const auto* opt : group->get_options()) {
            if (opt->count() == 0) continue;
            const std::string name = opt->get_name(false, false);
            for (const auto& value : opt->results())
                args.push_back(name + "=" + value);  // NOLINT(performance-inefficient-string-concatenation)
        }
    return args;
}

int startSweep(SweepOptions& o, const CLI::App& cmd) {
    if (o.spec.empty()) throw ConfigError("mlpwb sweep needs a sweep file: mlpwb sweep SPEC.yaml --out DIR");
    if (o.out.empty() && !o.dryRun) throw ConfigError("mlpwb sweep needs --out DIR: the sweep's folder");
    o.engine.follow = !o.noFollow;
    const sweep::Spec spec = sweep::loadSpec(o.spec, trainOptionInfo);
    for (const auto& k : spec.ignored)  // W&B's own keys: said once, before anything runs
        std::fprintf(stderr, "%s\n", sweep::specMessage(spec.file, k.line, k.key, "ignored: " + k.reason).c_str());
    const std::vector<std::string> baseArgs = baseArgsOf(cmd);
    std::optional<int> threads;
    if (cmd.count("--threads") > 0) threads = o.base.threads;
    // The count of points is known only after expansion; the pool's default does not need it exactly.
    const int threadsPerTrial = defaultTrialThreads(o.engine, 1 << 20, threads);
    sweep::SweepPlan plan;
    plan.name = spec.name;
    plan.specFile = o.spec;
    plan.specText = spec.text;
    plan.method = spec.method;
    plan.metric = spec.metric;
    for (const auto& p : spec.parameters) plan.parameterNames.push_back(p.name);
    plan.repeats = spec.repeats;
    plan.earlyTerminate = spec.earlyTerminate;
    plan.runCap = spec.runCap;
    plan.baseArgs = baseArgs;
    plan.trials = resolveTrials(spec, baseArgs, {threadsPerTrial});
    plan.engine = toJson(o.engine);
    if (o.dryRun) return printDryRun(plan, o.out, o.engine);
    // Bayes asks Optuna for every batch: refused here, before the folder exists, where it cannot.
    const std::string python = spec.method == sweep::Method::Bayes ? sweepPython(baseArgs) : "";
    if (spec.method == sweep::Method::Bayes) checkBayesCanRun(python, o.engine);
    if (o.engine.kind == "slurm") sweep::checkSlurmFolder(o.out);  // before the folder is made
    std::optional<sweep::SweepFolder> created;
    try {
        created = sweep::SweepFolder::create(o.out, plan);  // holds the driver lock from before it is filled
    } catch (const sweep::FolderBusy& e) {
        std::fprintf(stderr, "mlpwb: %s\n", e.what());
        return kBusy;
    }
    sweep::SweepFolder& folder = *created;
    int code = kOk;
    if (spec.method == sweep::Method::Bayes) {
        std::fprintf(stderr, "sweep: up to %d trials, suggested batch by batch, in %s\n", *spec.runCap, o.out.c_str());
        code = driveBayes(folder, python, {}, o.engine);
    } else {
        std::fprintf(stderr, "sweep: %zu trials in %s\n", plan.trials.size(), o.out.c_str());
        std::vector<int> ids;
        for (const auto& t : plan.trials) ids.push_back(t.id);
        code = runOnEngine(folder, ids, o.engine);
    }
    if (o.engine.follow) printSummary(folder);
    return code;
}
}  // namespace

Command addSweepCommand(CLI::App& app) {
    auto* cmd =
        app.add_subcommand("sweep", "run many configurations: a grid, random or bayes search, locally or on SLURM");
    cmd->require_subcommand(0, 1);
    auto opt = std::make_shared<SweepOptions>();
    cmd->add_option("spec", opt->spec, "the sweep file (YAML: method, metric, parameters; see README)");
    cmd->add_option("--out", opt->out, "the sweep's folder (created; must not hold other files)");
    bindEngine(*cmd, opt->engine, opt->noFollow);
    cmd->add_flag("--dry-run", opt->dryRun, "check the file, print the trials (or the SLURM script), write nothing");
    opt->base.bindSwitches(*opt->base.bindProblem(*cmd));
    std::vector<std::pair<CLI::App*, Command>> subcommands = addSweepSubcommands(*cmd);
    return [opt, cmd, subcommands] {
        for (const auto& [sub, run] : subcommands)
            if (sub->parsed()) return run();
        return startSweep(*opt, *cmd);
    };
}

}  // namespace wb::cli
