// What the generated loops (torch, keras, jax) have in common: Python literals, the docstring's
// list of switches, the run's constants, and the Python helpers every loop carries (safetensors
// and .npy files, the JSON lines on stdout, the command line, the RunRecord).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/model/execution_settings.h"
#include "core/run/run_config.h"

namespace wb {

// Shortest text that reads back as the same double, valid in Python ("0.001", "1e-08").
std::string pyNumber(double v);
// pyNumber that always reads back as a Python float ("0.0", not "0"), for APIs that check the type.
std::string pyFloat(double v);
std::string pyBool(bool b);
// A Python list of floats, each the shortest text that reads back as the same float32: "[0.5, 2.0]".
std::string pyFloatList(const std::vector<float>& v);
// Text safe inside a """docstring""" and a comment: no backslashes, quotes or line breaks.
std::string plain(const std::string& s);
std::string join(const std::vector<int>& v, const char* sep);

// What switch `name` at `value` does in one framework's loop; empty = not listed.
using DescribeSwitch = std::function<std::string(const std::string& name, const std::string& value)>;
// The docstring's "How it executes" list for the settings the loop runs, then what was asked for
// but is not applicable, each with its reason.
std::string switchesSection(const ExecutionSettings& run, const std::vector<IgnoredSwitch>& ignored,
                            const DescribeSwitch& describe);
// The docstring's closing paragraph (how to run the script) and its end; `needs`: "PyTorch and numpy".
std::string usageSection(const std::string& needs);

// CONFIG (the run as recorded, backend = `framework`), HIDDEN, BATCH_SIZE, EPOCHS, SHUFFLE, SEED,
// DEVICE, FRAMEWORK and LOOP_NAME (the record's name when the run has none).
std::string scriptConstants(const RunConfig& c, const std::string& framework, const std::string& device,
                            const std::string& loopName);

// read_safetensors, write_safetensors, write_atomically, load_rows (numpy only).
std::string pythonFileHelpers();
// The end of every loop script: main() saves the trained weights when --save-weights asks
// (`tensors`: a Python expression of a dict of numpy arrays by name, as safetensors holds them),
// writes the RunRecord when --out asks and returns the run's exit code; then the call of main().
std::string scriptEnding(const std::string& tensors);
// claim_stdout, emit, finite, parse_args, EpochLog (the per-epoch lines and the record's epochs),
// write_record (the RunRecord of --out).
std::string pythonRunHelpers();

}  // namespace wb
