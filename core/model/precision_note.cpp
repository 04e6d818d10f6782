#include "core/model/precision_note.h"

#include <cstdio>

namespace wb {

double stepProductFlop(const std::vector<int>& widths, int batch) {
    double weights = 0;
    for (std::size_t l = 0; l + 1 < widths.size(); ++l)
        weights += static_cast<double>(widths[l]) * static_cast<double>(widths[l + 1]);
    return 2.0 * 3.0 * static_cast<double>(batch) * weights;  // three products, a multiply and an add each
}

std::optional<SwitchNote> precisionNote(const std::string& backend, const ExecutionSettings& s,
                                        const std::vector<int>& widths, int batch) {
    if (backend != "cuda" || s.precision == Precision::Fp32) return std::nullopt;
    const double flop = stepProductFlop(widths, batch);
    const double seconds = flop / kFp32FloorFlopPerS;
    if (seconds >= kLaunchFloorS) return std::nullopt;
    std::string list;
    for (int w : widths) list += (list.empty() ? "" : ", ") + std::to_string(w);
    char text[320];
    std::snprintf(text, sizeof text,
                  "cannot help at widths %s and batch %d: a step's products are %.1f MFLOP, %.2f us even at "
                  "%.0f TFLOP/s in fp32, less than one kernel launch (%.1f us); the step is bound by launches and "
                  "memory, and the 16-bit copies add work",
                  list.c_str(), batch, flop / 1e6, seconds * 1e6, kFp32FloorFlopPerS / 1e12, kLaunchFloorS * 1e6);
    return SwitchNote{"precision", text};
}

}  // namespace wb
