#include "sweep/trial_points.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

#include "core/platform/errors.h"
#include "core/platform/random.h"

namespace wb::sweep {

namespace {
ParameterValue sampledNumber(double v, bool whole) {
    ParameterValue out;
    char text[32];
    if (whole) {
        const auto n = static_cast<long long>(v);
        out.value = n;
        out.argument = std::to_string(n);
    } else {
        const auto [end, ec] = std::to_chars(text, text + sizeof text, v);  // the shortest text that reads back
        out.value = v;
        out.argument.assign(text, ec == std::errc{} ? end : text);
    }
    return out;
}

// How many values a grid takes for one parameter: its list's, or an int_uniform range's whole numbers.
// The range's ends lie within ±2^53 (parseSpec), so the count is exact.
std::uint64_t gridCount(const Parameter& p) {
    if (!p.draw) return p.values.size();
    if (!(p.draw->max - p.draw->min < 0x1p63)) return kManyTrials;  // (a Spec not from parseSpec)
    return static_cast<std::uint64_t>(p.draw->max - p.draw->min) + 1;
}

// The values a grid takes for one parameter (their count checked against the cap before).
std::vector<ParameterValue> gridValues(const Parameter& p) {
    if (!p.draw) return p.values;
    std::vector<ParameterValue> values;
    // By a whole-number index, not by v += 1: nothing about the floating-point ends can stop its end.
    const std::uint64_t count = gridCount(p);
    for (std::uint64_t i = 0; i < count; ++i)
        values.push_back(sampledNumber(p.draw->min + static_cast<double>(i), true));
    return values;
}

// One draw: a value of the list, or of the distribution (distribution.h: W&B's meanings).
// A normal kind has no bounds the parser could check: a draw beyond what a parameter takes (a sigma
// of 1e300) is refused here, before it is converted to a whole number.
ParameterValue sample(const Spec& spec, const Parameter& p, Rng& rng) {
    if (!p.draw) return p.values[rng.below(p.values.size())];
    const double u = rng.uniformDouble();
    const double n = takesRange(p.draw->distribution) ? 0.0 : rng.normal();  // the normal kinds' draw
    const double v = drawValue(*p.draw, u, n);
    if (!drawsFitAParameter(*p.draw, v, v))
        throw ConfigError(specMessage(spec.file, p.line, "parameters." + p.name,
                                      "drew " + std::to_string(v) + ", beyond what a parameter can take"));
    return sampledNumber(v, drawsWholeNumbers(*p.draw));
}

std::vector<std::vector<ParameterValue>> gridPoints(const Spec& spec) {
    std::vector<std::vector<ParameterValue>> axes;
    for (const auto& p : spec.parameters) axes.push_back(gridValues(p));
    const auto count = static_cast<long long>(countPoints(spec));
    std::vector<std::vector<ParameterValue>> points;
    std::vector<std::size_t> index(axes.size(), 0);
    for (long long n = 0; n < count; ++n) {
        std::vector<ParameterValue> point;
        for (std::size_t a = 0; a < axes.size(); ++a) point.push_back(axes[a][index[a]]);
        points.push_back(std::move(point));
        for (std::size_t a = axes.size(); a-- > 0;) {  // odometer: the last parameter fastest
            if (++index[a] < axes[a].size()) break;
            index[a] = 0;
        }
    }
    return points;
}

std::vector<std::vector<ParameterValue>> randomPoints(const Spec& spec) {
    Rng rng(spec.seed);
    std::vector<std::vector<ParameterValue>> points;
    for (int n = 0; n < *spec.runCap; ++n) {
        std::vector<ParameterValue> point;
        for (const auto& p : spec.parameters) point.push_back(sample(spec, p, rng));
        points.push_back(std::move(point));
    }
    return points;
}
}  // namespace

std::uint64_t countPoints(const Spec& spec) {
    if (spec.method != Method::Grid) return spec.runCap ? static_cast<std::uint64_t>(*spec.runCap) : 0;
    std::uint64_t count = 1;
    for (const auto& p : spec.parameters)
        if (__builtin_mul_overflow(count, gridCount(p), &count)) return kManyTrials;
    return count;
}

std::uint64_t countTrials(const Spec& spec) {
    std::uint64_t count = 0;
    if (__builtin_mul_overflow(countPoints(spec), static_cast<std::uint64_t>(spec.repeats), &count)) return kManyTrials;
    return count;
}

void checkTrialCount(const Spec& spec) {
    const std::uint64_t count = countTrials(spec);
    if (count <= static_cast<std::uint64_t>(kMaxTrials)) return;
    const std::string many = count == kManyTrials ? "more than 2^64" : std::to_string(count);
    if (spec.method != Method::Grid)
        throw ConfigError(
            specMessage(spec.file, 0, "run_cap",
                        "run_cap x repeats is " + many + " trials, more than " + std::to_string(kMaxTrials)));
    throw ConfigError(specMessage(spec.file, spec.parametersLine, "parameters",
                                  "the grid has " + many + " trials, more than " + std::to_string(kMaxTrials)));
}

std::vector<TrialPoint> expandTrials(const Spec& spec) {
    checkTrialCount(spec);                        // before any value is expanded
    if (spec.method == Method::Bayes) return {};  // suggested batch by batch (bayes_search.h)
    const auto points = spec.method == Method::Grid ? gridPoints(spec) : randomPoints(spec);
    std::vector<std::uint32_t> order(points.size());
    for (std::size_t p = 0; p < order.size(); ++p) order[p] = static_cast<std::uint32_t>(p);
    // Early termination judges each trial by those that reached its rung before it: a grid run in
    // the file's order (a learning rate rising step by step) would have every trial beat the ones
    // before it and stop none, so such a grid runs in an order drawn with the sweep's seed.
    if (spec.method == Method::Grid && spec.earlyTerminate) {
        Rng rng(spec.seed);
        order = permutation(static_cast<std::uint32_t>(points.size()), rng);
    }
    std::vector<TrialPoint> trials;
    for (const std::uint32_t p : order)
        for (int r = 0; r < spec.repeats; ++r)
            trials.push_back({static_cast<int>(trials.size()), static_cast<int>(p), r, points[p]});
    return trials;
}

nlohmann::json searchSpace(const Spec& spec) {
    nlohmann::json space = nlohmann::json::array();
    for (const auto& p : spec.parameters) {
        if (p.draw)
            space.push_back({{"name", p.name}, {"kind", "unit"}});
        else if (p.values.size() > 1)
            space.push_back({{"name", p.name}, {"kind", "choice"}, {"count", p.values.size()}});
    }
    return space;
}

std::vector<ParameterValue> suggestedPoint(const Spec& spec, const nlohmann::json& suggestion) {
    std::vector<ParameterValue> point;
    for (const auto& p : spec.parameters) {
        if (!p.draw && p.values.size() == 1) {
            point.push_back(p.values.front());
            continue;
        }
        const auto it = suggestion.is_object() ? suggestion.find(p.name) : suggestion.end();
        if (it == suggestion.end() || !it->is_number())
            throw DataError("", "the suggestion has no number for " + p.name + ": " + suggestion.dump());
        const double x = it->get<double>();
        if (p.draw) {
            if (!(x >= 0 && x <= 1)) throw DataError("", p.name + ": " + it->dump() + " is not in [0, 1]");
            point.push_back(sampledNumber(drawValue(*p.draw, std::min(x, std::nextafter(1.0, 0.0)), 0.0),
                                          drawsWholeNumbers(*p.draw)));
        } else {
            if (!(x >= 0 && x < static_cast<double>(p.values.size())) || x != std::floor(x))
                throw DataError("", p.name + ": " + it->dump() + " is no index of its " +
                                        std::to_string(p.values.size()) + " values");
            point.push_back(p.values[static_cast<std::size_t>(x)]);
        }
    }
    return point;
}

}  // namespace wb::sweep
