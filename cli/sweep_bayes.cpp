#include "cli/sweep_bayes.h"

#include <algorithm>
#include <cstdio>

#include "cli/exit_codes.h"
#include "cli/sweep_trials.h"
#include "core/platform/errors.h"
#include "sweep/bayes_search.h"
#include "sweep/local_engine.h"
#include "sweep/sweep_metric.h"
#include "sweep/sweep_report.h"

namespace wb::cli {

namespace {
// How many trials the next batch asks for: as many as the engine runs at once, within run_cap.
int batchSize(const EngineChoice& engine, int remaining) {
    if (engine.kind == "slurm") return std::min(remaining, engine.maxParallel > 0 ? engine.maxParallel : kSlurmBatch);
    return std::min(remaining,
                    sweep::choosePool(usableCores(), remaining, engine.jobs, std::nullopt, engine.exclusive).jobs);
}

// Asks Optuna for the next `count` points and appends them to the folder as trials; returns their ids.
// A note (GP could not run) is said once, not for every batch.
std::vector<int> appendSuggestions(sweep::SweepFolder& folder, const std::vector<sweep::TrialRow>& views,
                                   const sweep::Spec& spec, const std::string& python, int count,
                                   const TrialDefaults& defaults, std::string& saidNote) {
    const sweep::Suggestions s = sweep::askOptuna(python, sweep::studyRequest(spec, views, count));
    if (!s.note.empty() && s.note != saidNote) std::fprintf(stderr, "sweep: note: %s\n", s.note.c_str());
    saidNote = s.note;
    const int first = static_cast<int>(folder.plan().trials.size());
    std::vector<sweep::PlannedTrial> batch;
    std::vector<int> ids;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        const int id = first + static_cast<int>(i);
        batch.push_back(planSuggestedTrial(spec, id, s.points[i], folder.plan().baseArgs, defaults));
        ids.push_back(id);
    }
    folder.appendTrials(batch);
    std::fprintf(stderr, "sweep: Optuna %s (%s) suggests trials %d-%d of %d\n", s.optunaVersion.c_str(),
                 s.sampler.c_str(), first, first + count - 1, spec.runCap.value_or(0));
    return ids;
}
}  // namespace

void checkBayesCanRun(const std::string& python, const EngineChoice& engine) {
    if (!engine.follow)
        throw ConfigError(
            "method: bayes asks for each batch from the results of the one before: leave out --no-follow");
    const std::string version = sweep::checkOptuna(python);
    std::fprintf(stderr, "sweep: method bayes asks Optuna %s in %s\n", version.c_str(), python.c_str());
}

int driveBayes(sweep::SweepFolder& folder, const std::string& python, const std::vector<int>& unfinished,
               const EngineChoice& engine) {
    const sweep::Spec spec = sweep::parseSpec(folder.plan().specText, folder.plan().specFile, trainOptionInfo);
    const TrialDefaults defaults{defaultTrialThreads(engine, 1 << 20, std::nullopt)};
    const int cap = spec.runCap.value_or(0);
    int code = unfinished.empty() ? kOk : runOnEngine(folder, unfinished, engine);
    std::string saidNote;
    while (code != kCancelled) {
        const int have = static_cast<int>(folder.plan().trials.size());
        if (have >= cap) break;
        const auto views = folder.views();  // each record read once per batch
        if (const auto reached = sweep::targetReachedBy(views, folder.plan().metric)) {
            std::fprintf(stderr, "sweep: %s: no new trials\n", reached->c_str());
            break;
        }
        const std::vector<int> ids =
            appendSuggestions(folder, views, spec, python, batchSize(engine, cap - have), defaults, saidNote);
        const int batch = runOnEngine(folder, ids, engine);
        if (batch != kOk) code = batch;
    }
    return code;
}

}  // namespace wb::cli
