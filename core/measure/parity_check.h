// The parity check behind `mlpwb verify` and the gpu tests: train a few steps on a small data set
// with a reference backend (the CPU) and a candidate (CUDA) from the same initial weights and the
// same batch order, and compare the losses and the weights with a tolerance chosen by precision.
// CUDA-free: the candidate is any wb::Backend, so the comparison itself is tested on the CPU.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/run/backend.h"

namespace wb {

// Relative tolerances: fp32 1e-4, tf32 1e-2, bf16 and fp16 5e-2.
struct ParityTolerance {
    double loss = 1e-4;     // |candidate - reference| / max(|reference|, 1e-6), per epoch
    double weights = 1e-4;  // ||candidate - reference||_2 / max(||reference||_2, 1e-6), per tensor
};
ParityTolerance toleranceFor(Precision p);

// A small problem every combination can train in a few steps: a partial last batch included, so
// graph and fused paths meet both batch sizes; shuffled, so per_sample_gather gathers.
struct ParityProblem {
    PreparedData data;                               // (rows, 61) seed-like rows, standardised
    ModelSpec model;                                 // the seed model, 61 -> 20 -> 10 -> 1 tanh
    OptimizerSpec optimizer;                         // Adam, lr 1e-3 (10 steps move each weight by ~1e-2)
    int batchSize = 64;                              // 300 rows: 4 full batches and one of 44
    MlpParams initialParams;                         // the same start for both backends
    std::vector<std::vector<std::uint32_t>> orders;  // (epochs) one permutation of the rows each
    bool shuffled = true;                            // false: every epoch in file order (orders only count the epochs)
};
ParityProblem makeParityProblem(std::size_t rows = 300, int epochs = 3, std::uint64_t seed = 7);

// What one backend did: the mean loss of every epoch and the final parameters.
struct RunTrace {
    std::vector<double> epochLoss;
    std::vector<double> epochAccuracy;
    MlpParams params;
};
// Sets `backend` up with `settings` on `problem` and runs every epoch of problem.orders (in file
// order when !problem.shuffled).
// Throws what the backend throws; throws DeviceError when an epoch reports a non-finite loss.
RunTrace traceRun(Backend& backend, const ParityProblem& problem, const ExecutionSettings& settings);

struct ParityComparison {
    bool passed = false;
    double lossError = 0;    // the largest relative loss error over the epochs
    double weightError = 0;  // the largest relative weight error over the tensors
    std::string worst;       // where the largest weight error is, e.g. "layer 1 weight"
    std::string message;     // why it failed (empty when passed)
};
// Compares `candidate` with `reference` under `tol`; also fails on a shape mismatch or a NaN.
ParityComparison compareTraces(const RunTrace& reference, const RunTrace& candidate, ParityTolerance tol);

// One line of `mlpwb verify`.
struct ParityOutcome {
    ExecutionSettings settings;
    enum class Status { Passed, Failed, Skipped } status = Status::Skipped;
    ParityComparison comparison;
    std::string message;       // the failure or the reason for a skip
    bool deviceError = false;  // it failed with a DeviceError: the device's state may be poisoned
};
std::string formatOutcome(const ParityOutcome& o);  // "PASS data_path=... loss 2.1e-07 weights 3.4e-07"

// The candidate under the settings of one combination; the reference (CPU) runs fp32 with the same
// loss and zero_grad. Never throws: an exception of either backend becomes a failed outcome.
ParityOutcome checkCombination(Backend& reference, Backend& candidate, const ParityProblem& problem,
                               const ExecutionSettings& settings);

struct VerifySummary {
    int passed = 0, failed = 0, skipped = 0;
};
// Checks every combination in `combos` with a fresh candidate from `makeCandidate` (so one broken
// state cannot leak into the next); calls `report` after each. `makeCandidate` may throw (DeviceError):
// then that combination fails with its message.
VerifySummary verifyCombinations(const std::vector<ExecutionSettings>& combos,
                                 const std::function<std::unique_ptr<Backend>()>& makeCandidate,
                                 const std::function<void(const ParityOutcome&)>& report, const ParityProblem& problem);

// `mlpwb verify --isolate`: the combinations run in child processes, so a sticky CUDA error (an
// illegal address poisons the whole context) fails the combination that raised it and no other.
// `runChild(first, onLine)` starts a fresh process that checks combos[first..] and feeds every line it
// prints to `onLine`; it returns the child's exit code (-1 when it did not exit normally). A child
// prints "BEGIN <index>" before each combination and formatOutcome's line after it, and ends after a
// combination that failed with a DeviceError. The parent starts the next child after the last
// combination begun; a combination that began without an outcome line (the child crashed, hung up or
// was killed) fails, named, with the child's exit code and last line. A child that ends before its
// first BEGIN fails every remaining combination with that message (no 600 crashing children).
// `report` gets every outcome line (the child's, or the parent's for a combination it had to fail).
using VerifyChildRunner =
    std::function<int(std::size_t first, const std::function<void(const std::string& line)>& onLine)>;
VerifySummary verifyIsolated(const std::vector<ExecutionSettings>& combos, const VerifyChildRunner& runChild,
                             const std::function<void(const std::string& line)>& report);

}  // namespace wb
