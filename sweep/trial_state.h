// The state of one trial, in its own small file (trials/NNNN/state.json), written atomically by the
// one process that runs the trial, so a reader sees the old state or the new one, never half.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace wb::sweep {

// Damaged is never written: it is how a state.json that cannot be read is shown (the error says why).
// Such a trial blocks no other; it is not run again until its file is repaired or removed, so
// nothing it may already hold (a completed run.json) is overwritten.
// Stopped: ended at a rung by the sweep's early termination (early_termination.h), its record kept;
// finished for good, like completed: `resume` never restarts it.
enum class TrialState { Pending, Running, Completed, Failed, Cancelled, Stopped, Damaged };

std::string toString(TrialState s);
TrialState trialStateFromString(const std::string& s);  // throws DataError for unknown text
inline bool isFinished(TrialState s) {
    return s == TrialState::Completed || s == TrialState::Failed || s == TrialState::Cancelled ||
           s == TrialState::Stopped;
}

// Ended as the sweep asked: completed, or stopped by its early termination (no failure).
inline bool endedAsAsked(TrialState s) {
    return s == TrialState::Completed || s == TrialState::Stopped;
}

struct TrialStatus {
    TrialState state = TrialState::Pending;
    int attempt = 0;        // how many times the trial was started (a requeued SLURM task adds one)
    std::string host;       // where it runs or ran (`hostname`)
    long pid = 0;           // its process there
    std::string engine;     // "local" or "slurm"
    std::string slurmJob;   // "JOBID_TASK" under SLURM
    std::string startedAt;  // UTC, ISO 8601
    std::string finishedAt;
    std::string error;       // the last error line of a failed trial, or why it was cancelled or stopped
    int stoppedAtEpoch = 0;  // a stopped trial's last epoch: the rung it stopped at
    // How its epoch times were measured: "exclusive" (alone on the machine) or "shared: up to N
    // trials at once on C cores" (its times are then no clean comparison).
    std::string timing;

    nlohmann::json toJson() const;
    // Every field is checked for its type (a missing one takes its default): DataError naming the
    // key ("state: expected a string, found a number"), never a parser's exception.
    static TrialStatus fromJson(const nlohmann::json& j);
};

// Now, as "2026-12-06T03:30:00Z".
std::string utcNow();
// This machine's host name, as `hostname -s` prints it.
std::string shortHostName();

}  // namespace wb::sweep
