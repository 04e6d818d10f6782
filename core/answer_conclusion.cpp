// The answer's conclusion in words, derived from its numbers only (no sentence is written ahead of
// the measurement): which engine's seed loop is slowest against its fixed loop and why, each
// engine's speed-up or "no measurable difference", the fastest epoch measured here, and what could
// not be measured.
#include <cstdio>

#include "answer.h"

namespace wb {

namespace {
std::string engineName(const AnswerEngine& e) {
    const std::string who = e.engine == "cpu"     ? "our CPU backend"
                            : e.engine == "cuda"  ? "our CUDA backend"
                            : e.engine == "torch" ? "PyTorch"
                            : e.engine == "keras" ? "Keras"
                            : e.engine == "jax"   ? "JAX"
                                                  : e.engine;
    return e.device.empty() ? who : who + " (" + e.device + ")";
}

std::string ms(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : v >= 0.1 ? "%.2f" : "%.4f", v);
    return buffer;
}

std::string percent(double share) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%.0f%%", share * 100);
    return buffer;
}

// "On PyTorch (cpu), the fixed loop is 41× faster than the seed loop (38–44×): 460 → 11.2 ms per
// epoch. The largest cause: data_path=device_resident (data on the device once ...), 93% of the gap."
std::string engineSentence(const AnswerEngine& e) {
    const AblationResult& r = *e.ablation;
    const SpeedComparison gap = *e.gap();
    const std::string levels =
        ms(r.seedLoop()->medianEpochMs) + " \u2192 " + ms(r.fixedLoop()->medianEpochMs) + " ms per epoch";
    if (!gap.measurable)
        return "On " + engineName(e) + ", the seed loop and the fixed loop take the same time: " + gap.label() + ", " +
               levels + ". Nothing the fixes remove costs measurable time on this engine.";
    std::string s =
        "On " + engineName(e) + ", the fixed loop is " + gap.label() + " than the seed loop: " + levels + ".";
    if (gap.ratio < 1) return s;
    if (const AblationStep* cause = e.largestCause())
        s += " The largest cause: " + cause->name + " (" + cause->description + "), " + percent(*cause->share) +
             (*cause->share > 1 ? " of the gap (later steps cost some of it back)." : " of the gap.");
    return s;
}
}  // namespace

std::vector<std::string> Answer::conclusion() const {
    std::vector<std::string> lines;
    std::vector<const AnswerEngine*> measured;
    for (const auto& e : engines)
        if (e.gap()) measured.push_back(&e);
    // The engine with the largest measurable gap leads: that is where the founding question's answer shows.
    std::stable_sort(measured.begin(), measured.end(), [](const AnswerEngine* a, const AnswerEngine* b) {
        const auto ga = *a->gap(), gb = *b->gap();
        if (ga.measurable != gb.measurable) return ga.measurable;
        return ga.ratio > gb.ratio;
    });
    lines.reserve(measured.size() + engines.size() + 1);
    for (const AnswerEngine* e : measured) lines.push_back(engineSentence(*e));

    // The fastest epoch measured, against the slowest seed loop (the founding loop where PyTorch ran).
    const AnswerEngine* fastest = nullptr;
    const AnswerEngine* slowestSeed = nullptr;
    for (const AnswerEngine* e : measured) {
        if (!fastest || e->ablation->fixedLoop()->medianEpochMs < fastest->ablation->fixedLoop()->medianEpochMs)
            fastest = e;
        if (!slowestSeed || e->ablation->seedLoop()->medianEpochMs > slowestSeed->ablation->seedLoop()->medianEpochMs)
            slowestSeed = e;
    }
    if (fastest && measured.size() > 1) {
        const double best = fastest->ablation->fixedLoop()->medianEpochMs;
        const double seed = slowestSeed->ablation->seedLoop()->medianEpochMs;
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, "%.1f", best > 0 ? seed / best : 0.0);
        lines.push_back("The fastest epoch here: the fixed loop on " + engineName(*fastest) + ", " + ms(best) +
                        " ms, " + ratio + "\u00d7 faster than the seed loop on " + engineName(*slowestSeed) + " (" +
                        ms(seed) + " ms).");
    }
    for (const auto& e : engines) {
        if (e.gap()) continue;
        if (!e.available) {
            lines.push_back("Not measured: " + engineName(e) + ", " + e.reason +
                            (e.install.empty() ? "." : ". To measure it: " + e.install + "."));
        } else if (e.ablation && e.ablation->status == AblationStatus::Failed) {
            lines.push_back(engineName(e) + " failed: " + e.ablation->message + ".");
        } else if (!e.ablation && !e.reason.empty()) {
            lines.push_back(engineName(e) + " could not run this configuration: " + e.reason + ".");
        } else if (status != AnswerStatus::Running) {
            lines.push_back(engineName(e) + ": not measured (" + toString(status) + " before it finished).");
        }
    }
    if (lines.empty()) lines.emplace_back("Nothing measured yet.");
    return lines;
}

}  // namespace wb
