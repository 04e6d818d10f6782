#include "gui/report/report_sources.h"

#include <QDir>
#include <QFileInfo>
#include <cmath>
#include <sstream>

#include "core/platform/errors.h"
#include "core/platform/json_file.h"
#include "sweep/sweep_folder.h"

namespace wb::gui {

namespace {
void addSweep(ReportSources& s, const QString& folder) {
    const sweep::SweepFolder sweepFolder(folder.toStdString());
    const auto views = sweepFolder.views();
    s.sweeps.push_back({folder, sweep::makeReport(sweepFolder.plan(), views)});
    for (const auto& view : views) {
        if (view.status.state != sweep::TrialState::Completed) continue;
        RunRecord r = RunRecord::load(sweepFolder.recordPath(view.trial->id));
        r.name = view.trial->name;  // "batch_size=256 lr=0.001": the trial, as the sweep names it
        s.runs.push_back(std::move(r));
    }
}

// A step's times are measurements: a negative or zero one (a damaged or forged file) would make
// "inf x faster" of the comparisons. Its runs were checked as run records already.
void checkTime(const std::string& key, double ms) {
    if (std::isfinite(ms) && ms > 0) return;
    std::ostringstream found;
    found << ms;
    throw DataError("", key + ": expected a positive time in milliseconds, found " + found.str());
}

void checkStepTimes(const AblationResult& a, const std::string& where) {
    for (std::size_t i = 0; i < a.steps.size(); ++i) {
        const AblationStep& step = a.steps[i];
        if (!step.measured()) continue;
        const std::string key = where + "steps[" + std::to_string(i) + "].";
        checkTime(key + "median_epoch_ms", step.medianEpochMs);
        checkTime(key + "min_epoch_ms", step.minEpochMs);
        checkTime(key + "max_epoch_ms", step.maxEpochMs);
        if (!std::isfinite(step.savedMs)) checkTime(key + "saved_ms", step.savedMs);
    }
}

void checkAnswerTimes(const Answer& answer) {
    for (std::size_t i = 0; i < answer.engines.size(); ++i)
        if (answer.engines[i].ablation)
            checkStepTimes(*answer.engines[i].ablation, "engines[" + std::to_string(i) + "].ablation.");
}

void addFile(ReportSources& s, const QString& path) {
    const std::string file = path.toStdString();
    const nlohmann::json j = loadJsonFile(file, "report input");
    try {
        if (j.is_array()) {  // the GUI's "Export data as JSON": an array of run records
            for (const auto& item : j) s.runs.push_back(RunRecord::fromJson(item));
            return;
        }
        const auto schema = j.is_object() ? j.find("schema") : j.end();
        const std::string kind = schema != j.end() && schema->is_string() ? schema->get<std::string>() : "";
        if (kind == RunRecord::kSchema) {
            s.runs.push_back(RunRecord::fromJson(j));
        } else if (kind == AblationResult::kSchema) {
            s.ablations.push_back(AblationResult::fromJson(j));
            checkStepTimes(s.ablations.back(), "");
        } else if (kind == Answer::kSchema) {
            Answer answer = Answer::fromJson(j);
            checkAnswerTimes(answer);
            if (!s.answer) s.answer = std::move(answer);
        } else {
            throw DataError(file, "not a run, an ablation or an answer (its schema is '" + kind + "')");
        }
    } catch (const DataError& e) {
        throw DataError(file, e.reason());
    } catch (const nlohmann::json::exception& e) {
        throw DataError(file, std::string("not a report input: ") + e.what());
    }
}

// A seed or fixed loop of an ablation as a run of the report: its first repeat, named by who ran it.
void addLoops(std::vector<RunRecord>& runs, const AblationResult& a, const std::string& who) {
    if (!a.seedLoop()) return;
    RunRecord seed = a.seedLoop()->runs.front();
    seed.name = who + ": seed loop";
    runs.push_back(std::move(seed));
    if (!a.fixedLoop()) return;
    RunRecord fixed = a.fixedLoop()->runs.front();
    fixed.name = who + ": fixed loop";
    runs.push_back(std::move(fixed));
}
}  // namespace

std::vector<RunRecord> ReportSources::chartedRuns() const {
    if (!runs.empty()) return runs;
    std::vector<RunRecord> loops;
    if (answer)
        for (const auto& e : answer->engines)
            if (e.ablation) addLoops(loops, *e.ablation, e.engine);
    for (const auto& a : ablations) addLoops(loops, a, a.backend);
    return loops;
}

ReportSources loadReportSources(const QStringList& paths) {
    if (paths.isEmpty()) throw ConfigError("a report needs run files, ablations, an answer or sweep folders");
    ReportSources s;
    for (const QString& path : paths) {
        const QFileInfo info(path);
        if (info.isDir()) {
            if (!sweep::SweepFolder::isSweepFolder(path.toStdString()))
                throw DataError(path.toStdString(), "a folder, but not a sweep (it has no sweep.json)");
            addSweep(s, path);
        } else {
            addFile(s, path);
        }
    }
    return s;
}

}  // namespace wb::gui
