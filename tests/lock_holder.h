// Another process holding a sweep lock, as a running `mlpwb sweep run-trial` or driver would: a
// child that takes the lock, says whether it got it, and waits until the test ends it. Shared by
// the sweep suites that need a lock held by someone else (tst_sweep_folder, tst_local_engine).
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "sweep/folder_lock.h"

class LockHolder {
public:
    // Forks the holder and waits for its word; held() says whether it got the lock.
    explicit LockHolder(const std::string& lockPath) {
        int ready[2];
        if (pipe(ready) != 0) return;
        pid_ = fork();
        if (pid_ == 0) {
            const auto lock = wb::sweep::FolderLock::tryAcquire(lockPath);
            (void)!write(ready[1], lock ? "1" : "0", 1);
            pause();
            _exit(0);
        }
        char answer = 0;
        held_ = pid_ > 0 && read(ready[0], &answer, 1) == 1 && answer == '1';
        close(ready[0]);
        close(ready[1]);
    }
    ~LockHolder() { release(); }
    LockHolder(const LockHolder&) = delete;
    LockHolder& operator=(const LockHolder&) = delete;

    bool held() const { return held_; }
    // Kills the holder (as kill -9 would): the kernel drops its lock.
    void release() {
        if (pid_ <= 0) return;
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        pid_ = -1;
        held_ = false;
    }

private:
    pid_t pid_ = -1;
    bool held_ = false;
};
