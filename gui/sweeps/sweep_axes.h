// The axes a sweep is drawn on: one per parameter and one for the metric. A numeric parameter is a
// linear axis (logarithmic when its values span a factor of 20 or more and are all positive), any
// other one lists its values. Every trial has a position in [0, 1] on each axis where it has a
// value, so the parallel-coordinates chart, its brushes and the table's filter agree.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "sweep/sweep_folder.h"

namespace wb::gui {

struct SweepAxis {
    QString name;
    bool metric = false;       // the last axis: the sweep's metric
    bool categorical = false;  // its values are listed (categories), not measured
    bool log = false;
    double min = 0, max = 0;     // numeric axes
    std::vector<double> values;  // numeric parameter axes: the distinct values the trials have, ascending
    QStringList categories;      // categorical axes, in the order they are drawn (bottom first)

    // A parameter with few numeric values (a grid's) is labelled at each of them, not at round ticks.
    bool labelsEachValue() const { return !metric && !categorical && !values.empty() && values.size() <= 8; }
};

class SweepAxes {
public:
    static SweepAxes build(const sweep::SweepPlan& plan, const std::vector<sweep::TrialRow>& views);

    const std::vector<SweepAxis>& axes() const { return axes_; }
    std::size_t size() const { return axes_.size(); }
    // Where `view` sits on axis `axis`, in [0, 1]; nullopt where it has no value (a metric before
    // the trial completed).
    std::optional<double> position(std::size_t axis, const sweep::TrialRow& view) const;
    // The value shown at position `t` of a numeric axis (the inverse of position()).
    double valueAt(std::size_t axis, double t) const;

private:
    std::vector<SweepAxis> axes_;
};

}  // namespace wb::gui
