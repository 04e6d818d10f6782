// Deterministic random numbers: the same seed gives the same numbers on every platform and
// standard library (std:: distributions do not promise that, so we map the bits ourselves).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace wb {

class Rng {
public:
    explicit Rng(std::uint64_t seed) : engine_(seed) {}
    // Uniform in [0, 1) with 24 random bits (exact in float).
    float uniform() { return static_cast<float>(engine_() >> 40) * (1.0f / 16777216.0f); }
    float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }
    double uniformDouble() { return static_cast<double>(engine_() >> 11) * (1.0 / 9007199254740992.0); }
    // Standard normal by Box-Muller.
    double normal();
    // Uniform integer in [0, n).
    std::uint64_t below(std::uint64_t n) {
        return static_cast<std::uint64_t>(uniformDouble() * static_cast<double>(n));
    }
    std::uint64_t bits() { return engine_(); }

private:
    std::mt19937_64 engine_;
};

// A random permutation of 0..n-1 (Fisher-Yates).
std::vector<std::uint32_t> permutation(std::uint32_t n, Rng& rng);

}  // namespace wb
