// What the fuzz targets do with one input, shared with tst_fuzz_regressions so that a stored crash
// input is replayed exactly as the fuzzer ran it. Each feed function passes the bytes to a reader
// through its in-memory entry point, in every way the target tries; it returns when each call either
// loaded or refused the input with DataError / ConfigError, and throws std::logic_error when a loaded
// result breaks the reader's promises. Any other exception propagates (the fuzzer reports a crash).
#pragma once

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/csv_reader.h"
#include "core/data/npy_io.h"
#include "core/measure/ablation_result.h"
#include "core/model/model.h"
#include "core/model/safetensors.h"
#include "core/platform/errors.h"
#include "core/platform/json_file.h"
#include "core/run/run_record.h"

namespace wb::fuzz {

// Runs `load`; false when it refused the input with an expected error.
template <typename F>
bool loadsOrRefuses(F&& load) {
    try {
        load();
        return true;
    } catch (const DataError&) {
        return false;
    } catch (const ConfigError&) {
        return false;
    }
}

inline void require(bool ok, const std::string& what) {
    if (!ok) throw std::logic_error("broken promise: " + what);
}

// The promises of every loaded Dataset: a consistent shape, finite features, finite labels that
// are 0 or 1 for a binary task and a class index for a multiclass one.
inline void checkDataset(const Dataset& d) {
    require(d.rows > 0 && d.cols > 0, "a data set has rows and feature columns");
    require(d.features.size() == d.rows * d.cols, "features hold rows x cols values");
    require(d.labels.size() == d.rows, "one label per row");
    require(d.columnNames.size() == d.cols, "one name per feature column");
    require(!d.hash.empty(), "the hash is filled in");
    for (const float x : d.features) require(std::isfinite(x), "features are finite");
    for (const float y : d.labels) require(std::isfinite(y), "labels are finite");
    if (d.task == Task::Regression) return;
    require(d.classNames.size() >= 2 && d.classNames.size() <= kMaxClasses, "2 to kMaxClasses classes");
    const auto classes = static_cast<float>(d.classNames.size());
    for (const float y : d.labels) require(y >= 0.0f && y < classes && y == std::floor(y), "labels are class indices");
    if (d.task == Task::Binary) require(d.classNames.size() == 2, "a binary task has two classes");
}

// The option sets the CSV target tries on every input: the defaults, then the other header modes,
// delimiters, label and ignored columns by name and index, skipped lines and missing-value policies.
// (Every field is given: assigning a literal to a std::string member trips GCC 12's false -Wrestrict,
// bug 105329, and designated initializers leaving fields out trip -Wmissing-field-initializers.)
inline std::vector<CsvOptions> csvOptionSets() {
    using H = HeaderMode;
    using M = MissingPolicy;
    return {
        CsvOptions{},
        CsvOptions{"0", H::Yes, 0, {"1"}, 0, M::Mean},
        CsvOptions{"", H::No, ';', {}, 1, M::Drop},
        CsvOptions{"label", H::Auto, '\t', {"id", "2"}, 0, M::Error},
        CsvOptions{"type", H::Yes, ',', {}, 0, M::Mean},
        CsvOptions{"1", H::Auto, 0, {}, 2, M::Drop},
    };
}

inline void feedCsv(std::string_view bytes) {
    for (const CsvOptions& options : csvOptionSets()) {
        Dataset d;
        if (loadsOrRefuses([&] { d = parseCsv(bytes, "fuzz.csv", options); })) checkDataset(d);
    }
    // Every task the user can ask for, with the default options.
    for (const TaskChoice task : {TaskChoice::Binary, TaskChoice::Multiclass, TaskChoice::Regression}) {
        Dataset d;
        if (loadsOrRefuses([&] { d = parseCsv(bytes, "fuzz.csv", {}, task); })) checkDataset(d);
    }
}

inline void checkArray(const NpyArray& a) {
    require(a.shape.size() == 1 || a.shape.size() == 2, "an array is 1-D or 2-D");
    std::size_t count = 1;
    for (const std::size_t n : a.shape) count *= n;
    require(a.data.size() == count, "the data holds the product of the shape");
}

// One array; the same bytes as a single-file data set; and, when a second .npy file follows the
// first (the magic string again), the two as features and labels.
inline void feedNpy(std::string_view bytes) {
    NpyArray a;
    if (loadsOrRefuses([&] { a = parseNpy(bytes, "fuzz.npy"); })) checkArray(a);
    Dataset d;
    if (loadsOrRefuses([&] { d = parseNpyDataset(bytes, "fuzz.npy", {}, ""); })) checkDataset(d);
    const std::size_t second = bytes.find(std::string_view("\x93NUMPY", 6), 1);
    if (second == std::string_view::npos) return;
    if (loadsOrRefuses([&] { d = parseNpyDataset(bytes.substr(0, second), "x.npy", bytes.substr(second), "y.npy"); }))
        checkDataset(d);
}

// Loaded weights must fit the model their own widths describe; against the founding model they fit
// or are refused with ConfigError.
inline void feedSafetensors(std::string_view bytes) {
    MlpParams p;
    if (!loadsOrRefuses([&] { p = parseSafetensors(bytes, "fuzz.safetensors"); })) return;
    const std::vector<int> widths = p.widths();
    require(widths.size() >= 2 && widths.back() >= 1 && static_cast<std::size_t>(widths.back()) <= kMaxClasses,
            "the widths run from the inputs to 1..kMaxClasses outputs");
    std::size_t count = 0;
    for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
        require(widths[i] > 0, "every width is positive");
        count += static_cast<std::size_t>(widths[i] + 1) * static_cast<std::size_t>(widths[i + 1]);
    }
    require(p.count() == count, "one value per weight and bias");
    ModelSpec own;
    own.hidden.assign(widths.begin() + 1, widths.end() - 1);
    own.outputs = widths.back();
    checkParamsMatch(p, own, static_cast<std::size_t>(widths.front()));  // must not throw
    loadsOrRefuses([&] { checkParamsMatch(p, ModelSpec{}, 61); });
}

// The JSON loaders of the GUI and the CLI: a RunRecord and an ablation result from the same bytes.
inline void feedJsonRecords(std::string_view bytes) {
    const std::string text(bytes);
    RunRecord r;
    if (loadsOrRefuses([&] { r = RunRecord::fromJson(parseJsonText(text, "fuzz.json", "run record")); })) {
        (void)r.summary();
        (void)r.toJson().dump();
    }
    AblationResult a;
    if (loadsOrRefuses([&] { a = AblationResult::fromJson(parseJsonText(text, "fuzz.json", "ablation result")); }))
        (void)a.toJson().dump();
}

}  // namespace wb::fuzz
