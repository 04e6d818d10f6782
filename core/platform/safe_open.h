// Opening a file to write inside a folder that may have come from elsewhere (a sweep folder on a
// shared filesystem, one unpacked from someone's archive): the file's own name must never lead out
// of the folder. A symbolic link there is refused, never followed, and so is anything that is not a
// plain file of its own (a FIFO, a device, a second hard link to a file elsewhere), each with an
// IoError that names the file and what it is.
#pragma once

#include <string>

namespace wb {

// open(2) of `path` with `flags` plus O_NOFOLLOW, O_CLOEXEC and O_NOCTTY (mode 0644 when created),
// then checked with fstat: a regular file with one link (it is written in place: appended to,
// truncated). `what` names the file in the error
// ("trial log"). Returns the descriptor; the caller closes it.
int openOwnFile(const std::string& path, int flags, const std::string& what);

// Throws the same IoError when `path` exists and is a symbolic link, or is not a regular file (a
// second hard link is fine here).
// Nothing is opened: for a file about to be replaced by rename(2), which never writes through a link.
void refuseForeignFile(const std::string& path, const std::string& what);

// Throws IoError unless `path` is a folder itself (not a symbolic link to one, not a file).
void refuseForeignFolder(const std::string& path, const std::string& what);

}  // namespace wb
