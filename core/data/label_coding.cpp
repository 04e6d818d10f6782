#include "core/data/label_coding.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <unordered_set>

#include "core/platform/errors.h"

namespace wb {

namespace {

// Under auto, integer labels are classes only when each value has this many rows on average;
// fewer, and the column looks like a measured quantity (a dose, a score) that happens to be whole.
constexpr std::size_t kMinRowsPerClass = 5;

std::string numberName(float v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);  // the shortest text that reads back as v
    return std::string(buf, r.ptr);
}

// "'a', 'b', 'c', ..." : the first few names, for a message.
std::string someNames(const std::vector<std::string>& names) {
    constexpr std::size_t kShown = 4;
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < kShown; ++i) out += (i ? ", '" : "'") + names[i] + "'";
    if (names.size() > kShown) out += ", ...";
    return out;
}

bool isWholeNonNegative(float v) {
    return v >= 0.0f && std::floor(v) == v;
}

// The distinct values of a column in class order and each row's class index.
struct Classes {
    std::vector<std::string> names;  // (K) in class order
    std::vector<float> index;        // (rows) class index per row
    bool identity = false;           // numeric labels that already are 0..K-1
    bool wholeNonNegative = false;   // numeric labels that are all whole and >= 0
};

Classes textClasses(const LabelColumn& column) {
    std::vector<std::size_t> order(column.texts.size());  // text ids sorted by their text
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return column.texts[a] < column.texts[b]; });
    std::vector<float> rank(order.size());  // (distinct texts) text id -> class index
    Classes c;
    for (std::size_t k = 0; k < order.size(); ++k) {
        rank[order[k]] = static_cast<float>(k);
        c.names.push_back(column.texts[order[k]]);
    }
    c.index.reserve(column.values.size());
    for (float v : column.values) c.index.push_back(rank[static_cast<std::size_t>(v)]);
    return c;
}

// The distinct values of `values`, sorted; at most kMaxClasses + 1 of them (one more says "too many"),
// found in one pass with a hash set instead of sorting every row.
std::vector<float> distinctValues(const std::vector<float>& values) {
    std::unordered_set<float> seen;
    for (float v : values)
        if (seen.insert(v).second && seen.size() > kMaxClasses) break;
    std::vector<float> distinct(seen.begin(), seen.end());
    std::sort(distinct.begin(), distinct.end());
    return distinct;
}

Classes numericClasses(const LabelColumn& column) {
    const std::vector<float> distinct = distinctValues(column.values);
    Classes c;
    c.identity = true;
    c.wholeNonNegative = true;
    for (std::size_t k = 0; k < distinct.size(); ++k) {
        c.names.push_back(numberName(distinct[k]));
        c.identity = c.identity && distinct[k] == static_cast<float>(k);
        c.wholeNonNegative = c.wholeNonNegative && isWholeNonNegative(distinct[k]);
    }
    if (distinct.size() > kMaxClasses) return c;  // refused by the caller; no need to index the rows
    c.index.reserve(column.values.size());
    for (float v : column.values) {
        const auto at = std::lower_bound(distinct.begin(), distinct.end(), v) - distinct.begin();
        c.index.push_back(static_cast<float>(at));
    }
    return c;
}

class LabelCoder {
public:
    LabelCoder(const std::string& file, Dataset& data)
        : file_(file), data_(data), column_("the label column '" + data.labelName + "'") {}

    void code(LabelColumn column, TaskChoice choice) {
        if (!column.text) requireFinite(column.values);
        if (choice == TaskChoice::Regression) return regression(std::move(column));
        Classes c = column.text ? textClasses(column) : numericClasses(column);
        const std::size_t k = c.names.size();
        if (k == 1) fail("holds a single value ('" + c.names[0] + "'); a label needs at least two distinct values");
        if (k > kMaxClasses)
            fail("holds more than " + std::to_string(kMaxClasses) + " distinct values (" + someNames(c.names) +
                 "); that is not a class label" +
                 (column.text ? "" : " (for a number to predict, use --task regression)"));
        if (choice == TaskChoice::Binary && k != 2)
            fail("holds " + std::to_string(k) + " values (" + someNames(c.names) +
                 "); a binary label needs exactly two: use --task multiclass (or auto)");
        const Task task = choice == TaskChoice::Binary       ? Task::Binary
                          : choice == TaskChoice::Multiclass ? Task::Multiclass
                                                             : decide(column, c);
        classify(task, column.text, std::move(c), choice == TaskChoice::Auto);
    }

private:
    [[noreturn]] void fail(const std::string& problem) const { throw DataError(file_, column_ + " " + problem); }

    void requireFinite(const std::vector<float>& values) const {
        for (std::size_t i = 0; i < values.size(); ++i)
            if (!std::isfinite(values[i]))
                fail("holds " + numberName(values[i]) + " at row " + std::to_string(i + 1) + "; labels must be finite");
    }

    // Auto on three or more values.
    Task decide(const LabelColumn& column, const Classes& c) const {
        const std::size_t k = c.names.size();
        if (k == 2 || column.text) return k == 2 ? Task::Binary : Task::Multiclass;
        if (c.wholeNonNegative && column.values.size() >= kMinRowsPerClass * k) return Task::Multiclass;
        fail("holds " + std::to_string(k) + " distinct numbers (" + someNames(c.names) +
             "): a quantity to predict rather than classes. Use --task regression to learn it as a number, "
             "or --task multiclass to treat each value as a class.");
    }

    void classify(Task task, bool text, Classes c, bool automatic) {
        data_.task = task;
        data_.labels = std::move(c.index);
        data_.labelMapping.clear();
        if (text || !c.identity)  // the coded labels differ from what the file says
            for (std::size_t k = 0; k < c.names.size(); ++k) data_.labelMapping[c.names[k]] = static_cast<int>(k);
        data_.classNames = std::move(c.names);
        const std::string values =
            std::to_string(data_.classNames.size()) + (text ? " text values" : " numeric values");
        data_.taskReason = automatic ? values + ": " + toString(task) : toString(task) + " as asked, " + values;
    }

    void regression(LabelColumn column) {
        if (column.text)
            fail("holds text ('" + (column.texts.empty() ? std::string() : column.texts[0]) +
                 "'); a regression target must be a number");
        const auto [lo, hi] = std::minmax_element(column.values.begin(), column.values.end());
        if (lo != column.values.end() && *lo == *hi)
            fail("holds a single value (" + numberName(*lo) + "); a regression target needs at least two values");
        data_.task = Task::Regression;
        data_.labels = std::move(column.values);
        data_.labelMapping.clear();
        data_.classNames.clear();
        data_.taskReason = "regression as asked";
    }

    const std::string& file_;
    Dataset& data_;
    std::string column_;
};

}  // namespace

void codeLabels(LabelColumn column, TaskChoice choice, const std::string& file, Dataset& data) {
    LabelCoder(file, data).code(std::move(column), choice);
}

}  // namespace wb
