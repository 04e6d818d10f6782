#include "folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "errors.h"
#include "trial_state.h"

namespace wb::sweep {

std::optional<FolderLock> FolderLock::tryAcquire(const std::string& path, std::string* holder) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw IoError("cannot open the lock " + path + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (holder) {
            char text[256] = {};
            const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
            *holder = n > 0 ? std::string(text, static_cast<std::size_t>(n)) : "another process";
        }
        ::close(fd);
        return std::nullopt;
    }
    const std::string who = "pid " + std::to_string(::getpid()) + " on " + shortHostName();
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, who.data(), who.size(), 0) < 0) {
        // The lock holds without the note; only the message of a refused second process is poorer.
    }
    return FolderLock(fd);
}

FolderLock::FolderLock(FolderLock&& other) noexcept : fd_(other.fd_) {
    other.fd_ = -1;
}

FolderLock::~FolderLock() {
    if (fd_ >= 0) ::close(fd_);  // closing the descriptor drops the flock
}

}  // namespace wb::sweep
