// One field of a CSV line as the files the workbench writes hold it (RFC 4180): as it is, or quoted
// with its quotes doubled when it holds a comma, a quote or a line break. The one writer of fields
// for the runs', ablations', sweeps' and charts' CSV files; core/data/csv_tokenizer.h reads them back.
#pragma once

#include <string>
#include <string_view>

namespace wb::csv {

std::string field(std::string_view text);

}  // namespace wb::csv
