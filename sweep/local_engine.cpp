#include "local_engine.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <list>
#include <thread>

#include "trial_process.h"

namespace wb::sweep {

PoolSize choosePool(int cores, int trials, std::optional<int> jobs, std::optional<int> threads, bool exclusive) {
    cores = std::max(1, cores);
    PoolSize pool;
    if (exclusive) return {1, threads.value_or(cores)};
    pool.threads = threads.value_or(jobs ? std::max(1, cores / *jobs) : 1);
    pool.jobs = jobs.value_or(std::max(1, cores / pool.threads));
    pool.jobs = std::max(1, std::min(pool.jobs, std::max(1, trials)));
    return pool;
}

std::string poolTiming(const PoolSize& pool, int cores) {
    if (pool.jobs <= 1) return "exclusive";
    return "shared: up to " + std::to_string(pool.jobs) + " trials at once on " + std::to_string(cores) + " cores";
}

namespace {
struct Running {
    int id = 0;
    int weight = 1;
    std::optional<TrialProcess> process;  // none: another process runs it, we wait for its state
};

int weightOf(const PlannedTrial& trial, int cores) {
    const int threads = trial.config.value("threads", 0);
    return std::clamp(threads <= 0 ? cores : threads, 1, cores);
}
}  // namespace

LocalProgress runLocal(const SweepFolder& folder, const std::vector<int>& ids, const LocalEngineOptions& options,
                       const std::atomic<bool>& cancel) {
    std::deque<int> queue(ids.begin(), ids.end());
    std::list<Running> running;  // (a list: a TrialProcess moves but is not assigned)
    LocalProgress progress;
    progress.total = static_cast<int>(ids.size());
    auto report = [&] {
        progress.running = static_cast<int>(running.size());
        if (options.onProgress) options.onProgress(progress);
    };
    auto usedWeight = [&] {
        int w = 0;
        for (const auto& r : running) w += r.weight;
        return w;
    };
    report();
    bool stopping = false;
    while (!queue.empty() || !running.empty()) {
        if (cancel.load() && !stopping) {  // stop what runs; what waits stays pending
            stopping = true;
            queue.clear();
            for (auto& r : running)
                if (r.process) r.process->terminate();
        }
        // Start what fits: up to `jobs` trials whose threads fit the cores (a trial wider than the
        // machine runs alone).
        while (!stopping && !queue.empty() && static_cast<int>(running.size()) < options.jobs) {
            const int id = queue.front();
            const int weight = weightOf(folder.plan().trials[static_cast<std::size_t>(id)], options.cores);
            if (!running.empty() && usedWeight() + weight > options.cores) break;
            queue.pop_front();
            Running r{id, weight, std::nullopt};
            if (folder.effectiveStatus(id).state != TrialState::Running) {
                auto argv = options.trialCommand;
                argv.push_back(std::to_string(id));
                r.process.emplace(argv, folder.logPath(id));
            }
            running.push_back(std::move(r));
            report();
        }
        bool changed = false;
        for (auto it = running.begin(); it != running.end();) {
            const bool ended = it->process ? it->process->poll().has_value()
                                           : folder.effectiveStatus(it->id).state != TrialState::Running;
            if (!ended) {
                ++it;
                continue;
            }
            ++progress.finished;
            if (folder.readStatus(it->id).state != TrialState::Completed) ++progress.failed;
            it = running.erase(it);
            changed = true;
        }
        if (changed) report();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    report();
    return progress;
}

}  // namespace wb::sweep
