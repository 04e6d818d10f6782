#include "core/train/keep_warm.h"

#include <mutex>
#include <vector>

namespace wb {

namespace {
struct Scopes {
    std::mutex mutex;
    int open = 0;
    std::vector<std::function<void()>> releasers;
};

Scopes& scopes() {
    static Scopes s;
    return s;
}
}  // namespace

KeepWarm::KeepWarm() {
    std::lock_guard lock(scopes().mutex);
    ++scopes().open;
}

KeepWarm::~KeepWarm() {
    std::vector<std::function<void()>> releasers;
    {
        std::lock_guard lock(scopes().mutex);
        if (--scopes().open > 0) return;
        releasers = scopes().releasers;
    }
    // Outside the lock: a releaser asks active() (false now) while it lets go.
    for (const auto& release : releasers) release();
}

bool KeepWarm::active() {
    std::lock_guard lock(scopes().mutex);
    return scopes().open > 0;
}

void KeepWarm::addReleaser(std::function<void()> release) {
    std::lock_guard lock(scopes().mutex);
    scopes().releasers.push_back(std::move(release));
}

}  // namespace wb
