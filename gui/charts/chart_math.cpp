#include "gui/charts/chart_math.h"

#include <algorithm>
#include <cmath>
#include <iterator>
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

BandPoint repeatBand(std::vector<double> values, BandKind kind) {
    const std::size_t n = values.size();
    if (n == 0) return {};
    std::sort(values.begin(), values.end());
    if (kind == BandKind::MedianRange) {
        const double median = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
        return {median, values.front(), values.back()};
    }
    double mean = 0;
    for (double v : values) mean += v;
    mean /= static_cast<double>(n);
    if (n == 1) return {mean, mean, mean};
    double squares = 0;
    for (double v : values) squares += (v - mean) * (v - mean);
    const double sd = std::sqrt(squares / static_cast<double>(n - 1));
    // Student's t at 97.5 % for 1..30 degrees of freedom, then the normal's 1.96.
    static constexpr double kT[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                    2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                    2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    const std::size_t dof = n - 1;
    const double t = dof <= std::size(kT) ? kT[dof - 1] : 1.96;
    const double half = t * sd / std::sqrt(static_cast<double>(n));
    return {mean, mean - half, mean + half};
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
