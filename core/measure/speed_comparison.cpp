#include "core/measure/speed_comparison.h"

#include <algorithm>
#include <cstdio>

namespace wb {

namespace {
// The q-quantile of sorted values, linearly interpolated (q = 0.5: the median).
double quantile(const std::vector<double>& sorted, double q) {
    const double pos = q * static_cast<double>(sorted.size() - 1);
    const auto i = static_cast<std::size_t>(pos);
    const double frac = pos - static_cast<double>(i);
    return i + 1 < sorted.size() ? sorted[i] * (1 - frac) + sorted[i + 1] * frac : sorted[i];
}

std::vector<double> timedEpochs(const RunRecord& r) {
    std::vector<double> ms;
    for (const auto& e : r.epochs)
        if (!e.warmup || r.epochs.size() == 1) ms.push_back(e.wallMs);
    std::sort(ms.begin(), ms.end());
    return ms;
}

std::string ratioText(double r) {
    char buf[32];
    std::snprintf(buf, sizeof buf, r >= 9.995 ? "%.0f" : "%.2f", r);  // 9.996 is "10", not "10.00"
    return buf;
}
}  // namespace

std::optional<TimeSpread> timeSpread(const std::vector<const RunRecord*>& runs) {
    std::vector<double> medians;
    const RunRecord* only = nullptr;
    for (const RunRecord* r : runs)
        if (auto m = r->summary().medianEpochMs) {
            medians.push_back(*m);
            only = r;
        }
    if (medians.empty()) return std::nullopt;
    std::sort(medians.begin(), medians.end());
    if (medians.size() == 1) {
        // One run: the range of its own epochs stands in for repeats. Conservative on purpose: two runs
        // of one configuration differ by more than one run's epochs do (the machine's state moves).
        const auto epochs = timedEpochs(*only);
        return TimeSpread{medians[0], epochs.front(), epochs.back(), 1};
    }
    return TimeSpread{quantile(medians, 0.5), medians.front(), medians.back(), static_cast<int>(medians.size())};
}

TimeSpread timeSpread(double median, double low, double high, int runs) {
    return {median, std::min(low, median), std::max(high, median), runs};
}

SpeedComparison compareSpeed(const TimeSpread& baseline, const TimeSpread& candidate) {
    SpeedComparison c;
    if (baseline.median <= 0 || candidate.median <= 0) return c;
    c.ratio = baseline.median / candidate.median;
    c.ratioLow = baseline.low / std::max(candidate.high, 1e-12);
    c.ratioHigh = baseline.high / std::max(candidate.low, 1e-12);
    c.measurable = candidate.high < baseline.low || candidate.low > baseline.high;
    return c;
}

std::string SpeedComparison::label() const {
    // UTF-8 "×" and "–": the GUI draws the label as it is, and terminals show it.
    const std::string range = "(" + ratioText(ratioLow) + "\u2013" + ratioText(ratioHigh) + "\u00d7)";
    if (!measurable) return "no measurable difference " + range;
    if (ratio >= 1) return ratioText(ratio) + "\u00d7 faster " + range;
    return ratioText(1 / ratio) + "\u00d7 slower (" + ratioText(1 / ratioHigh) + "\u2013" + ratioText(1 / ratioLow) +
           "\u00d7)";
}

}  // namespace wb
