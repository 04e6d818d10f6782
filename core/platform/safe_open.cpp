#include "core/platform/safe_open.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/platform/errors.h"

namespace wb {

namespace {
// What a file found where a plain file of ours belongs is, in words; empty when it is one. A second
// hard link matters only to a write in place: rename(2) replaces the name and leaves the other be.
std::string foreignKind(const struct stat& st, bool writesInPlace) {
    if (S_ISLNK(st.st_mode)) return "a symbolic link (links are not followed in this folder)";
    if (S_ISDIR(st.st_mode)) return "a folder";
    if (!S_ISREG(st.st_mode)) return "not a regular file (a FIFO, socket or device)";
    if (writesInPlace && st.st_nlink > 1)
        return "a hard link to a file elsewhere (" + std::to_string(st.st_nlink) + " links)";
    return "";
}

[[noreturn]] void refuse(const std::string& path, const std::string& what, const std::string& kind) {
    throw IoError("refusing to write " + what + " '" + path + "': it is " + kind);
}
}  // namespace

int openOwnFile(const std::string& path, int flags, const std::string& what) {
    // O_TRUNC waits for the checks: open(2) would empty a second hard link's file before fstat.
    const int fd = ::open(path.c_str(), (flags & ~O_TRUNC) | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
    if (fd < 0) {
        const int err = errno;
        if (err == ELOOP) refuse(path, what, "a symbolic link (links are not followed in this folder)");
        throw IoError("cannot open " + what + " '" + path + "': " + std::strerror(err));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        throw IoError("cannot open " + what + " '" + path + "': " + std::strerror(err));
    }
    if (const std::string kind = foreignKind(st, true); !kind.empty()) {
        ::close(fd);
        refuse(path, what, kind);
    }
    // O_NONBLOCK only kept open(2) from hanging on a FIFO; a regular file's writes never block anyway.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if ((flags & O_TRUNC) != 0 && ::ftruncate(fd, 0) != 0) {
        const int err = errno;
        ::close(fd);
        throw IoError("cannot empty " + what + " '" + path + "': " + std::strerror(err));
    }
    return fd;
}

void refuseForeignFile(const std::string& path, const std::string& what) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return;  // not there: it is created
    if (const std::string kind = foreignKind(st, false); !kind.empty()) refuse(path, what, kind);
}

void refuseForeignFolder(const std::string& path, const std::string& what) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0)
        throw IoError("cannot use " + what + " '" + path + "': " + std::strerror(errno));
    if (S_ISLNK(st.st_mode))
        throw IoError("refusing to use " + what + " '" + path +
                      "': it is a symbolic link (links are not followed in this folder)");
    if (!S_ISDIR(st.st_mode)) throw IoError("refusing to use " + what + " '" + path + "': it is not a folder");
}

}  // namespace wb
