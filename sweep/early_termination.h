// Early termination as W&B writes it, `early_terminate: {type: hyperband, min_iter: 3, eta: 3}` (or
// `max_iter: 27, s: 2` in place of min_iter), run as asynchronous successive halving (ASHA; Li et al.,
// "A System for Massively Parallel Hyperparameter Tuning", 2020; Ray Tune's AsyncHyperBandScheduler)
// through the sweep folder, so it works wherever the trials run (the local pool, SLURM: the folder
// is shared):
//
//   rungs      min_iter * eta^k epochs (k = 0, 1, ...), each before the trial's last epoch and at most
//              max_iter; with max_iter and s instead of min_iter, max_iter / eta^k for k = s .. 1.
//   at a rung  the trial reads the metric every other trial wrote at that rung (trials/NNNN/rungs.json),
//              decides, and writes its own value and decision: it stops when its metric is strictly
//              worse than the 1/eta quantile (the best third for eta 3) of the values written there
//              before it; the first at a rung always goes on, as in ASHA.
//
// A stopped trial's record ends at its rung with the status `stopped` and the reason; its state is
// `stopped` (trial_state.h), which `resume` never restarts. "Iterations" are epochs: our trials
// report their metric once an epoch.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep_spec.h"

namespace wb::sweep {

class SweepFolder;

// The quantile's interpolation and the rule are Ray Tune's (numpy's linear percentile of the values
// already at the rung), with the goal folded in.
struct RungDecision {
    bool stop = false;
    std::optional<double> cutoff;  // the 1/eta quantile of the earlier values; none for the first
    int peers = 0;                 // how many earlier values it was computed from
};

// `value` against the finite values written at the same rung before it. A value that is not finite
// (a run that diverged) stops whenever there is anything to compare with; ties go on.
RungDecision decideAtRung(double value, const std::vector<double>& earlier, int eta, Goal goal);

// The epochs at which a trial of `epochs` epochs reports (ascending, each < epochs; empty when the
// first rung is not before the last epoch).
std::vector<int> rungEpochs(const EarlyTermination& e, int epochs);

// "hyperband (min_iter 3, eta 3)".
std::string describe(const EarlyTermination& e);

nlohmann::json earlyTerminationJson(const EarlyTermination& e);
EarlyTermination earlyTerminationFromJson(const nlohmann::json& j);  // throws JsonFieldError

// One line of a trial's rungs.json: what it wrote when it reached a rung.
struct RungEntry {
    int epoch = 0;
    double metric = 0;
    std::optional<double> cutoff;
    int peers = 0;
    bool stop = false;
};

// The trial's rung file, as written; empty where there is none or it cannot be read (a damaged
// or hostile file is no peer: it changes no one's decision). Bounded to kMaxRungs entries.
std::vector<RungEntry> readRungs(const SweepFolder& folder, int id);
// Atomically, no link followed (IoError). An empty list removes the file (a trial started afresh).
void writeRungs(const SweepFolder& folder, int id, const std::vector<RungEntry>& rungs);
inline constexpr std::size_t kMaxRungs = 64;

// What a trial of `lastEpoch` epochs does when its epoch `epoch` ends with `value` of the sweep's
// metric: nothing off a rung (or without early_terminate); at a rung it decides against the other trials' entries at
// that rung, appends its own to its rungs.json, and returns the reason to stop ("hyperband rung 2 (epoch 9): val_loss
// 0.41 is worse than 0.35, the best 1/3 of 4 trials there") or nullopt to go on.
std::optional<std::string> reachRung(const SweepFolder& folder, int id, int epoch, int lastEpoch, double value);

}  // namespace wb::sweep
