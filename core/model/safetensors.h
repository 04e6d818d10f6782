// Weights as safetensors, named and shaped like a PyTorch stack of nn.Linear layers:
// "layers.{i}.weight" [out, in] and "layers.{i}.bias" [out], float32.
#pragma once

#include <string>
#include <string_view>

#include "core/model/model.h"

namespace wb {

void saveSafetensors(const std::string& path, const MlpParams& params);  // throws IoError
// Reads the layers in index order; every tensor must be float32 and the shapes must chain.
// Tensors with other names are ignored (the error for a missing layer lists the names found).
MlpParams loadSafetensors(const std::string& path);  // throws DataError
// The same for the bytes of a file already in memory; `name` stands for the file in errors.
MlpParams parseSafetensors(std::string_view bytes, const std::string& name);
// Checks that `params` fits `spec` for `inputs` features; throws ConfigError naming the mismatch.
void checkParamsMatch(const MlpParams& params, const ModelSpec& spec, std::size_t inputs);

}  // namespace wb
