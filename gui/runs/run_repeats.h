// Spread, not noise: Run and Compare train each configuration `repeats` times, in rounds (A1 B1 A2
// B2 A3 B3, as the ablation does) so that a drift of the machine (heat, another program) hits every
// configuration alike. Repeats of one configuration share everything but a repeat index, which is in
// their names ("Fastest · 2/3"); the Speedup chart groups them back by that name and their config.
#pragma once

#include <QString>
#include <QStringList>
#include <string>
#include <vector>

#include "core/run/run_config.h"

namespace wb::gui {

// `configs` × `repeats`, in rounds. With repeats > 1 each name gets " · k/n"; a name already in
// `taken` (or given earlier in the plan) gets " #2", " #3", …, so names stay unique in the session.
std::vector<RunConfig> planRepeats(const std::vector<RunConfig>& configs, int repeats, const QStringList& taken);

// The name of the configuration a run repeats: its name without " · k/n" and " #k"
// ("Fastest · 2/3 #2" -> "Fastest"); a name without them as it is.
QString repeatedName(const QString& runName);

struct RunEntry;
// What makes runs repeats of one configuration: the name without its repeat index, and the config
// apart from the name. Runs of equal keys are drawn as one (the Speedup chart's bar, the metric
// charts' band).
std::string repeatGroupKey(const RunEntry& run);

}  // namespace wb::gui
