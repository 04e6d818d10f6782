#include "machine_load.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "json_fields.h"

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

std::optional<double> diff(const std::optional<double>& after, const std::optional<double>& before) {
    return after && before ? std::optional<double>(*after - *before) : std::nullopt;
}
}  // namespace

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
    for (const int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
        rusage u{};
        if (getrusage(who, &u) == 0) s.ownCpuSeconds += seconds(u.ru_utime) + seconds(u.ru_stime);
    }
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
