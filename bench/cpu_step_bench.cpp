// The CPU backend's training step alone (CpuMlp: forward, the loss gradient, backward and the
// gradient reduction), one thread, timed in thread CPU time: the minimum over repeats of an epoch's
// worth of steps is what the kernels cost, even on a machine whose other cores are busy (wall-clock
// epochs there measure the neighbours too). For comparing two builds of the kernels side by side;
// the end-to-end figures against the frameworks come from bench/cpu_bench.py on a quiet machine.
//
//   build/core/cpu_step_bench [--workloads seed,gelu,wide,seed-gelu] [--rows 100000] [--repeats 15]
//
// It first prints the core's peak: fused multiply-adds per second of fp32 lanes, from 12 independent
// chains of the widest vector the build targets. A workload's multiply-adds divided by the peak is
// the least time any fp32 implementation on this core can take (the floor in bench/RESULTS.md).
// Last, each activation alone: ns per element forward and backward, on pre-activations of a small
// and a large spread.
//
// Rows are synthetic, normal(0, 1) (so the pre-activations stay small: the activation table shows
// what large ones cost), batch 2048, 61 inputs, stored padded as the CPU backend stores them; the
// loss gradient is BCE with logits against 0/1 labels.
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/cpu/cpu_mlp.h"
#include "core/cpu/cpu_tile_kernels.h"
#include "core/model/math_ops.h"
#include "core/model/model.h"
#include "core/model/step_math.h"
#include "core/platform/random.h"

namespace {
using namespace wb;

struct Workload {
    std::vector<int> hidden;
    Activation activation;
};

const std::map<std::string, Workload> kWorkloads = {{"seed", {{20, 10}, Activation::Tanh}},
                                                    {"gelu", {{64, 32}, Activation::Gelu}},
                                                    {"wide", {{256, 128}, Activation::Tanh}},
                                                    {"seed-gelu", {{20, 10}, Activation::Gelu}}};
constexpr std::size_t kInputs = 61, kBatch = 2048;

double threadCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// The widest vector this build's flags allow (with -march=native, the machine's): the peak below is
// measured at that width, so compare it with the kernels of a native build.
#if defined(__AVX512F__)
constexpr std::size_t kLanes = 16;
#elif defined(__AVX__)
constexpr std::size_t kLanes = 8;
#else
constexpr std::size_t kLanes = 4;
#endif

// Fused multiply-adds of fp32 lanes per second on this thread: 12 independent accumulators (more
// than the FMA latency times the FMA units of any current core), kLanes wide, least CPU time of 5.
double peakFmaPerSecond() {
    using Lanes = float __attribute__((vector_size(kLanes * sizeof(float))));
    constexpr int kChains = 12;
    constexpr long kIterations = 50'000'000;
    double best = 1e300;
    float sink = 0.0f;
    for (int rep = 0; rep < 5; ++rep) {
        Lanes acc[kChains];
        for (int c = 0; c < kChains; ++c) acc[c] = Lanes{} + 0.001f * static_cast<float>(c);
        const Lanes scale = Lanes{} + 0.9999f, shift = Lanes{} + 0.0001f;
        const double start = threadCpuMs();
        for (long i = 0; i < kIterations; ++i) {
            for (auto& a : acc) a = a * scale + shift;  // one FMA each (-march with FMA)
            asm volatile("" : "+x"(acc[0]), "+x"(acc[1]), "+x"(acc[2]), "+x"(acc[3]), "+x"(acc[4]), "+x"(acc[5]));
        }
        best = std::min(best, threadCpuMs() - start);
        for (const auto& a : acc) sink += a[0];
    }
    if (sink == 42.0f) std::puts("");  // keeps the chains alive
    return static_cast<double>(kIterations) * kChains * kLanes / (best / 1e3);
}

// Milliseconds per `rows` rows: the least thread CPU time of `repeats` passes over the data.
double epochMs(const Workload& w, std::size_t rows, int repeats) {
    ModelSpec spec;
    spec.hidden = w.hidden;
    spec.activation = w.activation;
    const std::size_t ldx = CpuMlp::paddedInputStride(kInputs), steps = std::max<std::size_t>(1, rows / kBatch);
    std::vector<float> x(steps * kBatch * ldx, 0.0f), y(steps * kBatch);  // (rows, ldx), (rows)
    Rng rng(7);
    for (std::size_t r = 0; r < steps * kBatch; ++r) {
        for (std::size_t c = 0; c < kInputs; ++c) x[r * ldx + c] = static_cast<float>(rng.normal());
        y[r] = rng.uniform() < 0.5 ? 0.0f : 1.0f;
    }
    CpuMlp mlp(initParams(spec, kInputs, 1), w.activation, kBatch, nullptr, ldx);
    const float invN = 1.0f / static_cast<float>(kBatch);
    double best = 1e300;
    for (int rep = 0; rep < repeats; ++rep) {
        const double start = threadCpuMs();
        for (std::size_t s = 0; s < steps; ++s) {
            const float* xs = x.data() + s * kBatch * ldx;
            const float* ys = y.data() + s * kBatch;
            mlp.forwardLoss(xs, kBatch, [&](std::size_t, std::size_t first, std::size_t n, const float* z, float* dz) {
                for (std::size_t i = 0; i < n; ++i)
                    dz[i] = stepmath::lossGrad(LossKind::BceWithLogits, ys[first + i], stepmath::sigmoid(z[i]), invN);
            });
            mlp.backwardFromLoss(xs, kBatch);
            mlp.reduceGradients(0, mlp.count(), false);
        }
        best = std::min(best, threadCpuMs() - start);
    }
    return best * static_cast<double>(rows) / static_cast<double>(steps * kBatch);
}

// Nanoseconds per element of the chosen CPU target's activate() (saving what it saves) and of activationBackward() from
// those savings, on `n` pre-activations spread uniformly over +-spread: the least thread CPU time of
// `repeats` passes of 200 calls each. The spread matters where a formula's intermediate values can
// turn subnormal (GELU's exp(-z^2 / 2) beyond |z| = 13.2), which x86 cores handle slowly.
struct ActivationCost {
    double forwardNs, backwardNs;
};
ActivationCost activationCost(Activation a, float spread, int repeats) {
    constexpr std::size_t n = 4096;  // a tile's worth, in L1
    constexpr int kCalls = 200;
    std::vector<float> z(n), y(n), saved(n), upstream(n, 0.5f), dy(n);
    Rng rng(11);
    for (float& v : z) v = static_cast<float>((2.0 * rng.uniform() - 1.0) * spread);
    double forward = 1e300, backward = 1e300;
    for (int rep = 0; rep < repeats; ++rep) {
        double start = threadCpuMs();
        for (int c = 0; c < kCalls; ++c) {
            y = z;
            chosenCpuKernels().activate(a, y.data(), n, activationSaves(a) ? saved.data() : nullptr);
        }
        forward = std::min(forward, threadCpuMs() - start);
        start = threadCpuMs();
        for (int c = 0; c < kCalls; ++c) {
            dy = upstream;  // fresh each call: repeated products would drift into the subnormal range
            chosenCpuKernels().activationBackward(a, z.data(), y.data(), dy.data(), n,
                                                  activationSaves(a) ? saved.data() : nullptr);
        }
        backward = std::min(backward, threadCpuMs() - start);
    }
    const double perElementNs = 1e6 / (kCalls * static_cast<double>(n));
    return {forward * perElementNs, backward * perElementNs};
}

void printActivationCosts(int repeats) {
    std::printf(
        "\n| activation | spread of z | forward ns per element | backward ns per element |\n"
        "| --- | ---: | ---: | ---: |\n");
    const std::pair<const char*, Activation> activations[] = {{"tanh", Activation::Tanh},
                                                              {"sigmoid", Activation::Sigmoid},
                                                              {"gelu", Activation::Gelu},
                                                              {"relu", Activation::Relu}};
    for (const auto& [name, a] : activations)
        for (float spread : {4.0f, 400.0f}) {
            const ActivationCost cost = activationCost(a, spread, repeats);
            std::printf("| %s | +-%.0f | %.3f | %.3f |\n", name, static_cast<double>(spread), cost.forwardNs,
                        cost.backwardNs);
        }
}

std::vector<std::string> split(const std::string& list) {
    std::vector<std::string> out;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');) out.push_back(item);
    return out;
}
}  // namespace

int main(int argc, char** argv) {
    std::string workloads = "seed,gelu,wide,seed-gelu";
    std::size_t rows = 100000;
    int repeats = 15;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i], value = argv[i + 1];
        if (flag == "--workloads")
            workloads = value;
        else if (flag == "--rows")
            rows = std::strtoul(value.c_str(), nullptr, 10);
        else if (flag == "--repeats")
            repeats = std::max(1, std::atoi(value.c_str()));
        else {
            std::fprintf(stderr, "cpu_step_bench: unknown option %s\n", flag.c_str());
            return 2;
        }
    }
    std::printf("Peak: %.1f G fp32 FMA lanes per second on one core (%zu-lane vectors)\n", peakFmaPerSecond() / 1e9,
                kLanes);
    std::printf("CPU kernels: %s\n\n", describe(chosenCpuKernels().target).c_str());
    std::printf("| workload | ms per %zu-row epoch (1 thread, CPU time, least of %d) |\n| --- | ---: |\n", rows,
                repeats);
    for (const std::string& name : split(workloads)) {
        const auto it = kWorkloads.find(name);
        if (it == kWorkloads.end()) {
            std::fprintf(stderr, "cpu_step_bench: unknown workload %s\n", name.c_str());
            return 2;
        }
        std::printf("| %s | %.2f |\n", name.c_str(),
                    epochMs(it->second, rows, name == "wide" ? repeats / 4 + 1 : repeats));
        std::fflush(stdout);
    }
    printActivationCosts(repeats);
    return 0;
}
