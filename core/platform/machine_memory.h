// The memory this machine can give a run, and the check that refuses what would not fit: a run
// that cannot fit is refused with both figures instead of being killed by the kernel half-way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/platform/errors.h"

namespace wb {

// A run that would need more memory than the machine has available. what() is the whole message.
class MemoryError : public Error {
public:
    MemoryError(std::uint64_t neededBytes, std::uint64_t availableBytes, const std::string& what);
    std::uint64_t neededBytes() const { return needed_; }
    std::uint64_t availableBytes() const { return available_; }

private:
    std::uint64_t needed_;
    std::uint64_t available_;
};

struct MemoryItem {
    std::string what;  // "prepared copies (train + validation)"
    std::uint64_t bytes = 0;
};

struct MemoryEstimate {
    std::vector<MemoryItem> items;
    std::uint64_t total() const;
    void add(std::string what, std::uint64_t bytes) { items.push_back({std::move(what), bytes}); }
};

// MemAvailable from /proc/meminfo, or the cgroup's room (memory.max - memory.current) when lower;
// nullopt when neither can be read (the check is then skipped). $MLPWB_AVAILABLE_MEMORY (bytes)
// overrides both, so tests and users can ask "would this fit in N bytes?".
std::optional<std::uint64_t> availableMemory();

// Throws MemoryError ("needs 41.2 GiB, 22.8 GiB available: ...", the largest items named) when
// `need` exceeds `available`; nothing when `available` is unknown.
void checkMemory(const MemoryEstimate& need, std::optional<std::uint64_t> available, const std::string& context);

// "41.2 GiB", "512.0 MiB", "900 B".
std::string formatBytes(std::uint64_t bytes);

}  // namespace wb
