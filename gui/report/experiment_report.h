// The experiment report: one document to hand a colleague. The question, the conclusion, what was
// measured (per engine: the workload as run, the rounds made and why they stopped, the machine's
// state), the data set (shape, source, hash), each run's model and settings, every engine's
// environment (CPU, threads, device, framework versions), the charts (epoch time, loss, speedup,
// each ablation's waterfall in the order applied and its shares of the gap with their intervals),
// the tables with medians and spreads, each sweep's report, and in an appendix the fixed loop's code
// in the user's framework. `mlp-workbench --report` and File → Export report write it as PDF or HTML.
#pragma once

#include <QString>
#include <QStringList>

#include "gui/report/report_document.h"
#include "gui/report/report_sources.h"

namespace wb::gui {

// The conclusion the report states: the answer's when there is one, else what the ablations, the
// runs (the fastest against the slowest, with the spread) and the sweeps (the best trial) say.
QStringList reportConclusion(const ReportSources& sources);

// The framework whose loop the report prints: the first framework backend among the runs (torch,
// keras, jax), else PyTorch, the founding loop's.
std::string reportFramework(const ReportSources& sources);

// Builds the document (its charts as widgets, off screen). Throws ConfigError for empty sources.
ReportDocument buildReport(const ReportSources& sources);

// Writes `sources` as a report to `path`: .pdf or .html by its extension. Throws ConfigError for
// another extension or empty sources, IoError when it cannot be written.
void writeReport(const ReportSources& sources, const QString& path);

}  // namespace wb::gui
