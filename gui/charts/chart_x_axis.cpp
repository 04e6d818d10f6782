#include "gui/charts/chart_x_axis.h"

#include <algorithm>
#include <cmath>

#include "gui/runs/run_store.h"

namespace wb::gui {

QString xAxisLabel(XAxis axis) {
    switch (axis) {
        case XAxis::Epoch: return "Epoch";
        case XAxis::ElapsedTime: return "Elapsed time (s)";
        case XAxis::SamplesSeen: return "Training samples seen";
    }
    return {};
}

std::optional<std::size_t> trainRowsOf(const RunEntry& run) {
    if (run.record.dataset.trainRows > 0) return run.record.dataset.trainRows;
    for (const EpochMetrics& e : run.record.epochs) {
        const double samples = e.samplesPerSecond * e.wallMs / 1000.0;
        if (std::isfinite(samples) && samples >= 1.0) return static_cast<std::size_t>(std::llround(samples));
    }
    return std::nullopt;
}

std::vector<double> xKeys(const RunEntry& run, XAxis axis, bool* byEpochInstead) {
    const std::vector<EpochMetrics>& epochs = run.record.epochs;
    const std::optional<std::size_t> rows = axis == XAxis::SamplesSeen ? trainRowsOf(run) : std::nullopt;
    if (byEpochInstead) *byEpochInstead = axis == XAxis::SamplesSeen && !rows;
    const bool haveElapsed = std::all_of(epochs.begin(), epochs.end(), [](const auto& e) { return e.elapsedMs > 0; });
    std::vector<double> keys;
    keys.reserve(epochs.size());
    double sumMs = 0;
    for (const EpochMetrics& e : epochs) {
        sumMs += e.wallMs;
        switch (axis) {
            case XAxis::Epoch: keys.push_back(e.epoch); break;
            case XAxis::ElapsedTime: keys.push_back((haveElapsed ? e.elapsedMs : sumMs) / 1000.0); break;
            case XAxis::SamplesSeen:
                keys.push_back(rows ? static_cast<double>(e.epoch) * static_cast<double>(*rows) : e.epoch);
                break;
        }
    }
    return keys;
}

}  // namespace wb::gui
