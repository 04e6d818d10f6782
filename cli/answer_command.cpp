// `mlpwb answer`: the founding question on this machine, in one command. Every engine that can
// train here runs the seed loop, the fixed loop and the ablation between them (repeated); the table
// and the conclusion follow from the numbers, and --out keeps it all (mlpwb.answer/1) for the GUI
// and `mlpwb report`.
#include <cmath>
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
#include "core/measure/answer.h"
#include "core/platform/errors.h"
#include "core/platform/output_paths.h"
#include "core/platform/shell_quote.h"
#include "core/run/memory_budget.h"
#include "core/train/keep_warm.h"

namespace wb::cli {

namespace {
struct AnswerOptions {
    TrainOptions problem;  // data, model, optimizer, batch (the engines and switches are the answer's)
    std::string engines;   // comma-separated; empty = every engine
    AnswerPlan plan;
    double targetPercent = AnswerPlan{}.target * 100;
    AttributionOptions attribution;
    std::string out;
    bool estimateOnly = false, noEstimate = false, quiet = false;

    void bind(CLI::App& app) {
        problem.bindProblem(app);
        auto* a = app.add_option_group("Answer");
        a->add_option("--engines", engines, "engines to ask, in order: cpu,cuda,torch,keras,jax (the default: all)");
        a->add_option("--repeats", plan.repeats, "rounds at least (every step once per round)")
            ->check(CLI::Range(1, 100));
        a->add_option("--target", targetPercent, "more rounds until every median is known to +-this % (95 % interval)")
            ->capture_default_str()
            ->check(CLI::Range(0.1, 99.0));
        a->add_option("--budget", plan.budgetSeconds,
                      "seconds an engine may spend on more rounds than --repeats (0: none)")
            ->capture_default_str()
            ->check(CLI::Range(0.0, 86400.0));
        attribution.bind(a, AnswerPlan{});
        a->add_flag("--estimate", estimateOnly, "print how long it would take, at most, and stop");
        a->add_flag("--no-estimate", noEstimate, "start at once, without the two-epoch estimate");
        auto* o = app.add_option_group("Output");
        o->add_option("--out", out, "the answer JSON (mlpwb.answer/1), rewritten after every step");
        o->add_flag("--quiet", quiet, "print only the table and the conclusion");
    }
};

std::string minutes(double seconds) {
    char buffer[32];
    if (seconds < 90)
        std::snprintf(buffer, sizeof buffer, "%.0f s", seconds);
    else
        std::snprintf(buffer, sizeof buffer, "%.0f min", seconds / 60);
    return buffer;
}

void printEngines(const std::vector<AnswerEngine>& engines) {
    std::printf("Engines on this machine:\n");
    for (const auto& e : engines) {
        if (e.available)
            std::printf("  %-6s %s\n", e.engine.c_str(), e.device.c_str());
        else
            std::printf("  %-6s not available: %s%s%s\n", e.engine.c_str(), e.reason.c_str(),
                        e.install.empty() ? "" : "\n         to install: ", e.install.c_str());
    }
}

bool printEstimate(const std::vector<AnswerEstimate>& estimates) {
    double total = 0;
    std::printf("Estimate (each engine's seed loop for two epochs, scaled to every planned run):\n");
    for (const auto& e : estimates) {
        std::printf("  %-6s %s\n", e.engine.c_str(),
                    e.seconds ? ("at most " + minutes(*e.seconds)).c_str() : "unknown");
        total += e.seconds.value_or(0);
    }
    std::printf("  in all: at most %s\n", minutes(total).c_str());
    std::fflush(stdout);
    return !stopFlag().load();
}

void printTable(const Answer& a) {
    std::printf("\n%-6s %14s %14s  %-34s %s\n", "engine", "seed loop ms", "fixed loop ms", "speed-up (spread)",
                "largest cause (share)");
    for (const auto& e : a.engines) {
        if (!e.gap()) continue;  // both loops measured
        const AblationStep* cause = e.largestCause();
        const std::string share =
            cause ? cause->name + " (" + std::to_string(std::lround(*cause->share * 100)) + "%)" : "-";
        std::printf("%-6s %14.3f %14.3f  %-34s %s\n", e.engine.c_str(), e.ablation->seedLoop()->medianEpochMs,
                    e.ablation->fixedLoop()->medianEpochMs, e.gap()->label().c_str(), share.c_str());
    }
    std::printf("\nConclusion:\n");
    for (const auto& line : a.conclusion()) std::printf("  %s\n", line.c_str());
}

int exitCodeFor(AnswerStatus status) {
    switch (status) {
        case AnswerStatus::Completed: return kOk;
        case AnswerStatus::Cancelled: return kCancelled;
        default: return kRunFailed;
    }
}

int runAnswerCommand(AnswerOptions& opt, const CLI::App& app) {
    if (app.count("--backend") > 0)
        throw ConfigError("--backend: the answer asks every engine; choose them with --engines cpu,torch,...");
    opt.plan.engines = splitList(opt.engines);
    const RunConfig config = opt.problem.toRunConfig(app);
    // The epoch times are the question, not the final loss: the plan's few epochs (the first the
    // warm-up) unless --epochs says otherwise.
    if (app.count("--epochs") > 0) opt.plan.epochs = config.train.epochs;
    opt.plan.target = opt.targetPercent / 100;
    opt.attribution.applyTo(opt.plan);
    opt.plan.validate();
    checkOutputs({{"--out", opt.out}}, {{"--data", opt.problem.source.data}, {"--labels", opt.problem.source.labels}});
    const Dataset dataset = loadDataset(config.data);
    for (const auto& note : dataset.notes) std::fprintf(stderr, "note: %s\n", note.c_str());
    checkRunFits(config, shapeOf(config, dataset), MemoryStage::BeforePrepare, "each run of the answer");
    const PreparedData data = prepare(dataset, config.prepare);

    AnswerSteps steps;
    steps.onEngines = [](const std::vector<AnswerEngine>& engines) {
        printEngines(engines);
        // From here a Ctrl+C ends the answer after the current step, what was measured kept; while the
        // engines were probed it ended mlpwb at once, as before any probe.
        catchStopSignals();
    };
    bool cancelled = false;
    if (!opt.noEstimate || opt.estimateOnly)
        steps.onEstimate = [&](const std::vector<AnswerEstimate>& estimates) {
            cancelled = !printEstimate(estimates);
            return !cancelled && !opt.estimateOnly;
        };
    steps.runs.onRunStarted = [&](const std::string& engine, const std::string& step, int repeat, int done,
                                  int planned) {
        if (!opt.quiet)
            std::printf("[%d/%d planned] %s: %s, round %d\n", done + 1, planned, engine.c_str(), step.c_str(), repeat);
        std::fflush(stdout);
    };
    steps.runs.onProgress = [&](const Answer& partial) {
        if (!opt.out.empty()) partial.save(opt.out);  // a crash keeps the finished steps
    };
    const std::optional<Answer> answered = answerQuestion(opt.plan, config, dataset, data, stopFlag(), steps);
    releaseStopSignals();
    if (!answered) return cancelled ? kCancelled : kOk;  // the estimate alone, as asked, or cancelled
    const Answer& answer = *answered;

    printTable(answer);
    if (!opt.out.empty()) {
        answer.save(opt.out);
        // The loop the conclusion recommends, to take away (the fastest PyTorch step measured).
        if (const AnswerEngine* torch = answer.engine("torch"); torch && torch->gap() && !opt.quiet)
            std::printf("\nThe fixed PyTorch loop as a script of your own: mlpwb export --answer %s --out loop.py\n",
                        shellQuote(opt.out).c_str());
    }
    if (answer.status != AnswerStatus::Completed) std::fprintf(stderr, "mlpwb: %s\n", answer.message.c_str());
    return exitCodeFor(answer.status);
}
}  // namespace

Command addAnswerCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("answer",
                                   "the founding question on this machine: every engine's seed loop, fixed "
                                   "loop and the ablation between them, and the conclusion");
    auto opt = std::make_shared<AnswerOptions>();
    opt->bind(*cmd);
    return [opt, cmd] { return runAnswerCommand(*opt, *cmd); };
}

}  // namespace wb::cli
