#include "chart_math.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace wb::gui {

namespace {
bool counts(double v, bool logScale) {
    return std::isfinite(v) && (!logScale || v > 0);
}

// Grows `range` to hold every counted value of `values` inside [capLow, capHigh].
void include(std::optional<ValueRange>& range, const std::vector<double>& values, bool logScale, double capLow,
             double capHigh) {
    for (double v : values) {
        if (!counts(v, logScale) || v < capLow || v > capHigh) continue;
        if (!range)
            range = ValueRange{v, v};
        else
            range = ValueRange{std::min(range->lower, v), std::max(range->upper, v)};
    }
}

double medianOf(std::vector<double> values, bool logScale) {
    std::erase_if(values, [&](double v) { return !counts(v, logScale); });
    if (values.empty()) return 0;
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}
}  // namespace

std::vector<double> smoothExponential(const std::vector<double>& values, double factor) {
    const double f = std::clamp(factor, 0.0, 0.99);
    const bool constant = std::all_of(values.begin(), values.end(), [&](double v) { return v == values.front(); });
    if (f == 0.0 || constant) return values;
    std::vector<double> out(values.size());
    double last = 0.0;
    int finiteCount = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (!std::isfinite(values[i])) {
            out[i] = values[i];
            continue;
        }
        last = f * last + (1.0 - f) * values[i];
        ++finiteCount;
        out[i] = last / (1.0 - std::pow(f, finiteCount));
    }
    return out;
}

std::optional<ValueRange> robustValueRange(const std::vector<RangeSource>& sources, bool logScale) {
    constexpr double kNoCap = std::numeric_limits<double>::infinity();
    std::optional<ValueRange> sane;
    for (const RangeSource& s : sources)
        if (!s.diverged) include(sane, s.values, logScale, -kNoCap, kNoCap);

    std::optional<ValueRange> all = sane;
    for (const RangeSource& s : sources) {
        if (!s.diverged) continue;
        double capLow = -kNoCap, capHigh = kNoCap;
        if (sane && logScale) {
            const double ratio = std::max(sane->upper / sane->lower, 10.0);
            capLow = sane->lower / ratio;
            capHigh = sane->upper * ratio;
        } else if (sane) {
            const double span = std::max(sane->upper - sane->lower, 0.1 * std::abs(sane->upper));
            capLow = sane->lower - span;
            capHigh = sane->upper + span;
        } else {
            capHigh = 10.0 * std::abs(medianOf(s.values, logScale));
        }
        include(all, s.values, logScale, capLow, capHigh);
    }
    return all;
}

}  // namespace wb::gui
