// The engines the workbench knows, each described once: its name (the value of --backend and
// --engines), what menus and tables call it, what a sentence calls it, whether it is one of ours or
// a framework run in the user's Python, and what makes it available where it is not. Front ends read
// this table (the CLI's checks, the answer and its conclusion, the execution panel, the report, the
// exported loops) and keep no lists of their own; the BackendRegistry says which of them can train
// here, and why not. Adding an engine is one entry here plus its backend.
#pragma once

#include <string>
#include <vector>

namespace wb {

struct EngineFacts {
    std::string name;     // "cpu", "cuda", "torch", "keras", "jax"
    std::string label;    // "CPU", "PyTorch": menus, tables, legends
    std::string prose;    // "our CPU backend", "PyTorch": in sentences
    bool framework;       // runs in the user's Python, in a subprocess (frameworks/)
    std::string install;  // the command that makes it available; empty: always there
    // What it needs beyond what `install` gives (a device, a driver); said when the reason is not
    // that the package is missing. Empty: `install` is all.
    std::string needs;
};

// Every engine, in the order front ends list and the answer asks them: ours first (the numerical
// reference), then the frameworks the founding question is about.
const std::vector<EngineFacts>& engines();
// Null for a name no engine has.
const EngineFacts* findEngine(const std::string& name);
// "cpu, cuda, torch, keras, jax": for the messages that refuse another name.
std::string engineNameList();
// The label and the prose of `name`, or `name` itself for one no engine has (a peer's "pytorch").
std::string engineLabel(const std::string& name);
std::string engineProse(const std::string& name);
bool isFrameworkBackend(const std::string& name);
// The command that makes engine `name` available here, for the reason its probe gave; empty when
// there is none to give (cpu).
std::string installHint(const std::string& name, const std::string& reason);

}  // namespace wb
