// The one way every output file is written (RunRecords, CSV, weights, ablations, scripts, charts):
// to a unique temporary name in the same folder, fsynced, then renamed over the target, so that a
// reader sees the old file or the new one and a full disk or a kill never leaves half a file under
// the final name.
#pragma once

#include <string>
#include <string_view>

namespace wb {

// Writes `bytes` to `path` atomically. A symlink is followed (its target is replaced, the link
// stays); an existing directory, device or FIFO is refused. A short write, a failed fsync or rename
// throws IoError naming `what` and the path, and removes the temporary file. Temporary files left
// by a killed writer (their process is gone) are removed first.
void writeFileAtomically(const std::string& path, std::string_view bytes, const std::string& what);

// Where `path` is written: the target of a symlink, else `path` itself.
std::string writeTarget(const std::string& path);

}  // namespace wb
