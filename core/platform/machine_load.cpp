#include "core/platform/machine_load.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/platform/json_fields.h"

namespace wb {

namespace {
std::optional<double> loadAverage() {
    std::ifstream in("/proc/loadavg");
    double one = 0;
    if (in >> one) return one;
    return std::nullopt;
}

std::optional<double> meanMhz() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    double sum = 0;
    int n = 0;
    while (std::getline(in, line))
        if (line.rfind("cpu MHz", 0) == 0) {
            const auto colon = line.find(':');
            if (colon == std::string::npos) continue;
            try {
                sum += std::stod(line.substr(colon + 1));
                ++n;
            } catch (const std::exception&) {
            }
        }
    return n > 0 ? std::optional<double>(sum / n) : std::nullopt;
}

double seconds(const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
}

// The CPU seconds of this process's live descendants (from /proc/PID/stat: user and system time,
// with that of their own reaped children), which getrusage counts only once they are reaped: an
// interpreter kept between runs (keep_warm.h) works for us for minutes without ending.
double liveDescendantsCpuSeconds() {
    struct Proc {
        long parent = 0;
        double ticks = 0;
    };
    std::map<long, Proc> procs;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream in(entry.path() / "stat");
        std::string line;
        if (!std::getline(in, line)) continue;  // it ended meanwhile
        const auto close = line.rfind(')');     // the command's name may hold spaces and parentheses
        if (close == std::string::npos) continue;
        std::istringstream fields(line.substr(close + 1));
        // state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
        std::string state;
        long parent = 0;
        double skip = 0, utime = 0, stime = 0, cutime = 0, cstime = 0;
        fields >> state >> parent;
        for (int i = 0; i < 9; ++i) fields >> skip;
        if (fields >> utime >> stime >> cutime >> cstime)
            procs[std::stol(name)] = {parent, utime + stime + cutime + cstime};
    }
    const long self = static_cast<long>(::getpid());
    const auto descends = [&](long pid) {
        for (int depth = 0; depth < 64 && pid > 1; ++depth) {
            const auto it = procs.find(pid);
            if (it == procs.end()) return false;
            if (it->second.parent == self) return true;
            pid = it->second.parent;
        }
        return false;
    };
    double ticks = 0;
    for (const auto& [pid, proc] : procs)
        if (descends(pid)) ticks += proc.ticks;
    const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
    return tick > 0 ? ticks / tick : 0;
}

std::optional<double> diff(const std::optional<double>& after, const std::optional<double>& before) {
    return after && before ? std::optional<double>(*after - *before) : std::nullopt;
}
}  // namespace

double processTreeCpuSeconds() {
    double total = liveDescendantsCpuSeconds();
    for (const int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
        rusage u{};
        if (getrusage(who, &u) == 0) total += seconds(u.ru_utime) + seconds(u.ru_stime);
    }
    return total;
}

LoadMeter::Sample LoadMeter::sample() {
    Sample s;
    std::ifstream in("/proc/stat");
    std::string cpu;
    // cpu  user nice system idle iowait irq softirq steal (in clock ticks)
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq && cpu == "cpu") {
        if (!(in >> steal)) steal = 0;
        s.busyJiffies = user + nice + system + irq + softirq;
        s.stealJiffies = steal;
        s.totalJiffies = user + nice + system + idle + iowait + irq + softirq + steal;
    }
    s.ownCpuSeconds = processTreeCpuSeconds();
    return s;
}

LoadMeter::LoadMeter() : started_(std::chrono::steady_clock::now()), before_(sample()), loadBefore_(loadAverage()) {}

MachineLoad LoadMeter::finish() const {
    const Sample after = sample();
    MachineLoad m;
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    m.cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    m.loadBefore = loadBefore_;
    m.loadAfter = loadAverage();
    m.mhz = meanMhz();
    const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
    const auto busy = diff(after.busyJiffies, before_.busyJiffies);
    if (busy && tick > 0 && m.seconds > 0)
        m.otherCores = std::max(0.0, (*busy / tick - (after.ownCpuSeconds - before_.ownCpuSeconds)) / m.seconds);
    const auto steal = diff(after.stealJiffies, before_.stealJiffies);
    const auto total = diff(after.totalJiffies, before_.totalJiffies);
    if (steal && total && *total > 0) m.stealPercent = 100 * *steal / *total;
    return m;
}

nlohmann::json MachineLoad::toJson() const {
    const auto orNull = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    return {{"seconds", seconds},
            {"cores", cores},
            {"load_before", orNull(loadBefore)},
            {"load_after", orNull(loadAfter)},
            {"other_cores", orNull(otherCores)},
            {"steal_percent", orNull(stealPercent)},
            {"mhz", orNull(mhz)}};
}

MachineLoad MachineLoad::fromJson(const nlohmann::json& j) {
    MachineLoad m;
    m.seconds = fieldOr(j, "seconds", 0.0);
    m.cores = fieldOr(j, "cores", 0);
    m.loadBefore = optionalField<double>(j, "load_before");
    m.loadAfter = optionalField<double>(j, "load_after");
    m.otherCores = optionalField<double>(j, "other_cores");
    m.stealPercent = optionalField<double>(j, "steal_percent");
    m.mhz = optionalField<double>(j, "mhz");
    return m;
}

}  // namespace wb
