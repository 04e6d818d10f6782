#include "core/measure/ablation_attribution.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "core/measure/shapley.h"

namespace wb {

namespace {
// The measured cumulative steps' per-round medians (steps x rounds), each step cut to the rounds
// every one of them completed (a run that failed late leaves a step a round short). Run i of a step
// is paired with run i of every other, as round i + 1: a step that joined the rounds late (the
// closing step) made its first runs up in a later round (AblationRunner::runRound), so those pairs
// were timed apart; every later pair in the same round.
struct RoundTable {
    std::vector<std::size_t> steps;          // indices into AblationResult::steps
    std::vector<std::vector<double>> times;  // per step, per round: the run's median epoch ms
    int rounds = 0;
};

RoundTable roundTable(const AblationResult& r) {
    RoundTable t;
    for (std::size_t i = 0; i < r.steps.size(); ++i) {
        if (!r.steps[i].measured()) continue;
        std::vector<double> times;
        for (const auto& run : r.steps[i].runs)
            if (const auto m = run.summary().medianEpochMs) times.push_back(*m);
        if (times.empty()) continue;
        t.steps.push_back(i);
        t.times.push_back(std::move(times));
    }
    t.rounds = t.times.empty() ? 0 : static_cast<int>(t.times.front().size());
    for (const auto& times : t.times) t.rounds = std::min(t.rounds, static_cast<int>(times.size()));
    return t;
}

// Finds the outlying runs of each step and holds them at the step's median in the table the
// bootstrap resamples (the record keeps them; Attribution::outliers lists them).
std::vector<OutlierRun> holdOutliers(RoundTable& t) {
    std::vector<OutlierRun> found;
    for (std::size_t row = 0; row < t.times.size(); ++row) {
        auto& times = t.times[row];
        times.resize(static_cast<std::size_t>(t.rounds));
        const double mid = median(times).value_or(0.0);
        std::vector<double> deviations;
        for (double v : times) deviations.push_back(std::abs(v - mid));
        const double spread = std::max(1.4826 * median(deviations).value_or(0.0), 0.01 * mid);
        for (std::size_t r = 0; r < times.size(); ++r)
            if (times.size() >= 3 && std::abs(times[r] - mid) > kOutlierScore * spread) {
                found.push_back({t.steps[row], static_cast<int>(r) + 1, times[r], mid});
                times[r] = mid;
            }
    }
    return found;
}

// The index in t.steps of the fixed loop (the fastest measured step, the seed loop included).
std::size_t fixedRow(const RoundTable& t, const AblationResult& r) {
    const AblationStep* fixed = r.fixedLoop();
    for (std::size_t row = 0; row < t.steps.size(); ++row)
        if (&r.steps[t.steps[row]] == fixed) return row;
    return t.steps.size() - 1;
}

// The largest saving in the fixed loop, when its interval is clear of every other cause's; else
// the causes whose intervals reach it.
// (A closing "without ..." step takes back what costly fixes cost: no cause of the seed loop's time.)
void rank(Attribution& a, const AblationResult& r) {
    const auto candidate = [&](std::size_t i) {
        return a.causes[i].inFixedLoop && r.steps[a.causes[i].step].fix != AblationStep::kWithoutCostly;
    };
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < a.causes.size(); ++i)
        if (candidate(i) && a.causes[i].savedMs > 0 && (!best || a.causes[i].savedMs > a.causes[*best].savedMs))
            best = i;
    if (!best) return;
    for (std::size_t i = 0; i < a.causes.size(); ++i)
        if (i != *best && candidate(i) && a.causes[i].saved.high >= a.causes[*best].saved.low) a.notApart.push_back(i);
    if (a.canRank() && a.notApart.empty()) {
        a.largest = best;
        return;
    }
    a.notApart.insert(a.notApart.begin(), *best);
}

// A saving between two measured configurations, each a list of per-round medians paired by round:
// median(from) - median(to), with its interval.
struct PairedSaving {
    double ms = 0;
    Interval interval;
};
std::optional<PairedSaving> pairedSaving(const std::vector<double>* from, const std::vector<double>* to) {
    if (!from || !to) return std::nullopt;
    const int rounds = static_cast<int>(std::min(from->size(), to->size()));
    if (rounds == 0) return std::nullopt;
    std::vector<int> all(static_cast<std::size_t>(rounds));
    for (int i = 0; i < rounds; ++i) all[static_cast<std::size_t>(i)] = i;
    const auto saving = [&](const std::vector<int>& p) { return medianAt(*from, p) - medianAt(*to, p); };
    return PairedSaving{saving(all), bootstrapInterval(rounds, saving)};
}

std::vector<double> roundMedians(const AblationStep& s) {
    std::vector<double> times;
    for (const auto& run : s.runs)
        if (const auto m = run.summary().medianEpochMs) times.push_back(*m);
    return times;
}

// The pairs of combined causes whose savings overlap, clearly (SharedSaving): from the subsets of
// none, each and both, paired by round.
void addSharedSavings(Attribution& a, const AblationResult& r,
                      const std::function<const std::vector<double>*(unsigned)>& row) {
    const auto playerOf = [&](std::size_t step) -> std::optional<unsigned> {
        const auto found = std::find(r.subsetFixes.begin(), r.subsetFixes.end(), step);
        if (found == r.subsetFixes.end()) return std::nullopt;
        return static_cast<unsigned>(found - r.subsetFixes.begin());
    };
    for (std::size_t i = 0; i < a.causes.size(); ++i)
        for (std::size_t j = i + 1; j < a.causes.size(); ++j) {
            const auto p = playerOf(a.causes[i].step), q = playerOf(a.causes[j].step);
            if (!p || !q) continue;
            const std::vector<const std::vector<double>*> rows = {row(0), row(1U << *p), row(1U << *q),
                                                                  row((1U << *p) | (1U << *q))};
            if (std::find(rows.begin(), rows.end(), nullptr) != rows.end()) continue;
            std::size_t rounds = rows.front()->size();
            for (const auto* x : rows) rounds = std::min(rounds, x->size());
            if (rounds == 0) continue;
            // (none - p) + (none - q) - (none - both) = none + both - p - q
            const auto overlap = [&](const std::vector<int>& picks) {
                return medianAt(*rows[0], picks) + medianAt(*rows[3], picks) - medianAt(*rows[1], picks) -
                       medianAt(*rows[2], picks);
            };
            std::vector<int> all(rounds);
            for (std::size_t k = 0; k < rounds; ++k) all[k] = static_cast<int>(k);
            const Interval interval = bootstrapInterval(static_cast<int>(rounds), overlap);
            if (a.canRank() && interval.low > 0) a.shared.push_back({i, j, overlap(all), interval});
        }
}

// Each cause's Shapley value, saving alone and leave-one-out cost, where the subsets measured them;
// its saving alone from the plan's alone step otherwise.
void addCombinations(Attribution& a, const AblationResult& r) {
    const std::size_t k = r.subsetFixes.size();
    std::map<unsigned, const std::vector<double>*> rows;  // mask -> its rounds
    for (const SubsetLevel& s : r.subsets)
        if (!s.roundMs.empty()) rows[s.mask] = &s.roundMs;
    const auto row = [&](unsigned mask) -> const std::vector<double>* {
        const auto found = rows.find(mask);
        return found == rows.end() ? nullptr : found->second;
    };
    const unsigned all = k == 0 ? 0 : (1U << k) - 1;
    std::optional<ShapleyEstimate> shapley;
    if (k > 0 && rows.size() == std::size_t{1} << k) {
        std::vector<std::vector<double>> perRound;
        for (unsigned mask = 0; mask <= all; ++mask) perRound.push_back(*rows.at(mask));
        shapley = shapleyEstimate(perRound);
        a.shapleyGapMs = median(*row(0)).value_or(0.0) - median(*row(all)).value_or(0.0);
    }
    addSharedSavings(a, r, row);
    const std::vector<double> seed = r.steps.empty() ? std::vector<double>{} : roundMedians(r.steps.front());
    for (CauseShare& c : a.causes) {
        const auto player = std::find(r.subsetFixes.begin(), r.subsetFixes.end(), c.step);
        if (player != r.subsetFixes.end()) {
            const auto p = static_cast<unsigned>(player - r.subsetFixes.begin());
            if (shapley) {
                c.shapley = shapley->values[p];
                c.shapleyInterval = shapley->intervals[p];
            }
            if (const auto alone = pairedSaving(row(0), row(1U << p))) {
                c.alone = alone->ms;
                c.aloneInterval = alone->interval;
            }
            if (const auto out = pairedSaving(row(all & ~(1U << p)), row(all))) {
                c.leaveOneOut = out->ms;
                c.leaveOneOutInterval = out->interval;
            }
        }
        if (c.alone) continue;
        for (const AblationStep& s : r.alone) {
            if (s.fix != r.steps[c.step].fix || !s.measured()) continue;
            const std::vector<double> times = roundMedians(s);
            if (const auto alone = pairedSaving(&seed, &times)) {
                c.alone = alone->ms;
                c.aloneInterval = alone->interval;
            }
            break;
        }
    }
}
}  // namespace

Attribution attribute(const AblationResult& r) {
    Attribution a;
    RoundTable t = roundTable(r);
    if (t.steps.size() < 2 || t.steps.front() != 0 || t.rounds == 0) return a;
    a.rounds = t.rounds;
    a.outliers = holdOutliers(t);
    const std::size_t fixed = fixedRow(t, r);
    const auto level = [&](std::size_t row, const std::vector<int>& picks) { return medianAt(t.times[row], picks); };
    a.gap = bootstrapInterval(t.rounds, [&](const std::vector<int>& p) { return level(0, p) - level(fixed, p); });
    const double gapMs = r.steps.front().medianEpochMs - r.steps[t.steps[fixed]].medianEpochMs;
    const auto comparison = r.gapComparison();
    const bool measurable = comparison && comparison->measurable && gapMs > 0;
    for (std::size_t row = 1; row < t.steps.size(); ++row) {
        CauseShare c;
        c.step = t.steps[row];
        c.savedMs = r.steps[t.steps[row - 1]].medianEpochMs - r.steps[c.step].medianEpochMs;
        const auto saving = [&](const std::vector<int>& p) { return level(row - 1, p) - level(row, p); };
        c.saved = bootstrapInterval(t.rounds, saving);
        c.inFixedLoop = row <= fixed;
        if (c.inFixedLoop && measurable) {
            c.share = c.savedMs / gapMs;
            c.shareInterval = bootstrapInterval(t.rounds, [&](const std::vector<int>& p) {
                const double gap = level(0, p) - level(fixed, p);
                return gap > 0 ? saving(p) / gap : NAN;
            });
        }
        if (a.rounds >= Attribution::kRoundsToRank && c.saved.high < 0) a.costly.push_back(a.causes.size());
        a.causes.push_back(c);
    }
    rank(a, r);
    addCombinations(a, r);
    return a;
}

}  // namespace wb
