#include "core/platform/output_paths.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "core/platform/errors.h"

namespace wb {

namespace {
namespace fs = std::filesystem;

std::string named(const NamedPath& p) {
    return p.flag + " " + p.path;
}

// The file's identity through symlinks; false when it does not exist (yet).
bool identity(const std::string& path, struct stat& st) {
    return ::stat(path.c_str(), &st) == 0;
}

bool sameFile(const struct stat& a, const struct stat& b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// The same path as text, for outputs that do not exist yet (two outputs named alike).
bool samePath(const std::string& a, const std::string& b) {
    std::error_code ec;
    return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

void checkWritable(const NamedPath& out) {
    struct stat st {};
    if (identity(out.path, st) && !S_ISREG(st.st_mode))
        throw IoError(named(out) + ": " +
                      (S_ISDIR(st.st_mode) ? "is a folder" : "is not a regular file (a device or a pipe)") +
                      "; give a file name");
    std::error_code ec;
    fs::path folder = fs::weakly_canonical(out.path, ec).parent_path();
    if (folder.empty()) folder = ".";
    if (!fs::is_directory(folder, ec))
        throw IoError(named(out) + ": the folder " + folder.string() + " does not exist");
    if (::access(folder.c_str(), W_OK) != 0)
        throw IoError(named(out) + ": the folder " + folder.string() + " is not writable");
}
}  // namespace

void checkOutputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const NamedPath& out = outputs[i];
        if (out.path.empty()) continue;
        checkWritable(out);
        struct stat outStat {};
        const bool exists = identity(out.path, outStat);
        for (const NamedPath& in : inputs) {
            struct stat inStat {};
            if (!in.path.empty() && exists && identity(in.path, inStat) && sameFile(outStat, inStat))
                throw IoError(named(out) + ": is the same file as " + named(in) + ", which it would overwrite");
        }
        for (std::size_t j = 0; j < i; ++j) {
            const NamedPath& other = outputs[j];
            struct stat otherStat {};
            if (other.path.empty()) continue;
            const bool same = exists && identity(other.path, otherStat) ? sameFile(outStat, otherStat)
                                                                        : samePath(out.path, other.path);
            if (same)
                throw IoError(named(out) + ": is the same file as " + named(other) + "; give each output its own");
        }
    }
}

}  // namespace wb
