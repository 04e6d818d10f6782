// CSV reader: header and delimiter detection, quoted fields, CRLF, UTF-8 BOM, string labels.
#pragma once

#include <string>
#include <string_view>

#include "core/data/data_source.h"
#include "core/data/task.h"

namespace wb {

// Loads `path` as a data set, its label column coded for `task` (label_coding.h). Throws DataError
// naming file, line, column and text on bad input.
Dataset readCsv(const std::string& path, const CsvOptions& options, TaskChoice task = TaskChoice::Auto);

// The same for CSV text already in memory; `name` stands for the file in errors and Dataset::source.
Dataset parseCsv(std::string_view bytes, const std::string& name, const CsvOptions& options,
                 TaskChoice task = TaskChoice::Auto);

}  // namespace wb
