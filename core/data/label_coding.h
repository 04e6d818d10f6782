// From the label column as a loader read it to what training needs: the task (chosen by the user,
// or decided here under TaskChoice::Auto) and the labels coded for it. Every loader (CSV, .npy,
// the built-in generator) ends with codeLabels, so one set of rules, and one set of error messages,
// holds for all of them.
//
// Auto decides:
//   two distinct values                                   -> binary, coded 0/1 in sorted order
//   text with 3+ values                                   -> multiclass, classes in sorted order
//   non-negative integers with 3+ values, at least 5 rows
//   per value on average                                  -> multiclass, classes in numeric order
//   any other numbers (fractions, negatives, a value on
//   nearly every row)                                     -> refused, suggesting --task regression
// A regression is never guessed: it takes --task regression.
#pragma once

#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/task.h"

namespace wb {

// The label column before a task gives it meaning.
struct LabelColumn {
    bool text = false;               // text cells (else numbers)
    std::vector<float> values;       // (rows) the numbers, or for text the index into `texts`
    std::vector<std::string> texts;  // text: the distinct cells in order of first appearance
};

// Sets data.task, data.labels, data.classNames, data.labelMapping and data.taskReason from
// `column` (rows = data.rows) and `choice`. Throws DataError(file, ...) naming the column
// (data.labelName) and the problem: a single value, more than kMaxClasses classes, a non-finite
// value, text as a regression target, three or more values for --task binary, numbers that look
// like a regression target under auto.
void codeLabels(LabelColumn column, TaskChoice choice, const std::string& file, Dataset& data);

}  // namespace wb
