#include "sweep/early_termination.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/platform/json_fields.h"
#include "core/platform/json_file.h"
#include "core/platform/safe_open.h"
#include "sweep/sweep_folder.h"
#include "sweep/sweep_metric.h"
#include "sweep/sweep_report.h"

namespace wb::sweep {

namespace {
// numpy's default (linear) percentile of `v` at fraction q in [0, 1]; v is not empty.
double quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const double at = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(at));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

std::string rungsPath(const SweepFolder& folder, int id) {
    return folder.trialDir(id) + "/rungs.json";
}

nlohmann::json entryJson(const RungEntry& r) {
    return {{"epoch", r.epoch},
            {"metric", r.metric},
            {"cutoff", orNull(r.cutoff)},
            {"peers", r.peers},
            {"decision", r.stop ? "stop" : "continue"}};
}

RungEntry entryFromJson(const nlohmann::json& j) {
    RungEntry r;
    r.epoch = requiredField<int>(j, "epoch");
    r.metric = optionalField<double>(j, "metric").value_or(std::nan(""));  // written as null when not finite
    r.cutoff = optionalField<double>(j, "cutoff");
    r.peers = fieldOr(j, "peers", 0);
    r.stop = fieldOr<std::string>(j, "decision", "continue") == "stop";
    return r;
}

// The finite values other trials wrote at the rung of `epoch`.
std::vector<double> peersAt(const SweepFolder& folder, int self, int epoch) {
    std::vector<double> values;
    for (const auto& t : folder.plan().trials) {
        if (t.id == self) continue;
        for (const auto& r : readRungs(folder, t.id))
            if (r.epoch == epoch && std::isfinite(r.metric)) values.push_back(r.metric);
    }
    return values;
}
}  // namespace

RungDecision decideAtRung(double value, const std::vector<double>& earlier, int eta, Goal goal) {
    RungDecision d;
    d.peers = static_cast<int>(earlier.size());
    if (earlier.empty()) return d;
    // The best 1/eta of the values: the low end when minimizing, the high end when maximizing.
    const double keep = 1.0 / eta;
    d.cutoff = quantile(earlier, goal == Goal::Minimize ? keep : 1.0 - keep);
    d.stop = !std::isfinite(value) || better(*d.cutoff, value, goal);
    return d;
}

std::vector<int> rungEpochs(const EarlyTermination& e, int epochs) {
    std::vector<int> rungs;
    const auto add = [&](long long r) {
        if (r >= 1 && r < epochs && (e.maxIter == 0 || r <= e.maxIter) && (rungs.empty() || r > rungs.back()))
            rungs.push_back(static_cast<int>(r));
    };
    if (e.minIter > 0) {
        for (long long r = e.minIter; r < epochs; r *= e.eta) add(r);
    } else if (e.maxIter > 0) {
        for (int k = e.s; k >= 1; --k) add(static_cast<long long>(e.maxIter / std::pow(e.eta, k)));
    }
    return rungs;
}

std::string describe(const EarlyTermination& e) {
    const std::string eta = "eta " + std::to_string(e.eta);
    if (e.minIter > 0)
        return "hyperband (min_iter " + std::to_string(e.minIter) +
               (e.maxIter ? ", max_iter " + std::to_string(e.maxIter) : "") + ", " + eta + ")";
    return "hyperband (max_iter " + std::to_string(e.maxIter) + ", s " + std::to_string(e.s) + ", " + eta + ")";
}

nlohmann::json earlyTerminationJson(const EarlyTermination& e) {
    return {{"type", "hyperband"}, {"min_iter", e.minIter}, {"max_iter", e.maxIter}, {"s", e.s}, {"eta", e.eta}};
}

EarlyTermination earlyTerminationFromJson(const nlohmann::json& j) {
    EarlyTermination e;
    if (requiredField<std::string>(j, "type") != "hyperband") throw JsonFieldError("type", "only hyperband is known");
    e.minIter = requiredField<int>(j, "min_iter");
    e.maxIter = fieldOr(j, "max_iter", 0);
    e.s = fieldOr(j, "s", 0);
    e.eta = requiredField<int>(j, "eta");
    // The bounds the sweep file's parser keeps: a sweep.json from elsewhere asks no more work.
    if (e.eta < 2 || e.eta > 1000 || e.minIter < 0 || e.minIter > 1000000 || e.maxIter < 0 || e.maxIter > 1000000 ||
        e.s < 0 || e.s > 30 || (e.minIter == 0 && (e.maxIter == 0 || e.s == 0)))
        throw JsonFieldError("",
                             "no rungs as a sweep file gives them: min_iter in [1, 10^6], or max_iter in [1, 10^6] "
                             "and s in [1, 30], with eta in [2, 1000]");
    return e;
}

std::vector<RungEntry> readRungs(const SweepFolder& folder, int id) {
    const std::string path = rungsPath(folder, id);
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return {};
    try {
        refuseForeignFolder(folder.trialDir(id), "the trial folder");
        refuseForeignFile(path, "rung file");
        const nlohmann::json j = loadJsonFile(path, "rung file");
        const auto& list = j.at("rungs");
        std::vector<RungEntry> rungs;
        for (std::size_t i = 0; i < list.size() && i < kMaxRungs; ++i) rungs.push_back(entryFromJson(list.at(i)));
        return rungs;
    } catch (const std::exception&) {  // a damaged or foreign file is no peer
        return {};
    }
}

void writeRungs(const SweepFolder& folder, int id, const std::vector<RungEntry>& rungs) {
    const std::string path = rungsPath(folder, id);
    folder.ownTrialDir(id);
    if (rungs.empty()) {
        std::error_code ec;
        std::filesystem::remove(path, ec);  // a link there is removed, never followed
        return;
    }
    nlohmann::json list = nlohmann::json::array();
    for (const auto& r : rungs) list.push_back(entryJson(r));
    saveJsonAtomically({{"rungs", list}}, path, "rung file", Symlink::Refuse);
}

std::optional<std::string> reachRung(const SweepFolder& folder, int id, int epoch, int lastEpoch, double value) {
    const auto& plan = folder.plan();
    if (!plan.earlyTerminate) return std::nullopt;
    const EarlyTermination& e = *plan.earlyTerminate;
    const std::vector<int> rungs = rungEpochs(e, lastEpoch);
    const auto at = std::find(rungs.begin(), rungs.end(), epoch);
    if (at == rungs.end()) return std::nullopt;

    const RungDecision d = decideAtRung(value, peersAt(folder, id, epoch), e.eta, plan.metric.goal);
    std::vector<RungEntry> own = readRungs(folder, id);
    own.erase(std::remove_if(own.begin(), own.end(), [&](const RungEntry& r) { return r.epoch >= epoch; }), own.end());
    own.push_back({epoch, value, d.cutoff, d.peers, d.stop});
    writeRungs(folder, id, own);
    if (!d.stop) return std::nullopt;

    const std::string rung = "hyperband rung " + std::to_string(at - rungs.begin() + 1) + " of " +
                             std::to_string(rungs.size()) + " (epoch " + std::to_string(epoch) + ")";
    if (!std::isfinite(value)) return rung + ": " + plan.metric.name + " is not finite";
    return rung + ": " + plan.metric.name + " " + figureText(value) + " is worse than " + figureText(*d.cutoff) +
           ", the best 1/" + std::to_string(e.eta) + " of the " + std::to_string(d.peers) + " trial" +
           (d.peers == 1 ? "" : "s") + " there before it";
}

}  // namespace wb::sweep
