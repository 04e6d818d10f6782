// An exclusive lock on a file (flock), held for the life of the object: one driver per sweep
// folder, one process per trial. The kernel drops it when the process dies, kill -9 included, so a
// lock never outlives its holder.
#pragma once

#include <optional>
#include <string>

namespace wb::sweep {

class FolderLock {
public:
    // Takes the lock on `path` (created if missing) without waiting. nullopt when another process
    // holds it; `holder` then gets what that process wrote ("pid 1234 on node7").
    static std::optional<FolderLock> tryAcquire(const std::string& path, std::string* holder = nullptr);
    FolderLock(FolderLock&& other) noexcept;
    FolderLock& operator=(FolderLock&&) = delete;
    FolderLock(const FolderLock&) = delete;
    ~FolderLock();

private:
    explicit FolderLock(int fd) : fd_(fd) {}
    int fd_ = -1;
};

}  // namespace wb::sweep
