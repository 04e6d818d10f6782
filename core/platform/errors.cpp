#include "core/platform/errors.h"

namespace wb {

namespace {
std::string describe(const std::string& file, long line, long column, const std::string& text,
                     const std::string& reason) {
    std::string out = file;
    if (line > 0) out.append(":").append(std::to_string(line));
    if (column > 0) out.append(":").append(std::to_string(column));
    out.append(": ").append(reason);
    if (!text.empty()) {
        // Keep the message on one line and short, whatever the bad text was.
        std::string shown = text.substr(0, 60);
        for (char& c : shown)
            if (c == '\n' || c == '\r' || static_cast<unsigned char>(c) < 0x20) c = '?';
        out.append(" ('").append(shown).append(text.size() > 60 ? "...')" : "')");
    }
    return out;
}
}  // namespace

DataError::DataError(std::string file, long line, long column, std::string text, const std::string& reason)
    : Error(describe(file, line, column, text, reason)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      text_(std::move(text)),
      reason_(reason) {}

DataError::DataError(std::string file, const std::string& reason)
    : Error(describe(file, 0, 0, "", reason)), file_(std::move(file)), reason_(reason) {}

}  // namespace wb
