#include "core/platform/machine_memory.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace wb {

namespace {

std::optional<std::uint64_t> readNumberFile(const std::string& path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") return std::nullopt;
    try {
        return std::stoull(text);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<std::uint64_t> memAvailable() {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    std::uint64_t value = 0;
    while (in >> key >> value) {
        std::getline(in, unit);
        if (key == "MemAvailable:") return value * 1024;
    }
    return std::nullopt;
}

// The room left under this process's cgroup v2 limit ("0::/path" in /proc/self/cgroup).
std::optional<std::uint64_t> cgroupRoom() {
    std::ifstream in("/proc/self/cgroup");
    std::string dir = "/sys/fs/cgroup";
    for (std::string line; std::getline(in, line);)
        if (line.rfind("0::", 0) == 0) dir += line.substr(3);
    for (const std::string& d : {dir, std::string("/sys/fs/cgroup")}) {
        const auto max = readNumberFile(d + "/memory.max");
        if (!max) continue;
        const std::uint64_t used = readNumberFile(d + "/memory.current").value_or(0);
        return *max > used ? *max - used : 0;
    }
    return std::nullopt;
}

}  // namespace

MemoryError::MemoryError(std::uint64_t neededBytes, std::uint64_t availableBytes, const std::string& what)
    : Error(what), needed_(neededBytes), available_(availableBytes) {}

std::uint64_t MemoryEstimate::total() const {
    std::uint64_t sum = 0;
    for (const auto& item : items) sum += item.bytes;
    return sum;
}

std::optional<std::uint64_t> availableMemory() {
    if (const char* forced = std::getenv("MLPWB_AVAILABLE_MEMORY"); forced && *forced) {
        try {
            return std::stoull(forced);
        } catch (const std::exception&) {
            throw ConfigError(std::string("MLPWB_AVAILABLE_MEMORY must be a number of bytes, got '") + forced + "'");
        }
    }
    const auto mem = memAvailable();
    const auto room = cgroupRoom();
    if (mem && room) return std::min(*mem, *room);
    return mem ? mem : room;
}

void checkMemory(const MemoryEstimate& need, std::optional<std::uint64_t> available, const std::string& context) {
    const std::uint64_t total = need.total();
    if (!available || total <= *available) return;
    std::vector<MemoryItem> items = need.items;
    std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
    std::string largest;
    for (std::size_t i = 0; i < items.size() && i < 3; ++i)
        largest += (i ? ", " : "") + items[i].what + " " + formatBytes(items[i].bytes);
    throw MemoryError(
        total, *available,
        context + " needs " + formatBytes(total) + ", " + formatBytes(*available) + " available (" + largest + ")");
}

std::string formatBytes(std::uint64_t bytes) {
    static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) return std::to_string(bytes) + " B";
    double value = static_cast<double>(bytes) / 1024.0;
    std::size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
    return text;
}

}  // namespace wb
