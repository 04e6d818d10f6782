#include "core/platform/shell_quote.h"

#include <algorithm>
#include <array>

#include "core/platform/errors.h"

namespace wb {

namespace {
// The bytes no POSIX shell expands, splits or treats as an operator anywhere in an argument.
bool isPlain(char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
           std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}

// The words a shell reads as syntax in a command's place (bash's list, a superset of POSIX's).
bool isReservedWord(std::string_view word) {
    static constexpr std::array<std::string_view, 19> kReserved = {
        "case", "coproc", "do",     "done", "elif", "else",  "esac",  "fi", "for", "function",
        "if",   "in",     "select", "then", "time", "until", "while", "[[", "]]"};
    return std::find(kReserved.begin(), kReserved.end(), word) != kReserved.end();
}

std::string singleQuoted(std::string_view word) {
    std::string q = "'";
    for (char c : word) q += c == '\'' ? std::string_view("'\\''") : std::string_view(&c, 1);
    return q + "'";
}
}  // namespace

std::string shellQuote(std::string_view word) {
    if (word.find('\0') != std::string_view::npos)
        throw ConfigError("a command-line argument cannot hold a NUL byte: '" +
                          std::string(word.substr(0, word.find('\0'))) + "\\0...'");
    // (A leading = is quoted too: zsh, where a line may be pasted, reads =ls as ls's path.)
    if (!word.empty() && word.front() != '=' && std::all_of(word.begin(), word.end(), isPlain))
        return std::string(word);
    return singleQuoted(word);
}

std::string shellCommand(const std::vector<std::string>& words) {
    std::string line;
    for (std::size_t i = 0; i < words.size(); ++i) {
        std::string word = shellQuote(words[i]);
        // In the program's place, a=b would set a variable, %1 resume a job and `if` open a compound.
        if (i == 0 && word == words[i] &&
            (word.find('=') != std::string::npos || word.front() == '%' || isReservedWord(word)))
            word = singleQuoted(word);
        line += (i == 0 ? "" : " ") + word;
    }
    return line;
}

}  // namespace wb
