#include "sweep/sweep_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/platform/csv_field.h"
#include "core/platform/json_fields.h"
#include "core/run/run_record.h"  // median()
#include "sweep/early_termination.h"
#include "sweep/sweep_metric.h"

namespace wb::sweep {

std::string valueText(const nlohmann::json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number_float()) {
        char text[32];
        std::snprintf(text, sizeof text, "%.6g", value.get<double>());
        return text;
    }
    return value.dump();
}

std::string figureText(const std::optional<double>& v) {
    if (!v) return "-";
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", *v);
    return text;
}

namespace {
ParameterEffect effectOf(const std::string& name, const std::vector<TrialRow>& views) {
    ParameterEffect effect{name, {}, std::nullopt};
    std::vector<std::vector<double>> metrics;
    for (const auto& v : views) {
        const nlohmann::json value = v.trial->parameters.value(name, nlohmann::json());
        auto it = std::find_if(effect.values.begin(), effect.values.end(),
                               [&](const ValueEffect& e) { return e.value == value; });
        if (it == effect.values.end()) {
            effect.values.push_back({value, 0, 0, std::nullopt, std::nullopt, std::nullopt});
            metrics.emplace_back();
            it = effect.values.end() - 1;
        }
        auto& m = metrics[static_cast<std::size_t>(it - effect.values.begin())];
        ++it->trials;
        if (v.metric) {
            ++it->completed;
            m.push_back(*v.metric);
        }
    }
    for (std::size_t i = 0; i < effect.values.size(); ++i) {
        auto& e = effect.values[i];
        if (metrics[i].empty()) continue;
        e.median = median(metrics[i]);
        e.min = *std::min_element(metrics[i].begin(), metrics[i].end());
        e.max = *std::max_element(metrics[i].begin(), metrics[i].end());
    }
    const bool numeric = std::all_of(effect.values.begin(), effect.values.end(),
                                     [](const ValueEffect& e) { return e.value.is_number(); });
    if (numeric)
        std::stable_sort(effect.values.begin(), effect.values.end(), [](const ValueEffect& a, const ValueEffect& b) {
            return a.value.get<double>() < b.value.get<double>();
        });
    std::vector<double> medians;
    for (const auto& e : effect.values)
        if (e.median) medians.push_back(*e.median);
    if (medians.size() > 1)
        effect.medianRange =
            *std::max_element(medians.begin(), medians.end()) - *std::min_element(medians.begin(), medians.end());
    return effect;
}
}  // namespace

SweepReport makeReport(const SweepPlan& plan, const std::vector<TrialRow>& views) {
    SweepReport r;
    r.sweepName = plan.name;
    r.metric = plan.metric;
    r.total = static_cast<int>(views.size());
    for (const auto& v : views) {
        switch (v.status.state) {
            case TrialState::Completed: ++r.completed; break;
            case TrialState::Failed: ++r.failed; break;
            case TrialState::Cancelled: ++r.cancelled; break;
            case TrialState::Stopped: ++r.stopped; break;
            case TrialState::Running: ++r.running; break;
            case TrialState::Pending: ++r.pending; break;
            case TrialState::Damaged: ++r.damaged; break;
        }
        if (v.status.timing.rfind("shared", 0) == 0) r.sharedTimings = true;
        r.plannedEpochs += v.trial->epochs();
        if (v.status.state == TrialState::Stopped && v.figures.is_object())
            r.savedEpochs += std::max(0L, v.trial->epochs() - fieldOr<long>(v.figures, "epochs", 0));
    }
    if (plan.earlyTerminate) r.earlyTermination = describe(*plan.earlyTerminate);
    if (const auto best = bestTrial(views, plan.metric)) {
        r.bestId = views[*best].trial->id;
        r.bestName = views[*best].trial->name;
        r.bestParameters = views[*best].trial->parameters;
        r.bestMetric = views[*best].metric;
    }
    for (const auto& name : plan.parameterNames) r.effects.push_back(effectOf(name, views));
    return r;
}

std::string reportText(const SweepReport& r) {
    std::ostringstream out;
    out << "Sweep" << (r.sweepName.empty() ? "" : " " + r.sweepName) << ": " << r.total << " trials, " << r.completed
        << " completed, " << (r.stopped ? std::to_string(r.stopped) + " stopped, " : "") << r.failed << " failed, "
        << r.cancelled << " cancelled, " << r.running << " running, " << r.pending << " pending"
        << (r.damaged ? ", " + std::to_string(r.damaged) + " damaged" : "") << "\n";
    out << "Metric: " << r.metric.name << " (" << toString(r.metric.goal) << ")\n";
    if (!r.earlyTermination.empty()) out << "Early termination: " << savedEpochsText(r) << "\n";
    if (r.bestId)
        out << "Best: trial " << *r.bestId << " (" << r.bestName << "): " << r.metric.name << " "
            << figureText(r.bestMetric) << "\n";
    else
        out << "Best: none yet (no completed trial has the metric)\n";
    if (r.sharedTimings && r.metric.name.find("_ms") != std::string::npos)
        out << "Note: some epoch times were measured while trials shared the machine (run with --exclusive to compare "
               "times)\n";
    for (const auto& e : r.effects) {
        out << "\n" << e.name << " (medians differ by " << figureText(e.medianRange) << "):\n";
        out << "  value                 trials  median      min         max\n";
        for (const auto& v : e.values) {
            char line[160];
            std::snprintf(line, sizeof line, "  %-20s  %2d/%-3d %-11s %-11s %s\n", valueText(v.value).c_str(),
                          v.completed, v.trials, figureText(v.median).c_str(), figureText(v.min).c_str(),
                          figureText(v.max).c_str());
            out << line;
        }
    }
    return out.str();
}

std::optional<std::string> targetReachedBy(const std::vector<TrialRow>& views, const Metric& metric, int except) {
    if (!metric.target) return std::nullopt;
    for (const auto& v : views)
        if (v.trial->id != except && v.metric && std::isfinite(*v.metric) &&
            !better(*metric.target, *v.metric, metric.goal))
            return "metric.target " + figureText(*metric.target) + " reached by trial " + std::to_string(v.trial->id) +
                   " (" + metric.name + " " + figureText(v.metric) + ")";
    return std::nullopt;
}

std::optional<double> shownMetric(const TrialRow& row, const Metric& metric) {
    if (row.status.state == TrialState::Stopped && row.figures.is_object())
        return metricValue(row.figures, metric.name);
    return row.metric;
}

std::string savedEpochsText(const SweepReport& r) {
    if (r.earlyTermination.empty()) return "";
    const double share = r.savedPercent();
    char text[96];
    std::snprintf(text, sizeof text, "%ld of %ld epochs saved (%.0f %%)", r.savedEpochs, r.plannedEpochs, share);
    return r.earlyTermination + ": " + std::to_string(r.stopped) + " trial" + (r.stopped == 1 ? "" : "s") +
           " stopped at a rung, " + text;
}

namespace {
std::string csvNumber(const std::optional<double>& v) {
    if (!v) return "";
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", *v);
    return text;
}
}  // namespace

std::string reportCsv(const SweepReport& r) {
    std::string out = "parameter,value,trials,completed,median_" + r.metric.name + ",min_" + r.metric.name + ",max_" +
                      r.metric.name + "\n";
    for (const auto& e : r.effects)
        for (const auto& v : e.values)
            out += csv::field(e.name) + "," + csv::field(valueText(v.value)) + "," + std::to_string(v.trials) + "," +
                   std::to_string(v.completed) + "," + csvNumber(v.median) + "," + csvNumber(v.min) + "," +
                   csvNumber(v.max) + "\n";
    return out;
}

nlohmann::json reportJson(const SweepReport& r) {
    nlohmann::json effects = nlohmann::json::array();
    for (const auto& e : r.effects) {
        nlohmann::json values = nlohmann::json::array();
        for (const auto& v : e.values)
            values.push_back({{"value", v.value},
                              {"trials", v.trials},
                              {"completed", v.completed},
                              {"median", orNull(v.median)},
                              {"min", orNull(v.min)},
                              {"max", orNull(v.max)}});
        effects.push_back({{"parameter", e.name}, {"median_range", orNull(e.medianRange)}, {"values", values}});
    }
    nlohmann::json best = nullptr;
    if (r.bestId)
        best = {{"id", *r.bestId},
                {"name", r.bestName},
                {"parameters", r.bestParameters},
                {"metric", orNull(r.bestMetric)}};
    return {{"metric", {{"name", r.metric.name}, {"goal", toString(r.metric.goal)}}},
            {"trials",
             {{"total", r.total},
              {"completed", r.completed},
              {"failed", r.failed},
              {"cancelled", r.cancelled},
              {"stopped", r.stopped},
              {"running", r.running},
              {"pending", r.pending},
              {"damaged", r.damaged}}},
            {"shared_timings", r.sharedTimings},
            {"early_termination", r.earlyTermination.empty() ? nlohmann::json(nullptr)
                                                             : nlohmann::json{{"rule", r.earlyTermination},
                                                                              {"planned_epochs", r.plannedEpochs},
                                                                              {"saved_epochs", r.savedEpochs}}},
            {"best", best},
            {"effects", effects}};
}

}  // namespace wb::sweep
