// Which Python a framework backend runs, and what that interpreter offers: the framework's version
// and devices, or why the framework cannot be used.
#pragma once

#include <string>
#include <utility>
#include <vector>

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
    // "major.minor" at least: false for "1.13.1" against {2, 0}.
    bool versionAtLeast(int major, int minor) const;
    std::vector<std::pair<std::string, std::string>> details() const;  // for `mlpwb info`
};

// Asks `python` (at most ~60 s, once per interpreter and framework for the process's lifetime).
// Never throws: a missing interpreter or module is an unavailable framework with the reason.
FrameworkFacts probeFramework(const std::string& framework, const std::string& python);
// Forgets every cached answer (after the user installs a package, or for tests).
void forgetFrameworkProbes();

}  // namespace wb
