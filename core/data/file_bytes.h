// Private to the loaders: reads a whole input file into memory with the checks every loader makes.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace wb {

struct FileBytes {
    std::unique_ptr<char[]> data;  // not zero-filled: a 50 MB CSV should not be written twice
    std::size_t size = 0;
    std::string_view view() const { return {data.get(), size}; }
};

// Throws DataError when `path` is missing, a directory, or cannot be read, or when it is not a regular
// file and holds more than $MLPWB_MAX_STREAM_BYTES (1 GiB; at most half the memory available);
// MemoryError when a regular file is larger than the memory available.
FileBytes readFileBytes(const std::string& path);

}  // namespace wb
