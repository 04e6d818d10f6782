// connectAcrossThreads: how the training worker and the GUI thread talk. In a normal build it is a
// plain queued connection, as in Qt's threading examples: the sender emits, Qt copies the arguments
// into an event, the receiver's thread runs the slot when its event loop gets there.
//
// Under ThreadSanitizer (and only there) it also makes that hand-off visible. Qt's libraries are not
// instrumented, so the ordering their event queue provides (a mutex TSan never sees) is invisible,
// and TSan would report the argument copy made on the sending thread and the slot's read on the
// receiving one as a race. There, the helper connects two more direct slots around the queued one
// (Qt calls a signal's slots in the order they were connected): the first takes a std::mutex, the
// queued activation copies and posts while it is held, the last releases it; the receiving side
// takes the same mutex before it calls the slot. The read then provably follows the copy. Nothing of
// this is compiled in a build without ThreadSanitizer, and no emit or slot knows about it.
#pragma once

#include <QObject>
#include <functional>

#if defined(__SANITIZE_THREAD__)
#define WB_TSAN_HANDOFF 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WB_TSAN_HANDOFF 1
#endif
#endif

#ifdef WB_TSAN_HANDOFF
#include <mutex>
#endif

namespace wb::gui {

#ifdef WB_TSAN_HANDOFF
namespace detail {
// One for the process: the receiver finds it without reading anything the sender wrote.
inline std::mutex& handoffMutex() {
    static std::mutex mutex;
    return mutex;
}
}  // namespace detail
#endif

// Connects `signal` of `sender` to `slot` (a member function or a signal) of `receiver`, queued:
// `slot` runs on `receiver`'s thread with copies of the arguments.
template <class Sender, class Signal, class Receiver, class Slot>
QMetaObject::Connection connectAcrossThreads(Sender* sender, Signal signal, Receiver* receiver, Slot slot) {
#ifdef WB_TSAN_HANDOFF
    QObject::connect(
        sender, signal, sender, [](const auto&...) -> void { detail::handoffMutex().lock(); }, Qt::DirectConnection);
    const auto connection = QObject::connect(
        sender, signal, receiver,
        [receiver, slot](const auto&... args) -> void {
            { const std::lock_guard passed(detail::handoffMutex()); }  // after the sender's copy
            std::invoke(slot, receiver, args...);
        },
        Qt::QueuedConnection);
    QObject::connect(
        sender, signal, sender, [](const auto&...) -> void { detail::handoffMutex().unlock(); }, Qt::DirectConnection);
    return connection;
#else
    return QObject::connect(sender, signal, receiver, slot, Qt::QueuedConnection);
#endif
}

}  // namespace wb::gui
