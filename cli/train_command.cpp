#include <atomic>
#include <csignal>
#include <memory>

#include "backend.h"
#include "commands.h"
#include "data_source.h"
#include "exit_codes.h"
#include "output_paths.h"
#include "prepare.h"
#include "progress_printer.h"
#include "safetensors.h"
#include "train_options.h"
#include "trainer.h"

namespace wb::cli {

namespace {
CancelFlag gCancel{false};  // set by SIGINT/SIGTERM, read by the trainer between steps

extern "C" void onSignal(int) {
    gCancel.store(true);
}

int exitCodeFor(RunStatus status) {
    switch (status) {
        case RunStatus::Completed: return kOk;
        case RunStatus::Cancelled: return kCancelled;
        case RunStatus::Diverged: return kDiverged;
        default: return kRunFailed;
    }
}

int runTraining(const TrainOptions& opt, const CLI::App& app) {
    const RunConfig config = opt.toRunConfig(app);
    checkOutputs({{"--out", opt.out}, {"--csv", opt.csv}, {"--save-weights", opt.saveWeights}},
                 {{"--data", opt.source.data}, {"--labels", opt.source.labels}, {"--init-weights", opt.initWeights}});
    const Dataset dataset = loadDataset(config.data);
    for (const auto& note : dataset.notes) std::fprintf(stderr, "note: %s\n", note.c_str());
    const PreparedData data = prepare(dataset, config.prepare);
    auto backend = BackendRegistry::instance().create(config.backend, config.device);

    Trainer trainer(config, dataset, data, *backend, opt.out);
    ProgressPrinter printer(stdout, config.train.epochs, opt.quiet);
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    // `mlpwb train | head -2`: a closed stdout is a stop (the record is finalised as cancelled), not a
    // SIGPIPE that kills the run with its record stuck at "running".
    std::signal(SIGPIPE, SIG_IGN);
    const RunRecord record = trainer.run(gCancel, {[&](const EpochMetrics& m, const RunRecord&) {
                                             printer.epoch(m);
                                             if (std::fflush(stdout) != 0 || std::ferror(stdout)) gCancel.store(true);
                                         }});
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    printer.finish(record);
    for (const auto& ignored : record.notApplicable)
        std::fprintf(stdout, "  not applicable: %s: %s\n", ignored.name.c_str(), ignored.reason.c_str());

    if (!opt.csv.empty()) record.saveEpochCsv(opt.csv);
    if (!opt.saveWeights.empty() && record.status == RunStatus::Completed)
        saveSafetensors(opt.saveWeights, trainer.finalParams());
    if (record.status != RunStatus::Completed) std::fprintf(stderr, "mlpwb: %s\n", record.message.c_str());
    return exitCodeFor(record.status);
}
}  // namespace

Command addTrainCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("train", "train an MLP and record every epoch");
    auto opt = std::make_shared<TrainOptions>();
    opt->bind(*cmd);
    return [opt, cmd] { return runTraining(*opt, *cmd); };
}

}  // namespace wb::cli
