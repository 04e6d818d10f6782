// A RunConfig as the `mlpwb train` options that give it back: what the GUI hands `mlpwb sweep` as a
// sweep's base configuration, and what reproduces a run from a shell. The options are the CLI's
// (cli/train_options.cpp); tst_train_command_line parses them back with it and compares.
#pragma once

#include <string>
#include <vector>

#include "core/run/run_config.h"

namespace wb {

// Every option, "--name=value" (flags "--name=true|false"), without --name, --out and the outputs.
std::vector<std::string> trainCommandLine(const RunConfig& config);

}  // namespace wb
