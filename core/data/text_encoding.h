// Text from data files as valid UTF-8: a record is JSON, and JSON is UTF-8, but a CSV written by an
// older spreadsheet holds Latin-1 or Windows-1252 bytes (`größer` as 67 72 F6 DF 65 72). Such text is
// decoded, never dropped, and never lets the record's writer fail.
#pragma once

#include <string>
#include <string_view>

namespace wb {

bool isValidUtf8(std::string_view text);

// Every byte as a Windows-1252 character (a superset of Latin-1's printable range: 0x80-0x9F are
// the curly quotes, the euro sign, ...; its five unassigned bytes become U+0080-U+009F as in Latin-1).
std::string cp1252ToUtf8(std::string_view text);

// `text` when it is UTF-8; its CP-1252 decoding otherwise, with `decoded` set to true.
std::string asUtf8(std::string_view text, bool& decoded);

// `text` on one line with its control bytes written as \n, \r, \0, \xNN: for a message about
// them, or for text from a file that goes to a terminal (an escape sequence must not drive it).
std::string visibleText(std::string_view text);

}  // namespace wb
