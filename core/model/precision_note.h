// When the precision switch cannot make a step faster at the model's widths, as data: a
// {switch, reason} note (the shape of IgnoredSwitch, serialised alike) that an ablation attaches to
// the step that changed precision. The step still runs and is measured; the note says what to
// expect and why, so a "no difference" verdict is not read as a broken fix. No Qt, no CUDA.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/execution_settings.h"

namespace wb {

// A note on a switch that ran (not one that was ignored): {"switch": ..., "reason": ...}.
using SwitchNote = IgnoredSwitch;

// The arithmetic of one training step's matrix products (forward, weight and input gradients):
// 2 * 3 * batch * weights, in FLOP, for layer widths {inputs, hidden..., 1}.
double stepProductFlop(const std::vector<int>& widths, int batch);

// The bounds of the rule below: a floor of the fp32 rate of every GPU this build targets (sm_80 and
// later peak at 19.5 TFLOP/s and above) and the cheapest kernel launch measured on them (2.5 µs).
constexpr double kFp32FloorFlopPerS = 10e12;
constexpr double kLaunchFloorS = 2.5e-6;

// On `backend` "cuda", with a precision other than fp32: when a step's products take less than one
// kernel launch even at kFp32FloorFlopPerS, a faster multiply (tf32, bf16, fp16 tensor cores) cannot
// shorten the step, which is launch- and memory-bound, and 16-bit copies add work: the note says so
// with the numbers. nullopt otherwise (and on other backends, whose cost model this is not).
std::optional<SwitchNote> precisionNote(const std::string& backend, const ExecutionSettings& s,
                                        const std::vector<int>& widths, int batch);

}  // namespace wb
