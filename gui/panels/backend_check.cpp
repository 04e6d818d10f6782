#include "gui/panels/backend_check.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace wb::gui {

const BackendInfo* BackendSnapshot::find(const std::string& name) const {
    for (const BackendInfo& info : backends)
        if (info.name == name) return &info;
    return nullptr;
}

BackendSnapshot snapshotBackends() {
    BackendSnapshot s;
    s.python = resolvePython();
    s.backends = BackendRegistry::instance().list();
    // The registry's torch probe asked the same interpreter a moment ago: this answer is cached.
    if (s.find("torch")) s.torch = probeFramework("torch", s.python);
    return s;
}

BackendCheck::BackendCheck(QObject* parent) : QObject(parent) {}

// A check still running finishes on its pool thread (a probe cannot be interrupted); only the
// registry and the probe cache, both process-wide, are touched there, and the answer is dropped.
BackendCheck::~BackendCheck() = default;

void BackendCheck::start() {
    const int generation = ++generation_;
    running_ = true;
    auto* watcher = new QFutureWatcher<BackendSnapshot>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != generation_) return;  // superseded: a newer check's answer is coming
        running_ = false;
        emit finished(watcher->result());
    });
    watcher->setFuture(QtConcurrent::run(snapshotBackends));
}

}  // namespace wb::gui
