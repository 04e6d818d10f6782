// The answer's conclusion in words, derived from its numbers only (no sentence is written ahead of
// the measurement): which engine's seed loop is slowest against its fixed loop and why, each
// engine's speed-up or "no measurable difference", the fastest epoch measured here, and what could
// not be measured.
#include <algorithm>
#include <cstdio>
#include <map>

#include "core/measure/ablation_attribution.h"
#include "core/measure/answer.h"

namespace wb {

namespace {
std::string engineName(const AnswerEngine& e) {
    const std::string who = engineProse(e.engine);
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

std::string range(const Interval& i) {
    return ms(i.low) + "\u2013" + ms(i.high);
}

std::string percentRange(const Interval& i) {
    return percent(i.low) + "\u2013" + percent(i.high);
}

std::string names(const AblationResult& r, const Attribution& a, const std::vector<std::size_t>& which) {
    std::string text;
    for (std::size_t k = 0; k < which.size(); ++k) {
        const CauseShare& c = a.causes[which[k]];
        text += (k == 0                  ? ""
                 : k + 1 == which.size() ? " and "
                                         : ", ") +
                r.steps[c.step].name + " (saves " + range(c.saved) + " ms)";
    }
    return text;
}

// The largest cause with its share's interval, or why none is named: too few rounds to rank, or
// causes whose intervals overlap. A share over 100 % names what gives time back.
std::string causeSentence(const AblationResult& r, const Attribution& a) {
    if (a.largest) {
        const CauseShare& c = a.causes[*a.largest];
        const AblationStep& s = r.steps[c.step];
        std::string text = " The largest cause: " + s.name + " (" + s.description + "), " +
                           percent(c.share.value_or(0)) + " (" + percentRange(c.shareInterval) + ") of the gap";
        if (c.share.value_or(0) > 1) {
            std::vector<std::size_t> giving;
            for (std::size_t i : a.costly)
                if (a.causes[i].inFixedLoop) giving.push_back(i);
            text += giving.empty() ? ": more than the whole gap, as later steps give some of it back"
                                   : ": more than the whole gap, as " + names(r, a, giving) + " gives some back";
        }
        return text + ".";
    }
    if (a.notApart.empty()) return "";
    if (!a.canRank())
        return " With " + std::to_string(a.rounds) + " round(s) per step the causes cannot be ranked: at least " +
               std::to_string(Attribution::kRoundsToRank) + " are needed (--repeats " +
               std::to_string(Attribution::kRoundsToRank) + ").";
    return " The largest cause cannot be told apart among " + names(r, a, a.notApart) +
           ": their intervals overlap; more rounds (--repeats) or a quieter machine would settle it.";
}

// " launch=graph_step costs 4.50 ms per epoch (2.38–6.99) on this engine"
std::string costClause(const AblationResult& r, const CauseShare& c) {
    return " " + r.steps[c.step].name + " costs " + ms(-c.savedMs) + " ms per epoch (" + ms(-c.saved.high) + "\u2013" +
           ms(-c.saved.low) + ") on this engine";
}

// Fixes that cost time on this engine, and those the fixed loop leaves out (after its step).
std::string costSentence(const AblationResult& r, const Attribution& a) {
    std::string text;
    const bool prunedLoop = r.fixedLoop()->fix == AblationStep::kWithoutCostly;
    const AblationStep* without = nullptr;  // the closing step without the costly fixes, where one ran
    for (std::size_t i : a.costly) {
        const CauseShare& c = a.causes[i];
        if (r.steps[c.step].fix == AblationStep::kWithoutCostly) {
            without = &r.steps[c.step];
            continue;  // not a fix: said below
        }
        text +=
            costClause(r, c) + (!c.inFixedLoop || prunedLoop
                                    ? "; the fixed loop leaves it out."
                                    : "; the fixed loop keeps it, as the fixes after it were measured on top of it.");
    }
    const auto after = r.leftOut();
    if (prunedLoop) {
        text += " The fixed loop is every fix but those (" + r.fixedLoop()->name + "), measured as a step of its own.";
    } else if (!after.empty()) {
        std::string names;
        for (const AblationStep* s : after)
            if (s->fix != AblationStep::kWithoutCostly) names += (names.empty() ? "" : ", ") + s->name;
        text += " The fixed loop stops at " + r.fixedLoop()->name + ", the fastest step measured" +
                (names.empty() ? "." : "; left out: " + names + ".");
    }
    if (without)
        text += " Every fix but those (" + without->name + ") was no faster, " + ms(without->medianEpochMs) +
                " ms per epoch, measured in the same rounds as the others: it is not recommended.";
    return text;
}

// Where every combination of the fixes was measured: each one's saving averaged over every order
// (its Shapley value), which do not depend on the order the waterfall shows, and the fixes that
// save the same time (either alone removes it, so one order gives it to whichever comes first).
std::string everyOrderSentence(const AblationResult& r, const Attribution& a) {
    std::string text;
    if (a.shapleyGapMs) {
        std::string values;
        for (const CauseShare& c : a.causes)
            if (c.shapley)
                values += (values.empty() ? "" : ", ") + r.steps[c.step].name + " " + ms(*c.shapley) + " ms (" +
                          range(c.shapleyInterval) + ")";
        if (!values.empty())
            text += " Over every order of the fixes (Shapley values, from all " +
                    std::to_string(1U << r.subsetFixes.size()) + " combinations measured): " + values +
                    "; they sum to the " + ms(*a.shapleyGapMs) + " ms they close together.";
    }
    for (const SharedSaving& s : a.shared)
        text += " " + r.steps[a.causes[s.first].step].name + " and " + r.steps[a.causes[s.second].step].name +
                " save the same time: either alone removes " + ms(s.ms) + " ms (" + range(s.interval) +
                "), which one order gives to whichever comes first.";
    return text;
}

// The runs far off their step's others: kept, shown, and held at their step's median for the intervals.
std::string outlierSentence(const AblationResult& r, const Attribution& a) {
    if (a.outliers.empty()) return "";
    std::string text =
        " Far off the other runs of their step (kept in the records, held at their step's median "
        "for the intervals):";
    for (std::size_t k = 0; k < a.outliers.size(); ++k) {
        const OutlierRun& o = a.outliers[k];
        text += (k ? ", " : " ") + r.steps[o.step].name + " round " + std::to_string(o.round) + " at " + ms(o.ms) +
                " ms (its median " + ms(o.stepMedianMs) + ")";
    }
    return text + ".";
}

// A busy machine, named with what it did: other programs' cores, the load, a hypervisor's steal.
std::string machineSentence(const AblationResult& r) {
    if (!r.machine || !(r.machine->busy() || r.machine->stealPercent.value_or(0) >= 5)) return "";
    const MachineLoad& m = *r.machine;
    char text[256];
    std::string said = " The machine was busy while this engine was measured:";
    if (m.busy()) {
        std::snprintf(text, sizeof text, " other programs kept %.1f of its %d cores busy on average", *m.otherCores,
                      m.cores);
        said += text;
        if (m.loadBefore && m.loadAfter) {
            std::snprintf(text, sizeof text, " (load %.1f \u2192 %.1f)", *m.loadBefore, *m.loadAfter);
            said += text;
        }
    }
    if (m.stealPercent.value_or(0) >= 5) {
        std::snprintf(text, sizeof text, "%s its host took %.0f %% of the CPU time", m.busy() ? ";" : "",
                      *m.stealPercent);
        said += text;
    }
    return said + "; its intervals are wider for it, and a quieter machine would narrow them.";
}

// Each measured engine's attribution, computed once for all the sentences that read it (a bootstrap
// of every cause's interval: the engine's sentence and the founding one both need PyTorch's).
class Attributions {
public:
    const Attribution& of(const AnswerEngine& e) {
        auto it = cache_.find(&e);
        if (it == cache_.end()) it = cache_.emplace(&e, attribute(*e.ablation)).first;
        return it->second;
    }

private:
    std::map<const AnswerEngine*, Attribution> cache_;
};

// How the engine's figures were measured: its outlying runs, a busy machine, the precision reached.
std::string measurementSentences(const AblationResult& r, const Attribution& a) {
    return outlierSentence(r, a) + machineSentence(r) + (r.precision.empty() ? "" : " Precision: " + r.precision + ".");
}

// Where no fix made the seed loop faster: it is the loop to keep, and the fixes that cost time are
// named with their cost.
std::string seedIsFastestSentence(const AnswerEngine& e, const Attribution& a) {
    const AblationResult& r = *e.ablation;
    std::string text = "On " + engineName(e) + ", no fix made the seed loop faster here: at " +
                       ms(r.seedLoop()->medianEpochMs) +
                       " ms per epoch it was the fastest loop measured, so the fixed loop is the seed loop itself.";
    for (std::size_t i : a.costly) text += costClause(r, a.causes[i]) + ".";
    return text + measurementSentences(r, a);
}

// "On PyTorch (cpu), the fixed loop is 41× faster than the seed loop (38–44×): 460 → 11.2 ms per
// epoch. The largest cause: data_path=device_resident (data on the device once ...), 93% (90–95%)
// of the gap."
std::string engineSentence(const AnswerEngine& e, Attributions& attributions) {
    const AblationResult& r = *e.ablation;
    if (r.fixedLoop() == r.seedLoop()) return seedIsFastestSentence(e, attributions.of(e));
    const SpeedComparison gap = *e.gap();
    const std::string levels =
        ms(r.seedLoop()->medianEpochMs) + " \u2192 " + ms(r.fixedLoop()->medianEpochMs) + " ms per epoch";
    if (!gap.measurable)
        return "On " + engineName(e) + ", the seed loop and the fixed loop take the same time: " + gap.label() + ", " +
               levels + ". Nothing the fixes remove costs measurable time on this engine.";
    std::string s =
        "On " + engineName(e) + ", the fixed loop is " + gap.label() + " than the seed loop: " + levels + ".";
    if (gap.ratio < 1) return s;
    const Attribution& a = attributions.of(e);
    return s + causeSentence(r, a) + everyOrderSentence(r, a) + costSentence(r, a) + measurementSentences(r, a);
}

// PyTorch's causes in the fixed loop, largest share first, each with its interval: "data_path=
// device_resident 80% (75–85%), launch=graph_step 12% (9–15%)". Empty without shares (no
// measurable gap).
std::string torchShares(const AblationResult& r, const Attribution& a) {
    std::vector<const CauseShare*> shares;
    for (const CauseShare& c : a.causes)
        if (c.inFixedLoop && c.share && *c.share > 0 && r.steps[c.step].fix != AblationStep::kWithoutCostly)
            shares.push_back(&c);
    std::stable_sort(shares.begin(), shares.end(),
                     [](const CauseShare* x, const CauseShare* y) { return *x->share > *y->share; });
    constexpr std::size_t kNamed = 3;
    std::string text;
    for (std::size_t k = 0; k < shares.size() && k < kNamed; ++k)
        text += (k ? ", " : "") + r.steps[shares[k]->step].name + " " + percent(*shares[k]->share) + " (" +
                percentRange(shares[k]->shareInterval) + ")";
    if (shares.size() > kNamed) text += " and " + std::to_string(shares.size() - kNamed) + " more";
    return text;
}

// The founding question in its own words: Keras's fit against the PyTorch loop here, where the
// PyTorch loop loses its time, and the fixed PyTorch loop against Keras's fit. Where one of the two
// was asked for but could not run, what would make it measurable.
std::string foundingSentence(const Answer& answer, Attributions& attributions) {
    if (const auto f = answer.founding()) {
        const AblationResult &torch = *f->torch->ablation, &keras = *f->keras->ablation;
        const std::string levels =
            ms(keras.seedLoop()->medianEpochMs) + " against " + ms(torch.seedLoop()->medianEpochMs) + " ms per epoch";
        std::string text = f->kerasFit.measurable
                               ? "The founding question: Keras's fit is " + f->kerasFit.label() +
                                     " than the PyTorch loop here, " + levels + "."
                               : "The founding question: Keras's fit and the PyTorch loop take the same time here (" +
                                     f->kerasFit.label() + "), " + levels + ".";
        if (const std::string shares = torchShares(torch, attributions.of(*f->torch)); !shares.empty())
            text +=
                " Where the PyTorch loop loses its time (shares of its own gap, fixed in this order): " + shares + ".";
        text += f->fixedTorch.measurable
                    ? " The fixed PyTorch loop is " + f->fixedTorch.label() +
                          " than Keras's fit: " + ms(torch.fixedLoop()->medianEpochMs) + " ms."
                    : " The fixed PyTorch loop and Keras's fit take the same time (" + f->fixedTorch.label() + ").";
        return text;
    }
    if (!answer.engine("keras") || !answer.engine("torch")) return "";  // not asked: --engines left one out
    for (const char* name : {"keras", "torch"}) {
        const AnswerEngine* e = answer.engine(name);
        if (e->available) continue;
        return std::string("The founding question (Keras's fit against the PyTorch loop) cannot be answered here: ") +
               engineProse(e->engine) + " could not run (why, and what to install, below).";
    }
    return "";
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
    Attributions attributions;
    for (const AnswerEngine* e : measured) lines.push_back(engineSentence(*e, attributions));

    // The fastest epoch measured, against the founding PyTorch loop where it ran (else the slowest
    // seed loop), with the spread of both.
    const AnswerEngine* fastest = nullptr;
    const AnswerEngine* slowestSeed = nullptr;
    for (const AnswerEngine* e : measured) {
        if (!fastest || e->ablation->fixedLoop()->medianEpochMs < fastest->ablation->fixedLoop()->medianEpochMs)
            fastest = e;
        if (!slowestSeed || e->ablation->seedLoop()->medianEpochMs > slowestSeed->ablation->seedLoop()->medianEpochMs)
            slowestSeed = e;
    }
    if (const AnswerEngine* torch = engine("torch"); torch && torch->gap()) slowestSeed = torch;
    if (fastest && measured.size() > 1) {
        const AblationStep& best = *fastest->ablation->fixedLoop();
        const AblationStep& seed = *slowestSeed->ablation->seedLoop();
        lines.push_back("The fastest epoch here: the fixed loop on " + engineName(*fastest) + ", " +
                        ms(best.medianEpochMs) + " ms, " + compareSpeed(seed.spread(), best.spread()).label() +
                        " than the seed loop on " + engineName(*slowestSeed) + " (" + ms(seed.medianEpochMs) + " ms).");
    }
    if (const std::string founding = foundingSentence(*this, attributions); !founding.empty())
        lines.insert(lines.begin(), founding);
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
    if (lines.empty())
        lines.emplace_back("Nothing measured yet.");
    else if (status == AnswerStatus::Running && !measured.empty())  // shown while measuring: say so
        lines.insert(lines.begin(), "Provisional: still measuring; every figure below may change.");
    return lines;
}

}  // namespace wb
