// The machine's state around a measurement, recorded with it: how many cores other programs kept
// busy meanwhile (the whole machine's CPU time from /proc/stat less this process's and its
// children's, live or ended), the load average before and after, the CPU clock and, on a virtual machine, the time
// its host stole. A busy machine widens every interval; the answer names it. Linux; elsewhere the
// figures it cannot read stay null. No Qt, no CUDA.
#pragma once

#include <chrono>
#include <optional>

#include <nlohmann/json.hpp>

namespace wb {

struct MachineLoad {
    double seconds = 0;                           // the measurement's wall time
    int cores = 0;                                // online
    std::optional<double> loadBefore, loadAfter;  // the 1-minute load average
    std::optional<double> otherCores;             // cores other programs kept busy, on average
    std::optional<double> stealPercent;           // of the machine's CPU time, taken by a hypervisor
    std::optional<double> mhz;                    // the mean CPU clock at the end

    // Other programs kept a quarter of a core or more busy: enough to move epoch times visibly.
    bool busy() const { return otherCores && *otherCores >= 0.25; }
    nlohmann::json toJson() const;
    static MachineLoad fromJson(const nlohmann::json& j);  // throws JsonFieldError (json_fields.h)
};

// The CPU seconds this process has used, with its children's: those that ended (getrusage) and those
// still running, with theirs (/proc): what the measurement itself spent, never "other programs".
double processTreeCpuSeconds();

// Samples the machine when made; finish() returns its state over the time since.
class LoadMeter {
public:
    LoadMeter();
    MachineLoad finish() const;

private:
    struct Sample {
        std::optional<double> busyJiffies, stealJiffies, totalJiffies;
        double ownCpuSeconds = 0;  // this process, its reaped children and its live descendants
    };
    static Sample sample();
    std::chrono::steady_clock::time_point started_;
    Sample before_;
    std::optional<double> loadBefore_;
};

}  // namespace wb
