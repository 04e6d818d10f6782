#include "cli/sweep_trials.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/train_options.h"
#include "core/platform/errors.h"
#include "frameworks/python_interpreter.h"
#include "sweep/early_termination.h"
#include "sweep/sweep_report.h"  // valueText
#include "sweep/trial_points.h"

namespace wb::cli {

namespace {
// The outputs of a trial are the sweep's: a parameter cannot move them.
constexpr const char* kSweepOwned[] = {"--out", "--csv", "--save-weights", "--name", "--quiet", "--help"};

// A `mlpwb train` command line parsed as `mlpwb train` does; a later option wins over an earlier
// one (a parameter over the base). Throws ConfigError with the parser's reason, and (`whole`) the
// refusal of the configuration as a whole (a value alone is checked without: `launch=persistent`
// is refused beside the default gemm, not beside the gemm=custom that another parameter gives).
struct ParsedTrain {
    TrainOptions options;
    RunConfig config;
};
ParsedTrain parseTrainArgs(const std::vector<std::string>& args, bool whole = true) {
    CLI::App app;
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    ParsedTrain parsed;
    parsed.options.bind(app);
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
    try {
        app.parse(reversed);
    } catch (const CLI::ParseError& e) {
        throw ConfigError(e.what());
    }
    parsed.config = parsed.options.toRunConfig(app, whole);
    for (const auto& [flag, path] :
         {std::pair{"--data", parsed.config.data.path}, std::pair{"--labels", parsed.config.data.labelsPath},
          std::pair{"--init-weights", parsed.config.initWeights}}) {
        std::error_code ec;
        if (!path.empty() && !std::filesystem::is_regular_file(path, ec))
            throw ConfigError(std::string(flag) + " " + path + ": no such file");
    }
    return parsed;
}

std::string optionArg(const sweep::Parameter& p, const sweep::ParameterValue& v) {
    return p.option + "=" + v.argument;
}

std::string pointText(const sweep::Spec& spec, const std::vector<sweep::ParameterValue>& values) {
    std::string text;
    for (std::size_t i = 0; i < values.size(); ++i)
        text += (text.empty() ? "" : " ") + spec.parameters[i].name + "=" + sweep::valueText(values[i].value);
    return text;
}

// One value over the base; a refusal names the value's line (`whole`: see parseTrainArgs).
void checkValue(const sweep::Spec& spec, const sweep::Parameter& p, const sweep::ParameterValue& v,
                const std::vector<std::string>& baseArgs, bool whole) {
    auto args = baseArgs;
    args.push_back(optionArg(p, v));
    try {
        parseTrainArgs(args, whole);
    } catch (const ConfigError& e) {
        throw ConfigError(sweep::specMessage(spec.file, v.line ? v.line : p.line, "parameters." + p.name,
                                             "value '" + v.argument + "': " + e.what()));
    }
}

// Each value alone over the base, so a refusal names the value's own line.
void checkEachValue(const sweep::Spec& spec, const std::vector<std::string>& baseArgs) {
    for (const auto& p : spec.parameters) {
        std::vector<sweep::ParameterValue> values = p.values;
        if (p.draw)  // a bounded distribution: the least and the greatest value it draws
            if (const auto bounds = sweep::drawnBounds(*p.draw))
                for (double end : {bounds->first, bounds->second}) {
                    const bool whole = sweep::drawsWholeNumbers(*p.draw);
                    values.push_back(
                        {end, whole ? std::to_string(static_cast<long long>(end)) : std::to_string(end), p.line});
                }
        for (const auto& v : values) checkValue(spec, p, v, baseArgs, false);
    }
}

}  // namespace

sweep::OptionInfo trainOptionInfo(const std::string& option) {
    static const auto app = [] {
        auto a = std::make_unique<CLI::App>();
        static TrainOptions bound;
        bound.bind(*a);
        return a;
    }();
    sweep::OptionInfo info;
    const CLI::Option* opt = app->get_option_no_throw(option);  // (it looks into the option groups too)
    if (!opt) return info;
    info.known = true;
    info.flag = opt->get_expected_max() == 0;
    if (std::find(std::begin(kSweepOwned), std::end(kSweepOwned), option) != std::end(kSweepOwned))
        info.refusal = option + " is set by the sweep for each trial (its record is trials/NNNN/run.json)";
    return info;
}

namespace {
// One trial: the base, its point's values, the seed of its repeat, the default threads and its name.
// Throws ConfigError (the parser's reason) when the configuration is refused.
sweep::PlannedTrial planTrial(const sweep::Spec& spec, const sweep::TrialPoint& point,
                              const std::vector<std::string>& baseArgs, const TrialDefaults& defaults) {
    sweep::PlannedTrial t;
    t.id = point.id;
    t.point = point.point;
    t.repeat = point.repeat;
    t.args = baseArgs;
    t.parameters = nlohmann::json::object();
    for (std::size_t i = 0; i < point.values.size(); ++i) {
        t.args.push_back(optionArg(spec.parameters[i], point.values[i]));
        t.parameters[spec.parameters[i].name] = point.values[i].value;
    }
    t.name =
        pointText(spec, point.values) + (spec.repeats > 1 ? " (repeat " + std::to_string(point.repeat + 1) + ")" : "");
    ParsedTrain parsed = parseTrainArgs(t.args);
    if (point.repeat > 0) t.args.push_back("--seed=" + std::to_string(parsed.options.seed + point.repeat));
    const bool threadsGiven =
        std::any_of(t.args.begin(), t.args.end(), [](const std::string& a) { return a.rfind("--threads", 0) == 0; });
    if (defaults.threads && !threadsGiven) t.args.push_back("--threads=" + std::to_string(*defaults.threads));
    t.args.push_back("--name=" + t.name);
    t.config = parseTrainArgs(t.args).config;
    return t;
}

// A metric of the validation rows needs a validation split in some trial: else every trial would
// train and the sweep end with no best ("Best: none yet"). Refused before anything runs.
// (A bayes sweep, whose trials come later, is checked on its base.)
void checkTheMetricIsMeasured(const sweep::Spec& spec, const std::vector<RunConfig>& configs) {
    if (spec.metric.name.rfind("val_", 0) != 0) return;
    for (const auto& c : configs)
        if (c.prepare.valSplit > 0) return;
    throw ConfigError(sweep::specMessage(spec.file, spec.metricLine, "metric.name",
                                         spec.metric.name +
                                             " is measured on the validation rows, and no trial holds any: give "
                                             "the sweep --val-split (0.2 holds out a fifth)"));
}

// Early termination needs a rung before some trial's last epoch: else it would change nothing.
void checkTheRungsAreReached(const sweep::Spec& spec, const std::vector<RunConfig>& configs) {
    if (!spec.earlyTerminate) return;
    int longest = 0;
    for (const auto& c : configs) longest = std::max(longest, c.train.epochs);
    if (!sweep::rungEpochs(*spec.earlyTerminate, longest).empty()) return;
    throw ConfigError(sweep::specMessage(spec.file, spec.earlyTerminateLine, "early_terminate",
                                         "its first rung is not before the last epoch of any trial (" +
                                             std::to_string(longest) + " epochs): lower min_iter or train longer"));
}

// How often each value (parameter index, argument) took part in a trial, and in a refused one.
struct ValueTally {
    std::map<std::pair<std::size_t, std::string>, std::pair<int, int>> counts;  // -> {trials, refused}
    std::map<std::pair<std::size_t, std::string>, sweep::ParameterValue> values;

    void count(const std::vector<sweep::ParameterValue>& point, bool refused) {
        for (std::size_t i = 0; i < point.size(); ++i) {
            auto& c = counts[{i, point[i].argument}];
            ++c.first;
            c.second += refused ? 1 : 0;
            values.try_emplace({i, point[i].argument}, point[i]);
        }
    }
};

// The refusal of a sweep with refused trials. A value refused in every trial it is in, and over the
// base alone, is wrong itself (a learning rate of -1): its own line is named. Otherwise the first
// refused combination names `parameters:` (a launch that needs another gemm than some trials give).
[[noreturn]] void refuse(const sweep::Spec& spec, const std::vector<std::string>& baseArgs, const ValueTally& tally,
                         const std::string& firstCombination) {
    for (const auto& [key, c] : tally.counts)
        if (c.second == c.first) checkValue(spec, spec.parameters[key.first], tally.values.at(key), baseArgs, true);
    throw ConfigError(sweep::specMessage(spec.file, spec.parametersLine, "parameters", firstCombination));
}
}  // namespace

std::vector<sweep::PlannedTrial> resolveTrials(const sweep::Spec& spec, const std::vector<std::string>& baseArgs,
                                               const TrialDefaults& defaults) {
    sweep::checkTrialCount(spec);  // from the counts alone: a huge grid is refused before any value is parsed
    try {
        parseTrainArgs(baseArgs);
    } catch (const ConfigError& e) {
        throw ConfigError(std::string("the base options (the `mlpwb train` options given to `mlpwb sweep`): ") +
                          e.what());
    }
    checkEachValue(spec, baseArgs);
    std::vector<sweep::PlannedTrial> trials;
    ValueTally tally;
    std::string firstCombination;
    for (const auto& point : sweep::expandTrials(spec)) {
        try {
            trials.push_back(planTrial(spec, point, baseArgs, defaults));
            tally.count(point.values, false);
        } catch (const ConfigError& e) {
            tally.count(point.values, true);
            if (firstCombination.empty())
                firstCombination = "the combination " + pointText(spec, point.values) + " is refused: " + e.what();
        }
    }
    if (!firstCombination.empty()) refuse(spec, baseArgs, tally, firstCombination);
    std::vector<RunConfig> configs;  // as planTrial wrote them; the base for a bayes sweep
    configs.reserve(trials.size() + 1);
    for (const auto& t : trials) configs.push_back(t.config.get<RunConfig>());
    if (trials.empty()) configs.push_back(parseTrainArgs(baseArgs).config);
    checkTheMetricIsMeasured(spec, configs);
    checkTheRungsAreReached(spec, configs);
    return trials;
}

sweep::PlannedTrial planSuggestedTrial(const sweep::Spec& spec, int id, const nlohmann::json& suggestion,
                                       const std::vector<std::string>& baseArgs, const TrialDefaults& defaults) {
    sweep::PlannedTrial t = planTrial(spec, {id, id, 0, sweep::suggestedPoint(spec, suggestion)}, baseArgs, defaults);
    t.suggestion = suggestion;
    return t;
}

std::string sweepPython(const std::vector<std::string>& baseArgs) {
    return resolvePython(parseTrainArgs(baseArgs, false).config.framework.python);
}

}  // namespace wb::cli
