// A planned trial as the shell command that reproduces it, `mlpwb train` with the trial's options:
// what `mlpwb sweep --dry-run` prints for pasting. Each word is quoted by wb::shellQuote, so a value
// such as  x'; touch f; '  (a run name, a data file's name) stays one argument and runs nothing.
#pragma once

#include <string>

#include "sweep/sweep_plan.h"

namespace wb::sweep {

// "mlpwb train --batch-size=256 '--name=lr=0.1 (repeat 2)' ...": `program` then `train` and the
// trial's args, in one line that a POSIX shell (sh, bash) reads back byte for byte.
std::string trialCommand(const PlannedTrial& trial, const std::string& program = "mlpwb");

}  // namespace wb::sweep
