// Which instruction set the CPU kernels run with. The hot code (cpu_tile_kernels.h) is compiled for
// several x86-64 levels in one binary; the best one this processor runs is chosen once, when first
// asked for, and MLPWB_CPU_TARGET=baseline|v3|v4 forces a lower one (for tests and comparisons).
#pragma once

#include <string>
#include <vector>

namespace wb {

struct CpuKernels;

// The x86-64 micro-architecture levels: baseline (SSE2, 4 lanes, no fused multiply-add), v3 (AVX2 +
// FMA, 8 lanes), v4 (AVX-512, 16 lanes). Other processors have one target, "baseline".
enum class CpuTarget { Baseline, V3, V4 };

std::string toString(CpuTarget t);                            // "baseline", "v3", "v4": what MLPWB_CPU_TARGET takes
std::string toString(const std::vector<CpuTarget>& targets);  // "v4, v3, baseline"
std::string describe(CpuTarget t);                            // "v3 (AVX2 + FMA)"
CpuTarget cpuTargetFromString(const std::string& s);          // throws ConfigError

// What was chosen and why, for `mlpwb info`, a run's environment and the report.
struct CpuTargetChoice {
    CpuTarget chosen = CpuTarget::Baseline;
    std::vector<CpuTarget> runnable;  // compiled into this binary and run by this CPU, best first
    std::vector<CpuTarget> compiled;  // compiled into this binary, best first
    std::string forcedBy;             // "MLPWB_CPU_TARGET=v3", or empty: the best runnable one
};

// The kernels the CPU backend uses: the best runnable target, or the one MLPWB_CPU_TARGET names.
// Throws ConfigError when that variable names an unknown target or one this CPU or binary cannot
// run (the message says which can run). Read once; later changes of the variable are not seen.
const CpuKernels& chosenCpuKernels();
CpuTargetChoice cpuTargetChoice();  // throws as chosenCpuKernels()

// The kernels of one target, or nullptr when this binary lacks it or this CPU cannot run it.
const CpuKernels* runnableCpuKernels(CpuTarget t);
// The kernels of every target this binary holds and this CPU runs, best first (for tests that run
// each, and for comparisons).
std::vector<const CpuKernels*> allRunnableCpuKernels();

// The choice for a given MLPWB_CPU_TARGET value (empty: none); chosenCpuKernels() with the
// environment's. Throws as chosenCpuKernels().
CpuTargetChoice chooseCpuTarget(const std::string& requested);

}  // namespace wb
