#include "sweep/slurm_engine.h"

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

#include "core/data/text_encoding.h"
#include "core/platform/atomic_file.h"
#include "core/platform/errors.h"
#include "core/platform/safe_open.h"
#include "core/platform/shell_quote.h"
#include "sweep/trial_process.h"

namespace fs = std::filesystem;

namespace wb::sweep {

std::string arrayRange(const std::vector<int>& ids) {
    std::string range;
    for (std::size_t i = 0; i < ids.size();) {
        std::size_t j = i;
        while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
        range += (range.empty() ? "" : ",") + std::to_string(ids[i]);
        if (j > i) range += "-" + std::to_string(ids[j]);
        i = j + 1;
    }
    return range;
}

namespace {
std::string absolute(const std::string& path) {
    std::error_code ec;
    const auto p = fs::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

bool namesCpusPerTask(const std::vector<std::string>& args) {
    for (const auto& a : args)
        if (a.rfind("--cpus-per-task", 0) == 0 || a.rfind("-c", 0) == 0) return true;
    return false;
}

// Runs argv and returns its result; throws IoError with its stderr when it exits non-zero.
CommandResult runChecked(const std::vector<std::string>& argv) {
    CommandResult r = runCommand(argv);
    if (r.exitCode != 0) {
        std::string err = r.err;
        while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
        throw IoError(argv[0] + " failed" + (r.exitCode == 127 ? " (is SLURM installed here?)" : "") +
                      (err.empty() ? "" : ": " + err));
    }
    return r;
}
}  // namespace

namespace {
// The refusal of sbatch option `arg`, whose byte `bad` ends a line.
ConfigError lineBreakIn(const std::string& where, const std::string& arg, char bad) {
    const std::string what = bad == '\n' ? "a newline" : bad == '\r' ? "a carriage return" : "a NUL byte";
    return ConfigError(where + " \"" + visibleText(arg) + "\": holds " + what +
                       ", which would end its #SBATCH line (the rest would run as a shell command); give each "
                       "sbatch option as its own --slurm-arg");
}
}  // namespace

void checkSbatchArgs(const std::vector<std::string>& args, const std::string& where) {
    for (const auto& a : args)
        if (const auto bad = a.find_first_of(std::string("\n\r\0", 3)); bad != std::string::npos)
            throw lineBreakIn(where, a, a[bad]);
}

void checkSlurmFolder(const std::string& folderDir) {
    const std::string dir = absolute(folderDir);
    // The path is in the #SBATCH --output line, where sbatch splits at blanks, reads quotes and
    // backslashes, ends the line at # (the log went beside the folder) and %a, %j, ... are patterns.
    if (dir.find_first_of(std::string(" \t\n\r'\"\\#%\0", 10)) != std::string::npos)
        throw ConfigError(
            "the SLURM engine needs a sweep folder path without blanks, quotes, \\, #, % or line breaks "
            "(sbatch reads it in an #SBATCH line): " +
            visibleText(dir));
}

std::string sbatchScript(const std::string& folderDir, const std::string& sweepName, const std::vector<int>& ids,
                         const SlurmOptions& options) {
    const std::string dir = absolute(folderDir);
    checkSbatchArgs(options.sbatchArgs, "--slurm-arg");
    checkSlurmFolder(dir);
    std::string name = sweepName.empty() ? fs::path(dir).filename().string() : sweepName;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
    std::ostringstream s;
    s << "#!/bin/bash\n"
      << "# The trials " << arrayRange(ids) << " of the sweep in " << dir << ", one array task each.\n"
      << "# Written by `mlpwb sweep`; the folder must be on a filesystem every node mounts at this path.\n"
      << "#SBATCH --job-name=mlpwb-" << name << "\n"
      << "#SBATCH --array=" << arrayRange(ids)
      << (options.maxParallel > 0 ? "%" + std::to_string(options.maxParallel) : "") << "\n"
      << "#SBATCH --output=" << dir << "/trials/%4a/log.txt\n"
      << "#SBATCH --open-mode=append\n"
      << "#SBATCH --requeue\n";
    if (!namesCpusPerTask(options.sbatchArgs)) s << "#SBATCH --cpus-per-task=" << options.cpusPerTask << "\n";
    for (const auto& a : options.sbatchArgs) s << "#SBATCH " << a << "\n";
    // exec: the trial is the task's own process, so scancel's SIGTERM reaches the trainer, which
    // stops between steps and marks the trial cancelled. A requeued task starts the trial afresh.
    s << "exec " << shellCommand({options.mlpwbPath, "sweep", "run-trial", dir})
      << " \"$SLURM_ARRAY_TASK_ID\" --engine slurm\n";
    return s.str();
}

std::string submitArray(const SweepFolder& folder, const std::vector<int>& ids, const SlurmOptions& options) {
    const std::string script = sbatchScript(folder.dir(), folder.plan().name, ids, options);
    int n = 0;
    std::error_code ec;
    while (fs::exists(fs::symlink_status(folder.dir() + "/submit-" + std::to_string(n) + ".sh", ec))) ++n;
    const std::string path = folder.dir() + "/submit-" + std::to_string(n) + ".sh";
    writeFileAtomically(path, script, "batch script", Symlink::Refuse);
    // slurmd appends each task's output to its trial's log itself, following links: a link (or a
    // FIFO, a second hard link) planted there is refused before anything is submitted.
    for (int id : ids) {
        folder.ownTrialDir(id);
        refuseForeignFile(folder.logPath(id), "the trial log");
    }
    // Held until every trial is marked pending: a task that starts at once must find its state
    // written, or our `pending` would overwrite its `running`.
    const CommandResult r = runChecked({"sbatch", "--parsable", "--hold", path});
    std::string job = r.out.substr(0, r.out.find_first_of(";\n"));
    if (job.empty()) throw IoError("sbatch printed no job id for " + path);
    try {
        for (int id : ids) {
            TrialStatus s = folder.readStatus(id);
            s.state = TrialState::Pending;
            s.engine = "slurm";
            s.slurmJob = job + "_" + std::to_string(id);
            s.error.clear();
            folder.writeStatus(id, s);
        }
        runChecked({"scontrol", "release", job});
    } catch (...) {
        runCommand({"scancel", job});
        throw;
    }
    return job;
}

std::map<std::string, std::string> queuedTasks() {
    const CommandResult r = runChecked({"squeue", "-h", "-r", "-o", "%i %t", "-u", std::to_string(::getuid())});
    std::map<std::string, std::string> tasks;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream fields(line);
        std::string task;
        std::string state;
        if (fields >> task >> state) tasks[task] = state;
    }
    return tasks;
}

namespace {
// squeue's compact states of a task back in the queue for another attempt: pending, or requeued
// (REQUEUED, REQUEUE_FED, REQUEUE_HOLD).
bool waitsAgain(const std::string& state) {
    static const std::set<std::string> kWaiting = {"PD", "RQ", "RF", "RH"};
    return kWaiting.count(state) > 0;
}
}  // namespace

int settleSlurmStates(const SweepFolder& folder) {
    const auto live = queuedTasks();  // first: a trial's end is written before its task leaves
    int active = 0;
    for (const auto& trial : folder.plan().trials) {
        TrialStatus s = folder.readStatus(trial.id);
        if (s.engine != "slurm" || s.slurmJob.empty() || endedAsAsked(s.state)) continue;
        if (const auto task = live.find(s.slurmJob); task != live.end()) {
            ++active;
            // Stopped by a requeue or preemption and waiting again: it will run. (Still R or CG, the
            // task is the attempt that wrote this end, exiting.)
            if (isFinished(s.state) && waitsAgain(task->second)) {
                s.state = TrialState::Pending;
                s.error = "requeued by SLURM after attempt " + std::to_string(s.attempt);
                folder.writeStatus(trial.id, s);
            }
            continue;
        }
        if (isFinished(s.state)) continue;
        if (s.state == TrialState::Pending) {
            s.state = TrialState::Cancelled;
            s.error = "its SLURM task " + s.slurmJob + " left the queue before it started (scancel?)";
        } else {
            s.state = TrialState::Failed;
            s.error = "its SLURM task " + s.slurmJob + " ended while the trial ran (killed, time limit or node lost)";
        }
        s.finishedAt = utcNow();
        folder.writeStatus(trial.id, s);
    }
    return active;
}

void followSlurm(const SweepFolder& folder, const std::atomic<bool>& stop,
                 const std::function<void(int finished, int total)>& onProgress) {
    auto lastAnswer = std::chrono::steady_clock::now();
    while (!stop.load()) {
        int active = 0;
        try {
            active = settleSlurmStates(folder);
            lastAnswer = std::chrono::steady_clock::now();
        } catch (const IoError&) {
            if (std::chrono::steady_clock::now() - lastAnswer > std::chrono::minutes(2)) throw;
            active = 1;  // the controller did not answer: conclude nothing, ask again
        }
        int finished = 0;
        for (const auto& trial : folder.plan().trials)
            if (isFinished(folder.readStatus(trial.id).state)) ++finished;
        if (onProgress) onProgress(finished, static_cast<int>(folder.plan().trials.size()));
        if (active == 0) return;
        for (int i = 0; i < 10 && !stop.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

}  // namespace wb::sweep
