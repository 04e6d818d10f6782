// `mlpwb ablate`: from a baseline preset, apply the fixes one at a time, train every step for real
// (repeated), and print what each fix saved: the table behind the waterfall chart.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/attribution_options.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/train_options.h"
#include "cli/train_run.h"
#include "core/data/data_source.h"
#include "core/data/prepare.h"
#include "core/measure/ablation.h"
#include "core/platform/output_paths.h"
#include "core/run/memory_budget.h"

namespace wb::cli {

namespace {
struct AblateOptions {
    TrainOptions problem;  // data, model, optimizer, training, backend (the switches come from the plan)
    std::string baseline = "Seed PyTorch loop";
    std::string fixes;  // comma-separated; empty = the default order
    int repeats = 3;
    double targetPercent = 5, budgetSeconds = 0;
    AttributionOptions attribution;
    std::string out, csv;
    bool quiet = false;

    void bind(CLI::App& app) {
        problem.bindProblem(app);
        auto* a = app.add_option_group("Ablation");
        a->add_option("--baseline", baseline, "the preset to start from (see `mlpwb presets`)");
        a->add_option("--fixes", fixes,
                      "fixes in the order to apply them: data_path,launch,loss,zero_grad,optimizer_kernel,"
                      "precision,fused,persistent (the default), or switch=value; with "
                      "--backend torch also "
                      "torch_workers,torch_prefetch,torch_pin_memory,torch_script or torch.OPTION=value");
        a->add_option("--repeats", repeats, "rounds at least (every step once per round)")->check(CLI::Range(1, 100));
        a->add_option("--target", targetPercent,
                      "with --budget: more rounds until every median is known to +-this % (95 % interval)")
            ->capture_default_str()
            ->check(CLI::Range(0.1, 99.0));
        a->add_option("--budget", budgetSeconds, "seconds to spend on more rounds than --repeats (0: none)")
            ->capture_default_str()
            ->check(CLI::Range(0.0, 86400.0));
        attribution.bind(a, AblationPlan{});
        auto* o = app.add_option_group("Output");
        o->add_option("--out", out, "the ablation JSON (mlpwb.ablation/1), rewritten after every step");
        o->add_option("--csv", csv, "the table as CSV");
        o->add_flag("--quiet", quiet, "print only the table");
    }

    AblationPlan plan() const {
        AblationPlan p;
        p.baseline = baseline;
        if (!fixes.empty()) p.fixes = splitList(fixes);
        p.repeats = repeats;
        p.target = targetPercent / 100;
        p.budgetSeconds = budgetSeconds;
        attribution.applyTo(p);
        p.validate();
        return p;
    }
};

std::string orDash(const std::optional<double>& v, const char* format, double factor = 1.0) {
    if (!v) return "-";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, format, *v * factor);
    return buffer;
}

// The milliseconds' format of a table: two decimals, more where the fastest step is under 1 ms (a
// small data set's epochs of 0.013 ms would all read "0.01").
const char* msFormat(const AblationResult& r) {
    double fastest = 1.0;
    for (const auto* steps : {&r.steps, &r.alone})
        for (const auto& s : *steps)
            if (s.measured() && s.medianEpochMs > 0) fastest = std::min(fastest, s.medianEpochMs);
    return fastest >= 1.0 ? "%.2f" : fastest >= 0.1 ? "%.3f" : "%.4f";
}

// `nameWidth`: the widest step name, so that long ones ("launch=fused, gemm=custom, ...") keep the columns.
// `quality`: the task's metric (accuracy, or R^2 for a regression) in the column after the final loss.
// `ms`: the format of the milliseconds (msFormat).
void printRow(const AblationStep& s, bool savings, int nameWidth, QualityMetric quality, const char* ms) {
    const bool ran = s.measured();
    const std::string spread = ran ? orDash(s.minEpochMs, ms) + "-" + orDash(s.maxEpochMs, ms) : "-";
    const std::optional<double> level = s.medianEpochMs;
    std::printf("  %-*s %10s  %-17s %9s %7s %11s %8s  %s\n", nameWidth, s.name.c_str(), orDash(level, ms).c_str(),
                spread.c_str(), savings ? orDash(s.savedMs, ms).c_str() : "-", orDash(s.share, "%.1f%%", 100.0).c_str(),
                s.final ? orDash(s.final->trainLoss, "%.6f").c_str() : "-",
                orDash(s.final ? s.final->quality(quality) : std::nullopt, "%.4f").c_str(),
                ran ? "" : toString(s.status).c_str());
}

// The metric's column header in ASCII (as the progress lines name it), so that printf's widths align.
const char* columnName(QualityMetric q) {
    switch (q) {
        case QualityMetric::Accuracy: return "accuracy";
        case QualityMetric::R2: return "r2";
        case QualityMetric::Mae: return "mae";
    }
    return "";
}

int nameWidth(const AblationResult& r) {
    std::size_t width = 32;
    for (const auto* steps : {&r.steps, &r.alone})
        for (const auto& s : *steps) width = std::max(width, s.name.size());
    return static_cast<int>(width);
}

void printTable(const AblationResult& r) {
    const int width = nameWidth(r);
    std::printf("\nAblation from '%s' on %s (%s), %d round(s); median epoch ms without the warm-up epoch\n",
                r.plan.baseline.c_str(), r.backend.c_str(), r.device.c_str(), r.roundsMade());
    std::printf("  %-*s %10s  %-17s %9s %7s %11s %8s  %s\n", width, "step", "median ms", "spread (min-max)", "saved ms",
                "share", "final loss", columnName(r.quality()), "");
    const char* ms = msFormat(r);
    for (std::size_t i = 0; i < r.steps.size(); ++i) printRow(r.steps[i], i > 0, width, r.quality(), ms);
    if (const AblationStep* fixed = r.fixedLoop()) {
        const double first = r.steps.front().medianEpochMs, last = fixed->medianEpochMs;
        const auto gap = r.gapComparison();
        std::printf("  total gap %s ms: %s -> %s ms per epoch (the fixed loop: the fastest step, %s): %s\n",
                    orDash(r.totalGapMs(), ms).c_str(), orDash(first, ms).c_str(), orDash(last, ms).c_str(),
                    fixed->name.c_str(), gap ? gap->label().c_str() : "not measured");
        if (gap && !gap->measurable)
            std::printf("  (the gap lies inside the spread of the repeats, so its steps get no shares)\n");
    }
    if (!r.precision.empty()) std::printf("  precision: %s\n", r.precision.c_str());
    if (!r.alone.empty()) {
        std::printf("Each fix alone on top of the baseline (saved ms vs the baseline):\n");
        for (const auto& s : r.alone) printRow(s, true, width, r.quality(), ms);
    }
    bool header = false;
    for (const auto* steps : {&r.steps, &r.alone})
        for (const auto& s : *steps) {
            const char* alone = steps == &r.alone ? "alone " : "";
            if (!s.message.empty() || !s.notes.empty()) {
                if (!header) std::printf("Notes:\n");
                header = true;
            }
            if (!s.message.empty()) std::printf("  %s%s: %s\n", alone, s.name.c_str(), s.message.c_str());
            for (const std::string& line : s.noteLines())
                std::printf("  %s%s: %s\n", alone, s.name.c_str(), line.c_str());
        }
}

int exitCodeFor(AblationStatus status) {
    switch (status) {
        case AblationStatus::Completed: return kOk;
        case AblationStatus::Cancelled: return kCancelled;
        default: return kRunFailed;
    }
}

int runAblate(const AblateOptions& opt, const CLI::App& app) {
    const AblationPlan plan = opt.plan();
    const RunConfig config = opt.problem.toRunConfig(app);
    checkOutputs({{"--out", opt.out}, {"--csv", opt.csv}},
                 {{"--data", opt.problem.source.data}, {"--labels", opt.problem.source.labels}});
    const Dataset dataset = loadDataset(config.data);
    for (const auto& note : dataset.notes) std::fprintf(stderr, "note: %s\n", note.c_str());
    // Each run allocates as one `train` would (one at a time): refused before preparing if one cannot fit.
    checkRunFits(config, shapeOf(config, dataset), MemoryStage::BeforePrepare, "each run of this ablation");
    const PreparedData data = prepare(dataset, config.prepare);

    AblationCallbacks callbacks;
    int runs = 0;
    callbacks.onRunStarted = [&](int, const std::string& name, int repeat, int planned) {
        if (!opt.quiet) std::printf("[%d/%d planned] %s, round %d\n", ++runs, planned, name.c_str(), repeat);
        std::fflush(stdout);
    };
    callbacks.onStepFinished = [&](const AblationResult& partial, const AblationStep&) {
        if (!opt.out.empty()) partial.save(opt.out);  // a crash keeps the finished steps
    };
    catchStopSignals();  // a Ctrl+C ends the ablation after the current step, its steps kept
    const AblationResult result = runAblation(plan, config, dataset, data, stopFlag(), callbacks);
    releaseStopSignals();

    printTable(result);
    if (!opt.out.empty()) result.save(opt.out);
    if (!opt.csv.empty()) result.saveCsv(opt.csv);
    if (result.status != AblationStatus::Completed) std::fprintf(stderr, "mlpwb: %s\n", result.message.c_str());
    return exitCodeFor(result.status);
}
}  // namespace

Command addAblateCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("ablate", "apply the fixes one at a time from a baseline and measure each");
    auto opt = std::make_shared<AblateOptions>();
    opt->bind(*cmd);
    return [opt, cmd] { return runAblate(*opt, *cmd); };
}

}  // namespace wb::cli
