#include "json_file.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <system_error>

#include "atomic_file.h"
#include "errors.h"

namespace wb {

namespace {

// Python's json module writes NaN, Infinity and -Infinity for non-finite floats (not JSON), e.g. the loss
// of a peer that diverged. Outside strings they become null, so the file loads and says "not finite".
std::string nonFiniteAsNull(const std::string& text) {
    static const std::array<std::string_view, 3> kWords = {"NaN", "-Infinity", "Infinity"};
    std::string out;
    out.reserve(text.size());
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < text.size())
                out += text[++i];  // an escaped character, e.g. \", never ends the string
            else if (c == '"')
                inString = false;
            continue;
        }
        inString = c == '"';
        const auto word = std::find_if(kWords.begin(), kWords.end(), [&](std::string_view w) {
            return std::string_view(text).substr(i, w.size()) == w;
        });
        if (word == kWords.end()) {
            out += c;
            continue;
        }
        out += "null";
        i += word->size() - 1;
    }
    return out;
}

}  // namespace

void saveJsonAtomically(const nlohmann::json& document, const std::string& path, const std::string& what) {
    // Text from a data file that is not UTF-8 (a Latin-1 label) becomes U+FFFD rather than losing the file.
    writeFileAtomically(path, document.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", what);
}

nlohmann::json loadJsonFile(const std::string& path, const std::string& what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw DataError(path, "cannot open " + what);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    try {
        return nlohmann::json::parse(nonFiniteAsNull(text));
    } catch (const nlohmann::json::exception& e) {
        throw DataError(path, "invalid " + what + ": " + e.what());
    }
}

}  // namespace wb
