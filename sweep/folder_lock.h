// An exclusive lock on a file, held for the life of the object: one driver per sweep folder, one
// process per trial. It is an open-file-description lock (fcntl F_OFD_SETLK): the kernel drops it
// when the process dies, kill -9 included, so a lock never outlives its holder; whether a lock is
// held can be asked without taking it (isHeld); and NFS carries these locks between the nodes of a
// cluster that share the folder.
#pragma once

#include <optional>
#include <string>

namespace wb::sweep {

class FolderLock {
public:
    // Takes the lock on `path` (created if missing) without waiting. nullopt when another process
    // holds it; `holder` then gets what that process wrote ("pid 1234 on node7"). A symlink, a
    // second hard link or anything but a plain file at `path` is refused (IoError): a lock file of
    // a folder from elsewhere never truncates a file outside it.
    static std::optional<FolderLock> tryAcquire(const std::string& path, std::string* holder = nullptr);
    // True while some process holds the lock on `path`; false when it is free or there is no such
    // file. Takes nothing, so asking never makes the holder's own tryAcquire fail.
    static bool isHeld(const std::string& path);
    FolderLock(FolderLock&& other) noexcept;
    FolderLock& operator=(FolderLock&&) = delete;
    FolderLock(const FolderLock&) = delete;
    ~FolderLock();

private:
    explicit FolderLock(int fd) : fd_(fd) {}
    int fd_ = -1;
};

}  // namespace wb::sweep
