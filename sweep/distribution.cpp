#include "sweep/distribution.h"

#include <algorithm>
#include <cmath>

namespace wb::sweep {

namespace {
struct Kind {
    Distribution distribution;
    const char* name;
    bool range;       // min, max (else mu, sigma)
    bool valueRange;  // min, max are the parameter's values: min > 0
    bool quantized;   // round(X / q) q
};

constexpr Kind kKinds[] = {
    {Distribution::Uniform, "uniform", true, false, false},
    {Distribution::IntUniform, "int_uniform", true, false, false},
    {Distribution::QUniform, "q_uniform", true, false, true},
    {Distribution::LogUniform, "log_uniform", true, false, false},
    {Distribution::LogUniformValues, "log_uniform_values", true, true, false},
    {Distribution::QLogUniform, "q_log_uniform", true, false, true},
    {Distribution::QLogUniformValues, "q_log_uniform_values", true, true, true},
    {Distribution::InvLogUniform, "inv_log_uniform", true, false, false},
    {Distribution::InvLogUniformValues, "inv_log_uniform_values", true, true, false},
    {Distribution::Normal, "normal", false, false, false},
    {Distribution::QNormal, "q_normal", false, false, true},
    {Distribution::LogNormal, "log_normal", false, false, false},
    {Distribution::QLogNormal, "q_log_normal", false, false, true},
};

const Kind& kindOf(Distribution d) {
    for (const Kind& k : kKinds)
        if (k.distribution == d) return k;
    return kKinds[0];
}

// The unquantised value at u (uniform in [0, 1)) and n (standard normal).
double unquantised(const Draw& d, double u, double n) {
    const auto between = [u](double lo, double hi) { return lo + u * (hi - lo); };
    switch (d.distribution) {
        case Distribution::Uniform:
        case Distribution::QUniform: return between(d.min, d.max);
        case Distribution::IntUniform: return std::min(d.max, d.min + std::floor(u * (d.max - d.min + 1)));
        case Distribution::LogUniform:
        case Distribution::QLogUniform: return std::exp(between(d.min, d.max));
        case Distribution::LogUniformValues:
        case Distribution::QLogUniformValues: return std::exp(between(std::log(d.min), std::log(d.max)));
        case Distribution::InvLogUniform: return std::exp(-between(d.min, d.max));
        case Distribution::InvLogUniformValues: return std::exp(-between(std::log(1 / d.max), std::log(1 / d.min)));
        case Distribution::Normal:
        case Distribution::QNormal: return d.mu + d.sigma * n;
        case Distribution::LogNormal:
        case Distribution::QLogNormal: return std::exp(d.mu + d.sigma * n);
    }
    return d.min;
}

double quantised(const Draw& d, double x) {
    return isQuantized(d.distribution) ? std::round(x / d.q) * d.q : x;
}
}  // namespace

std::string toString(Distribution d) {
    return kindOf(d).name;
}

std::optional<Distribution> distributionFromName(const std::string& name) {
    for (const Kind& k : kKinds)
        if (name == k.name) return k.distribution;
    return std::nullopt;
}

std::string distributionNames() {
    std::string out;
    for (const Kind& k : kKinds) out += (out.empty() ? "" : ", ") + std::string(k.name);
    return out;
}

bool takesRange(Distribution d) {
    return kindOf(d).range;
}
bool takesValueRange(Distribution d) {
    return kindOf(d).valueRange;
}
bool isQuantized(Distribution d) {
    return kindOf(d).quantized;
}

double drawValue(const Draw& d, double u, double n) {
    return quantised(d, unquantised(d, u, n));
}

bool drawsWholeNumbers(const Draw& d) {
    return d.distribution == Distribution::IntUniform || (isQuantized(d.distribution) && d.wholeQ);
}

std::optional<std::pair<double, double>> drawnBounds(const Draw& d) {
    if (!takesRange(d.distribution)) return std::nullopt;
    // Each formula is monotonic in u: its ends are the values at u = 0 and u -> 1 (the inverse kinds
    // fall as u grows), rounded to q where it applies.
    const double a = drawValue(d, 0.0, 0.0), b = drawValue(d, std::nextafter(1.0, 0.0), 0.0);
    return std::pair{std::min(a, b), std::max(a, b)};
}

bool drawsFitAParameter(const Draw& d, double low, double high) {
    const double limit = drawsWholeNumbers(d) ? 9007199254740992.0 : HUGE_VAL;  // 2^53
    return std::isfinite(low) && std::isfinite(high) && std::fabs(low) < limit && std::fabs(high) < limit;
}

}  // namespace wb::sweep
