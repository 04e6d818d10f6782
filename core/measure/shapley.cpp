// Shapley values of fixes from the levels of every subset, and their bootstrap intervals.
#include "core/measure/shapley.h"

#include <algorithm>
#include <bit>
#include <string>

#include "core/platform/errors.h"

namespace wb {

namespace {
// k, where the levels number 2^k; throws ConfigError otherwise.
int fixCount(std::size_t subsets) {
    if (subsets < 2 || !std::has_single_bit(subsets) || std::countr_zero(subsets) > kMaxShapleyFixes)
        throw ConfigError("Shapley values need the levels of 2^k subsets (k from 1 to " +
                          std::to_string(kMaxShapleyFixes) + "), not " + std::to_string(subsets));
    return std::countr_zero(subsets);
}

// weights[s] = s! (k - 1 - s)! / k!: the share of the orders in which a fix comes right after a
// given set of s others.
std::vector<double> orderWeights(int k) {
    std::vector<double> weights(static_cast<std::size_t>(k));
    for (int s = 0; s < k; ++s) {
        double w = 1.0 / k;  // 1 / (k * C(k-1, s)), built up as a product to stay exact for small k
        for (int j = 1; j <= s; ++j) w *= static_cast<double>(j) / static_cast<double>(k - j);
        weights[static_cast<std::size_t>(s)] = w;
    }
    return weights;
}
}  // namespace

std::vector<double> shapleyValues(const std::vector<double>& levels) {
    const int k = fixCount(levels.size());
    const std::vector<double> weights = orderWeights(k);
    std::vector<double> values(static_cast<std::size_t>(k), 0.0);
    for (int i = 0; i < k; ++i) {
        const std::size_t bit = std::size_t{1} << i;
        for (std::size_t mask = 0; mask < levels.size(); ++mask) {
            if (mask & bit) continue;
            const auto others = static_cast<std::size_t>(std::popcount(mask));
            values[static_cast<std::size_t>(i)] += weights[others] * (levels[mask] - levels[mask | bit]);
        }
    }
    return values;
}

ShapleyEstimate shapleyEstimate(const std::vector<std::vector<double>>& perRound, double confidence) {
    const int k = fixCount(perRound.size());
    ShapleyEstimate e;
    e.rounds = static_cast<int>(perRound.front().size());
    for (const auto& row : perRound) e.rounds = std::min(e.rounds, static_cast<int>(row.size()));
    if (e.rounds == 0) throw ConfigError("Shapley values need at least one round of every subset");
    const auto levelsAt = [&](const std::vector<int>& picks) {
        std::vector<double> levels;
        levels.reserve(perRound.size());
        for (const auto& row : perRound) levels.push_back(medianAt(row, picks));
        return levels;
    };
    std::vector<int> all(static_cast<std::size_t>(e.rounds));
    for (int r = 0; r < e.rounds; ++r) all[static_cast<std::size_t>(r)] = r;
    e.values = shapleyValues(levelsAt(all));
    // bootstrapInterval draws the same picks on every call (a fixed seed): each fix's interval comes
    // from the same resamples.
    for (int i = 0; i < k; ++i)
        e.intervals.push_back(bootstrapInterval(
            e.rounds,
            [&](const std::vector<int>& picks) { return shapleyValues(levelsAt(picks))[static_cast<std::size_t>(i)]; },
            confidence));
    return e;
}

}  // namespace wb
