// `mlpwb verify`: every valid combination of the execution switches, a few steps on CUDA against the
// CPU reference from the same weights and batch order (kernels/parity_check.h). One line per
// combination, then "N passed, N failed"; exit 0 only when nothing failed. Without a device every
// combination is skipped with the reason, and the exit code is 0.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend.h"
#include "commands.h"
#include "errors.h"
#include "exit_codes.h"
#include "parity_check.h"
#include "switch_combinations.h"

namespace wb::cli {

namespace {
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
};

std::vector<ExecutionSettings> selectedCombinations(const VerifyOptions& opt) {
    std::vector<ExecutionSettings> out;
    for (const auto& s : validCombinations()) {
        const std::string line = describeCombination(s);
        bool keep = true;
        for (const auto& part : opt.only) keep = keep && line.find(part) != std::string::npos;
        if (keep) out.push_back(s);
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

int runVerify(const VerifyOptions& opt) {
    const std::vector<ExecutionSettings> combos = selectedCombinations(opt);
    if (combos.empty()) throw ConfigError("no valid combination matches the --only filter");
    if (const auto why = unavailability(opt.backend)) {
        std::printf("%s unavailable: %s\n", opt.backend == "cuda" ? "CUDA" : opt.backend.c_str(), why->c_str());
        std::printf("%zu combinations skipped\n0 passed, 0 failed, %zu skipped\n", combos.size(), combos.size());
        return kOk;
    }
    (void)BackendRegistry::instance().create(opt.backend, opt.device);  // a bad --device: one line, exit 5
    ParityProblem problem = makeParityProblem(opt.rows, opt.epochs);
    problem.batchSize = opt.batchSize;
    problem.shuffled = !opt.fileOrder;
    std::printf(
        "verify: %s (device %d) against the CPU reference, %zu combinations, %zu rows, batch %d, %zu epochs%s\n",
        opt.backend.c_str(), opt.device, combos.size(), problem.data.trainRows(), problem.batchSize,
        problem.orders.size(), problem.shuffled ? ", shuffled" : ", file order");
    const auto makeCandidate = [&] { return BackendRegistry::instance().create(opt.backend, opt.device); };
    const VerifySummary s = verifyCombinations(
        combos, makeCandidate,
        [](const ParityOutcome& o) {
            std::printf("%s\n", formatOutcome(o).c_str());
            std::fflush(stdout);
        },
        problem);
    std::printf("%d passed, %d failed", s.passed, s.failed);
    if (s.skipped > 0) std::printf(", %d skipped", s.skipped);
    std::printf("\n");
    return s.failed == 0 ? kOk : kRunFailed;
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
    return [opt] { return runVerify(*opt); };
}

}  // namespace wb::cli
