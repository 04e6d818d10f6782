// Asks the backend registry which backends can train here, off the GUI thread: a framework
// backend's probe starts the user's Python and imports the framework (seconds), which must not
// freeze the window. A newer check supersedes an older one, whose answer is then dropped.
#pragma once

#include <QObject>
#include <optional>
#include <string>
#include <vector>

#include "core/run/backend.h"
#include "frameworks/python_interpreter.h"

namespace wb::gui {

// What one check found: every registered backend, and what the interpreter said about PyTorch.
struct BackendSnapshot {
    std::string python;                   // the interpreter the framework probes asked (resolvePython())
    std::vector<BackendInfo> backends;    // the registry's list, in its order
    std::optional<FrameworkFacts> torch;  // set when "torch" is registered
    const BackendInfo* find(const std::string& name) const;  // nullptr when not listed
};

// The registry's answer now, probes included (blocks for as long as they take).
BackendSnapshot snapshotBackends();

class BackendCheck : public QObject {
    Q_OBJECT

public:
    explicit BackendCheck(QObject* parent = nullptr);
    ~BackendCheck() override;

    // Starts a check on a worker thread; a check still running is superseded (its answer dropped).
    void start();
    bool running() const { return running_; }

signals:
    void finished(const wb::gui::BackendSnapshot& snapshot);

private:
    int generation_ = 0;
    bool running_ = false;
};

}  // namespace wb::gui
