#include "sweep/local_engine.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <list>
#include <thread>

#include "core/data/text_encoding.h"
#include "core/platform/errors.h"
#include "sweep/trial_process.h"

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
using Clock = std::chrono::steady_clock;

struct Running {
    int id = 0;
    int weight = 1;
    TrialProcess process;
};

int weightOf(const PlannedTrial& trial, int cores) {
    const int threads = trial.threads();
    return std::clamp(threads <= 0 ? cores : threads, 1, cores);
}

// The last line a trial printed: its own word on why it ended (e.g. "... No space left on device").
// Control bytes are written out (visibleText): a log from elsewhere must not drive the terminal.
std::string lastLogLine(const std::string& logPath) {
    const int fd = ::open(logPath.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return "";
    char tail[4096];
    const off_t size = ::lseek(fd, 0, SEEK_END);
    const off_t from = std::max<off_t>(0, size - static_cast<off_t>(sizeof tail));
    const ssize_t n = ::pread(fd, tail, sizeof tail, from);
    ::close(fd);
    std::string text(tail, static_cast<std::size_t>(std::max<ssize_t>(0, n)));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return visibleText(text.substr(text.find_last_of('\n') == std::string::npos ? 0 : text.find_last_of('\n') + 1));
}

// The pool: which trials wait, which run, and what the caller has been told.
class Pool {
public:
    Pool(const SweepFolder& folder, const std::vector<int>& ids, const LocalEngineOptions& options)
        : folder_(folder), options_(options), queue_(ids.begin(), ids.end()) {
        progress_.total = static_cast<int>(ids.size());
    }

    LocalProgress run(const std::atomic<bool>& cancel) {
        report();
        while (!queue_.empty() || !running_.empty()) {
            if (cancel.load()) stop();
            if (!stopping_) startWhatFits();
            if (reapEnded()) report();
            if (stopping_) killTheLate();
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        report();
        return progress_;
    }

private:
    void report() {
        progress_.running = static_cast<int>(running_.size());
        if (options_.onProgress) options_.onProgress(progress_);
    }
    void problem(int id, const std::string& text) {
        if (options_.onProblem) options_.onProblem(id, text);
    }
    int usedWeight() const {
        int w = 0;
        for (const auto& r : running_) w += r.weight;
        return w;
    }

    // Stops what runs; what waits stays pending.
    void stop() {
        if (stopping_) return;
        stopping_ = true;
        stopAsked_ = Clock::now();
        queue_.clear();
        for (auto& r : running_) r.process.terminate();
    }
    void killTheLate() {
        if (Clock::now() - stopAsked_ < std::chrono::seconds(options_.secondsToStop)) return;
        for (auto& r : running_) r.process.kill();
    }

    // Up to `jobs` trials whose threads fit the cores (a trial wider than the machine runs alone).
    void startWhatFits() {
        while (!queue_.empty() && static_cast<int>(running_.size()) < options_.jobs) {
            const int id = queue_.front();
            const int weight = weightOf(folder_.plan().trials[static_cast<std::size_t>(id)], options_.cores);
            if (!running_.empty() && usedWeight() + weight > options_.cores) break;
            queue_.pop_front();
            if (start(id, weight)) {
                report();
            } else {
                ++progress_.finished;
                ++progress_.failed;
                report();
            }
        }
    }

    bool start(int id, int weight) {
        const TrialStatus now = folder_.effectiveStatus(id);
        if (now.state == TrialState::Running) {  // its lock is held, or it runs on another host
            problem(id, "is being run by another process (pid " + std::to_string(now.pid) + " on " + now.host +
                            "): left to it");
            return false;
        }
        try {
            folder_.ownTrialDir(id);
            auto argv = options_.trialCommand;
            argv.push_back(std::to_string(id));
            running_.push_back(Running{id, weight, TrialProcess(argv, folder_.logPath(id))});
            return true;
        } catch (const Error& e) {  // a link where its folder or log belongs, no process left
            problem(id, std::string("not started: ") + e.what());
            return false;
        }
    }

    bool reapEnded() {
        bool changed = false;
        for (auto it = running_.begin(); it != running_.end();) {
            const auto code = it->process.poll();
            if (!code) {
                ++it;
                continue;
            }
            ++progress_.finished;
            if (!endedAsAsked(settle(it->id, *code))) ++progress_.failed;
            it = running_.erase(it);
            changed = true;
        }
        return changed;
    }

    // The trial's state once its process has ended. One that could not write its own end (a full
    // disk, a kill) still says running: the pool writes it, with the trial's last word as the error.
    TrialState settle(int id, int exitCode) {
        TrialStatus s = folder_.readStatus(id);
        if (s.state != TrialState::Running && s.state != TrialState::Pending) return s.state;
        const std::string said = lastLogLine(folder_.logPath(id));
        s.state = stopping_ ? TrialState::Cancelled : TrialState::Failed;
        s.error = said.empty() ? "exited with code " + std::to_string(exitCode) + " without saving its state" : said;
        s.finishedAt = utcNow();
        try {
            folder_.writeStatus(id, s);
        } catch (const Error& e) {
            problem(id, s.error + " (its state cannot be saved either: " + e.what() + ")");
            return s.state;
        }
        problem(id, toString(s.state) + ": " + s.error);
        return s.state;
    }

    const SweepFolder& folder_;
    const LocalEngineOptions& options_;
    std::deque<int> queue_;
    std::list<Running> running_;  // (a list: a TrialProcess moves but is not assigned)
    LocalProgress progress_;
    bool stopping_ = false;
    Clock::time_point stopAsked_;
};
}  // namespace

LocalProgress runLocal(const SweepFolder& folder, const std::vector<int>& ids, const LocalEngineOptions& options,
                       const std::atomic<bool>& cancel) {
    return Pool(folder, ids, options).run(cancel);
}

}  // namespace wb::sweep
