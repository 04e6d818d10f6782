#include "core/platform/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <csignal>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/platform/errors.h"
#include "core/platform/safe_open.h"

namespace wb {

namespace {
namespace fs = std::filesystem;

// ".run.json.<pid>.XXXXXX.tmp": hidden, beside the target, naming the writer so that a stale one can
// be told from one being written by a running process.
std::string tempPattern(const fs::path& target) {
    return (target.parent_path() / ("." + target.filename().string() + "." + std::to_string(::getpid()) + ".XXXXXX"))
        .string();
}

// Removes temporary files of `target` whose writer no longer runs (a kill -9 mid-write).
void removeStaleTemps(const fs::path& target) {
    const std::string prefix = "." + target.filename().string() + ".";
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(target.parent_path().empty() ? "." : target.parent_path(), ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        const std::string rest = name.substr(prefix.size());  // "<pid>.XXXXXX"
        const auto dot = rest.find('.');
        if (dot == std::string::npos || rest.size() - dot != 7) continue;
        pid_t pid = 0;
        try {
            pid = static_cast<pid_t>(std::stol(rest.substr(0, dot)));
        } catch (const std::exception&) {
            continue;
        }
        if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) fs::remove(entry.path(), ec);
    }
}

void writeAll(int fd, std::string_view bytes, const std::string& describe) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw IoError("cannot write " + describe + ": " + std::strerror(n < 0 ? errno : ENOSPC));
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
}

mode_t permissionsForNewFiles() {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return static_cast<mode_t>(0666 & ~mask);
}
}  // namespace

std::string writeTarget(const std::string& path) {
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(path, ec))) {
        const fs::path target = fs::weakly_canonical(path, ec);
        if (!ec) return target.string();
    }
    return path;
}

void writeFileAtomically(const std::string& path, std::string_view bytes, const std::string& what, Symlink symlink) {
    // Refused: rename(2) then replaces whatever name is there and never writes through a link.
    if (symlink == Symlink::Refuse) refuseForeignFile(path, what);
    const fs::path target = symlink == Symlink::Refuse ? fs::path(path) : fs::path(writeTarget(path));
    const std::string describe = what + " '" + path + "'";
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw IoError("cannot write " + describe + ": it exists and is not a regular file");
    removeStaleTemps(target);
    std::string tmp = tempPattern(target);
    const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
    if (fd < 0)
        throw IoError("cannot write " + describe + ": " + std::strerror(errno) +
                      " (is its folder there and writable?)");
    try {
        writeAll(fd, bytes, describe);
        if (::fchmod(fd, permissionsForNewFiles()) != 0 || ::fsync(fd) != 0)
            throw IoError("cannot write " + describe + ": " + std::strerror(errno));
    } catch (...) {
        ::close(fd);
        ::unlink(tmp.c_str());
        throw;
    }
    if (::close(fd) != 0) {  // NFS reports a failed write-back only here
        const int err = errno;
        ::unlink(tmp.c_str());
        throw IoError("cannot write " + describe + ": " + std::strerror(err));
    }
    if (::rename(tmp.c_str(), target.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw IoError("cannot replace " + describe + ": " + std::strerror(err));
    }
}

}  // namespace wb
