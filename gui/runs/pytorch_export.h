// "Export as PyTorch code…": a run's configuration written out as the PyTorch loop the torch
// backend would run for it (frameworks/' one generator), as the user's own script. A run of another
// backend exports too: its switches become PyTorch's constructs. And "Export fixed loop as PyTorch
// code…" of the Answer tab: the answer's PyTorch fixed loop, as `mlpwb export --answer` writes it.
#pragma once

#include <QString>

#include "core/measure/answer.h"
#include "core/run/run_config.h"

namespace wb::gui {

struct RunEntry;

// The run's RunConfig on the torch backend. Throws ConfigError when the run holds no workbench
// configuration (a peer's file) or one that does not parse.
RunConfig torchConfigOf(const RunEntry& run);
// Writes the loop for `run` to `path` (replacing it whole, or leaving it as it was), executable. The
// loop is written for the PyTorch version and device the run's record names (a torch run), else for
// the newest PyTorch on the CPU; no interpreter is asked.
// Throws ConfigError (see torchConfigOf), IoError when the file cannot be written.
void exportPytorchScript(const RunEntry& run, const QString& path);
// Writes the PyTorch fixed loop of `answer` (fixedLoopScript: the fastest configuration it measured
// there, with the comment that says which step it is) to `path`, as exportPytorchScript writes;
// `source` names the answer in that comment. Throws DataError when the answer has no PyTorch fixed
// loop (why: whyNoFixedLoop), IoError when the file cannot be written.
void exportFixedLoopScript(const Answer& answer, const std::string& source, const QString& path);
// A file name for the run's script: "seed_pytorch_loop.py".
QString scriptFileName(const RunEntry& run);

}  // namespace wb::gui
