#include "sweep/folder_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/platform/errors.h"
#include "core/platform/safe_open.h"
#include "sweep/trial_state.h"

namespace wb::sweep {

namespace {
// The whole file, for writing (F_WRLCK) or for the question "would a writer's lock conflict".
struct flock wholeFile() {
    struct flock range {};
    range.l_type = F_WRLCK;
    range.l_whence = SEEK_SET;
    range.l_start = 0;
    range.l_len = 0;  // to the end, however long the file grows
    return range;
}

std::string holderText(int fd) {
    char text[256] = {};
    const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
    return n > 0 ? std::string(text, static_cast<std::size_t>(n)) : "another process";
}
}  // namespace

std::optional<FolderLock> FolderLock::tryAcquire(const std::string& path, std::string* holder) {
    const int fd = openOwnFile(path, O_RDWR | O_CREAT, "the lock");
    struct flock range = wholeFile();
    if (::fcntl(fd, F_OFD_SETLK, &range) != 0) {
        const int err = errno;
        if (err != EAGAIN && err != EACCES) {
            ::close(fd);
            throw IoError("cannot take the lock " + path + ": " + std::strerror(err));
        }
        if (holder) *holder = holderText(fd);
        ::close(fd);
        return std::nullopt;
    }
    const std::string who = "pid " + std::to_string(::getpid()) + " on " + shortHostName();
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, who.data(), who.size(), 0) < 0) {
        // The lock holds without the note; only the message of a refused second process is poorer.
    }
    return FolderLock(fd);
}

bool FolderLock::isHeld(const std::string& path) {
    // Read-only and without following a link: a reader of someone else's folder needs no write
    // permission, and a link planted there is not a lock of ours (so not held).
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return false;
    struct flock range = wholeFile();
    const bool held = ::fcntl(fd, F_OFD_GETLK, &range) == 0 && range.l_type != F_UNLCK;
    ::close(fd);
    return held;
}

FolderLock::FolderLock(FolderLock&& other) noexcept : fd_(other.fd_) {
    other.fd_ = -1;
}

FolderLock::~FolderLock() {
    if (fd_ >= 0) ::close(fd_);  // closing the last descriptor of the description drops the lock
}

}  // namespace wb::sweep
