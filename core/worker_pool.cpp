#include "worker_pool.h"

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
    for (int i = 1; i < n; ++i) workers_.emplace_back([this, i] { workerLoop(static_cast<std::size_t>(i)); });
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

void WorkerPool::runShare(std::size_t index) {
    const auto stride = static_cast<std::size_t>(threads());
    for (std::size_t i = index; i < count_; i += stride) (*task_)(i);
}

void WorkerPool::run(std::size_t count, const std::function<void(std::size_t)>& task) {
    if (count == 1 || workers_.empty()) {
        for (std::size_t i = 0; i < count; ++i) task(i);
        return;
    }
    task_ = &task;
    count_ = count;
    finished_.store(0, std::memory_order_relaxed);
    {
        // Under the lock, so a worker between its check and its wait cannot miss the new run.
        std::lock_guard<std::mutex> lock(mutex_);
        generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    runShare(0);
    for (int spins = 0; finished_.load(std::memory_order_acquire) != workers_.size(); ++spins) {
        if (spins < kSpins)
            pause();
        else
            std::this_thread::yield();  // a loaded machine: let the workers have the core
    }
    task_ = nullptr;
}

void WorkerPool::workerLoop(std::size_t index) {
    std::uint64_t seen = 0;
    for (;;) {
        for (int i = 0; i < kSpins && generation_.load(std::memory_order_acquire) == seen; ++i) pause();
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
            if (stop_) return;
        }
        seen = generation_.load(std::memory_order_acquire);
        runShare(index);
        finished_.fetch_add(1, std::memory_order_release);
    }
}

}  // namespace wb
