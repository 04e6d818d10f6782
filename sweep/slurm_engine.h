// The SLURM engine: one job array per submission (one array task per trial, each running
// `mlpwb sweep run-trial DIR ID`), followed through the sweep folder and squeue, never sacct
// (accounting is often disabled). DIR must be on a filesystem that every node mounts at the
// same path.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sweep/sweep_folder.h"

namespace wb::sweep {

struct SlurmOptions {
    std::string mlpwbPath;                // the mlpwb the nodes run (the same path there)
    std::vector<std::string> sbatchArgs;  // --slurm-arg values, one #SBATCH line each
    int maxParallel = 0;                  // the %K of --array (0: SLURM's own limit)
    int cpusPerTask = 1;                  // unless sbatchArgs name --cpus-per-task themselves
};

// "0-5", "1,3,7-9": the ids as an --array range.
std::string arrayRange(const std::vector<int>& ids);

// Throws ConfigError naming the value when an sbatch option holds a newline, a carriage return or a
// NUL byte: each would end its #SBATCH line and leave the rest a line of the shell script. `where`
// says where it came from ("--slurm-arg", "sweep.json: engine.slurm_args").
void checkSbatchArgs(const std::vector<std::string>& args, const std::string& where);

// Throws ConfigError for a folder path sbatch cannot take in an #SBATCH line: a blank, a quote, a
// backslash, # or % or a line break. Checked before a folder for the SLURM engine is made.
void checkSlurmFolder(const std::string& dir);

// The batch script for the trials `ids`: #SBATCH lines (job name, --array=RANGE%K, each task's
// output appended to its trial's log, --requeue, the user's options), then one exec of run-trial,
// its words quoted by wb::shellQuote. Throws ConfigError for an option checkSbatchArgs refuses, or a
// folder path with a blank, a quote, a backslash, # or % or a line break (sbatch reads it in an
// #SBATCH line, where # starts a comment and %a a pattern).
// `dir` is the sweep folder, `sweepName` its name (the job's: mlpwb-NAME).
std::string sbatchScript(const std::string& dir, const std::string& sweepName, const std::vector<int>& ids,
                         const SlurmOptions& options);

// Writes the script to DIR/submit-N.sh, submits it with `sbatch --parsable` and marks each trial
// pending with its array task ("JOB_ID"). Returns the job id. Throws IoError with sbatch's message.
std::string submitArray(const SweepFolder& folder, const std::vector<int>& ids, const SlurmOptions& options);

// The array tasks squeue still lists ("12_3") and each one's compact state (PD pending, R running,
// CG completing, ...). Throws IoError when squeue cannot answer (no controller), so that nothing is
// concluded from silence.
std::map<std::string, std::string> queuedTasks();

// Settles the states squeue contradicts: a trial whose array task has left the queue while its
// state still says pending was cancelled before it started (scancel) and reads `cancelled`; one
// still `running` ended without writing its end (killed, node lost) and reads `failed`. Returns
// how many trials are still queued or running under SLURM. A trial that ended (a requeue sends
// SIGTERM first) while its task waits in the queue again (PD) reads `pending`; one that ended while
// its task still runs or completes (R, CG: the process has written its end and is exiting) stands.
int settleSlurmStates(const SweepFolder& folder);

// Follows the submitted trials until none is queued or running, calling onProgress every second.
// Returns early, leaving the jobs alone, when `stop` becomes true.
void followSlurm(const SweepFolder& folder, const std::atomic<bool>& stop,
                 const std::function<void(int finished, int total)>& onProgress);

}  // namespace wb::sweep
