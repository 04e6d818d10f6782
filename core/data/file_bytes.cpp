#include "core/data/file_bytes.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>

#include "core/platform/errors.h"
#include "core/platform/machine_memory.h"

namespace wb {

namespace fs = std::filesystem;

namespace {

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

// What is read at most from an input that is not a regular file (a pipe, /dev/zero): it has no size
// to check in advance, so it stops here instead of growing until the kernel kills the process.
std::size_t streamCap() {
    std::uint64_t cap = std::uint64_t{1} << 30;
    if (const char* v = std::getenv("MLPWB_MAX_STREAM_BYTES"); v && *v) {
        try {
            cap = std::stoull(v);
        } catch (const std::exception&) {
            throw ConfigError(std::string("MLPWB_MAX_STREAM_BYTES must be a number of bytes, got '") + v + "'");
        }
    }
    if (const auto available = availableMemory()) cap = std::min(cap, *available / 2);
    return static_cast<std::size_t>(std::max<std::uint64_t>(cap, 1));
}

}  // namespace

FileBytes readFileBytes(const std::string& path) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (!fs::exists(status)) throw DataError(path, "no such file");
    if (fs::is_directory(status)) throw DataError(path, "is a directory, not a data file");

    std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
    if (!file) throw DataError(path, std::string("cannot open: ") + std::strerror(errno));

    // One spare byte so that a regular file is read in one call and the next one sees the end.
    std::size_t capacity = 1 << 16;
    const bool regular = fs::is_regular_file(status);
    if (regular) {
        const auto size = fs::file_size(path, ec);
        if (!ec) {
            checkMemory({{{"the file's text", size}}}, availableMemory(), "reading '" + path + "'");
            capacity = static_cast<std::size_t>(size) + 1;
        }
    }
    const std::size_t cap = regular ? std::numeric_limits<std::size_t>::max() : streamCap();
    FileBytes bytes;
    bytes.data = std::make_unique_for_overwrite<char[]>(capacity);
    for (;;) {
        const std::size_t n = std::fread(bytes.data.get() + bytes.size, 1, capacity - bytes.size, file.get());
        bytes.size += n;
        if (n == 0) break;
        if (bytes.size > cap)
            throw DataError(path, "not a regular file, and more than " + formatBytes(cap) +
                                      " read from it: stopped (MLPWB_MAX_STREAM_BYTES sets the limit)");
        if (bytes.size == capacity) {  // a pipe, or a file that grew while we read it
            capacity = regular ? capacity * 2 : std::min(capacity * 2, cap + 1);  // cap + 1: "more than cap"
            auto bigger = std::make_unique_for_overwrite<char[]>(capacity);
            std::memcpy(bigger.get(), bytes.data.get(), bytes.size);
            bytes.data = std::move(bigger);
        }
    }
    if (std::ferror(file.get())) throw DataError(path, std::string("read error: ") + std::strerror(errno));
    return bytes;
}

}  // namespace wb
