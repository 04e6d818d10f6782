// CSV reader: header and delimiter detection, quoted fields, CRLF, UTF-8 BOM, string labels.
#pragma once

#include <string>
#include <string_view>

#include "data_source.h"

namespace wb {

// Loads `path` as a data set. Throws DataError naming file, line, column and text on bad input.
Dataset readCsv(const std::string& path, const CsvOptions& options);

// The same for CSV text already in memory; `name` stands for the file in errors and Dataset::source.
Dataset parseCsv(std::string_view bytes, const std::string& name, const CsvOptions& options);

}  // namespace wb
