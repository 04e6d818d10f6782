// How a run's lines look in the metric charts: the run's colour (from the store, the same as in the
// runs table) and, for a run whose colour is only a shade of an earlier run's, a dash pattern too.
//
// The rule. RunStore::nextColor gives ten hues (Tableau 10), then the same hues darker or lighter on
// every later pass, so the first 12 runs wear 12 different colours, but from the 11th on a colour is
// a shade of an earlier run's and hard to tell from it in a thin line. So runs are grouped by hue
// in the store's order: the first run of a hue is variant 0, each later one variant 1, 2, ...
// - variant 0: train solid, validation dashed (what the legend's two keys explain);
// - variant k >= 1: train in pattern k (dash-dot, dash-dot-dot, long dash, dotted, then again),
//   validation in the same pattern but thinner and with three times the gaps, so validation is
//   still the sparser, lighter line of the two, as it is for the solid/dashed pair.
#pragma once

#include <QColor>
#include <QPen>
#include <vector>

namespace wb::gui {

struct RunPens {
    QPen train;
    QPen validation;
    QPen raw;  // the unsmoothed curve, faint behind a smoothed one
};

// For each colour, how many earlier colours in the list share its hue (0: the first of its hue).
std::vector<int> hueVariants(const std::vector<QColor>& colors);

RunPens runPens(const QColor& color, int variant);

}  // namespace wb::gui
