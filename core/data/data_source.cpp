#include "core/data/data_source.h"

#include <nlohmann/json.hpp>

#include "core/data/builtin_data.h"
#include "core/data/csv_reader.h"
#include "core/data/label_coding.h"
#include "core/data/npy_io.h"
#include "core/platform/errors.h"
#include "core/platform/json_fields.h"

namespace wb {

namespace {

template <typename E>
struct Named {
    E value;
    const char* name;
};

const Named<DataSpec::Kind> kKinds[] = {
    {DataSpec::Kind::Builtin, "builtin"}, {DataSpec::Kind::Csv, "csv"}, {DataSpec::Kind::Npy, "npy"}};
const Named<HeaderMode> kHeaderModes[] = {{HeaderMode::Auto, "auto"}, {HeaderMode::Yes, "yes"}, {HeaderMode::No, "no"}};
const Named<MissingPolicy> kMissingPolicies[] = {
    {MissingPolicy::Error, "error"}, {MissingPolicy::Drop, "drop"}, {MissingPolicy::Mean, "mean"}};
const Named<char> kDelimiters[] = {{0, "auto"}, {',', ","}, {';', ";"}, {'\t', "tab"}};

template <typename E, std::size_t N>
std::string nameOf(const Named<E> (&table)[N], E value) {
    for (const auto& entry : table)
        if (entry.value == value) return entry.name;
    return "?";
}

// Unknown names are refused with the full list, so the user can fix the value in one go.
template <typename E, std::size_t N>
E valueOf(const Named<E> (&table)[N], const std::string& name, const std::string& what) {
    std::string valid;
    for (const auto& entry : table) {
        if (name == entry.name) return entry.value;
        valid += (valid.empty() ? "'" : ", '") + std::string(entry.name) + "'";
    }
    throw ConfigError("unknown " + what + " '" + name + "'; valid values are " + valid);
}

std::string delimiterName(char c) {
    for (const auto& entry : kDelimiters)
        if (entry.value == c) return entry.name;
    return std::string(1, c);
}

void requirePath(const DataSpec& spec) {
    if (spec.path.empty()) throw ConfigError("the data source '" + nameOf(kKinds, spec.kind) + "' needs a file path");
}

void csvToJson(nlohmann::json& j, const CsvOptions& o) {
    j = {{"label", o.label},   {"header", toString(o.header)}, {"delimiter", delimiterName(o.delimiter)},
         {"ignore", o.ignore}, {"skip_lines", o.skipLines},    {"missing", toString(o.missing)}};
}

void csvFromJson(const nlohmann::json& j, CsvOptions& o) {
    o = CsvOptions{};
    o.label = fieldOr(j, "label", o.label);
    if (j.contains("header")) o.header = headerModeFromString(j.at("header").get<std::string>());
    if (j.contains("delimiter")) o.delimiter = delimiterFromString(j.at("delimiter").get<std::string>());
    o.ignore = fieldOr(j, "ignore", o.ignore);
    o.skipLines = fieldOr(j, "skip_lines", o.skipLines);
    if (j.contains("missing")) o.missing = missingPolicyFromString(j.at("missing").get<std::string>());
}

// The generator's 0/1 labels through the same coding as a file's (so --task applies to it too).
Dataset builtin(const DataSpec& spec) {
    Dataset d = generateSeedLike(spec.rows, spec.seed);
    LabelColumn labels;
    labels.values = std::move(d.labels);
    codeLabels(std::move(labels), spec.task, d.source, d);
    d.computeHash();
    return d;
}

}  // namespace

Dataset loadDataset(const DataSpec& spec) {
    switch (spec.kind) {
        case DataSpec::Kind::Builtin: return builtin(spec);
        case DataSpec::Kind::Csv: requirePath(spec); return readCsv(spec.path, spec.csv, spec.task);
        case DataSpec::Kind::Npy: requirePath(spec); return loadNpyDataset(spec.path, spec.labelsPath, spec.task);
    }
    throw ConfigError("unknown data source kind");
}

void to_json(nlohmann::json& j, const DataSpec& s) {
    j = {{"kind", nameOf(kKinds, s.kind)},
         {"path", s.path},
         {"labels_path", s.labelsPath},
         {"rows", s.rows},
         {"seed", s.seed},
         {"task", toString(s.task)}};
    csvToJson(j["csv"], s.csv);
}

void from_json(const nlohmann::json& j, DataSpec& s) {
    s = DataSpec{};
    try {
        if (j.contains("kind")) s.kind = valueOf(kKinds, j.at("kind").get<std::string>(), "data source kind");
        s.path = fieldOr(j, "path", s.path);
        s.labelsPath = fieldOr(j, "labels_path", s.labelsPath);
        s.rows = fieldOr(j, "rows", s.rows);
        s.seed = fieldOr(j, "seed", s.seed);
        if (j.contains("csv")) withinField("csv", [&] { csvFromJson(j.at("csv"), s.csv); });
        if (j.contains("task")) s.task = taskChoiceFromString(j.at("task").get<std::string>());
    } catch (const nlohmann::json::exception& e) {
        // A wrong type (a number where a string belongs, ...) is a configuration mistake, not a crash.
        throw ConfigError(std::string("invalid data description: ") + e.what());
    } catch (const JsonFieldError& e) {
        throw ConfigError(std::string("invalid data description: ") + e.what());
    }
}

std::string toString(HeaderMode m) {
    return nameOf(kHeaderModes, m);
}
std::string toString(MissingPolicy m) {
    return nameOf(kMissingPolicies, m);
}

HeaderMode headerModeFromString(const std::string& s) {
    return valueOf(kHeaderModes, s, "header mode");
}

MissingPolicy missingPolicyFromString(const std::string& s) {
    return valueOf(kMissingPolicies, s, "missing-value policy");
}

char delimiterFromString(const std::string& s) {
    if (s == "\t") return '\t';  // a literal tab, as a shell or a JSON file may pass it
    return valueOf(kDelimiters, s, "delimiter");
}

}  // namespace wb
