// Runs the body of one GPU block on the CPU with every one of its threads ("lanes") as a real
// thread, but ONE AT A TIME: in every phase (the code between two barriers) the lanes take turns in
// the order a LaneOrder gives for that phase, and a lane's barrier() hands the turn on. So
//   * a phase that reads what another lane writes in the same phase (a missing __syncthreads)
//     reads it before it is written in one order or after in the other, deterministically, where a
//     real race would show once in a thousand runs;
//   * a barrier that not every lane reaches (a deadlock or undefined behaviour on the GPU) is
//     reported instead of hanging.
// The one-lane CPU twins cannot see either: they run every unit of work on a single lane.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <semaphore>
#include <string>
#include <thread>
#include <vector>

namespace wb::test {

enum class LaneOrder {
    Ascending,   // lane 0 first in every phase
    Descending,  // the last lane first in every phase
    Shuffled,    // a new seeded permutation in every phase
};

struct TurnstileResult {
    int phases = 0;          // barriers every lane passed, plus one
    bool divergent = false;  // some lanes ended while others waited at a barrier
    std::string error;       // what a lane threw, if one did
};

class Turnstile {
public:
    Turnstile(int lanes, LaneOrder order, unsigned seed) : mode_(order), rng_(seed), active_(lanes, 1) {
        for (int l = 0; l < lanes; ++l) go_.push_back(std::make_unique<std::binary_semaphore>(0));
        order_.resize(static_cast<std::size_t>(lanes));
        std::iota(order_.begin(), order_.end(), 0);
        arrange();
        if (!order_.empty()) go_[static_cast<std::size_t>(order_.front())]->release();
    }

    // Blocks until it is `lane`'s turn in the current phase.
    void waitTurn(int lane) { go_[static_cast<std::size_t>(lane)]->acquire(); }

    // Ends `lane`'s turn in this phase, at a barrier (it takes part in the next phase) or at the end
    // of its body, and wakes the lane whose turn is next; the last lane of a phase starts the next.
    void pass(int lane, bool finished) {
        int next = -1;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (finished) {
                active_[static_cast<std::size_t>(lane)] = 0;
                ++finishedThisPhase_;
            } else {
                ++barriersThisPhase_;
            }
            if (++turn_ == order_.size()) startNextPhase();
            if (turn_ < order_.size()) next = order_[turn_];
        }
        if (next >= 0) go_[static_cast<std::size_t>(next)]->release();
    }

    void fail(const std::string& what) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (result_.error.empty()) result_.error = what;
    }

    TurnstileResult result() {
        std::lock_guard<std::mutex> lock(mutex_);
        return result_;
    }

private:
    void startNextPhase() {
        if (finishedThisPhase_ > 0 && barriersThisPhase_ > 0) result_.divergent = true;
        ++result_.phases;
        finishedThisPhase_ = barriersThisPhase_ = 0;
        order_.clear();
        for (std::size_t l = 0; l < active_.size(); ++l)
            if (active_[l]) order_.push_back(static_cast<int>(l));
        arrange();
        turn_ = 0;
    }

    void arrange() {
        if (mode_ == LaneOrder::Descending) std::reverse(order_.begin(), order_.end());
        if (mode_ == LaneOrder::Shuffled) std::shuffle(order_.begin(), order_.end(), rng_);
    }

    LaneOrder mode_;
    std::mt19937 rng_;
    std::mutex mutex_;
    std::vector<std::unique_ptr<std::binary_semaphore>> go_;  // (lanes) released on the lane's turn
    std::vector<int> order_;                                  // the lanes of this phase, in turn order
    std::size_t turn_ = 0;                                    // index into order_
    std::vector<char> active_;                                // (lanes) 1 while the lane's body runs
    int finishedThisPhase_ = 0;
    int barriersThisPhase_ = 0;
    TurnstileResult result_;
};

// Runs body(lane, barrier) for lanes 0..lanes-1 as one block would, where barrier() is the
// block's __syncthreads. Returns what the turnstile saw.
template <typename Body>
TurnstileResult runBlockLanes(int lanes, LaneOrder order, unsigned seed, Body body) {
    Turnstile turnstile(lanes, order, seed);
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(lanes));
    for (int lane = 0; lane < lanes; ++lane)
        threads.emplace_back([&turnstile, &body, lane] {
            const auto barrier = [&turnstile, lane] {
                turnstile.pass(lane, false);
                turnstile.waitTurn(lane);
            };
            turnstile.waitTurn(lane);
            try {
                body(lane, barrier);
            } catch (const std::exception& e) {
                turnstile.fail(e.what());
            }
            turnstile.pass(lane, true);
        });
    for (std::thread& t : threads) t.join();
    return turnstile.result();
}

inline const char* orderName(LaneOrder o) {
    switch (o) {
        case LaneOrder::Ascending: return "ascending";
        case LaneOrder::Descending: return "descending";
        case LaneOrder::Shuffled: return "shuffled";
    }
    return "?";
}

}  // namespace wb::test
