// While a KeepWarm lives, a backend may keep what is costly to make for the next run in this process
// (a framework's interpreter with its imports: seconds a run), as an ablation's or an answer's runs
// follow one another. When the last KeepWarm ends, what was kept is let go. A run outside any
// KeepWarm starts afresh, as a single training should: it holds no memory after it ends.
// No Qt, no CUDA; the framework backends honour it (frameworks/loop_process.h).
#pragma once

#include <functional>

namespace wb {

class KeepWarm {
public:
    KeepWarm();
    ~KeepWarm();  // the last one to end calls every releaser
    KeepWarm(const KeepWarm&) = delete;
    KeepWarm& operator=(const KeepWarm&) = delete;

    // Whether some KeepWarm lives now (on any thread).
    static bool active();
    // `release` lets go of what a backend kept; called, once, each time the last KeepWarm ends.
    static void addReleaser(std::function<void()> release);
};

}  // namespace wb
