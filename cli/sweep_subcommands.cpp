// mlpwb sweep status | resume | report: reading and finishing a sweep folder.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/exit_codes.h"
#include "cli/sweep_bayes.h"
#include "cli/sweep_commands.h"
#include "cli/sweep_trials.h"
#include "core/data/text_encoding.h"
#include "core/platform/atomic_file.h"
#include "core/platform/errors.h"
#include "frameworks/python_interpreter.h"
#include "sweep/folder_lock.h"
#include "sweep/slurm_engine.h"
#include "sweep/sweep_metric.h"
#include "sweep/sweep_report.h"
#include "sweep/trial_command.h"

namespace wb::cli {

namespace {
// Trials of the folder submitted to SLURM get their states settled against squeue first (a task
// cancelled before it started has written nothing); where squeue cannot answer, the files stand.
std::string settleIfSlurm(const sweep::SweepFolder& folder) {
    bool slurm = false;
    for (const auto& t : folder.plan().trials)
        if (folder.readStatus(t.id).engine == "slurm") slurm = true;
    if (!slurm) return "";
    try {
        sweep::settleSlurmStates(folder);
        return "";
    } catch (const IoError& e) {
        return std::string("note: the SLURM states are as the trials wrote them (") + e.what() + ")";
    }
}

nlohmann::json statusJson(const sweep::SweepFolder& folder) {
    nlohmann::json trials = nlohmann::json::array();
    const auto& metric = folder.plan().metric;
    const auto views = folder.views();
    for (const auto& v : views) {
        nlohmann::json t = {
            {"id", v.trial->id},
            {"name", v.trial->name},
            {"state", toString(v.status.state)},
            {"parameters", v.trial->parameters},
            {"repeat", v.trial->repeat},
            {"metric", {{"name", metric.name}, {"value", v.metric ? nlohmann::json(*v.metric) : nullptr}}},
            {"attempt", v.status.attempt},
            {"host", v.status.host},
            {"timing", v.status.timing},
            {"error", v.status.error},
            {"planned_epochs", v.trial->epochs()},
            {"record", folder.recordPath(v.trial->id)}};
        if (v.status.state == sweep::TrialState::Stopped) t["stopped_at_epoch"] = v.status.stoppedAtEpoch;
        if (v.figures.is_object())
            for (const auto& [key, value] : v.figures.items()) t[key] = value;
        trials.push_back(std::move(t));
    }
    return {{"sweep", folder.dir()},
            {"metric", {{"name", metric.name}, {"goal", toString(metric.goal)}}},
            {"early_termination", sweep::reportJson(sweep::makeReport(folder.plan(), views))["early_termination"]},
            {"trials", trials}};
}

// "9/200": the epochs trained of those configured ("-/200" before any).
std::string epochsText(const sweep::TrialRow& v) {
    const bool trained = v.figures.is_object() && v.figures.contains("epochs");
    return (trained ? v.figures.at("epochs").dump() : "-") + "/" + std::to_string(v.trial->epochs());
}

void printTable(const sweep::SweepFolder& folder) {
    const auto& plan = folder.plan();
    const auto views = folder.views();
    const auto best = sweep::bestTrial(views, plan.metric);
    std::printf("%4s  %-9s", "id", "state");
    for (const auto& p : plan.parameterNames) std::printf("  %-12s", p.c_str());
    std::printf("  %-12s  %-9s  %-10s\n", plan.metric.name.c_str(), "epochs", "epoch ms");
    for (std::size_t i = 0; i < views.size(); ++i) {
        const auto& v = views[i];
        std::printf("%4d  %-9s", v.trial->id, toString(v.status.state).c_str());
        for (const auto& p : plan.parameterNames)
            std::printf("  %-12s", sweep::valueText(v.trial->parameters.value(p, nlohmann::json())).c_str());
        const auto ms = v.figures.is_object() ? sweep::metricValue(v.figures, "median_epoch_ms") : std::nullopt;
        const bool shared = v.status.timing.rfind("shared", 0) == 0;
        std::printf("  %-12s  %-9s  %-10s", sweep::figureText(sweep::shownMetric(v, plan.metric)).c_str(),
                    epochsText(v).c_str(), (sweep::figureText(ms) + (ms && shared ? "*" : "")).c_str());
        if (best && *best == i) std::printf("  <- best");
        if (!v.status.error.empty() && v.status.state != sweep::TrialState::Completed &&
            v.status.state != sweep::TrialState::Stopped)
            std::printf("  %s", visibleText(v.status.error).c_str());  // from a file: no escape sequences
        std::printf("\n");
    }
    bool anyShared = false;
    for (const auto& v : views) anyShared = anyShared || v.status.timing.rfind("shared", 0) == 0;
    if (anyShared) std::printf("* measured while other trials shared the machine (--exclusive for clean times)\n");
    const auto report = sweep::makeReport(plan, views);
    if (!report.earlyTermination.empty()) std::printf("early termination: %s\n", savedEpochsText(report).c_str());
}

int status(const std::string& dir, bool json) {
    const sweep::SweepFolder folder(dir);
    const std::string note = settleIfSlurm(folder);
    if (!note.empty()) std::fprintf(stderr, "%s\n", note.c_str());
    if (json) {
        std::cout << statusJson(folder).dump(1) << "\n";
        return kOk;
    }
    printTable(folder);
    return kOk;
}

// Method bayes: the interpreter resume asks Optuna in. The folder's own --python is run only when the
// user names it again: a sweep folder may come from elsewhere.
std::string resumePython(const sweep::SweepFolder& folder, const std::string& given) {
    std::string python = resolvePython(given);
    const std::string folders = sweepPython(folder.plan().baseArgs);
    if (folders != python)
        std::fprintf(stderr, "sweep: asking Optuna in %s; the sweep was started with %s (give --python %s to use it)\n",
                     python.c_str(), folders.c_str(), folders.c_str());
    return python;
}

int resume(const std::string& dir, const CLI::App& cmd, const EngineChoice& given, bool noFollow,
           const std::string& givenPython) {
    sweep::SweepFolder folder(dir);
    std::string holder;
    const auto lock = sweep::FolderLock::tryAcquire(folder.driverLockPath(), &holder);
    if (!lock) {
        std::fprintf(stderr, "mlpwb: %s is being driven by another mlpwb sweep (%s)\n", dir.c_str(), holder.c_str());
        return kBusy;
    }
    settleIfSlurm(folder);
    EngineChoice engine = engineOf(folder.plan());  // as it was started, unless told otherwise
    if (cmd.count("--engine")) engine.kind = given.kind;
    if (cmd.count("--jobs")) engine.jobs = given.jobs;
    if (cmd.count("--exclusive")) engine.exclusive = given.exclusive;
    if (cmd.count("--slurm-arg")) engine.slurmArgs = given.slurmArgs;
    if (cmd.count("--max-parallel")) engine.maxParallel = given.maxParallel;
    engine.follow = !noFollow;
    std::vector<int> ids;
    for (int id : folder.unfinishedIds()) {
        const auto s = folder.effectiveStatus(id);
        // Still queued or running under SLURM (settled above): not submitted twice.
        if (s.engine == "slurm" && !s.slurmJob.empty() && !sweep::isFinished(s.state)) continue;
        ids.push_back(id);
    }
    for (int id : folder.damagedIds())  // left as they are: what they hold may be worth repairing
        std::fprintf(stderr, "sweep: trial %d not resumed: %s\n", id, folder.readStatus(id).error.c_str());
    std::fprintf(stderr, "sweep: resuming %zu of %zu trials\n", ids.size(), folder.plan().trials.size());
    int code = kOk;
    const auto& plan = folder.plan();
    const bool suggestsMore =
        plan.method == sweep::Method::Bayes && static_cast<int>(plan.trials.size()) < plan.runCap.value_or(0);
    if (suggestsMore) {
        const std::string python = resumePython(folder, givenPython);
        checkBayesCanRun(python, engine);
        code = driveBayes(folder, python, ids, engine);
    } else {
        code = runOnEngine(folder, ids, engine);
    }
    if (engine.follow) printSummary(folder);
    return code;
}

int report(const std::string& dir, const std::string& format, const std::string& out) {
    const sweep::SweepFolder folder(dir);
    settleIfSlurm(folder);
    const auto r = sweep::makeReport(folder.plan(), folder.views());
    const std::string text = format == "json"  ? sweep::reportJson(r).dump(1) + "\n"
                             : format == "csv" ? sweep::reportCsv(r)
                                               : sweep::reportText(r);
    if (out.empty())
        std::cout << text;
    else
        writeFileAtomically(out, text, "sweep report");
    return kOk;
}
}  // namespace

void printSummary(const sweep::SweepFolder& folder) {
    printTable(folder);
    const auto r = sweep::makeReport(folder.plan(), folder.views());
    if (r.bestId)
        std::printf("best: trial %d (%s): %s %s\n", *r.bestId, r.bestName.c_str(), r.metric.name.c_str(),
                    sweep::figureText(r.bestMetric).c_str());
}

int printDryRun(const sweep::SweepPlan& plan, const std::string& dir, const EngineChoice& engine) {
    if (plan.method == sweep::Method::Bayes) {
        std::fprintf(stderr,
                     "sweep: method bayes: up to %d trials, each batch suggested by Optuna from the results before "
                     "it, so none can be listed yet (dry run: nothing was written)\n",
                     plan.runCap.value_or(0));
        return kOk;
    }
    if (engine.kind == "slurm") {
        // The script as it would be submitted, over a folder that is not created.
        const std::string target = dir.empty() ? "SWEEP_DIR" : dir;
        std::vector<int> ids;
        for (const auto& t : plan.trials) ids.push_back(t.id);
        const sweep::SlurmOptions options{selfPath(), engine.slurmArgs, engine.maxParallel,
                                          widestThreads(plan, ids, 1)};
        std::cout << sweep::sbatchScript(target, plan.name, ids, options) << std::flush;
    } else {
        for (const auto& t : plan.trials) std::cout << t.id << ": " << sweep::trialCommand(t) << "\n";
        std::cout << std::flush;
    }
    std::fprintf(stderr, "sweep: %zu trials (dry run: nothing was written)\n", plan.trials.size());
    return kOk;
}

std::vector<std::pair<CLI::App*, Command>> addSweepSubcommands(CLI::App& sweepCmd) {
    std::vector<std::pair<CLI::App*, Command>> subs;

    auto* st = sweepCmd.add_subcommand("status", "the sweep's trials: state, parameters, metric");
    auto statusDir = std::make_shared<std::string>();
    auto statusJsonFlag = std::make_shared<bool>(false);
    st->add_option("dir", *statusDir, "the sweep folder")->required();
    st->add_flag("--json", *statusJsonFlag, "as JSON: {\"trials\": [{id, state, parameters, metric, ...}]}");
    subs.emplace_back(st, [=] { return status(*statusDir, *statusJsonFlag); });

    auto* rs = sweepCmd.add_subcommand(
        "resume", "run the trials that are not completed (on the engine it was started with, unless told)");
    struct ResumeOptions {
        std::string dir;
        EngineChoice engine;
        bool noFollow = false;
        std::string python;
    };
    auto ro = std::make_shared<ResumeOptions>();
    rs->add_option("dir", ro->dir, "the sweep folder")->required();
    bindEngine(*rs, ro->engine, ro->noFollow);  // each one given replaces the one the sweep was started with
    rs->add_option("--python", ro->python,
                   "method bayes: the Python to ask Optuna in (default $MLPWB_PYTHON, else python3; the folder's "
                   "own --python is not run unless given here)");
    subs.emplace_back(rs, [=] { return resume(ro->dir, *rs, ro->engine, ro->noFollow, ro->python); });

    auto* rp = sweepCmd.add_subcommand("report", "the best trial and each parameter's effect on the metric");
    auto rpo = std::make_shared<std::array<std::string, 3>>(std::array<std::string, 3>{"", "text", ""});
    rp->add_option("dir", (*rpo)[0], "the sweep folder")->required();
    rp->add_option("--format", (*rpo)[1], "text|csv|json")->check(CLI::IsMember({"text", "csv", "json"}));
    rp->add_option("--out", (*rpo)[2], "write the report to this file (default: standard output)");
    subs.emplace_back(rp, [=] { return report((*rpo)[0], (*rpo)[1], (*rpo)[2]); });

    Command runTrial;
    auto* rt = addRunTrialCommand(sweepCmd, runTrial);
    subs.emplace_back(rt, runTrial);
    return subs;
}

}  // namespace wb::cli
