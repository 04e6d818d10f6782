// Where a data set comes from, as the user chose it, and the single entry point that loads it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/data/dataset.h"
#include "core/data/task.h"

namespace wb {

enum class HeaderMode { Auto, Yes, No };
enum class MissingPolicy { Error, Drop, Mean };

struct CsvOptions {
    std::string label;  // column name or 0-based index; empty = the last column
    HeaderMode header = HeaderMode::Auto;
    char delimiter = 0;               // ',', ';' or '\t'; 0 = detect
    std::vector<std::string> ignore;  // columns to leave out, by name or 0-based index
    std::size_t skipLines = 0;        // lines skipped before the header / first row
    MissingPolicy missing = MissingPolicy::Error;
    // Records with more fields are refused as they are read (a 25M-column line would otherwise take
    // gigabytes of field bookkeeping before any check). A limit of the reader, not part of the data:
    // not saved in the RunConfig.
    std::size_t maxColumns = kDefaultMaxColumns;
    static constexpr std::size_t kDefaultMaxColumns = 100000;
};

struct DataSpec {
    enum class Kind { Builtin, Csv, Npy };
    Kind kind = Kind::Builtin;
    std::string path;           // CSV file, or .npy features (or features + label column)
    std::string labelsPath;     // .npy labels; empty when the label is the last column of `path`
    std::size_t rows = 100000;  // built-in generator only
    std::uint64_t seed = 1;     // built-in generator only
    CsvOptions csv;
    // What the label column is learned as (label_coding.h): it decides how the column is read, so
    // it belongs to the data; the model's output layer follows from the loaded data's task.
    TaskChoice task = TaskChoice::Auto;
};

Dataset loadDataset(const DataSpec& spec);

void to_json(nlohmann::json& j, const DataSpec& s);
void from_json(const nlohmann::json& j, DataSpec& s);

std::string toString(HeaderMode m);
std::string toString(MissingPolicy m);
HeaderMode headerModeFromString(const std::string& s);        // throws ConfigError
MissingPolicy missingPolicyFromString(const std::string& s);  // throws ConfigError
char delimiterFromString(const std::string& s);               // "auto" | "," | ";" | "tab"

}  // namespace wb
