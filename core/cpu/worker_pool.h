// A persistent pool of threads for the CPU backend: the caller plus threads - 1 workers that live
// as long as the pool (one pool per backend, so the GUI thread is never one of them). run() hands
// out tasks 0..count-1 to whichever thread asks first, the caller included, so a worker the OS has
// descheduled delays nobody; callers make every result depend on the task index only, never on the
// thread, so results are the same for any thread count.
//
// Between runs a worker spins briefly (the next step's run usually follows within microseconds),
// then sleeps on a condition variable.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wb {

class WorkerPool {
public:
    // threads >= 1 (the caller counts as one); 0 means the machine's hardware threads.
    explicit WorkerPool(int threads);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    int threads() const { return static_cast<int>(workers_.size()) + 1; }

    // Runs task(i) for every i in [0, count) and returns when all have finished. One task, or a
    // pool of one thread, runs on the caller alone. Not reentrant: one run at a time.
    // A task that throws: the tasks not yet started are skipped, and run() rethrows the first
    // exception on the caller once no thread is inside the run (an exception escaping a worker
    // thread would end the process). The pool stays usable.
    void run(std::size_t count, const std::function<void(std::size_t)>& task);

    // The machine's hardware threads (at least 1).
    static int hardwareThreads();

private:
    // One run(): lives on the caller's stack until no worker is inside it.
    struct Job {
        const std::function<void(std::size_t)>* task = nullptr;
        std::size_t count = 0;
        std::atomic<std::size_t> next{0};  // the next task to hand out
        std::atomic<std::size_t> done{0};  // tasks finished (or skipped after a failure)
        std::atomic<bool> failed{false};   // a task threw: skip the rest
        std::mutex errorMutex;
        std::exception_ptr error;  // the first exception a task threw, guarded by errorMutex
    };

    void workerLoop();
    static void work(Job& job);  // claims and runs tasks until none is left

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::atomic<std::uint64_t> generation_{0};  // bumped by every run(); sleeping workers wait for a new one
    // The current job, or null. A worker announces itself in inside_ before it reads job_, and the
    // caller clears job_ before it waits for inside_ to drop to 0 (both sequentially consistent),
    // so no worker can still hold a job whose run() has returned.
    std::atomic<Job*> job_{nullptr};
    std::atomic<int> inside_{0};
    bool stop_ = false;  // guarded by mutex_
};

}  // namespace wb
