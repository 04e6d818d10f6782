// The distributions a sweep file's parameter may be drawn from, with W&B's names and meanings, so a
// file written for a W&B sweep draws the same numbers here:
//
//   uniform                 min + U (max - min)                     int_uniform   a whole number in [min, max]
//   log_uniform             exp(U(min, max)): min, max are natural-log exponents
//   log_uniform_values      a value in [min, max] whose log is uniform (min > 0)
//   inv_log_uniform         X with log(1/X) uniform in [min, max]
//   inv_log_uniform_values  X in [min, max] with log(1/X) uniform in [log(1/max), log(1/min)]
//   normal                  mu + sigma N                            log_normal    exp(mu + sigma N)
//   q_uniform, q_log_uniform, q_log_uniform_values, q_normal, q_log_normal: round(X / q) q of the
//   same X; q defaults to 1, and a whole q draws whole numbers.
// (constant and categorical are the `value:` and `values:` forms of sweep_spec.h.)
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace wb::sweep {

enum class Distribution {
    Uniform,
    IntUniform,
    QUniform,
    LogUniform,
    LogUniformValues,
    QLogUniform,
    QLogUniformValues,
    InvLogUniform,
    InvLogUniformValues,
    Normal,
    QNormal,
    LogNormal,
    QLogNormal,
};

std::string toString(Distribution d);
std::optional<Distribution> distributionFromName(const std::string& name);
std::string distributionNames();  // "uniform, int_uniform, ..." for a refusal

bool takesRange(Distribution d);       // min and max (else mu and sigma)
bool takesValueRange(Distribution d);  // min and max are values of the parameter, so min > 0 (the _values kinds)
bool isQuantized(Distribution d);      // takes q

// One parameter's distribution and its arguments, as the sweep file gave them.
struct Draw {
    Distribution distribution = Distribution::Uniform;
    double min = 0, max = 0;   // the range kinds
    double mu = 0, sigma = 1;  // the normal kinds
    double q = 1;              // the q_ kinds
    bool wholeQ = true;        // q was written as a whole number (W&B then draws whole numbers)
};

// The value of one draw, given u uniform in [0, 1) and n standard normal.
double drawValue(const Draw& d, double u, double n);
// Whether its values are whole numbers (int_uniform, or a q_ kind with a whole q).
bool drawsWholeNumbers(const Draw& d);
// The least and the greatest value it can draw; nullopt for the normal kinds (no bounds).
std::optional<std::pair<double, double>> drawnBounds(const Draw& d);
// Whether values from `low` to `high` can be given to a parameter: finite, and within ±2^53 where d
// draws whole numbers (a whole number is written as an integer).
bool drawsFitAParameter(const Draw& d, double low, double high);

}  // namespace wb::sweep
