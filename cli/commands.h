// The subcommands of mlpwb. Each registers its flags and returns the callback that runs it;
// the callback returns an exit code (exit_codes.h) or throws a wb::Error.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace wb::cli {

using Command = std::function<int()>;

Command addTrainCommand(CLI::App& app);
Command addPresetsCommand(CLI::App& app);
Command addInfoCommand(CLI::App& app);
Command addDatasetCommand(CLI::App& app);
Command addAblateCommand(CLI::App& app);
Command addAnswerCommand(CLI::App& app);
Command addReportCommand(CLI::App& app);
Command addVerifyCommand(CLI::App& app);
Command addExportCommand(CLI::App& app);
Command addSweepCommand(CLI::App& app);

}  // namespace wb::cli
