// Which Python a framework backend runs, and what that interpreter offers: the framework's version
// and devices, or why the framework cannot be used.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "core/run/backend.h"  // CancelFlag

namespace wb {

// The interpreter to use: `chosen` when not empty, else $MLPWB_PYTHON, else "python3" (on PATH).
std::string resolvePython(const std::string& chosen = {});
// The process-wide choice (`mlpwb --python`, the GUI's setting) that resolvePython("") and the
// backend registry's probes use; empty = back to $MLPWB_PYTHON / python3.
void setPreferredPython(std::string path);
std::string preferredPython();

// What one interpreter says about one framework (torch, keras, jax).
struct FrameworkFacts {
    std::string framework;  // "torch"
    std::string python;     // the interpreter asked, as given
    bool available = false;
    std::string reason;         // why not, when unavailable
    std::string version;        // "1.13.1"
    std::string pythonVersion;  // "3.11.2"
    std::string executable;     // sys.executable
    bool cuda = false;          // the framework sees a CUDA device
    std::string cudaDevice;     // its name
    int threads = 0;            // the framework's CPU threads
    bool stopped = false;       // Ctrl+C or Stop ended the probe before an answer (never cached)
    // "major.minor" at least: false for "1.13.1" against {2, 0}.
    bool versionAtLeast(int major, int minor) const;
    std::vector<std::pair<std::string, std::string>> details() const;  // for `mlpwb info`
};

// How long a probe waits for the interpreter's answer: 20 s (an import of TensorFlow on a cold disk
// takes several), or $MLPWB_PROBE_TIMEOUT seconds when that is a positive number.
std::chrono::milliseconds probeTimeout();

// Asks `python` (at most probeTimeout(), once per interpreter and framework for the process's
// lifetime). A program that does not answer in time is ended with its whole process group, and so
// is one that `cancel`, SIGINT or SIGTERM stop (see probe_signals.h). Never throws: a missing,
// silent or stopped interpreter, or a missing module, is an unavailable framework with the reason.
FrameworkFacts probeFramework(const std::string& framework, const std::string& python,
                              const CancelFlag* cancel = nullptr);
// While one lives, probeFramework on its thread runs nothing: it answers from what was asked before,
// else with facts that say the interpreter was not asked (never cached). Reading a file (a report, a
// loop exported from a record) must never run a program, not even the user's own interpreter.
class NoProbes {
public:
    NoProbes();
    ~NoProbes();
    NoProbes(const NoProbes&) = delete;
    NoProbes& operator=(const NoProbes&) = delete;

private:
    bool outer_;  // what the thread had before (nested scopes)
};

// Forgets every cached answer (after the user installs a package, or for tests).
void forgetFrameworkProbes();

}  // namespace wb
