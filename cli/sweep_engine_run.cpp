#include "cli/sweep_engine_run.h"

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <thread>

#include <CLI/CLI.hpp>

#include "cli/exit_codes.h"
#include "core/platform/errors.h"
#include "core/platform/json_fields.h"
#include "sweep/local_engine.h"
#include "sweep/slurm_engine.h"

namespace wb::cli {

namespace {
std::atomic<bool> gStop{false};
extern "C" void onStopSignal(int) {
    gStop.store(true);
}

// SIGINT and SIGTERM set gStop while the engine runs; the defaults come back after.
struct StopOnSignals {
    StopOnSignals() {
        gStop.store(false);
        std::signal(SIGINT, onStopSignal);
        std::signal(SIGTERM, onStopSignal);
    }
    ~StopOnSignals() {
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
    }
};

// "[#######.......]  5/24 done, 2 running, 1 not completed" on one line of a terminal; on a pipe or a
// log one line per change.
void printProgress(int finished, int total, int running, int unsuccessful) {
    static int lastFinished = -1;
    const bool tty = ::isatty(2) != 0;
    if (!tty && finished == lastFinished) return;
    lastFinished = finished;
    constexpr int kWidth = 30;
    const int filled = total > 0 ? finished * kWidth / total : kWidth;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(kWidth, '.');
    std::fprintf(stderr, "%s[%s] %d/%d done, %d running%s%s", tty ? "\r" : "", bar.c_str(), finished, total, running,
                 unsuccessful ? (", " + std::to_string(unsuccessful) + " not completed").c_str() : "",
                 tty ? "   " : "\n");
    if (tty && finished == total) std::fputc('\n', stderr);
    std::fflush(stderr);
}

int runLocally(const sweep::SweepFolder& folder, const std::vector<int>& ids, const EngineChoice& engine) {
    const int cores = usableCores();
    const int threads = widestThreads(folder.plan(), ids, cores);  // for the pool's size and its timing note
    const auto pool = sweep::choosePool(cores, static_cast<int>(ids.size()), engine.jobs, threads, engine.exclusive);
    sweep::LocalEngineOptions options;
    options.trialCommand = {selfPath(),   "sweep",    "run-trial",
                            folder.dir(), "--timing", sweep::poolTiming(pool, cores)};  // + the trial id
    options.jobs = pool.jobs;
    options.cores = cores;
    options.onProgress = [](const sweep::LocalProgress& p) { printProgress(p.finished, p.total, p.running, p.failed); };
    options.onProblem = [](int id, const std::string& problem) {
        std::fprintf(stderr, "%strial %d %s\n", ::isatty(2) ? "\n" : "", id, problem.c_str());
    };
    std::fprintf(stderr, "sweep: %zu trials, up to %d at once on %d cores\n", ids.size(), pool.jobs, cores);
    const StopOnSignals signals;
    const auto end = sweep::runLocal(folder, ids, options, gStop);
    if (gStop.load()) {
        std::fprintf(stderr, "\nsweep: stopped; `mlpwb sweep resume %s` runs what is not completed\n",
                     folder.dir().c_str());
        return kCancelled;
    }
    return end.failed > 0 ? kRunFailed : kOk;
}

int runOnSlurm(const sweep::SweepFolder& folder, const std::vector<int>& ids, const EngineChoice& engine) {
    // A node's cores are unknown here: a trial on all of them asks for one CPU (give --cpus-per-task).
    const sweep::SlurmOptions options{selfPath(), engine.slurmArgs, engine.maxParallel,
                                      widestThreads(folder.plan(), ids, 1)};
    const std::string job = sweep::submitArray(folder, ids, options);
    std::fprintf(stderr, "sweep: submitted SLURM job %s: trials %s\n", job.c_str(), sweep::arrayRange(ids).c_str());
    if (!engine.follow) {
        std::fprintf(stderr, "sweep: `mlpwb sweep status %s` shows its progress\n", folder.dir().c_str());
        return kOk;
    }
    const StopOnSignals signals;
    sweep::followSlurm(folder, gStop, [](int finished, int total) { printProgress(finished, total, 0, 0); });
    if (gStop.load()) {
        std::fprintf(stderr, "\nsweep: no longer following; the SLURM job %s goes on (scancel %s stops it)\n",
                     job.c_str(), job.c_str());
        return kCancelled;
    }
    for (int id : ids)
        if (!sweep::endedAsAsked(folder.readStatus(id).state)) return kRunFailed;
    return kOk;
}
}  // namespace

EngineChoice engineOf(const sweep::SweepPlan& plan) {
    EngineChoice e;
    const auto& j = plan.engine;
    try {
        withinField("engine", [&] {
            e.kind = fieldOr<std::string>(j, "kind", "local");
            e.jobs = optionalField<int>(j, "jobs");
            e.exclusive = fieldOr<bool>(j, "exclusive", false);
            e.slurmArgs = fieldOr<std::vector<std::string>>(j, "slurm_args", {});
            e.maxParallel = fieldOr<int>(j, "max_parallel", 0);
            return true;
        });
    } catch (const JsonFieldError& err) {  // "engine.jobs: expected an integer, found a string"
        throw DataError("sweep.json", err.what());
    }
    // The folder may come from someone else: what it says goes into a batch script only when sound.
    sweep::checkSbatchArgs(e.slurmArgs, "sweep.json: engine.slurm_args");
    return e;
}

nlohmann::json toJson(const EngineChoice& e) {
    sweep::checkSbatchArgs(e.slurmArgs, "--slurm-arg");  // sweep.json never holds one a script cannot
    return {{"kind", e.kind},
            {"jobs", e.jobs ? nlohmann::json(*e.jobs) : nlohmann::json(nullptr)},
            {"exclusive", e.exclusive},
            {"slurm_args", e.slurmArgs},
            {"max_parallel", e.maxParallel}};
}

int usableCores() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

int defaultTrialThreads(const EngineChoice& engine, int trials, std::optional<int> threads) {
    if (engine.kind == "slurm") {
        for (const auto& a : engine.slurmArgs)
            if (a.rfind("--cpus-per-task=", 0) == 0) return std::max(1, std::atoi(a.c_str() + 16));
        return threads.value_or(1);
    }
    return sweep::choosePool(usableCores(), trials, engine.jobs, threads, engine.exclusive).threads;
}

int runOnEngine(const sweep::SweepFolder& folder, const std::vector<int>& ids, const EngineChoice& engine) {
    if (ids.empty()) {
        std::fprintf(stderr, "sweep: every trial is completed\n");
        return kOk;
    }
    if (engine.kind == "slurm") return runOnSlurm(folder, ids, engine);
    return runLocally(folder, ids, engine);
}

std::string selfPath() {
    std::error_code ec;
    const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) throw IoError("cannot find this program's path (/proc/self/exe): " + ec.message());
    return p.string();
}

void bindEngine(CLI::App& cmd, EngineChoice& engine, bool& noFollow) {
    cmd.add_option("--engine", engine.kind, "local (a pool on this machine) | slurm (a job array)")
        ->check(CLI::IsMember({"local", "slurm"}));
    cmd.add_option("--jobs", engine.jobs, "local: trials at once (default: cores / threads per trial)")
        ->check(CLI::Range(1, 4096));
    cmd.add_flag("--exclusive", engine.exclusive, "local: one trial at a time, for epoch times that compare");
    cmd.add_option("--slurm-arg", engine.slurmArgs,
                   "slurm: an sbatch option for every task, e.g. --slurm-arg=--partition=gpu (repeatable)")
        ->allow_extra_args(false);
    cmd.add_option("--max-parallel", engine.maxParallel, "slurm: at most this many tasks at once (--array=...%K)")
        ->check(CLI::Range(0, 100000));
    cmd.add_flag("--no-follow", noFollow, "slurm: submit and return (`mlpwb sweep status DIR` follows)");
}

int widestThreads(const sweep::SweepPlan& plan, const std::vector<int>& ids, int allCores) {
    int threads = 1;
    for (int id : ids) {
        const int t = plan.trials.at(static_cast<std::size_t>(id)).threads();
        threads = std::max(threads, t <= 0 ? allCores : t);
    }
    return threads;
}

}  // namespace wb::cli
