#include "frameworks/fixed_loop_script.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

#include "core/model/execution_settings.h"
#include "core/platform/errors.h"
#include "core/run/framework_options.h"
#include "frameworks/framework_backend.h"
#include "frameworks/script_text.h"

namespace wb {

namespace {
constexpr std::size_t kCommentWidth = 99;   // the generated scripts' line length
constexpr std::size_t kReasonLength = 240;  // of a reason read from the file: one readable line

// Milliseconds as the answer's conclusion writes them: three figures, more under 10 ms.
std::string ms(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : v >= 0.1 ? "%.2f" : "%.4f", v);
    return buffer;
}

// Text from the file, safe in a comment and in a one-line message: no line breaks, quotes,
// backslashes or other control characters, at most `limit` bytes (cut at a UTF-8 character's start).
std::string oneLine(const std::string& s, std::size_t limit = kReasonLength) {
    std::size_t end = std::min(limit, s.size());
    while (end > 0 && end < s.size() && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    std::string out = plain(s.substr(0, end));
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    return end < s.size() ? out + "..." : out;
}

// "PyTorch", "our CPU backend" (core/run/engines.h); a name no engine has, as one short line (it comes
// from a file).
std::string engineInProse(const std::string& engine) {
    return findEngine(engine) ? engineProse(engine) : oneLine(engine, 40);
}

// `text` as Python comment lines of at most kCommentWidth columns, broken between words.
std::string comment(const std::string& text) {
    std::string out, line = "#", word;
    std::istringstream words(text);
    while (words >> word) {
        if (line.size() > 1 && line.size() + 1 + word.size() > kCommentWidth) {
            out += line + "\n";
            line = "#";
        }
        line += " " + word;
    }
    return out + line + "\n";
}

std::string joined(const std::vector<std::string>& parts, const char* separator) {
    std::string text;
    for (const auto& p : parts) text += (text.empty() ? "" : separator) + p;
    return text;
}

// Whether `loop` holds what step `s` changed on top of `before`, the step it was applied to: every
// switch and torch option it set. (The steps' settings are cumulative: each is its `before`'s with
// its fix applied, or its `before`'s where the fix was not applied.)
bool holds(const AblationStep& loop, const AblationStep& s, const AblationStep& before) {
    const auto now = describeSwitches(s.settings), was = describeSwitches(before.settings);
    const auto in = describeSwitches(loop.settings);
    for (std::size_t k = 0; k < now.size(); ++k)
        if (now[k].value != was[k].value && in[k].value != now[k].value) return false;
    const auto keeps = [&](auto TorchOptions::*option) {
        return s.torch.*option == before.torch.*option || loop.torch.*option == s.torch.*option;
    };
    return keeps(&TorchOptions::numWorkers) && keeps(&TorchOptions::prefetchFactor) &&
           keeps(&TorchOptions::pinMemory) && keeps(&TorchOptions::scriptModel);
}

// Which fixes the fixed loop holds, and the measured ones it leaves out: those after it, or, where
// it is the closing step without the costly fixes, those it does not hold.
struct LoopFixes {
    std::vector<std::string> applied;
    std::vector<const AblationStep*> leftOut;
};

LoopFixes loopFixes(const AblationResult& r) {
    const AblationStep* fixed = r.fixedLoop();
    const bool pruned = fixed->fix == AblationStep::kWithoutCostly;
    LoopFixes f;
    for (std::size_t i = 1; i < r.steps.size(); ++i) {
        const AblationStep& s = r.steps[i];
        if (s.status != StepStatus::Ran || s.fix == AblationStep::kWithoutCostly) continue;
        const bool in = pruned ? holds(*fixed, s, r.steps[i - 1]) : &s <= fixed;
        if (in)
            f.applied.push_back(oneLine(s.name));
        else
            f.leftOut.push_back(&s);
    }
    return f;
}

std::string leftOutText(const AblationStep& s) {
    if (s.savedMs < 0) return oneLine(s.name) + ", which cost " + ms(-s.savedMs) + " ms per epoch";
    return oneLine(s.name) + ", measured only on top of a slower step (it saved " + ms(s.savedMs) +
           " ms per epoch there)";
}

// Where the seed loop and the fixed loop lie within each other's spread, said so.
std::string gapNote(const AblationResult& r) {
    const auto gap = r.gapComparison();
    return gap && !gap->measurable ? ", no measurable difference" : "";
}

// The comment at the script's top: which step this is, what it measured, what it leaves out.
// `where`: "The fixed loop of answer.json on PyTorch (cpu)".
std::string aboutLoop(const AblationResult& r, const std::string& where) {
    const AblationStep& fixed = *r.fixedLoop();
    const LoopFixes fixes = loopFixes(r);
    std::string text = where + ": the fastest configuration measured there, the step '" + oneLine(fixed.name) + "', " +
                       ms(fixed.medianEpochMs) + " ms per epoch (the median of its " +
                       std::to_string(fixed.runs.size()) +
                       " run(s); the seed loop: " + ms(r.seedLoop()->medianEpochMs) + " ms" + gapNote(r) + ").";
    std::string out = comment(text);
    out +=
        comment("Its fixes to the seed loop: " + (fixes.applied.empty() ? "none" : joined(fixes.applied, ", ")) + ".");
    std::vector<std::string> left;
    for (const AblationStep* s : fixes.leftOut) left.push_back(leftOutText(*s));
    out += comment(
        left.empty() ? "No measured fix is left out."
                     : "Left out, as the fastest step measured is not every fix applied: " + joined(left, "; ") + ".");
    return out;
}

// The fixed loop's configuration as its first run recorded it, checked against its step.
RunConfig recordedConfig(const AblationResult& r, const std::string& source) {
    const AblationStep& fixed = *r.fixedLoop();
    const std::string who = "the fixed loop of " + oneLine(r.backend, 40);
    RunConfig config;
    try {
        config = requireRunConfig(fixed.runs.front());
        config.validate();
    } catch (const Error& e) {
        throw DataError(source, who + " holds no configuration that reads back: " + oneLine(e.what()));
    }
    if (config.backend != r.backend)
        throw DataError(source, who + " records a run of another backend ('" + oneLine(config.backend, 40) + "')");
    if (config.execution != fixed.settings)
        throw DataError(source, who + " records a run of other switches than its step's");
    return config;
}

std::string scriptOf(const AblationResult& r, const std::string& framework, const std::string& source,
                     const std::string& name, const std::string& where) {
    if (!isFrameworkBackend(framework))
        throw ConfigError("no framework loop for '" + framework + "' (valid: torch, keras, jax)");
    RunConfig config = recordedConfig(r, source);
    config.backend = framework;
    config.name = name.empty() ? "fixed loop (" + oneLine(r.fixedLoop()->name, 120) + ")" : name;
    // For the framework version and device the run recorded; a record of another backend: the CPU
    // and the newest API. Nothing is asked: the file's interpreter is text, never a program to run.
    const NoProbes noProbes;
    const FrameworkFacts facts = recordedFrameworkFacts(framework, r.fixedLoop()->runs.front().environment);
    const std::string script = frameworkScript(config, facts);
    const std::size_t firstLine = script.find('\n') + 1;  // after #!/usr/bin/env python3
    return script.substr(0, firstLine) + aboutLoop(r, where) + script.substr(firstLine);
}

std::string deviceOf(const std::string& device) {
    return device.empty() ? "" : " (" + oneLine(device, 80) + ")";
}
}  // namespace

std::optional<std::string> whyNoFixedLoop(const Answer& answer, const std::string& engine) {
    const auto e = std::find_if(answer.engines.begin(), answer.engines.end(),
                                [&](const AnswerEngine& candidate) { return candidate.engine == engine; });
    if (e == answer.engines.end()) return "the answer did not ask it";
    if (!e->available) return "it was not available" + (e->reason.empty() ? "" : ": " + oneLine(e->reason));
    if (!e->ablation) return "it did not run";
    const AblationResult& r = *e->ablation;
    if (r.backend != engine) return "its ablation is of another backend ('" + oneLine(r.backend, 40) + "')";
    if (r.fixedLoop()) return std::nullopt;
    if (!r.message.empty()) return "its ablation " + toString(r.status) + ": " + oneLine(r.message);
    return r.seedLoop() ? "no step after its seed loop was measured" : "not even its seed loop was measured";
}

std::string fixedLoopScript(const Answer& answer, const std::string& engine, const std::string& source,
                            const std::string& name) {
    if (const auto why = whyNoFixedLoop(answer, engine))
        throw DataError(source, oneLine(engine, 40) + " has no measured fixed loop (" + *why + ")");
    const auto e = std::find_if(answer.engines.begin(), answer.engines.end(),
                                [&](const AnswerEngine& candidate) { return candidate.engine == engine; });
    return scriptOf(*e->ablation, engine, source, name,
                    "The fixed loop of " + oneLine(source) + " on " + engineInProse(engine) + deviceOf(e->device));
}

std::string fixedLoopScript(const AblationResult& ablation, const std::string& framework, const std::string& source,
                            const std::string& name) {
    if (!ablation.fixedLoop())
        throw DataError(source, "the ablation has no measured fixed loop (" +
                                    std::string(ablation.seedLoop() ? "no step after its seed loop was measured"
                                                                    : "not even its seed loop was measured") +
                                    ")");
    const std::string measured = engineInProse(ablation.backend) + deviceOf(ablation.device);
    const std::string where = ablation.backend == framework
                                  ? "The fixed loop of " + oneLine(source) + " on " + measured
                                  : "The fixed loop of " + oneLine(source) + ", measured on " + measured +
                                        ", written for " + engineInProse(framework);
    return scriptOf(ablation, framework, source, name, where);
}

}  // namespace wb
