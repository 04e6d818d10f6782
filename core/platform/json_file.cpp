#include "core/platform/json_file.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <system_error>

#include "core/platform/atomic_file.h"
#include "core/platform/errors.h"

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

// Deeper documents are refused before parsing: a parser and the destructors of a DOM recurse once
// per level, and 70,000 levels overflowed the stack. No record needs more than a handful.
constexpr std::size_t kMaxJsonDepth = 64;
constexpr std::uintmax_t kMaxJsonBytes = std::uintmax_t{1} << 30;

// The deepest nesting of [ and { outside strings.
std::size_t nestingDepth(const std::string& text) {
    std::size_t depth = 0, deepest = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

// nlohmann's message less its "[json.exception.parse_error.101] " prefix, which tells a user nothing.
std::string withoutExceptionId(const std::string& message) {
    if (message.rfind("[json.exception.", 0) != 0) return message;
    const auto end = message.find("] ");
    return end == std::string::npos ? message : message.substr(end + 2);
}

}  // namespace

void saveJsonAtomically(const nlohmann::json& document, const std::string& path, const std::string& what,
                        Symlink symlink) {
    // Text from a data file that is not UTF-8 (a Latin-1 label) becomes U+FFFD rather than losing the file.
    writeFileAtomically(path, document.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", what,
                        symlink);
}

nlohmann::json parseJsonText(const std::string& text, const std::string& name, const std::string& what) {
    if (const std::size_t depth = nestingDepth(text); depth > kMaxJsonDepth)
        throw DataError(name, "invalid " + what + ": nested " + std::to_string(depth) + " levels deep (at most " +
                                  std::to_string(kMaxJsonDepth) + ")");
    try {
        // Most documents (ours) have no NaN or Infinity: parsed as they are, without a rewritten copy.
        const bool pythonWords = text.find("NaN") != std::string::npos || text.find("Infinity") != std::string::npos;
        return pythonWords ? nlohmann::json::parse(nonFiniteAsNull(text)) : nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw DataError(name, "invalid " + what + ": " + withoutExceptionId(e.what()));
    }
}

nlohmann::json loadJsonFile(const std::string& path, const std::string& what) {
    // A folder, a FIFO with no writer (it would block) or a device (endless) is refused before opening.
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
        throw DataError(path, "is not a regular file, so it cannot be a " + what);
    if (!ec && std::filesystem::is_regular_file(status) && std::filesystem::file_size(path, ec) > kMaxJsonBytes)
        throw DataError(path,
                        "is larger than " + std::to_string(kMaxJsonBytes >> 20) + " MiB, too large for a " + what);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw DataError(path, "cannot open " + what);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    return parseJsonText(text, path, what);
}

}  // namespace wb
