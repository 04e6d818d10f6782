// CSV -> Dataset: header detection, column roles (features, label, ignored), number parsing,
// label coding and missing values. Splitting the text into fields is csv_tokenizer.cpp.
#include "core/data/csv_reader.h"

#include <algorithm>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "core/data/csv_tokenizer.h"
#include "core/data/file_bytes.h"
#include "core/data/label_coding.h"
#include "core/data/text_encoding.h"
#include "core/platform/errors.h"

namespace wb {

namespace {

using csv::Field;

constexpr int kLabelSlot = -1;
constexpr int kIgnoredSlot = -2;

// ---------------------------------------------------------------------------------------------
// Cells

enum class Cell { Number, Missing, NotNumber, OutOfRange, NotFinite };

std::string_view trimmed(const Field& f) {
    std::string_view s = f.raw;
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

bool equalsNoCase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return (x | 0x20) == (y | 0x20);  // ASCII letters only; '/' is compared as itself
           });
}

bool isMissingMarker(std::string_view s) {
    return s.empty() || equalsNoCase(s, "na") || equalsNoCase(s, "nan") || equalsNoCase(s, "n/a");
}

// float from_chars reports underflow (1e-50) as out of range too; only overflow is an error.
Cell parseOutOfRange(const char* first, const char* last, float& out) {
    double d = 0;
    const auto [ptr, ec] = std::from_chars(first, last, d);
    if (ptr == last && ec == std::errc() && std::fabs(d) <= FLT_MAX) {
        out = static_cast<float>(d);
        return Cell::Number;
    }
    return Cell::OutOfRange;
}

// The hot path: one from_chars on the field's bytes, no copy.
Cell parseNumber(std::string_view s, float& out) {
    const char* first = s.data();
    const char* last = first + s.size();
    if (first != last && *first == '+' && last - first > 1 && first[1] != '-') ++first;
    const auto [ptr, ec] = std::from_chars(first, last, out);
    if (ptr == last && ec == std::errc()) {
        if (std::isfinite(out)) return Cell::Number;
        return isMissingMarker(s) ? Cell::Missing : Cell::NotFinite;
    }
    if (isMissingMarker(s)) return Cell::Missing;
    if (ptr == last && ec == std::errc::result_out_of_range) return parseOutOfRange(first, last, out);
    return Cell::NotNumber;
}

const char* cellProblem(Cell c) {
    switch (c) {
        case Cell::OutOfRange: return "number out of range for float32";
        case Cell::NotFinite: return "not a finite number";
        default: return "not a number";
    }
}

// ---------------------------------------------------------------------------------------------
// Column layout

struct Layout {
    std::size_t columns = 0;  // fields per record
    std::size_t labelColumn = 0;
    std::vector<int> slot;  // per file column: feature index, kLabelSlot or kIgnoredSlot
    std::vector<std::string> featureNames;
    std::string labelName = "label";
};

// "x0", "x1", ... for columns without a name. (Built by appending: GCC 12 warns falsely on "x" + s.)
std::string generatedName(std::size_t index) {
    std::string name = "x";
    name += std::to_string(index);
    return name;
}

std::optional<std::size_t> parseIndex(const std::string& s) {
    std::size_t value = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    return value;
}

std::string listNames(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < 12; ++i) out += (i ? ", " : "") + names[i];
    if (names.size() > 12) out += ", ...";
    return out;
}

// A column given by header name (preferred) or by 0-based index.
std::size_t resolveColumn(const std::string& spec, const std::vector<std::string>& header, std::size_t columns,
                          const std::string& file, const std::string& what) {
    const auto named = std::find(header.begin(), header.end(), spec);
    if (named != header.end()) return static_cast<std::size_t>(named - header.begin());
    if (const auto index = parseIndex(spec)) {
        if (*index < columns) return *index;
        throw DataError(file, what + " column index " + spec + " is out of range: the file has " +
                                  std::to_string(columns) + " columns (0-" + std::to_string(columns - 1) + ")");
    }
    if (header.empty())
        throw DataError(file, what + " column '" + spec + "' not found: the file has no header; give a 0-based index");
    throw DataError(file, what + " column '" + spec + "' not found; the columns are: " + listNames(header));
}

// Auto mode: the first record is a header when a cell that must be a number is not one. The label
// and columns ignored by index are left out of the test, since they may hold text in data rows.
bool looksLikeHeader(const std::vector<Field>& fields, const CsvOptions& options) {
    std::optional<std::size_t> label =
        options.label.empty() ? std::optional<std::size_t>(fields.size() - 1) : parseIndex(options.label);
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (label && *label == i) continue;
        const bool ignored = std::any_of(options.ignore.begin(), options.ignore.end(),
                                         [&](const std::string& s) { return parseIndex(s) == i; });
        float value = 0;
        if (!ignored && (fields[i].escaped || parseNumber(trimmed(fields[i]), value) == Cell::NotNumber)) return true;
    }
    return false;
}

bool hasHeader(const std::vector<Field>& first, const CsvOptions& options) {
    switch (options.header) {
        case HeaderMode::Yes: return true;
        case HeaderMode::No: return false;
        case HeaderMode::Auto: break;
    }
    return looksLikeHeader(first, options);
}

Layout makeLayout(const std::vector<Field>& first, bool header, const CsvOptions& options, const std::string& file) {
    Layout layout;
    layout.columns = first.size();
    std::vector<std::string> names;
    if (header) {
        for (std::size_t i = 0; i < first.size(); ++i) {
            std::string name = first[i].text();
            names.push_back(name.empty() ? generatedName(i) : name);
        }
    }
    layout.labelColumn =
        options.label.empty() ? layout.columns - 1 : resolveColumn(options.label, names, layout.columns, file, "label");
    layout.slot.assign(layout.columns, 0);
    layout.slot[layout.labelColumn] = kLabelSlot;
    for (const std::string& spec : options.ignore) {
        const std::size_t c = resolveColumn(spec, names, layout.columns, file, "ignored");
        if (c == layout.labelColumn)
            throw DataError(file, "column '" + spec + "' is the label column and cannot be ignored");
        layout.slot[c] = kIgnoredSlot;
    }
    for (std::size_t c = 0; c < layout.columns; ++c) {
        if (layout.slot[c] < 0) continue;
        layout.slot[c] = static_cast<int>(layout.featureNames.size());
        layout.featureNames.push_back(header ? names[c] : generatedName(layout.featureNames.size()));
    }
    if (header) layout.labelName = names[layout.labelColumn];
    if (layout.featureNames.empty())
        throw DataError(file, "no feature columns left: the file has " + std::to_string(layout.columns) +
                                  " column(s), one is the label" +
                                  (options.ignore.empty() ? "" : ", the rest ignored"));
    return layout;
}

// ---------------------------------------------------------------------------------------------
// Labels

// Collects the label cells as numbers or as text (codeLabels then gives them their task). The first
// label seen decides which the column is. What can only be told with the line at hand is refused
// here: text after numbers, text as a regression target, a third text value under --task binary,
// more than kMaxClasses text values.
class LabelReader {
public:
    LabelReader(const std::string& file, TaskChoice task) : file_(file), task_(task) {}

    float read(const Field& field, long line, long column) {
        const std::string_view text = trimmed(field);
        if (kind_ == Kind::Unknown) {
            float value = 0;
            kind_ = !field.escaped && parseNumber(text, value) == Cell::Number ? Kind::Numeric : Kind::Text;
        }
        return kind_ == Kind::Numeric ? numeric(field, text, line, column) : textual(field, line, column);
    }

    // The column read so far, with `values` (rows) = what read() returned for each kept row.
    LabelColumn finish(std::vector<float> values) {
        LabelColumn c;
        c.text = kind_ == Kind::Text;
        c.values = std::move(values);
        c.texts = std::move(texts_);
        return c;
    }

private:
    enum class Kind { Unknown, Numeric, Text };

    float numeric(const Field& field, std::string_view text, long line, long column) const {
        float value = 0;
        const Cell kind = field.escaped ? Cell::NotNumber : parseNumber(text, value);
        if (kind == Cell::NotNumber)
            throw DataError(file_, line, column, std::string(text),
                            "label is not a number, unlike the labels above it");
        if (kind != Cell::Number) throw DataError(file_, line, column, std::string(text), cellProblem(kind));
        return value;
    }

    float textual(const Field& field, long line, long column) {
        // Look up without allocating; only an escaped field needs its text built.
        const std::string built = field.escaped ? field.text() : std::string();
        const std::string_view text = field.escaped ? std::string_view(built) : trimmed(field);
        if (const auto found = ids_.find(text); found != ids_.end()) return found->second;
        if (task_ == TaskChoice::Regression)
            throw DataError(file_, line, column, std::string(text), "a regression target must be a number");
        if (task_ == TaskChoice::Binary && texts_.size() == 2)
            throw DataError(file_, line, column, std::string(text),
                            "a third label value; a binary label must hold exactly two values ('" + texts_[0] +
                                "' and '" + texts_[1] + "' so far): use --task multiclass (or auto)");
        if (texts_.size() == kMaxClasses)
            throw DataError(file_, line, column, std::string(text),
                            "more than " + std::to_string(kMaxClasses) + " distinct labels; that is not a class label");
        const auto id = static_cast<float>(texts_.size());
        texts_.emplace_back(text);
        ids_.emplace(texts_.back(), id);
        return id;
    }

    // Heterogeneous lookup, so a string_view finds a std::string key without a copy.
    struct TextHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };

    std::string file_;
    TaskChoice task_;
    Kind kind_ = Kind::Unknown;
    std::vector<std::string> texts_;  // distinct texts in order of first appearance
    std::unordered_map<std::string, float, TextHash, std::equal_to<>> ids_;  // text -> index in texts_
};

// Label texts that are not UTF-8 decoded as CP-1252 before they are sorted into classes, and said
// so in the notes. Two spellings of one label (UTF-8 and Latin-1) would merge: then the bytes are
// kept (written as U+FFFD).
void decodeLabelTexts(LabelColumn& labels, Dataset& d) {
    bool decoded = false;
    std::vector<std::string> texts;
    for (const std::string& t : labels.texts) texts.push_back(asUtf8(t, decoded));
    if (!decoded) return;
    std::vector<std::string> sorted = texts;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return;
    labels.texts = std::move(texts);
    d.notes.emplace_back("labels decoded as Latin-1/CP-1252 (not UTF-8)");
}

// ---------------------------------------------------------------------------------------------
// Rows

// Accumulates converted rows; applies the missing-value policy.
class RowConverter {
public:
    RowConverter(const Layout& layout, MissingPolicy missing, TaskChoice task, const std::string& file,
                 std::size_t rowsHint)
        : layout_(layout),
          missing_(missing),
          task_(task),
          file_(file),
          labelReader_(file, task),
          sums_(layout.featureNames.size(), 0.0),
          counts_(layout.featureNames.size(), 0) {
        features_.reserve(rowsHint * layout.featureNames.size());
        labels_.reserve(rowsHint);
    }

    void add(const std::vector<Field>& fields, long line, std::string_view record) {
        if (fields.size() != layout_.columns) {
            throw DataError(
                file_, line, static_cast<long>(std::min(fields.size(), layout_.columns) + 1), std::string(record),
                "expected " + std::to_string(layout_.columns) + " fields, found " + std::to_string(fields.size()));
        }
        const std::size_t start = features_.size();
        features_.resize(start + layout_.featureNames.size());
        float* row = features_.data() + start;
        std::size_t missingCells = 0;
        for (std::size_t c = 0; c < fields.size(); ++c) {
            const int slot = layout_.slot[c];
            if (slot < 0) continue;
            const Cell kind = fields[c].escaped ? Cell::NotNumber : parseNumber(trimmed(fields[c]), row[slot]);
            if (kind == Cell::Number) {
                if (missing_ == MissingPolicy::Mean) {
                    sums_[slot] += row[slot];
                    ++counts_[slot];
                }
            } else if (kind == Cell::Missing) {
                if (missing_ == MissingPolicy::Error) throwMissing(fields[c], line, c, "missing value");
                row[slot] = std::numeric_limits<float>::quiet_NaN();
                ++missingCells;
            } else {
                throw DataError(file_, line, static_cast<long>(c + 1), fields[c].text(), cellProblem(kind));
            }
        }
        const Field& label = fields[layout_.labelColumn];
        const bool labelMissing = !label.escaped && isMissingMarker(trimmed(label));
        if (labelMissing && missing_ != MissingPolicy::Drop)
            throwMissing(label, line, layout_.labelColumn, "missing label (a label cannot be imputed)");
        if (missing_ == MissingPolicy::Drop && (missingCells > 0 || labelMissing)) {
            features_.resize(start);
            ++droppedRows_;
            return;
        }
        imputedCells_ += missingCells;
        labels_.push_back(labelReader_.read(label, line, static_cast<long>(layout_.labelColumn + 1)));
    }

    Dataset finish(bool header) {
        Dataset d;
        if (labels_.empty()) {
            if (droppedRows_ > 0) throw DataError(file_, "no rows left after dropping rows with missing values");
            throw DataError(file_, header ? "the file has a header but no data rows" : "the file has no data rows");
        }
        if (imputedCells_ > 0) impute();
        d.rows = labels_.size();
        d.cols = layout_.featureNames.size();
        d.features = std::move(features_);
        d.columnNames = layout_.featureNames;
        d.labelName = layout_.labelName;
        LabelColumn labels = labelReader_.finish(std::move(labels_));
        decodeLabelTexts(labels, d);
        codeLabels(std::move(labels), task_, file_, d);
        if (droppedRows_ > 0)
            d.notes.push_back("dropped " + std::to_string(droppedRows_) + " row(s) with missing values");
        if (imputedCells_ > 0)
            d.notes.push_back("imputed " + std::to_string(imputedCells_) +
                              " missing cell(s) with the column mean of the values present");
        return d;
    }

private:
    [[noreturn]] void throwMissing(const Field& f, long line, std::size_t c, const std::string& what) const {
        throw DataError(file_, line, static_cast<long>(c + 1), f.text(),
                        what + "; choose missing = drop or mean to load such rows");
    }

    void impute() {
        const std::size_t cols = layout_.featureNames.size();
        std::vector<float> means(cols);
        for (std::size_t j = 0; j < cols; ++j)
            means[j] = counts_[j] ? static_cast<float>(sums_[j] / static_cast<double>(counts_[j])) : NAN;
        for (std::size_t i = 0; i < features_.size(); ++i) {
            if (!std::isnan(features_[i])) continue;
            const std::size_t j = i % cols;
            if (counts_[j] == 0)
                throw DataError(file_, "column '" + layout_.featureNames[j] + "' has no values to take the mean of");
            features_[i] = means[j];
        }
    }

    const Layout& layout_;
    MissingPolicy missing_;
    TaskChoice task_;
    std::string file_;
    LabelReader labelReader_;
    std::vector<float> features_;  // (rows, cols); NaN marks a cell to impute
    std::vector<float> labels_;    // (rows)
    std::vector<double> sums_;     // (cols) for missing = mean
    std::vector<std::size_t> counts_;
    std::size_t droppedRows_ = 0;
    std::size_t imputedCells_ = 0;
};

// Names that are not UTF-8 are decoded as CP-1252 (see text_encoding.h), and said so.
void decodeNames(Dataset& d) {
    bool names = false;
    for (std::string& name : d.columnNames) name = asUtf8(name, names);
    d.labelName = asUtf8(d.labelName, names);
    if (names) d.notes.emplace_back("column names decoded as Latin-1/CP-1252 (not UTF-8)");
}

}  // namespace

Dataset readCsv(const std::string& path, const CsvOptions& options, TaskChoice task) {
    const FileBytes bytes = readFileBytes(path);
    return parseCsv(bytes.view(), path, options, task);
}

Dataset parseCsv(std::string_view bytes, const std::string& name, const CsvOptions& options, TaskChoice task) {
    std::string_view text = csv::stripBom(bytes);
    if (csv::isBlank(text)) throw DataError(name, "the file is empty");
    csv::checkLooksLikeText(text, name);
    long line = 1;
    text = csv::skipLines(text, options.skipLines, line);
    if (csv::isBlank(text))
        throw DataError(name, "nothing left after skipping " + std::to_string(options.skipLines) + " line(s)");

    const char delimiter = options.delimiter ? options.delimiter : csv::detectDelimiter(text);
    csv::Tokenizer tokenizer(text, delimiter, name, line, options.maxColumns);
    std::vector<Field> fields;
    if (!tokenizer.next(fields)) throw DataError(name, "the file is empty");

    const bool header = hasHeader(fields, options);
    const Layout layout = makeLayout(fields, header, options, name);
    // Records never outnumber lines; counting them is far cheaper than regrowing the vectors. A
    // record of n fields also takes at least n bytes (n - 1 delimiters and a line end), which bounds
    // the hint when a wide first record is followed by many blank lines.
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    RowConverter rows(layout, options.missing, task, name, std::min(lines, text.size() / layout.columns + 1));
    if (!header) rows.add(fields, tokenizer.recordLine(), tokenizer.recordText());
    while (tokenizer.next(fields)) rows.add(fields, tokenizer.recordLine(), tokenizer.recordText());

    Dataset d = rows.finish(header);
    decodeNames(d);
    d.source = name;
    d.computeHash();
    return d;
}

}  // namespace wb
