#include "core/cpu/cpu_target.h"

#include <algorithm>
#include <cstdlib>

#include "core/cpu/cpu_hwy_targets.h"
// Highway's targets.h after the line above (it reads HWY_DISABLED_TARGETS).
#include <hwy/targets.h>

#include "core/cpu/cpu_tile_kernels.h"
#include "core/platform/errors.h"

namespace wb {

namespace {
constexpr const char* kVariable = "MLPWB_CPU_TARGET";

struct TargetName {
    CpuTarget target;
    const char* name;
    const char* description;
};
constexpr TargetName kTargetNames[] = {
    {CpuTarget::Baseline, "baseline", "baseline (SSE2, 4 lanes, no fused multiply-add)"},
    {CpuTarget::V3, "v3", "v3 (AVX2 + FMA, 8 lanes)"},
    {CpuTarget::V4, "v4", "v4 (AVX-512, 16 lanes)"},
};

const TargetName& entryOf(CpuTarget t) {
    for (const TargetName& e : kTargetNames)
        if (e.target == t) return e;
    return kTargetNames[0];
}

// Compiled kernels this CPU runs, best first: Highway's CPUID and XSAVE checks (an AVX-512 CPU whose
// operating system does not save the ZMM registers runs the AVX2 kernels).
std::vector<const CpuKernels*> runnableKernels() {
    const std::int64_t supported = hwy::SupportedTargets();
    std::vector<const CpuKernels*> out;
    for (const CpuKernels* k : compiledCpuKernels())
        if ((k->hwyTarget & supported) != 0) out.push_back(k);
    return out;
}

std::vector<CpuTarget> targetsOf(const std::vector<const CpuKernels*>& kernels) {
    std::vector<CpuTarget> out;
    for (const CpuKernels* k : kernels)
        if (std::find(out.begin(), out.end(), k->target) == out.end()) out.push_back(k->target);
    return out;
}

// The kernels a choice runs: the best runnable ones of the chosen target.
const CpuKernels& kernelsOf(const CpuTargetChoice& choice) {
    const CpuKernels* k = runnableCpuKernels(choice.chosen);
    if (!k) throw ConfigError("no CPU kernels are runnable here");  // a target without a fallback: a build fault
    return *k;
}

std::string environmentValue() {
    const char* v = std::getenv(kVariable);
    return v ? std::string(v) : std::string();
}
}  // namespace

std::string toString(CpuTarget t) {
    return entryOf(t).name;
}

std::string toString(const std::vector<CpuTarget>& targets) {
    std::string out;
    for (CpuTarget t : targets) out += (out.empty() ? "" : ", ") + toString(t);
    return out.empty() ? "none" : out;
}

std::string describe(CpuTarget t) {
    return entryOf(t).description;
}

CpuTarget cpuTargetFromString(const std::string& s) {
    for (const TargetName& e : kTargetNames)
        if (s == e.name) return e.target;
    throw ConfigError("unknown CPU target '" + s + "' (expected baseline, v3 or v4)");
}

std::vector<const CpuKernels*> allRunnableCpuKernels() {
    std::vector<const CpuKernels*> out;  // the best of each target (a native build may hold AVX3 and AVX3_DL)
    for (const CpuKernels* k : runnableKernels())
        if (runnableCpuKernels(k->target) == k) out.push_back(k);
    return out;
}

const CpuKernels* runnableCpuKernels(CpuTarget t) {
    for (const CpuKernels* k : runnableKernels())
        if (k->target == t) return k;
    return nullptr;
}

CpuTargetChoice chooseCpuTarget(const std::string& requested) {
    CpuTargetChoice choice;
    choice.compiled = targetsOf(compiledCpuKernels());
    choice.runnable = targetsOf(runnableKernels());
    if (choice.runnable.empty()) throw ConfigError("this binary holds no CPU kernels this processor runs");
    choice.chosen = choice.runnable.front();
    if (requested.empty()) return choice;
    const CpuTarget wanted = cpuTargetFromString(requested);
    if (std::find(choice.runnable.begin(), choice.runnable.end(), wanted) == choice.runnable.end())
        throw ConfigError(std::string(kVariable) + "=" + requested + ": " +
                          (std::find(choice.compiled.begin(), choice.compiled.end(), wanted) == choice.compiled.end()
                               ? "this binary holds no kernels for it (compiled: " + toString(choice.compiled) + ")"
                               : "this processor cannot run it (runnable: " + toString(choice.runnable) + ")"));
    choice.chosen = wanted;
    choice.forcedBy = std::string(kVariable) + "=" + requested;
    return choice;
}

CpuTargetChoice cpuTargetChoice() {
    static const CpuTargetChoice choice = chooseCpuTarget(environmentValue());
    return choice;
}

const CpuKernels& chosenCpuKernels() {
    static const CpuKernels& kernels = kernelsOf(cpuTargetChoice());
    return kernels;
}

}  // namespace wb
