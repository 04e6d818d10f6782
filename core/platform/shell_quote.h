// Words for a POSIX shell (sh, dash, bash): every command line the workbench writes into a script (the
// SLURM batch script) or prints for pasting (`mlpwb sweep --dry-run`, `mlpwb verify --isolate`'s
// children) is built here, so that a value such as  x'; touch f; '  stays one argument and runs nothing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wb {

// `word` as one shell word that the shell gives back byte for byte: left as it is when every byte is
// one of A-Z a-z 0-9 _ @ % + = : , . / - and it does not start with = (nothing a shell expands;
// readable), else in single quotes
// with each ' written as '\'' ; the empty string is ''. Newlines, tabs and bytes that are not UTF-8
// are kept inside the quotes. Throws ConfigError for a NUL byte: no argument can carry one.
std::string shellQuote(std::string_view word);

// `words` as one command line: each quoted as above, joined by spaces. The first word, the program,
// is quoted also where a shell would read it as an assignment (a=b), a job (%1) or a reserved word
// (if, time, ...).
std::string shellCommand(const std::vector<std::string>& words);

}  // namespace wb
