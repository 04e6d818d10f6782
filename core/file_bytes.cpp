#include "file_bytes.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "errors.h"

namespace wb {

namespace fs = std::filesystem;

namespace {

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

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
    if (fs::is_regular_file(status)) {
        const auto size = fs::file_size(path, ec);
        if (!ec) capacity = static_cast<std::size_t>(size) + 1;
    }
    FileBytes bytes;
    bytes.data = std::make_unique_for_overwrite<char[]>(capacity);
    for (;;) {
        const std::size_t n = std::fread(bytes.data.get() + bytes.size, 1, capacity - bytes.size, file.get());
        bytes.size += n;
        if (n == 0) break;
        if (bytes.size == capacity) {  // a pipe, or a file that grew while we read it
            auto bigger = std::make_unique_for_overwrite<char[]>(capacity * 2);
            std::memcpy(bigger.get(), bytes.data.get(), bytes.size);
            bytes.data = std::move(bigger);
            capacity *= 2;
        }
    }
    if (std::ferror(file.get())) throw DataError(path, std::string("read error: ") + std::strerror(errno));
    return bytes;
}

}  // namespace wb
