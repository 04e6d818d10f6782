#include <atomic>
#include <csignal>
#include <memory>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/progress_printer.h"
#include "cli/train_options.h"
#include "cli/train_run.h"
#include "core/data/builtin_data.h"
#include "core/data/data_source.h"
#include "core/data/prepare.h"
#include "core/model/safetensors.h"
#include "core/platform/output_paths.h"
#include "core/run/backend.h"
#include "core/run/memory_budget.h"
#include "core/run/run_naming.h"
#include "core/train/trainer.h"
#include "frameworks/python_interpreter.h"

namespace wb::cli {

namespace {
CancelFlag gCancel{false};    // set by SIGINT/SIGTERM, read by the trainer between steps
std::atomic<int> gSignal{0};  // the signal that set it, for the exit code of a start-up stop
extern "C" void onSignal(int signal) {
    gSignal.store(signal);
    gCancel.store(true);
}

// Installed before anything else, so that a Ctrl+C while the data loads is not lost: nothing has
// been written then, and the run stops at the next stage with the shell's code (128 + the signal).
struct StopSignals {
    StopSignals() { catchStopSignals(); }
    ~StopSignals() { releaseStopSignals(); }
    // True (with a line on stderr) when a stop arrived before the run's record was started.
    static bool stoppedDuringStartUp(const char* stage) {
        if (!gCancel.load()) return false;
        std::fprintf(stderr, "mlpwb: stopped while %s; nothing was written\n", stage);
        return true;
    }
    static int exitCode() { return 128 + gSignal.load(); }
};

// A RunRecord saying `failed`, for an error before the Trainer has one (out of memory loading data).
void writeFailedRecord(const RunConfig& config, const std::string& path, const std::string& message) {
    if (path.empty()) return;
    RunRecord record;
    record.name = config.name;
    record.config = config;
    record.status = RunStatus::Failed;
    record.message = message;
    record.save(path);
}

// Runs one start-up stage; out of memory in it names the stage and still leaves a `failed` record.
template <typename F>
auto stage(const RunConfig& config, const std::string& out, const std::string& what, F&& f) {
    try {
        return f();
    } catch (const std::bad_alloc&) {
        const std::string message = "out of memory while " + what;
        writeFailedRecord(config, out, message);
        throw Error(message);  // exit 8, as a run that failed
    }
}

int exitCodeFor(RunStatus status) {
    switch (status) {
        case RunStatus::Completed:
        case RunStatus::Stopped: return kOk;  // as asked: an early-termination rule ended it
        case RunStatus::Cancelled: return kCancelled;
        case RunStatus::Diverged: return kDiverged;
        default: return kRunFailed;
    }
}

int runTraining(const TrainOptions& opt, const CLI::App& app) {
    const RunConfig config = opt.toRunConfig(app);
    checkOutputs({{"--out", opt.out}, {"--csv", opt.csv}, {"--save-weights", opt.saveWeights}},
                 {{"--data", opt.source.data}, {"--labels", opt.source.labels}, {"--init-weights", opt.initWeights}});
    return trainConfig(config, {opt.out, opt.csv, opt.saveWeights, opt.quiet, opt.name.empty()});
}
}  // namespace

void catchStopSignals() {
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
}

const CancelFlag& stopFlag() {
    return gCancel;
}

void releaseStopSignals() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
}

int trainConfig(RunConfig config, const TrainOutputs& outputs) {
    const StopSignals signals;
    const std::string& out = outputs.record;
    if (config.data.kind == DataSpec::Kind::Builtin)
        checkRunFits(config, shapeOf(config, config.data.rows, kSeedFeatures), MemoryStage::BeforeLoad, "this run");
    const Dataset dataset = stage(config, out, "loading the data set", [&] { return loadDataset(config.data); });
    for (const auto& note : dataset.notes) std::fprintf(stderr, "note: %s\n", note.c_str());
    if (outputs.defaultName) config.name = defaultRunName(config, dataset);  // with the task the data has
    if (StopSignals::stoppedDuringStartUp("loading the data")) return StopSignals::exitCode();
    checkRunFits(config, shapeOf(config, dataset), MemoryStage::BeforePrepare, "this run");
    const PreparedData data = stage(config, out, "preparing the split and standardised copies of the data",
                                    [&] { return prepare(dataset, config.prepare); });
    // The registry asks a framework whether it can run in the preferred interpreter: the configuration's,
    // whether it came from the command line or from a sweep's trial (run-trial reads it from sweep.json).
    if (!config.framework.python.empty()) setPreferredPython(config.framework.python);
    auto backend = BackendRegistry::instance().create(config.backend, config.device);
    if (StopSignals::stoppedDuringStartUp("preparing the data")) return StopSignals::exitCode();

    // From here a stop is the trainer's: the record it starts ends `cancelled`.
    Trainer trainer(config, dataset, data, *backend, out);
    ProgressPrinter printer(stdout, config.train.epochs, outputs.quiet);
    // `mlpwb train | head -2`: a closed stdout is a stop (the record is finalised as cancelled), not a
    // SIGPIPE that kills the run with its record stuck at "running".
    std::signal(SIGPIPE, SIG_IGN);
    const RunRecord record = trainer.run(gCancel, {[&](const EpochMetrics& m, const RunRecord&) {
                                                       printer.epoch(m);
                                                       if (std::fflush(stdout) != 0 || std::ferror(stdout))
                                                           gCancel.store(true);
                                                   },
                                                   outputs.stopAfterEpoch});
    printer.finish(record);
    for (const auto& ignored : record.notApplicable)
        std::fprintf(stdout, "  not applicable: %s: %s\n", ignored.name.c_str(), ignored.reason.c_str());

    if (!outputs.csv.empty()) record.saveEpochCsv(outputs.csv);
    if (!outputs.saveWeights.empty() && record.status == RunStatus::Completed)
        saveSafetensors(outputs.saveWeights, trainer.finalParams());
    if (record.status != RunStatus::Completed) std::fprintf(stderr, "mlpwb: %s\n", record.message.c_str());
    return exitCodeFor(record.status);
}

Command addTrainCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("train", "train an MLP and record every epoch");
    auto opt = std::make_shared<TrainOptions>();
    opt->bind(*cmd);
    return [opt, cmd] { return runTraining(*opt, *cmd); };
}

}  // namespace wb::cli
