// Deterministic random numbers built only from the engine's bits, so the same seed gives the same
// sequence everywhere (see random.h for why std:: distributions are avoided).
#include "core/platform/random.h"

#include <cmath>
#include <numbers>
#include <utility>

namespace wb {

double Rng::normal() {
    // Box-Muller: u1 must be in (0, 1] so log(u1) is finite; uniformDouble() is in [0, 1).
    const double u1 = 1.0 - uniformDouble();
    const double u2 = uniformDouble();
    // The second value of the pair (sin) is dropped: Rng has no state to cache it, and one
    // normal per two uniforms keeps the sequence simple to reproduce.
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

std::vector<std::uint32_t> permutation(std::uint32_t n, Rng& rng) {
    std::vector<std::uint32_t> order(n);  // (n)
    for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
    // Fisher-Yates from the back: position i takes a uniform pick among positions 0..i.
    for (std::uint32_t i = n; i > 1; --i) {
        const auto j = static_cast<std::uint32_t>(rng.below(i));
        std::swap(order[i - 1], order[j]);
    }
    return order;
}

}  // namespace wb
