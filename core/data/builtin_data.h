// The built-in seed-like data set: rows x 61 features, labels from a random teacher network plus
// noise, so accuracy climbs over many epochs and never reaches 100 %. Deterministic in the seed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/data/dataset.h"

namespace wb {

constexpr std::size_t kSeedFeatures = 61;

// Throws ConfigError for zero rows or features. A smaller set is a prefix of a larger one.
Dataset generateSeedLike(std::size_t rows, std::uint64_t seed, std::size_t features = kSeedFeatures);

}  // namespace wb
