// The one way every output file is written (RunRecords, CSV, weights, ablations, scripts, charts):
// to a unique temporary name in the same folder, fsynced, then renamed over the target, so that a
// reader sees the old file or the new one and a full disk or a kill never leaves half a file under
// the final name.
#pragma once

#include <string>
#include <string_view>

namespace wb {

// What a symbolic link at `path` means. A file the user named (a command line's --out, a dialog)
// may be a link the user made: its target is replaced, the link stays. A file inside a folder that
// may have come from elsewhere (a sweep folder) must never lead out of it: the link is refused.
enum class Symlink { Follow, Refuse };

// Writes `bytes` to `path` atomically. An existing directory, device or FIFO is refused, and so is a
// symlink where `symlink` says so (IoError naming it). A short write, a failed fsync or rename throws
// IoError naming `what` and the path, and removes the temporary file. Temporary files left by a
// killed writer (their process is gone) are removed first.
void writeFileAtomically(const std::string& path, std::string_view bytes, const std::string& what,
                         Symlink symlink = Symlink::Follow);

// Where `path` is written: the target of a symlink, else `path` itself.
std::string writeTarget(const std::string& path);

}  // namespace wb
