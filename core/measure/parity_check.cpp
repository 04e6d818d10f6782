#include "core/measure/parity_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/cpu/cpu_backend.h"
#include "core/data/builtin_data.h"
#include "core/measure/switch_combinations.h"
#include "core/platform/errors.h"
#include "core/platform/random.h"

namespace wb {

ParityTolerance toleranceFor(Precision p) {
    switch (p) {
        case Precision::Fp32: return {1e-4, 1e-4};
        case Precision::Tf32: return {1e-2, 1e-2};
        case Precision::Bf16:
        case Precision::Fp16: return {5e-2, 5e-2};
    }
    return {};
}

ParityProblem makeParityProblem(std::size_t rows, int epochs, std::uint64_t seed) {
    ParityProblem p;
    p.data = prepare(generateSeedLike(rows, seed), PrepareSpec{0.0, true, seed});
    // Adam at the founding lr 1e-3: its first steps move every weight by about lr whatever the size of
    // its gradient, so a gradient near zero whose sign rounding flips moves 2 lr apart; a larger lr
    // would turn such flips of the 16-bit paths into failures that are not bugs.
    p.optimizer = OptimizerSpec::defaults(OptimizerKind::Adam);
    p.initialParams = initParams(p.model, p.data.cols, seed);
    Rng rng(seed * 31 + 1);
    for (int e = 0; e < epochs; ++e) p.orders.push_back(permutation(static_cast<std::uint32_t>(rows), rng));
    return p;
}

RunTrace traceRun(Backend& backend, const ParityProblem& problem, const ExecutionSettings& settings) {
    backend.setup(
        {&problem.data, problem.model, problem.optimizer, settings, problem.batchSize, problem.initialParams});
    const CancelFlag never{false};
    RunTrace trace;
    for (const auto& order : problem.orders) {
        const EpochResult r = backend.trainEpoch(problem.shuffled ? &order : nullptr, never);
        if (r.nonFiniteStep)
            throw DeviceError("", backend.name() + ": non-finite loss at step " + std::to_string(*r.nonFiniteStep));
        const auto samples = static_cast<double>(std::max<std::size_t>(r.samples, 1));
        trace.epochLoss.push_back(r.lossSum / samples);
        trace.epochAccuracy.push_back(static_cast<double>(r.correct) / samples);
    }
    trace.params = backend.parameters();
    return trace;
}

namespace {
double relative(double diff, double scale) {
    return diff / std::max(scale, 1e-6);
}

// ||a - b||_2 / ||b||_2 over n values; infinity when either holds a NaN or an infinity.
double tensorError(const float* a, const float* b, std::size_t n) {
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(a[i]) || !std::isfinite(b[i])) return INFINITY;
        const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
        diff += d * d;
        norm += static_cast<double>(b[i]) * static_cast<double>(b[i]);
    }
    return relative(std::sqrt(diff), std::sqrt(norm));
}

std::string shortNumber(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2e", v);
    return buf;
}
}  // namespace

ParityComparison compareTraces(const RunTrace& reference, const RunTrace& candidate, ParityTolerance tol) {
    ParityComparison c;
    if (reference.epochLoss.size() != candidate.epochLoss.size() ||
        reference.params.count() != candidate.params.count() ||
        reference.params.layers.size() != candidate.params.layers.size()) {
        c.message = "the runs differ in shape (epochs or parameter count)";
        return c;
    }
    for (std::size_t e = 0; e < reference.epochLoss.size(); ++e) {
        const double ref = reference.epochLoss[e], got = candidate.epochLoss[e];
        const double err = std::isfinite(got) ? relative(std::abs(got - ref), std::abs(ref)) : INFINITY;
        c.lossError = std::max(c.lossError, err);
    }
    for (std::size_t l = 0; l < reference.params.layers.size(); ++l) {
        const LayerSlice& s = reference.params.layers[l];
        const std::size_t weights = static_cast<std::size_t>(s.in) * static_cast<std::size_t>(s.out);
        const double we = tensorError(candidate.params.weight(l), reference.params.weight(l), weights);
        const double be =
            tensorError(candidate.params.bias(l), reference.params.bias(l), static_cast<std::size_t>(s.out));
        if (we > c.weightError || c.worst.empty()) {
            c.weightError = std::max(c.weightError, we);
            c.worst = "layer " + std::to_string(l) + " weight";
        }
        if (be > c.weightError) {
            c.weightError = be;
            c.worst = "layer " + std::to_string(l) + " bias";
        }
    }
    const bool lossOk = c.lossError <= tol.loss, weightsOk = c.weightError <= tol.weights;
    c.passed = lossOk && weightsOk;
    if (!lossOk) c.message = "loss error " + shortNumber(c.lossError) + " > " + shortNumber(tol.loss);
    if (!weightsOk)
        c.message += (c.message.empty() ? "" : "; ") + c.worst + " error " + shortNumber(c.weightError) + " > " +
                     shortNumber(tol.weights);
    return c;
}

std::string formatOutcome(const ParityOutcome& o) {
    const char* tag = o.status == ParityOutcome::Status::Passed   ? "PASS"
                      : o.status == ParityOutcome::Status::Failed ? "FAIL"
                                                                  : "SKIP";
    std::string line = std::string(tag) + "  " + describeCombination(o.settings);
    if (o.status != ParityOutcome::Status::Skipped && o.message.empty())
        line += "  loss " + shortNumber(o.comparison.lossError) + " weights " + shortNumber(o.comparison.weightError);
    if (!o.message.empty()) line += "  (" + o.message + ")";
    return line;
}

ParityOutcome checkCombination(Backend& reference, Backend& candidate, const ParityProblem& problem,
                               const ExecutionSettings& settings) {
    ParityOutcome o;
    o.settings = settings;
    o.status = ParityOutcome::Status::Failed;
    ExecutionSettings refSettings;  // the CPU honours loss and zero_grad; the rest is fp32 reference maths
    refSettings.loss = settings.loss;
    refSettings.zeroGrad = settings.zeroGrad;
    try {
        const RunTrace ref = traceRun(reference, problem, refSettings);
        const RunTrace got = traceRun(candidate, problem, settings);
        o.comparison = compareTraces(ref, got, toleranceFor(settings.precision));
        o.message = o.comparison.message;
        if (o.comparison.passed) o.status = ParityOutcome::Status::Passed;
    } catch (const DeviceError& e) {
        o.message = e.what();
        o.deviceError = true;
    } catch (const std::exception& e) {
        o.message = e.what();
    }
    return o;
}

VerifySummary verifyCombinations(const std::vector<ExecutionSettings>& combos,
                                 const std::function<std::unique_ptr<Backend>()>& makeCandidate,
                                 const std::function<void(const ParityOutcome&)>& report,
                                 const ParityProblem& problem) {
    VerifySummary summary;
    const auto reference = makeCpuBackend();
    for (const auto& settings : combos) {
        ParityOutcome o;
        o.settings = settings;
        try {
            const auto candidate = makeCandidate();
            o = checkCombination(*reference, *candidate, problem, settings);
        } catch (const DeviceError& e) {
            o.status = ParityOutcome::Status::Failed;
            o.message = e.what();
            o.deviceError = true;
        } catch (const std::exception& e) {
            o.status = ParityOutcome::Status::Failed;
            o.message = e.what();
        }
        if (o.status == ParityOutcome::Status::Passed) ++summary.passed;
        if (o.status == ParityOutcome::Status::Failed) ++summary.failed;
        if (o.status == ParityOutcome::Status::Skipped) ++summary.skipped;
        if (report) report(o);
    }
    return summary;
}

VerifySummary verifyIsolated(const std::vector<ExecutionSettings>& combos, const VerifyChildRunner& runChild,
                             const std::function<void(const std::string& line)>& report) {
    VerifySummary summary;
    const auto emit = [&](const std::string& line) {
        if (line.rfind("PASS", 0) == 0) ++summary.passed;
        if (line.rfind("FAIL", 0) == 0) ++summary.failed;
        if (line.rfind("SKIP", 0) == 0) ++summary.skipped;
        if (report) report(line);
    };
    const auto failLine = [&](std::size_t i, const std::string& why) {
        ParityOutcome o;
        o.settings = combos[i];
        o.status = ParityOutcome::Status::Failed;
        o.message = why;
        return formatOutcome(o);
    };
    std::size_t next = 0;
    while (next < combos.size()) {
        constexpr std::size_t kNone = static_cast<std::size_t>(-1);
        std::size_t current = kNone;
        bool answered = false;
        std::string last;  // the child's last line that is neither BEGIN nor an outcome
        const int code = runChild(next, [&](const std::string& line) {
            if (line.rfind("BEGIN ", 0) == 0) {
                current = static_cast<std::size_t>(std::stoull(line.substr(6)));
                answered = false;
            } else if (current != kNone && !answered &&
                       (line.rfind("PASS", 0) == 0 || line.rfind("FAIL", 0) == 0 || line.rfind("SKIP", 0) == 0)) {
                answered = true;
                emit(line);
            } else if (!line.empty()) {
                last = line;
            }
        });
        const std::string ended =
            "child process ended with exit code " + std::to_string(code) + (last.empty() ? std::string() : ": " + last);
        if (current == kNone || current < next || current >= combos.size()) {
            for (std::size_t i = next; i < combos.size(); ++i) emit(failLine(i, ended + " (before any combination)"));
            break;
        }
        if (!answered) emit(failLine(current, ended + " during this combination"));
        next = current + 1;
    }
    return summary;
}

}  // namespace wb
