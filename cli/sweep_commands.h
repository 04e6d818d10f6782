// The parts of `mlpwb sweep` that its subcommands share (sweep_command.cpp registers them).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/sweep_engine_run.h"
#include "sweep/sweep_folder.h"

namespace wb::cli {

// status, resume, report and run-trial under `mlpwb sweep`, each with the callback that runs it.
std::vector<std::pair<CLI::App*, Command>> addSweepSubcommands(CLI::App& sweep);

// `--dry-run`: the trials as `mlpwb train` command lines, or the SLURM batch script; writes nothing.
int printDryRun(const sweep::SweepPlan& plan, const std::string& dir, const EngineChoice& engine);

// The status table and the best trial, after a sweep's run.
void printSummary(const sweep::SweepFolder& folder);

// `mlpwb sweep run-trial DIR ID`: what every engine starts.
CLI::App* addRunTrialCommand(CLI::App& sweep, Command& run);

}  // namespace wb::cli
