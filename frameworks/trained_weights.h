// The weights a framework's loop trained, read back from its safetensors file into the layout of
// the weights it started from. core's loadSafetensors reads only a one-output model; a multiclass
// loop hands back K outputs, and the layout it must have is known here: the initial weights'.
#pragma once

#include <string>

#include "model.h"

namespace wb {

// `path` (safetensors written by a generated loop: F32 layers.{i}.weight (out, in) and .bias (out))
// into a copy of `like`. Throws DataError naming the file for a tensor that is missing, not F32, of
// another shape, or outside the file.
MlpParams readTrainedWeights(const std::string& path, const MlpParams& like);

}  // namespace wb
