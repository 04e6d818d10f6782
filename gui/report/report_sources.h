// What a report is made of: the files the user names (RunRecord files, ablation and answer JSONs,
// sweep folders), loaded and sorted by kind. A report needs at least one of them.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "core/measure/ablation.h"
#include "core/measure/answer.h"
#include "core/run/run_record.h"
#include "sweep/sweep_report.h"

namespace wb::gui {

// One sweep folder: what `mlpwb sweep report` says of it.
struct ReportSweep {
    QString folder;
    sweep::SweepReport report;
};

struct ReportSources {
    std::vector<RunRecord> runs;            // RunRecord files, and the completed trials of the sweeps
    std::vector<AblationResult> ablations;  // ablation JSONs
    std::optional<Answer> answer;           // an answer JSON (the first one named)
    std::vector<ReportSweep> sweeps;

    bool empty() const { return runs.empty() && ablations.empty() && !answer && sweeps.empty(); }
    // The runs the report's charts and tables show: the given runs, or else the answer's and the
    // ablations' seed and fixed loops (the first repeat of each), named by engine and step.
    std::vector<RunRecord> chartedRuns() const;
};

// Loads every path: a folder with a sweep.json is a sweep, a .json file is whatever its "schema"
// says (mlpwb.run/1, mlpwb.ablation/1, mlpwb.answer/1; a JSON array of run records, as the GUI's
// export writes, too). Throws DataError naming the path that cannot be read, or ConfigError when
// nothing was named.
ReportSources loadReportSources(const QStringList& paths);

}  // namespace wb::gui
