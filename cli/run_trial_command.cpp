// `mlpwb sweep run-trial DIR ID`: one trial of a sweep, as every engine starts it (a process of the
// local pool, a SLURM array task). It trains the configuration sweep.json holds for the trial, as
// `mlpwb train` would, and keeps the trial's state file true from start to end.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#include "cli/exit_codes.h"
#include "cli/sweep_commands.h"
#include "cli/train_run.h"
#include "core/platform/errors.h"
#include "core/run/epoch_journal.h"
#include "core/run/run_record.h"
#include "sweep/early_termination.h"
#include "sweep/folder_lock.h"
#include "sweep/sweep_metric.h"
#include "sweep/sweep_report.h"

namespace wb::cli {

namespace {
struct RunTrialOptions {
    std::string dir;
    int id = -1;
    std::string engine = "local";
    std::string timing;  // how the engine runs it: "exclusive" or "shared: ..."
};

std::string envOr(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

// Where the trial ended, from the exit code and the record the trainer left.
void finish(sweep::TrialStatus& s, int code, const std::string& recordPath) {
    std::error_code ec;
    RunStatus status = RunStatus::Failed;
    std::string message;
    if (std::filesystem::exists(recordPath, ec)) {
        try {
            const RunRecord record = RunRecord::load(recordPath);
            status = record.status;
            message = record.message;
            if (status == RunStatus::Stopped) s.stoppedAtEpoch = static_cast<int>(record.epochs.size());
        } catch (const Error& e) {
            message = std::string("its record cannot be read: ") + e.what();
        }
    }
    if (code == kOk && status == RunStatus::Completed) {
        s.state = sweep::TrialState::Completed;
        s.error.clear();
    } else if (code == kOk && status == RunStatus::Stopped) {  // at a rung: its record is kept
        s.state = sweep::TrialState::Stopped;
        s.error = message;
    } else if (code >= kCancelled || status == RunStatus::Cancelled) {  // 130, or 128 + the signal
        s.state = sweep::TrialState::Cancelled;
        s.error = message.empty() ? "stopped by a signal before training started" : message;
    } else {
        s.state = sweep::TrialState::Failed;
        s.error = (status == RunStatus::Diverged ? "diverged: " : "") +
                  (message.empty() ? "exited with code " + std::to_string(code) : message);
    }
}

// The trial's RunConfig as sweep.json holds it, read strictly: what `mlpwb sweep` wrote there is a
// whole configuration, so one that does not read back to itself (a string, a section missing, a
// value of the wrong kind) or does not validate (epochs -5) was corrupted, and is refused rather
// than trained with defaults in its place.
RunConfig configOf(const sweep::PlannedTrial& trial, const std::string& dir) {
    const std::string where = dir + "/sweep.json";
    const std::string key = "trials[" + std::to_string(trial.id) + "].config";
    if (!trial.config.is_object())
        throw DataError(where, key + ": expected a run configuration (an object), found " + trial.config.dump());
    RunConfig config;
    try {
        config = trial.config.get<RunConfig>();
    } catch (const std::exception& e) {
        throw DataError(where, key + ": " + e.what());
    }
    if (nlohmann::json(config) != trial.config)
        throw DataError(where, key + ": not a whole run configuration as `mlpwb sweep` writes it (edited?)");
    try {
        config.validate();
    } catch (const ConfigError& e) {
        throw DataError(where, key + ": " + e.what());
    }
    return config;
}

// The sweep's early termination, asked after each epoch: at a rung the trial writes its metric into
// the folder and stops when it is losing (early_termination.h). A run without the metric goes on.
std::function<std::optional<std::string>(const RunRecord&)> rungCheck(const sweep::SweepFolder& folder, int id,
                                                                      const RunConfig& config) {
    if (!folder.plan().earlyTerminate) return nullptr;
    const int lastEpoch = config.train.epochs;
    return [&folder, id, lastEpoch](const RunRecord& record) -> std::optional<std::string> {
        const auto value = sweep::metricValue(sweep::summaryFigures(record), folder.plan().metric.name);
        if (!value) return std::nullopt;
        return sweep::reachRung(folder, id, static_cast<int>(record.epochs.size()), lastEpoch, *value);
    };
}

int runTrial(const RunTrialOptions& o) {
    catchStopSignals();  // a scancel while the state is written still ends the trial `cancelled`
    const sweep::SweepFolder folder(o.dir);
    const auto& trials = folder.plan().trials;
    if (o.id < 0 || o.id >= static_cast<int>(trials.size()))
        throw ConfigError("trial " + std::to_string(o.id) + " is not in " + o.dir + " (0-" +
                          std::to_string(static_cast<long>(trials.size()) - 1) + ")");
    folder.ownTrialDir(o.id);  // no link in its path: everything below writes there
    std::string holder;
    const auto lock = sweep::FolderLock::tryAcquire(folder.trialLockPath(o.id), &holder);
    if (!lock) {
        std::fprintf(stderr, "mlpwb: trial %d is being run by %s\n", o.id, holder.c_str());
        return kBusy;
    }
    sweep::TrialStatus s = folder.readStatus(o.id);
    if (folder.isDone(o.id, s.state)) {  // completed, or stopped at a rung: never run again
        std::fprintf(stderr, "mlpwb: trial %d is already %s (%s)\n", o.id, sweep::toString(s.state).c_str(),
                     folder.recordPath(o.id).c_str());
        return kOk;
    }
    if (s.state == sweep::TrialState::Damaged) throw DataError(folder.statePath(o.id), s.error);
    // W&B's metric.target: once a completed trial reached it, no new trial starts.
    if (const auto reached = sweep::targetReachedBy(folder.views(), folder.plan().metric, o.id)) {
        s.state = sweep::TrialState::Cancelled;
        s.error = *reached + ": no new trials start";
        s.finishedAt = sweep::utcNow();
        folder.writeStatus(o.id, s);
        std::fprintf(stderr, "mlpwb: trial %d not started: %s\n", o.id, reached->c_str());
        return kOk;
    }
    // Started afresh, whatever an earlier attempt (a kill, a requeue) left; a link there is removed,
    // never followed.
    std::error_code ec;
    std::filesystem::remove(folder.recordPath(o.id), ec);
    std::filesystem::remove(EpochJournal::pathFor(folder.recordPath(o.id)), ec);
    sweep::writeRungs(folder, o.id, {});
    s.state = sweep::TrialState::Running;
    ++s.attempt;
    s.host = sweep::shortHostName();
    s.pid = static_cast<long>(::getpid());
    s.engine = o.engine;
    s.startedAt = sweep::utcNow();
    s.finishedAt.clear();
    s.error.clear();
    s.stoppedAtEpoch = 0;
    if (o.engine == "slurm") {
        s.slurmJob = envOr("SLURM_ARRAY_JOB_ID", "?") + "_" + envOr("SLURM_ARRAY_TASK_ID", std::to_string(o.id));
        s.timing =
            "slurm: " + envOr("SLURM_CPUS_PER_TASK", "1") + " cpus of " + s.host + " (other jobs may share the node)";
    } else {
        s.timing = o.timing.empty() ? "exclusive" : o.timing;
    }
    folder.writeStatus(o.id, s);
    std::fprintf(stderr, "trial %d (%s), attempt %d on %s\n", o.id, trials[static_cast<std::size_t>(o.id)].name.c_str(),
                 s.attempt, s.host.c_str());
    int code = kRunFailed;
    try {
        const RunConfig config = configOf(trials[static_cast<std::size_t>(o.id)], o.dir);
        code = trainConfig(config, {folder.recordPath(o.id), "", "", true, false, rungCheck(folder, o.id, config)});
        finish(s, code, folder.recordPath(o.id));
    } catch (const std::exception& e) {  // the one line the CLI would print, kept as the trial's error
        s.state = sweep::TrialState::Failed;
        s.error = e.what();
        std::fprintf(stderr, "mlpwb: %s\n", e.what());
    }
    s.finishedAt = sweep::utcNow();
    folder.writeStatus(o.id, s);
    return sweep::endedAsAsked(s.state) ? kOk : s.state == sweep::TrialState::Cancelled ? kCancelled : kRunFailed;
}
}  // namespace

CLI::App* addRunTrialCommand(CLI::App& sweepCmd, Command& run) {
    auto* cmd = sweepCmd.add_subcommand("run-trial", "run one trial of a sweep folder (what the engines start)");
    auto o = std::make_shared<RunTrialOptions>();
    cmd->add_option("dir", o->dir, "the sweep folder")->required();
    cmd->add_option("id", o->id, "the trial's id (the SLURM array index)")->required();
    cmd->add_option("--engine", o->engine, "local|slurm: who started it (slurm: read the task's environment)")
        ->check(CLI::IsMember({"local", "slurm"}));
    cmd->add_option("--timing", o->timing, "how its epoch times are measured, for the record (set by the engine)");
    run = [o] { return runTrial(*o); };
    return cmd;
}

}  // namespace wb::cli
