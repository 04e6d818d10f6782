// Charts for scripts, without a window:
//   mlp-workbench --export-chart loss|accuracy|epoch-time|breakdown|speedup --runs a.json b.json ...
//                 --out chart.png [--size 1600x900] [--scale 1] [--baseline N] [--log]
//   mlp-workbench --export-chart waterfall --ablation ablation.json --out waterfall.png [--size ...]
//   mlp-workbench --export-chart parallel-coordinates|metric-by-parameter --sweep DIR [--parameter lr]
//                 --out chart.png [--size ...]
// loads the RunRecord files (ours or peers'), the ablation result (mlpwb ablate --out) or the sweep
// folder (mlpwb sweep --out), builds the
// chart, writes it and returns the exit
// code: 0 done, 2 bad arguments, 3 a bad run file, 6 the chart could not be written (mlpwb's codes).
// --size: pixels for .png/.jpg/.svg, points for a .pdf page (one pixel of the layout per point).
// --baseline N: the speedup baseline is the N-th of --runs (default 1); --log: a logarithmic value
// axis for the line charts. Errors are one line on stderr starting "mlp-workbench:".
#pragma once

#include <QStringList>

namespace wb::gui {

// `args` as QCoreApplication::arguments() gives them (the program name first). Needs a QApplication.
int runHeadlessExport(const QStringList& args);

// Call first thing in main(): when argv asks for --export-chart or --report, selects Qt's offscreen platform
// (unless QT_QPA_PLATFORM says otherwise), so the export runs where there is no display.
void prepareHeadlessPlatform(int argc, char** argv);

}  // namespace wb::gui
