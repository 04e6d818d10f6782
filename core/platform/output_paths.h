// Outputs never destroy inputs: before any work, every output a command will write is checked
// against every input it reads and against the others, so that a typo cannot overwrite the data.
#pragma once

#include <string>
#include <vector>

namespace wb {

// A path as the user gave it, with the flag that gave it ("--out", "run.json").
struct NamedPath {
    std::string flag;
    std::string path;
};

// Throws IoError naming the flag and the path when an output (empty paths are skipped) is the same
// file as an input or another output (device and inode, through symlinks), is a directory, device
// or FIFO, or its folder is missing or not writable.
void checkOutputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

}  // namespace wb
