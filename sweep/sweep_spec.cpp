#include "sweep/sweep_spec.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <set>

#include <yaml-cpp/depthguard.h>  // YAML::DeepRecursion (yaml.h leaves it out)
#include <yaml-cpp/yaml.h>

#include "core/platform/errors.h"
#include "sweep/sweep_metric.h"

namespace wb::sweep {

std::string toString(Method m) {
    return m == Method::Grid ? "grid" : m == Method::Random ? "random" : "bayes";
}
std::string toString(Goal g) {
    return g == Goal::Minimize ? "minimize" : "maximize";
}

std::string optionOf(const std::string& parameterName) {
    std::string option = "--" + parameterName;
    for (char& c : option)
        if (c == '_') c = '-';
    return option;
}

std::string specMessage(const std::string& file, int line, const std::string& key, const std::string& reason) {
    return file + (line > 0 ? ":" + std::to_string(line) : "") + ": " + key + ": " + reason;
}

namespace {

// Parsing one file: its name for messages, and the refusals in one shape.
struct Reader {
    const std::string& file;

    [[noreturn]] void fail(const YAML::Node& at, const std::string& key, const std::string& reason) const {
        throw ConfigError(specMessage(file, lineOf(at), key, reason));
    }
    static int lineOf(const YAML::Node& n) { return n.IsDefined() ? n.Mark().line + 1 : 0; }

    std::string scalar(const YAML::Node& n, const std::string& key) const {
        if (!n.IsScalar()) fail(n, key, "expects a single value");
        return n.Scalar();
    }
    double number(const YAML::Node& n, const std::string& key) const {
        const std::string text = scalar(n, key);
        double v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(v))
            fail(n, key, "expects a number; got '" + text + "'");
        return v;
    }
    // A range's end: within ±2^53, where a double still counts whole numbers one by one (beyond it,
    // 1e17 + 1 == 1e17, and a grid of the range's whole numbers would never reach its end).
    double boundedNumber(const YAML::Node& n, const std::string& key) const {
        const double v = number(n, key);
        if (std::fabs(v) >= kMaxRangeMagnitude)
            fail(n, key,
                 "'" + n.Scalar() +
                     "' is beyond 2^53 (9007199254740992), where numbers no longer count one by one; "
                     "give values: [...] instead");
        return v;
    }
    long long integer(const YAML::Node& n, const std::string& key, long long lo, long long hi) const {
        const std::string text = scalar(n, key);
        long long v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc{} || end != text.data() + text.size() || v < lo || v > hi)
            fail(n, key,
                 "expects a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]; got '" + text +
                     "'");
        return v;
    }

    // Each key of a mapping once, and only the known ones.
    void checkKeys(const YAML::Node& map, const std::string& where, const std::set<std::string>& known) const {
        std::set<std::string> seen;
        for (const auto& item : map) {
            const std::string key = scalar(item.first, where);
            const std::string path =
                where.empty() ? key : where + "." + key;  // NOLINT(performance-inefficient-string-concatenation)
            if (!known.count(key)) {
                std::string list;
                for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
                fail(item.first, path, "unknown key (known: " + list + ")");
            }
            if (!seen.insert(key).second) fail(item.first, path, "given twice");
        }
    }

    // W&B's early_terminate: the rungs from min_iter, or from max_iter and s; eta 3 by default.
    EarlyTermination earlyTermination(const YAML::Node& n) const {
        const std::string key = "early_terminate";
        if (!n.IsMap()) fail(n, key, "expects {type: hyperband, min_iter: 3, eta: 3}");
        checkKeys(n, key, {"type", "min_iter", "max_iter", "s", "eta", "strict"});
        if (!n["type"]) fail(n, key + ".type", "missing: hyperband");
        if (scalar(n["type"], key + ".type") != "hyperband")
            fail(n["type"], key + ".type",
                 "unknown type '" + n["type"].Scalar() + "' (hyperband, the one W&B defines)");
        EarlyTermination e;
        if (const auto v = n["eta"]) e.eta = static_cast<int>(integer(v, key + ".eta", 2, 1000));
        if (const auto v = n["min_iter"]) e.minIter = static_cast<int>(integer(v, key + ".min_iter", 1, 1000000));
        if (const auto v = n["max_iter"]) e.maxIter = static_cast<int>(integer(v, key + ".max_iter", 1, 1000000));
        if (const auto v = n["s"]) e.s = static_cast<int>(integer(v, key + ".s", 1, 30));
        if (e.minIter == 0 && (e.maxIter == 0 || e.s == 0))
            fail(n, key, "needs min_iter (the first rung's epochs), or max_iter and s (rungs at max_iter / eta^s ..)");
        if (e.minIter > 0 && e.maxIter > 0 && e.minIter > e.maxIter)
            fail(n["min_iter"], key + ".min_iter", "is beyond max_iter: no rung is left");
        return e;
    }

    ParameterValue value(const YAML::Node& n, const Parameter& p) const {
        const std::string key = "parameters." + p.name;
        ParameterValue v;
        v.line = lineOf(n);
        if (n.IsSequence()) {  // a list option such as layers: [20, 10] -> "20,10"
            if (n.size() == 0) fail(n, key, "an empty list is no value");
            for (const auto& item : n) v.argument += (v.argument.empty() ? "" : ",") + scalar(item, key);
            v.value = v.argument;  // shown as the option's own text
            return v;
        }
        if (!n.IsScalar()) fail(n, key, "expects a value or a list of values");
        v.argument = n.Scalar();
        v.value = typed(v.argument, n.Tag() == "!");  // "!": quoted, always text
        if (p.flag) {
            if (!v.value.is_boolean()) fail(n, key, "is an on/off option: its values are true or false");
            v.argument = v.value.get<bool>() ? "true" : "false";
        }
        return v;
    }

    // The JSON a scalar stands for: a whole number, a number, true/false, or text.
    static nlohmann::json typed(const std::string& text, bool quoted) {
        if (quoted) return text;
        long long i = 0;
        const char* end = text.data() + text.size();
        if (auto [p, ec] = std::from_chars(text.data(), end, i); ec == std::errc{} && p == end) return i;
        double d = 0;
        if (auto [p, ec] = std::from_chars(text.data(), end, d); ec == std::errc{} && p == end && std::isfinite(d))
            return d;
        if (text == "true" || text == "True") return true;
        if (text == "false" || text == "False") return false;
        return text;
    }

    Parameter parameter(const YAML::Node& nameNode, const YAML::Node& body, const OptionLookup& options) const {
        Parameter p;
        p.name = scalar(nameNode, "parameters");
        p.line = lineOf(nameNode);
        p.option = optionOf(p.name);
        const std::string key = "parameters." + p.name;
        if (body.IsMap() && body["parameters"])
            fail(body, key + ".parameters",
                 "nested parameters set keys of a W&B run's config; here each parameter is an option of "
                 "`mlpwb train`, so give them at the top level");
        const OptionInfo info = options(p.option);
        if (!info.known) fail(nameNode, key, "unknown parameter: `mlpwb train` has no option " + p.option);
        if (!info.refusal.empty()) fail(nameNode, key, info.refusal);
        p.flag = info.flag;
        if (!body.IsMap())
            fail(body, key, "expects a mapping: {values: [...]}, {value: x}, {min: a, max: b} or {distribution: ...}");
        checkKeys(body, key, {"values", "value", "min", "max", "distribution", "mu", "sigma", "q"});
        const std::string kind = body["distribution"] ? scalar(body["distribution"], key + ".distribution") : "";
        if (body["values"] || kind == "categorical") {
            only(body, key, {"values", "distribution"}, "a list of values (categorical)");
            const auto values = body["values"];
            if (!values) fail(body, key, "distribution: categorical needs values: [...]");
            if (!values.IsSequence()) fail(values, key + ".values", "expects a list [a, b, ...]");
            if (values.size() == 0) fail(values, key + ".values", "an empty list: the sweep would have no trial");
            for (const auto& v : values) p.values.push_back(value(v, p));
        } else if (body["value"] || kind == "constant") {
            only(body, key, {"value", "distribution"}, "one value (constant)");
            if (!body["value"]) fail(body, key, "distribution: constant needs value: x");
            p.values.push_back(value(body["value"], p));
        } else {
            p.draw = draw(body, key, p);
        }
        return p;
    }

    // Only `allowed` keys beside a form that takes nothing else.
    void only(const YAML::Node& body, const std::string& key, const std::set<std::string>& allowed,
              const std::string& form) const {
        for (const auto& item : body)
            if (!allowed.count(item.first.Scalar()))
                fail(item.first, key + "." + item.first.Scalar(), "does not apply to " + form);
    }

    // A distribution's kind and arguments; the kind inferred from min and max when not given (whole
    // ends: int_uniform, else uniform), as W&B does.
    Draw draw(const YAML::Node& body, const std::string& key, const Parameter& p) const {
        if (p.flag) fail(body, key, "is an on/off option: give values: [true, false]");
        Draw d;
        const bool whole = body["min"] && body["max"] && isWhole(body["min"]) && isWhole(body["max"]);
        if (const auto kind = body["distribution"]) {
            const std::string name = scalar(kind, key + ".distribution");
            const auto known = distributionFromName(name);
            if (!known)
                fail(kind, key + ".distribution",
                     "unknown distribution '" + name + "' (constant, categorical, " + distributionNames() + ")");
            d.distribution = *known;
        } else if (body["mu"] || body["sigma"]) {
            fail(body, key, "mu and sigma need a distribution: normal, q_normal, log_normal or q_log_normal");
        } else {
            d.distribution = whole ? Distribution::IntUniform : Distribution::Uniform;
        }
        const std::string what = toString(d.distribution);
        if (takesRange(d.distribution)) {
            only(body, key, {"min", "max", "distribution", "q"}, what);
            if (!body["min"] || !body["max"]) fail(body, key, "a " + what + " range needs both min and max");
            d.min = boundedNumber(body["min"], key + ".min");
            d.max = boundedNumber(body["max"], key + ".max");
            if (d.min > d.max) fail(body["min"], key, "min is greater than max");
            if (takesValueRange(d.distribution) && d.min <= 0)
                fail(body["min"], key + ".min", "a " + what + " range needs min > 0 (min and max are values)");
            if (d.distribution == Distribution::IntUniform && !whole)
                fail(body, key, "an int_uniform range needs whole-number min and max");
        } else {
            only(body, key, {"mu", "sigma", "distribution", "q"}, what);
            if (const auto mu = body["mu"]) d.mu = boundedNumber(mu, key + ".mu");
            if (const auto sigma = body["sigma"]) d.sigma = boundedNumber(sigma, key + ".sigma");
            if (!(d.sigma > 0)) fail(body["sigma"], key + ".sigma", "a " + what + " needs sigma > 0");
        }
        if (const auto q = body["q"]) {
            if (!isQuantized(d.distribution)) fail(q, key + ".q", "applies to the q_ distributions only");
            d.q = boundedNumber(q, key + ".q");
            d.wholeQ = isWhole(q);
            if (!(d.q > 0)) fail(q, key + ".q", "q must be > 0");
        }
        checkBounds(body, key, d);
        return d;
    }

    // What a bounded kind draws must be a number a parameter can take: finite, and within ±2^53 where
    // it is drawn whole (exp(1000) from log_uniform's max: 1000, an exponent, is neither).
    void checkBounds(const YAML::Node& body, const std::string& key, const Draw& d) const {
        const auto bounds = drawnBounds(d);
        if (!bounds || drawsFitAParameter(d, bounds->first, bounds->second)) return;
        std::string hint;
        if (d.distribution == Distribution::LogUniform || d.distribution == Distribution::QLogUniform)
            hint = " (its min and max are natural-log exponents, as in W&B; for values write " +
                   toString(d.distribution) + "_values)";
        fail(body, key, "draws values beyond what a parameter can take" + hint);
    }

    // Whether a scalar is written as a whole number ("3", not "3.0"): W&B's int_uniform and whole q.
    bool isWhole(const YAML::Node& n) const {
        if (!n.IsScalar()) return false;
        long long v = 0;
        const std::string& text = n.Scalar();
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        return ec == std::errc{} && end == text.data() + text.size();
    }

    Metric metric(const YAML::Node& n) const {
        if (!n.IsMap()) fail(n, "metric", "expects {name: ..., goal: minimize|maximize}");
        checkKeys(n, "metric", {"name", "goal", "target"});
        Metric m;
        if (!n["name"]) fail(n, "metric", "needs a name");
        m.name = scalar(n["name"], "metric.name");
        if (!isMetricName(m.name))
            fail(n["name"], "metric.name", "unknown metric '" + m.name + "' (" + metricNames() + ")");
        if (const auto goal = n["goal"]) {
            const std::string g = scalar(goal, "metric.goal");
            if (g != "minimize" && g != "maximize") fail(goal, "metric.goal", "expects minimize or maximize");
            m.goal = g == "minimize" ? Goal::Minimize : Goal::Maximize;
        } else {
            m.goal = defaultGoal(m.name);
        }
        if (const auto target = n["target"]) m.target = number(target, "metric.target");
        return m;
    }
};

// The checks that need the whole file: the method against the parameters.
void checkWhole(const Spec& spec, const Reader& r, const YAML::Node& root) {
    if (spec.parameters.empty()) r.fail(root["parameters"] ? root["parameters"] : root, "parameters", "no parameter");
    if (spec.method == Method::Grid) {
        if (spec.runCap) r.fail(root["run_cap"], "run_cap", "applies to method: random (a grid runs every point)");
        for (const auto& p : spec.parameters)
            if (p.draw && p.draw->distribution != Distribution::IntUniform)
                throw ConfigError(
                    specMessage(spec.file, p.line, "parameters." + p.name,
                                "a grid needs discrete values: give values: [...] (or use method: random)"));
    } else if (!spec.runCap) {
        r.fail(root["method"], "run_cap",
               "method: " + toString(spec.method) + " needs run_cap (how many points to " +
                   (spec.method == Method::Random ? "sample)" : "try: the search ends there)"));
    }
    if (spec.method != Method::Bayes) return;
    if (spec.repeats != 1)
        r.fail(root["repeats"], "repeats", "method: bayes tries each suggested point once (give repeats: 1)");
    for (const auto& p : spec.parameters)
        if (p.draw && !takesRange(p.draw->distribution))
            throw ConfigError(specMessage(spec.file, p.line, "parameters." + p.name,
                                          toString(p.draw->distribution) +
                                              " has no bounds, and method: bayes searches within bounds: give min "
                                              "and max with a range distribution (uniform, log_uniform_values, ...)"));
}

// The refusal of what yaml-cpp refused, at its line and column. Its nesting limit (DeepRecursion)
// says only "bad file": that one is said in words.
ConfigError yamlError(const std::string& file, const YAML::Exception& e) {
    const std::string column = e.mark.is_null() ? "" : " (column " + std::to_string(e.mark.column + 1) + ")";
    if (const auto* deep = dynamic_cast<const YAML::DeepRecursion*>(&e))
        return ConfigError(specMessage(
            file, e.mark.line + 1, "YAML",
            "nested too deeply (the parser stops at depth " + std::to_string(deep->depth()) + ")" + column));
    return ConfigError(specMessage(file, e.mark.line + 1, "YAML", e.msg + column));
}

// W&B's keys that name W&B's own things, taken and shown with the reason they change nothing here.
std::vector<IgnoredKey> ignoredKeys(const YAML::Node& root) {
    static const std::pair<const char*, const char*> kReasons[] = {
        {"program", "each trial runs `mlpwb train` with the sweep's options, not a script the file names"},
        {"command", "each trial runs `mlpwb train` with the sweep's options, not a command the file names"},
        {"entity", "a W&B entity: the results stay in the sweep folder"},
        {"project", "a W&B project: the results stay in the sweep folder"},
    };
    std::vector<IgnoredKey> out;
    for (const auto& item : root)
        for (const auto& [key, reason] : kReasons)
            if (item.first.Scalar() == key) out.push_back({key, Reader::lineOf(item.first), reason});
    return out;
}

Spec parseRoot(const YAML::Node& root, const std::string& text, const std::string& file, const OptionLookup& options) {
    const Reader r{file};
    if (!root.IsMap())
        throw ConfigError(specMessage(file, 0, "sweep file", "expects a mapping with method and parameters"));
    r.checkKeys(root, "",
                {"name", "description", "method", "metric", "parameters", "run_cap", "seed", "repeats", "program",
                 "command", "entity", "project", "early_terminate"});
    Spec spec;
    spec.file = file;
    spec.text = text;
    spec.ignored = ignoredKeys(root);
    if (const auto n = root["name"]) spec.name = r.scalar(n, "name");
    if (!root["method"]) r.fail(root, "method", "missing: grid or random");
    const std::string method = r.scalar(root["method"], "method");
    if (method != "grid" && method != "random" && method != "bayes")
        r.fail(root["method"], "method", "unknown method '" + method + "' (grid, random, bayes)");
    spec.method = method == "grid" ? Method::Grid : method == "random" ? Method::Random : Method::Bayes;
    if (const auto n = root["metric"]) {
        spec.metric = r.metric(n);
        spec.metricLine = Reader::lineOf(n);
    }
    if (const auto n = root["early_terminate"]) {
        spec.earlyTerminate = r.earlyTermination(n);
        spec.earlyTerminateLine = Reader::lineOf(n);
        if (const auto strict = n["strict"])
            spec.ignored.push_back({"early_terminate.strict", Reader::lineOf(strict),
                                    "the rule here is asynchronous successive halving, which strict does not change"});
        std::stable_sort(spec.ignored.begin(), spec.ignored.end(),
                         [](const IgnoredKey& a, const IgnoredKey& b) { return a.line < b.line; });
    }
    if (const auto n = root["run_cap"]) spec.runCap = static_cast<int>(r.integer(n, "run_cap", 1, 100000));
    if (const auto n = root["seed"]) spec.seed = static_cast<std::uint64_t>(r.integer(n, "seed", 0, 1LL << 53));
    if (const auto n = root["repeats"]) spec.repeats = static_cast<int>(r.integer(n, "repeats", 1, 1000));
    if (const auto params = root["parameters"]) {
        for (const auto& item : root)  // the line of the key itself (its value's mark may be the next line)
            if (item.first.Scalar() == "parameters") spec.parametersLine = Reader::lineOf(item.first);
        if (!params.IsMap()) r.fail(params, "parameters", "expects a mapping of parameter names");
        std::set<std::string> seen;
        for (const auto& item : params) {
            spec.parameters.push_back(r.parameter(item.first, item.second, options));
            if (!seen.insert(spec.parameters.back().option).second)
                r.fail(item.first, "parameters." + spec.parameters.back().name, "sets the same option as another");
        }
    }
    checkWhole(spec, r, root);
    return spec;
}

// Closes a file descriptor when it goes out of scope.
struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

// Refuses what is not a regular file of at most kMaxSpecFileBytes: a folder, a device (/dev/zero would
// be read until memory runs out), a FIFO (would wait for a writer).
void checkSpecFile(const std::string& path, const struct stat& st) {
    if (S_ISDIR(st.st_mode)) throw ConfigError(path + " is a folder, not a sweep file");
    if (!S_ISREG(st.st_mode)) throw ConfigError(path + " is not a regular file, so not a sweep file");
    if (static_cast<std::uintmax_t>(st.st_size) > kMaxSpecFileBytes)
        throw ConfigError(path + " holds " + std::to_string(st.st_size) + " bytes: a sweep file may hold at most " +
                          std::to_string(kMaxSpecFileBytes) + " (1 MiB)");
}

// The file's text, read only from a regular file and never more than the bound.
std::string readSpecFile(const std::string& path) {
    const auto unreadable = [&path](int error) {
        return ConfigError(specMessage(path, 0, "sweep file", std::string("cannot be read: ") + std::strerror(error)));
    };
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw unreadable(errno);
    checkSpecFile(path, st);  // before opening: opening a device may do something itself
    // O_NONBLOCK: what was swapped for a FIFO since is refused below, not waited on.
    const Fd in{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
    if (in.fd < 0 || ::fstat(in.fd, &st) != 0) throw unreadable(errno);
    checkSpecFile(path, st);
    std::string text(kMaxSpecFileBytes + 1, '\0');
    std::size_t size = 0;
    while (size < text.size()) {  // one byte past the bound: a file that grew since is refused too
        const ssize_t n = ::read(in.fd, text.data() + size, text.size() - size);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw unreadable(errno);
        if (n == 0) break;
        size += static_cast<std::size_t>(n);
    }
    if (size > kMaxSpecFileBytes)
        throw ConfigError(path + " holds more than " + std::to_string(kMaxSpecFileBytes) +
                          " bytes (1 MiB): more than a sweep file may hold");
    text.resize(size);
    return text;
}
}  // namespace

Spec parseSpec(const std::string& text, const std::string& file, const OptionLookup& options) {
    try {
        return parseRoot(YAML::Load(text), text, file, options);
    } catch (const YAML::Exception& e) {  // the parse, or a node of a shape the reader did not expect
        throw yamlError(file, e);
    }
}

Spec loadSpec(const std::string& path, const OptionLookup& options) {
    return parseSpec(readSpecFile(path), path, options);
}

}  // namespace wb::sweep
