#include "trial_points.h"

#include <charconv>
#include <cmath>

#include "errors.h"
#include "random.h"

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

// The values a grid takes for one parameter: its list, or every whole number of an int_uniform range.
std::vector<ParameterValue> gridValues(const Parameter& p, const std::string& file) {
    if (!p.distribution) return p.values;
    if (p.max - p.min >= kMaxTrials)
        throw ConfigError(
            specMessage(file, p.line, "parameters." + p.name, "the range has too many values for a grid"));
    std::vector<ParameterValue> values;
    for (double v = p.min; v <= p.max; v += 1) values.push_back(sampledNumber(v, true));
    return values;
}

ParameterValue sample(const Parameter& p, Rng& rng) {
    if (!p.distribution) return p.values[rng.below(p.values.size())];
    const double u = rng.uniformDouble();
    switch (*p.distribution) {
        case Distribution::Uniform: return sampledNumber(p.min + u * (p.max - p.min), false);
        case Distribution::LogUniform:
            return sampledNumber(std::exp(std::log(p.min) + u * (std::log(p.max) - std::log(p.min))), false);
        default: return sampledNumber(std::min(p.max, p.min + std::floor(u * (p.max - p.min + 1))), true);
    }
}

std::vector<std::vector<ParameterValue>> gridPoints(const Spec& spec) {
    std::vector<std::vector<ParameterValue>> axes;
    double count = 1;
    for (const auto& p : spec.parameters) {
        axes.push_back(gridValues(p, spec.file));
        count *= static_cast<double>(axes.back().size());
    }
    if (count * spec.repeats > kMaxTrials)
        throw ConfigError(specMessage(spec.file, spec.parametersLine, "parameters",
                                      "the grid has " + std::to_string(static_cast<long long>(count * spec.repeats)) +
                                          " trials, more than " + std::to_string(kMaxTrials)));
    std::vector<std::vector<ParameterValue>> points;
    std::vector<std::size_t> index(axes.size(), 0);
    for (long long n = 0; n < static_cast<long long>(count); ++n) {
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
    if (static_cast<long long>(*spec.runCap) * spec.repeats > kMaxTrials)
        throw ConfigError(
            specMessage(spec.file, 0, "run_cap", "run_cap x repeats exceeds " + std::to_string(kMaxTrials)));
    Rng rng(spec.seed);
    std::vector<std::vector<ParameterValue>> points;
    for (int n = 0; n < *spec.runCap; ++n) {
        std::vector<ParameterValue> point;
        for (const auto& p : spec.parameters) point.push_back(sample(p, rng));
        points.push_back(std::move(point));
    }
    return points;
}
}  // namespace

std::vector<TrialPoint> expandTrials(const Spec& spec) {
    const auto points = spec.method == Method::Grid ? gridPoints(spec) : randomPoints(spec);
    std::vector<TrialPoint> trials;
    for (std::size_t p = 0; p < points.size(); ++p)
        for (int r = 0; r < spec.repeats; ++r)
            trials.push_back({static_cast<int>(trials.size()), static_cast<int>(p), r, points[p]});
    return trials;
}

}  // namespace wb::sweep
