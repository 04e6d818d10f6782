#include "core/cpu/worker_pool.h"

#include <algorithm>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace wb {

namespace {
// How long a worker spins for the next run before it sleeps: ~50-100 µs of pause instructions,
// longer than the gap between two runs of a training step, far shorter than an epoch's end.
constexpr int kSpins = 2000;

void pause() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}
}  // namespace

int WorkerPool::hardwareThreads() {
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

WorkerPool::WorkerPool(int threads) {
    const int n = threads > 0 ? threads : hardwareThreads();
    for (int i = 1; i < n; ++i) workers_.emplace_back([this] { workerLoop(); });
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
        generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
}

void WorkerPool::work(Job& job) {
    for (;;) {
        const std::size_t i = job.next.fetch_add(1, std::memory_order_relaxed);
        if (i >= job.count) return;
        if (!job.failed.load(std::memory_order_relaxed)) {
            try {
                (*job.task)(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(job.errorMutex);
                if (!job.error) job.error = std::current_exception();
                job.failed.store(true, std::memory_order_relaxed);
            }
        }
        job.done.fetch_add(1, std::memory_order_release);
    }
}

// Waits with pause instructions, then yields the core (a loaded machine: let the others run).
template <class Done>
void waitUntil(Done done) {
    for (int spins = 0; !done(); ++spins) {
        if (spins < kSpins)
            pause();
        else
            std::this_thread::yield();
    }
}

void WorkerPool::run(std::size_t count, const std::function<void(std::size_t)>& task) {
    if (count == 1 || workers_.empty()) {
        for (std::size_t i = 0; i < count; ++i) task(i);
        return;
    }
    Job job;
    job.task = &task;
    job.count = count;
    job_.store(&job);
    {
        // Under the lock, so a worker between its check and its wait cannot miss the new run.
        std::lock_guard<std::mutex> lock(mutex_);
        generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    work(job);
    waitUntil([&] { return job.done.load(std::memory_order_acquire) == count; });
    job_.store(nullptr);
    waitUntil([&] { return inside_.load() == 0; });
    if (job.error) std::rethrow_exception(job.error);
}

void WorkerPool::workerLoop() {
    std::uint64_t seen = 0;
    for (;;) {
        for (int i = 0; i < kSpins && generation_.load(std::memory_order_acquire) == seen; ++i) pause();
        {
            std::unique_lock<std::mutex> lock(mutex_);
            // stop_ in the predicate: runs that finished without this worker may have moved the
            // generation on more than once, so `seen` can already be the destructor's.
            wake_.wait(lock, [&] { return stop_ || generation_.load(std::memory_order_acquire) != seen; });
            if (stop_) return;
        }
        seen = generation_.load(std::memory_order_acquire);
        inside_.fetch_add(1);
        if (Job* job = job_.load()) work(*job);
        inside_.fetch_sub(1);
    }
}

}  // namespace wb
