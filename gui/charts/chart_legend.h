// The metric charts' legend as a control, as in TensorBoard and W&B: a click on a run's entry hides
// or shows the run, through the store, so the runs table's "shown" box agrees; a hidden run stays
// listed in grey so it can be clicked back; and the whole legend can be put away for more plot.
#pragma once

class QCustomPlot;
class QCPAbstractPlottable;
class QCPGraph;

namespace wb::gui {

class RunStore;

// Marks `plottable` as the legend entry of run `runId` (entries without a mark, such as the keys
// that explain the line styles, do nothing when clicked).
void tagLegendRun(QCPAbstractPlottable* plottable, int runId);
// A legend-only entry for a hidden run: no data, a grey key and grey text.
void styleHiddenEntry(QCustomPlot& plot, QCPGraph* entry);
// A click on a tagged entry toggles that run's visibility in `store`.
void connectLegendToggles(QCustomPlot& plot, RunStore& store);

// Shows or puts away the legend. Taken out of its layout row, not just made invisible, so the plot
// gets the legend's height back.
void setLegendShown(QCustomPlot& plot, bool shown);
bool legendShown(const QCustomPlot& plot);

}  // namespace wb::gui
