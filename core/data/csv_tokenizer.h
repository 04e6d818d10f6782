// Private to the CSV reader: splits CSV text held in memory into records of fields without copying.
// Knows RFC 4180 quoting, CRLF, blank lines, delimiter detection and the sanity checks done on the
// raw bytes; knows nothing about numbers, headers or labels (that is csv_reader.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace wb::csv {

// One field of a record. `raw` points into the file text: for a quoted field it is the text between
// the quotes, with any "" pairs still doubled (`escaped` says so), so no copy is made on the hot path.
struct Field {
    std::string_view raw;
    bool quoted = false;
    bool escaped = false;

    // The field's value as a string: "" pairs collapsed; unquoted fields trimmed of spaces.
    std::string text() const;
};

// Iterates over the records of `text`. Blank lines are skipped. Throws DataError on an unterminated
// quote or on text after a closing quote.
class Tokenizer {
public:
    // A record of more than `maxFields` fields throws DataError as soon as it is seen.
    Tokenizer(std::string_view text, char delimiter, std::string file, long firstLine,
              std::size_t maxFields = static_cast<std::size_t>(-1));

    // Reads the next record into `fields` (reusing its storage); false at the end of the text.
    bool next(std::vector<Field>& fields);

    long recordLine() const { return recordLine_; }              // 1-based line the record began on
    std::string_view recordText() const { return recordText_; }  // the record without its line end
    std::size_t offset() const { return pos_; }                  // bytes consumed so far

private:
    bool skipBlankLine();
    void readQuoted(Field& field, std::size_t fieldIndex);
    void readUnquoted(Field& field);
    bool endOfRecord();  // consumes a line end if there is one; true at a line end or end of text

    std::string_view text_;
    char delimiter_;
    std::string file_;
    std::size_t maxFields_;
    std::size_t pos_ = 0;
    long line_;
    long recordLine_ = 0;
    std::string_view recordText_;
};

// Drops a leading UTF-8 byte order mark.
std::string_view stripBom(std::string_view text);

// Throws DataError when the first few KB hold a NUL or a control byte that no text file has.
void checkLooksLikeText(std::string_view text, const std::string& file);

// Skips `count` physical lines; advances `line` (1-based) accordingly.
std::string_view skipLines(std::string_view text, std::size_t count, long& line);

// True when `text` holds nothing but whitespace and line ends.
bool isBlank(std::string_view text);

// Picks ',', ';' or '\t': the one that splits the first records into a consistent number (> 1) of
// fields. When several do, tab and ';' win over ',' (a ';' file often has decimal commas); when none
// does, the one giving the most fields on the first record, so the ragged row is reported later.
char detectDelimiter(std::string_view text);

}  // namespace wb::csv
