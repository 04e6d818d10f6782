// The persistent epoch on the CPU: the kernel's block program (persistent_body.h) for every block of
// the grid, the grid barrier emulated by running a phase of every block before any block's next
// phase, in an order the caller picks, with the flag protocol checked at every wait. Each block's
// shared memory lives for the whole epoch, as on the GPU (the owners' optimizer state is in it), and
// is poisoned with NaN first: a read of anything the program did not write shows up in the results.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/persistent_body.h"
#include "kernels/persistent_epoch.h"

namespace wb {

enum class GridOrder {
    Ascending,   // block 0 first in every grid phase
    Descending,  // the last block first
    Shuffled,    // a new seeded permutation in every grid phase
};

struct GridSchedule {
    GridOrder order = GridOrder::Ascending;
    unsigned seed = 0;
    // The control of the emulation itself: run each block's reduction right after its own tiles, as
    // a kernel without the first grid barrier would; the flag check must then report it.
    bool dropComputeBarrier = false;
};

// Thrown when a block would pass a grid barrier before every block reached it.
class GridBarrierError : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

namespace persistent {

// The blocks of one grid phase in the schedule's order.
inline std::vector<int> blockOrder(int grid, const GridSchedule& schedule, std::mt19937& rng) {
    std::vector<int> order(static_cast<std::size_t>(grid));
    std::iota(order.begin(), order.end(), 0);
    if (schedule.order == GridOrder::Descending) std::reverse(order.begin(), order.end());
    if (schedule.order == GridOrder::Shuffled) std::shuffle(order.begin(), order.end(), rng);
    return order;
}

// What a waiting block's lanes check on the GPU: every flag has reached `generation`.
inline void requireFlags(const PersistentArgs& a, int block, std::uint32_t generation) {
    const std::uint32_t* flags = scratchOf(a).flags;
    for (int b = 0; b < a.plan.grid; ++b)
        if (flags[b] < generation)
            throw GridBarrierError("block " + std::to_string(block) + " waits for generation " +
                                   std::to_string(generation) + " but block " + std::to_string(b) + " is at " +
                                   std::to_string(flags[b]));
}

}  // namespace persistent

// One epoch on the host. runBlock(body) calls body(fused::Lanes, barrier) once for every lane of a
// block (the twin: one lane, no barrier; the lane tests: kPersistentThreads lanes taking turns).
template <typename RunBlock>
void persistentEpochOnHost(const PersistentArgs& a, RunBlock runBlock, const GridSchedule& schedule = {}) {
    namespace ps = persistent;
    checkPersistentArgs(a);
    const FusedStepArgs view = persistentFusedView(a);
    const int grid = a.plan.grid, steps = ps::stepsOf(a);
    std::vector<std::vector<std::uint64_t>> shared(static_cast<std::size_t>(grid));
    for (auto& s : shared) s.assign((a.plan.smem.bytes + 7) / 8, ~std::uint64_t{0});  // NaN everywhere
    const auto sm = [&](int b) {
        return ps::Shared{reinterpret_cast<unsigned char*>(shared[static_cast<std::size_t>(b)].data())};
    };
    std::uint32_t* flags = ps::scratchOf(a).flags;
    const auto copy = [](float* d, const float* s) { *d = *s; };
    std::mt19937 rng(schedule.seed);
    const auto eachBlock = [&](auto phase) {
        for (int b : ps::blockOrder(grid, schedule, rng)) phase(b);
    };

    eachBlock([&](int b) {
        runBlock([&](fused::Lanes lanes, auto barrier) {
            ps::startBlock(a, view, b, sm(b), lanes, barrier);
            barrier();
            if (b < ps::stepAt(a, 0).tiles) ps::stageRows(a, ps::stepAt(a, 0), b, sm(b), lanes, copy);
            ps::loadWeights(a, sm(b), lanes);
        });
    });
    for (int s = 0; s < steps; ++s) {
        const ps::Step st = ps::stepAt(a, s);
        const auto reduce = [&](int b) {
            ps::requireFlags(a, b, ps::computedGeneration(st.t));
            runBlock([&](fused::Lanes lanes, auto barrier) { ps::reducePhase(a, st, b, sm(b), lanes, barrier); });
            flags[b] = ps::publishedGeneration(st.t);
        };
        eachBlock([&](int b) {
            runBlock([&](fused::Lanes lanes, auto barrier) {
                ps::computePhase(a, st, b, sm(b), lanes, barrier);
                if (s + 1 < steps && b < ps::stepAt(a, s + 1).tiles)
                    ps::stageRows(a, ps::stepAt(a, s + 1), b, sm(b), lanes, copy);  // the prefetch
            });
            flags[b] = ps::computedGeneration(st.t);
            if (schedule.dropComputeBarrier) reduce(b);
        });
        if (!schedule.dropComputeBarrier) eachBlock(reduce);
        if (s + 1 == steps) break;
        eachBlock([&](int b) {
            ps::requireFlags(a, b, ps::publishedGeneration(st.t));
            runBlock([&](fused::Lanes lanes, auto) { ps::refreshPhase(a, ps::stepAt(a, s + 1), sm(b), lanes); });
        });
    }
    eachBlock([&](int b) { runBlock([&](fused::Lanes lanes, auto) { ps::finishBlock(a, b, sm(b), lanes); }); });
}

// The twin: one lane per block, the blocks in `schedule`'s order.
void persistentEpochTwin(const PersistentArgs& args, const GridSchedule& schedule = {});

}  // namespace wb
