// Orders a queued-connection hand-off between two threads in a way ThreadSanitizer can see.
//
// A queued connection copies the signal's arguments (an EpochMetrics, a RunRecord, a lambda's
// captures) into an event on the sending thread, and the receiving thread reads them after Qt's
// event-queue mutex has ordered the two. That order is real, but Qt's libraries are not built with
// ThreadSanitizer, so it cannot see it and reports the copy and the read as a race. The sender
// posts while holding this fence; the receiver passes through the fence before it reads: the read
// then provably comes after the copy, with a std::mutex ThreadSanitizer understands. The cost is
// one uncontended lock per event on each side.
// There is one fence for the process (handoffFence()): a receiver finds it without reading
// anything the sender wrote (a lambda's capture read before the fence would itself race).
#pragma once

#include <mutex>

namespace wb::gui {

class HandoffFence {
public:
    // Runs `post` (which emits a queued signal or invokes a method on another thread) in the fence.
    template <class Post>
    void post(Post&& post) {
        const std::lock_guard lock(mutex_);
        post();
    }
    // Called on the receiving thread before it reads what was posted to it.
    void receive() { const std::lock_guard lock(mutex_); }

private:
    std::mutex mutex_;
};

inline HandoffFence& handoffFence() {
    static HandoffFence fence;
    return fence;
}

}  // namespace wb::gui
