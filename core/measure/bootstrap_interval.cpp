#include "core/measure/bootstrap_interval.h"

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

double medianAt(const std::vector<double>& values, const std::vector<int>& picks) {
    std::vector<double> picked;
    picked.reserve(picks.size());
    for (int p : picks) picked.push_back(values[static_cast<std::size_t>(p)]);
    const auto middle = picked.begin() + static_cast<std::ptrdiff_t>(picked.size() / 2);
    if (picked.empty()) return 0;
    std::nth_element(picked.begin(), middle, picked.end());
    if (picked.size() % 2 == 1) return *middle;
    return (*middle + *std::max_element(picked.begin(), middle)) / 2;
}

Interval medianInterval(const std::vector<double>& values, double confidence) {
    return bootstrapInterval(
        static_cast<int>(values.size()), [&](const std::vector<int>& picks) { return medianAt(values, picks); },
        confidence);
}

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
