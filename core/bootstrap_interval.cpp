#include "bootstrap_interval.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace wb {

namespace {
// The q-quantile of sorted values (nearest rank, so an interval's ends are values some resample gave).
double quantileOf(const std::vector<double>& sorted, double q) {
    const double pos = q * static_cast<double>(sorted.size() - 1);
    return sorted[static_cast<std::size_t>(std::lround(pos))];
}
}  // namespace

Interval bootstrapInterval(int rounds, const std::function<double(const std::vector<int>& picks)>& statistic,
                           double confidence) {
    std::vector<int> picks(static_cast<std::size_t>(std::max(rounds, 0)));
    for (int i = 0; i < rounds; ++i) picks[static_cast<std::size_t>(i)] = i;
    if (rounds <= 1) {
        const double only = statistic(picks);
        return {only, only};
    }
    std::mt19937_64 random(20261207);  // fixed: an answer read twice gives the same intervals
    std::uniform_int_distribution<int> round(0, rounds - 1);
    std::vector<double> values;
    values.reserve(kBootstrapResamples);
    for (int b = 0; b < kBootstrapResamples; ++b) {
        for (int& p : picks) p = round(random);
        const double v = statistic(picks);
        if (std::isfinite(v)) values.push_back(v);
    }
    if (values.empty()) return {NAN, NAN};
    std::sort(values.begin(), values.end());
    const double tail = (1 - confidence) / 2;
    return {quantileOf(values, tail), quantileOf(values, 1 - tail)};
}

}  // namespace wb
