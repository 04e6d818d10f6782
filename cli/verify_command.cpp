// `mlpwb verify`: every valid combination of the execution switches, a few steps on CUDA against the
// CPU reference from the same weights and batch order (core/measure/parity_check.h). One line per
// combination, then "N passed, N failed"; exit 0 only when nothing failed. Without a device every
// combination is skipped with the reason, and the exit code is 0. --isolate checks them in child
// processes (this binary again, with the hidden --child-from), so a sticky CUDA error fails only the
// combination that raised it (wb::verifyIsolated).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "core/measure/parity_check.h"
#include "core/measure/switch_combinations.h"
#include "core/platform/child_process.h"
#include "core/platform/errors.h"
#include "core/run/backend.h"

namespace wb::cli {

namespace {
using CandidateFactory = std::function<std::unique_ptr<Backend>()>;

struct VerifyOptions {
    int device = 0;
    std::string backend = "cuda";
    std::vector<std::string> only;  // keep combinations whose description contains every one of these
    // The problem (makeParityProblem's defaults). A larger batch lets the custom GEMM split k; file
    // order sends graph steps on resident data through views, one graph per step.
    std::size_t rows = 300;
    int batchSize = 64;
    int epochs = 3;  // 3: a graph captured in the warm-up epoch is replayed in two later ones
    bool fileOrder = false;
    std::size_t limit = 0;  // keep the first `limit` selected combinations (0: all)
    bool isolate = false;
    long childFrom = -1;           // >= 0: a child of --isolate, checking combinations from this index on
    int combinationTimeout = 300;  // --isolate: seconds a child may spend on one combination (0: no limit)
};

// The fault a test injects into a child of --isolate at combination `index` (WB_VERIFY_CHILD_FAULT,
// "INDEX:abort", "INDEX:hang" or "INDEX:device"), or "" (always, outside tst_cli).
std::string injectedFault(std::size_t index) {
    const char* env = std::getenv("WB_VERIFY_CHILD_FAULT");
    if (!env) return "";
    const std::string spec(env);
    const auto colon = spec.find(':');
    if (colon == std::string::npos || spec.substr(0, colon) != std::to_string(index)) return "";
    return spec.substr(colon + 1);
}

// The arguments of a child: this binary, verify with the same options, --child-from `first`.
std::vector<std::string> childArguments(const VerifyOptions& opt, std::size_t first) {
    char self[PATH_MAX] = {};
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) throw ConfigError("--isolate: cannot find this program (/proc/self/exe)");
    std::vector<std::string> words = {std::string(self, static_cast<std::size_t>(n)), "verify"};
    const auto add = [&words](const char* option, const std::string& value) {
        words.insert(words.end(), {option, value});
    };
    add("--child-from", std::to_string(first));
    add("--device", std::to_string(opt.device));
    add("--backend", opt.backend);
    add("--rows", std::to_string(opt.rows));
    add("--batch-size", std::to_string(opt.batchSize));
    add("--epochs", std::to_string(opt.epochs));
    if (opt.fileOrder) words.emplace_back("--file-order");
    if (opt.limit > 0) add("--limit", std::to_string(opt.limit));
    for (const auto& part : opt.only) add("--only", part);
    return words;
}

// Runs one child and feeds its lines to onLine, then what it wrote to stderr (a crash's message);
// its exit code, or -1 when it did not exit normally. With opt.combinationTimeout > 0, a child that
// spends longer on one combination (from its BEGIN line) is killed with its process group, after the
// line "no answer for N s: killed" (a hung kernel).
int runChild(const VerifyOptions& opt, std::size_t first, const std::function<void(const std::string&)>& onLine) {
    std::fflush(stdout);
    ChildProcess child(childArguments(opt, first));
    using Clock = std::chrono::steady_clock;
    const auto limit = std::chrono::seconds(opt.combinationTimeout);
    auto deadline = Clock::now() + limit;
    std::string line;
    for (;;) {
        const auto left = opt.combinationTimeout > 0
                              ? std::max(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()),
                                         std::chrono::milliseconds(0))
                              : std::chrono::milliseconds(std::chrono::hours(24 * 365));
        const ChildProcess::Read read = child.readLine(line, nullptr, left);
        if (read == ChildProcess::Read::TimedOut) {
            onLine("no answer for " + std::to_string(opt.combinationTimeout) + " s: killed");
            child.terminate(std::chrono::milliseconds(0));
            child.wait();
            return -1;
        }
        if (read != ChildProcess::Read::Line) break;
        if (line.rfind("BEGIN ", 0) == 0) deadline = Clock::now() + limit;
        onLine(line);
    }
    const int status = child.wait(std::chrono::hours(24));
    std::istringstream errors(child.stderrTail());
    for (std::string text; std::getline(errors, text);)
        if (!text.empty()) onLine(text);
    return status < 128 ? status : -1;  // 128 + a signal: killed
}

std::vector<ExecutionSettings> selectedCombinations(const VerifyOptions& opt) {
    std::vector<ExecutionSettings> out;
    for (const auto& s : validCombinations()) {
        const std::string line = describeCombination(s);
        bool keep = true;
        for (const auto& part : opt.only) keep = keep && line.find(part) != std::string::npos;
        if (keep) out.push_back(s);
        if (opt.limit > 0 && out.size() == opt.limit) break;
    }
    return out;
}

// Why `backend` cannot be checked here, or nullopt when it can.
std::optional<std::string> unavailability(const std::string& backend) {
    for (const auto& info : BackendRegistry::instance().list())
        if (info.name == backend) return info.available ? std::nullopt : std::optional(info.reason);
    if (backend == "cuda") return "this build has no CUDA backend (configure with a CUDA toolkit, WB_CUDA=ON)";
    throw ConfigError("unknown backend '" + backend + "'");
}

// "N passed, N failed[, N skipped]" and `note`; exit 0 only when nothing failed.
int printSummary(const VerifySummary& s, const char* note) {
    std::printf("%d passed, %d failed", s.passed, s.failed);
    if (s.skipped > 0) std::printf(", %d skipped", s.skipped);
    std::printf("%s\n", note);
    return s.failed == 0 ? kOk : kRunFailed;
}

void printOutcome(const ParityOutcome& o) {
    std::printf("%s\n", formatOutcome(o).c_str());
    std::fflush(stdout);
}

// Without the backend every combination is skipped with the reason, and the exit code is 0.
int skipAll(const std::string& backend, const std::string& why, std::size_t combinations) {
    std::printf("%s unavailable: %s\n", backend == "cuda" ? "CUDA" : backend.c_str(), why.c_str());
    std::printf("%zu combinations skipped\n0 passed, 0 failed, %zu skipped\n", combinations, combinations);
    return kOk;
}

ParityProblem problemOf(const VerifyOptions& opt) {
    ParityProblem problem = makeParityProblem(opt.rows, opt.epochs);
    problem.batchSize = opt.batchSize;
    problem.shuffled = !opt.fileOrder;
    return problem;
}

void printHeading(const VerifyOptions& opt, std::size_t combinations, const ParityProblem& problem) {
    std::printf(
        "verify: %s (device %d) against the CPU reference, %zu combinations, %zu rows, batch %d, %zu epochs%s\n",
        opt.backend.c_str(), opt.device, combinations, problem.data.trainRows(), problem.batchSize,
        problem.orders.size(), problem.shuffled ? ", shuffled" : ", file order");
}

// The fault a test asks for at combination `index` (tst_cli): a crash, a hang, or a device error,
// whose outcome line is printed here. True when the child must end now (the device error).
bool injectFault(std::size_t index, const ExecutionSettings& settings) {
    const std::string fault = injectedFault(index);
    if (fault == "abort") std::abort();
    if (fault == "hang")
        for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    if (fault != "device") return false;
    ParityOutcome o;
    o.settings = settings;
    o.status = ParityOutcome::Status::Failed;
    o.message = "injected device error";
    std::printf("%s\n", formatOutcome(o).c_str());
    return true;
}

// A child of --isolate: BEGIN and the outcome of each combination from opt.childFrom on; it ends
// after a device error (kRunFailed), which may have poisoned the device for the ones after it.
int checkAsChild(const VerifyOptions& opt, const std::vector<ExecutionSettings>& combos,
                 const CandidateFactory& makeCandidate, const ParityProblem& problem) {
    for (std::size_t i = static_cast<std::size_t>(opt.childFrom); i < combos.size(); ++i) {
        std::printf("BEGIN %zu\n", i);
        std::fflush(stdout);
        if (injectFault(i, combos[i])) return kRunFailed;
        bool poisoned = false;
        verifyCombinations(
            {combos[i]}, makeCandidate,
            [&](const ParityOutcome& o) {
                printOutcome(o);
                poisoned = o.deviceError;
            },
            problem);
        if (poisoned) return kRunFailed;
    }
    return kOk;
}

int checkIsolated(const VerifyOptions& opt, const std::vector<ExecutionSettings>& combos) {
    const VerifySummary s = verifyIsolated(
        combos, [&](std::size_t first, const auto& onLine) { return runChild(opt, first, onLine); },
        [](const std::string& line) {
            std::printf("%s\n", line.c_str());
            std::fflush(stdout);
        });
    return printSummary(s, " (isolated: one child process until a device error)");
}

int checkInProcess(const std::vector<ExecutionSettings>& combos, const CandidateFactory& makeCandidate,
                   const ParityProblem& problem) {
    return printSummary(verifyCombinations(combos, makeCandidate, printOutcome, problem), "");
}

int runVerify(const VerifyOptions& opt) {
    const std::vector<ExecutionSettings> combos = selectedCombinations(opt);
    if (combos.empty()) throw ConfigError("no valid combination matches the --only filter");
    if (const auto why = unavailability(opt.backend)) return skipAll(opt.backend, *why, combos.size());
    (void)BackendRegistry::instance().create(opt.backend, opt.device);  // a bad --device: one line, exit 5
    const ParityProblem problem = problemOf(opt);
    printHeading(opt, combos.size(), problem);
    const CandidateFactory makeCandidate = [&] { return BackendRegistry::instance().create(opt.backend, opt.device); };
    if (opt.childFrom >= 0) return checkAsChild(opt, combos, makeCandidate, problem);
    if (opt.isolate) return checkIsolated(opt, combos);
    return checkInProcess(combos, makeCandidate, problem);
}
}  // namespace

Command addVerifyCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("verify", "check every valid switch combination on CUDA against the CPU reference");
    auto opt = std::make_shared<VerifyOptions>();
    cmd->add_option("--device", opt->device, "CUDA device index")->check(CLI::NonNegativeNumber);
    cmd->add_option("--backend", opt->backend, "the backend to check (cuda; cpu checks the checker itself)")
        ->check(CLI::IsMember({"cuda", "cpu"}));
    cmd->add_option("--only", opt->only, "keep combinations containing every one of these, e.g. launch=fused");
    cmd->add_option("--rows", opt->rows, "rows of the problem (default 300)")->check(CLI::Range(1, 1000000));
    cmd->add_option("--batch-size", opt->batchSize, "batch size (default 64)")->check(CLI::Range(1, 1000000));
    cmd->add_option("--epochs", opt->epochs, "epochs (default 3)")->check(CLI::Range(1, 100));
    cmd->add_flag("--file-order", opt->fileOrder, "every epoch in file order instead of shuffled");
    cmd->add_option("--limit", opt->limit, "check only the first N selected combinations");
    cmd->add_flag("--isolate", opt->isolate,
                  "check in child processes: a device error fails its combination, not the ones after it");
    cmd->add_option("--combination-timeout", opt->combinationTimeout,
                    "--isolate: kill a child that spends longer on one combination (seconds, default 300; 0: no limit)")
        ->check(CLI::Range(0, 86400));
    cmd->add_option("--child-from", opt->childFrom)->group("");  // --isolate's children

    return [opt] { return runVerify(*opt); };
}

}  // namespace wb::cli
