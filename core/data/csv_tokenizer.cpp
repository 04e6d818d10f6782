#include "core/data/csv_tokenizer.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/platform/errors.h"

namespace wb::csv {

namespace {

constexpr std::size_t kSniffBytes = 8192;  // how much of the file the text check looks at
constexpr std::size_t kSniffRecords = 20;  // how many records delimiter detection looks at

constexpr std::uint64_t broadcast(char c) {
    return 0x0101010101010101ULL * static_cast<unsigned char>(c);
}

// High bit set in each byte of `v` that is zero (exact, no false positives: the carry-free form).
constexpr std::uint64_t zeroBytes(std::uint64_t v) {
    constexpr std::uint64_t low7 = 0x7F7F7F7F7F7F7F7FULL;
    return ~(((v & low7) + low7) | v | low7);
}

bool isSpace(char c, char delimiter) {
    return c == ' ' || (c == '\t' && delimiter != '\t');
}

std::string_view trimSpaces(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

}  // namespace

std::string Field::text() const {
    if (!quoted) return std::string(trimSpaces(raw));
    if (!escaped) return std::string(raw);
    std::string out;
    out.reserve(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
        out += raw[i];
        if (raw[i] == '"') ++i;  // "" stands for one quote
    }
    return out;
}

Tokenizer::Tokenizer(std::string_view text, char delimiter, std::string file, long firstLine, std::size_t maxFields)
    : text_(text), delimiter_(delimiter), file_(std::move(file)), maxFields_(maxFields), line_(firstLine) {}

bool Tokenizer::next(std::vector<Field>& fields) {
    fields.clear();
    while (skipBlankLine()) {
    }
    if (pos_ >= text_.size()) return false;

    recordLine_ = line_;
    const std::size_t start = pos_;
    std::size_t end = start;
    for (;;) {
        Field field;
        // Spaces may precede an opening quote; otherwise they belong to the (unquoted) field.
        std::size_t p = pos_;
        while (p < text_.size() && isSpace(text_[p], delimiter_)) ++p;
        if (p < text_.size() && text_[p] == '"') {
            pos_ = p;
            readQuoted(field, fields.size());
        } else {
            readUnquoted(field);
        }
        if (fields.size() == maxFields_)
            throw DataError(file_, recordLine_, static_cast<long>(maxFields_ + 1), "",
                            "more than " + std::to_string(maxFields_) +
                                " columns on one line: refused (--max-columns raises the limit)");
        fields.push_back(field);
        end = pos_;
        if (pos_ < text_.size() && text_[pos_] == delimiter_) {
            ++pos_;
            continue;
        }
        if (endOfRecord()) break;
    }
    recordText_ = text_.substr(start, end - start);
    return true;
}

bool Tokenizer::skipBlankLine() {
    std::size_t p = pos_;
    while (p < text_.size() && isSpace(text_[p], delimiter_)) ++p;
    if (p >= text_.size()) {
        pos_ = p;
        return false;
    }
    if (text_[p] != '\n' && text_[p] != '\r') return false;
    pos_ = p;
    endOfRecord();
    return true;
}

// The hot loop of the reader: finds the end of an unquoted field eight bytes at a time.
void Tokenizer::readUnquoted(Field& field) {
    const char* data = text_.data();
    const std::size_t size = text_.size();
    std::size_t p = pos_;
    const char delimiter = delimiter_;
    for (; p + 8 <= size; p += 8) {
        std::uint64_t word;
        std::memcpy(&word, data + p, 8);
        const std::uint64_t stops = zeroBytes(word ^ broadcast(delimiter)) | zeroBytes(word ^ broadcast('\n')) |
                                    zeroBytes(word ^ broadcast('\r'));
        if (stops) {
            p += static_cast<std::size_t>(std::countr_zero(stops)) / 8;
            field.raw = text_.substr(pos_, p - pos_);
            pos_ = p;
            return;
        }
    }
    while (p < size && data[p] != delimiter && data[p] != '\n' && data[p] != '\r') ++p;
    field.raw = text_.substr(pos_, p - pos_);
    pos_ = p;
}

void Tokenizer::readQuoted(Field& field, std::size_t fieldIndex) {
    const long startLine = line_;
    const std::size_t begin = ++pos_;  // past the opening quote
    for (;;) {
        const std::size_t q = text_.find('"', pos_);
        if (q == std::string_view::npos) {
            throw DataError(file_, startLine, static_cast<long>(fieldIndex + 1),
                            std::string(text_.substr(begin - 1, 40)), "unterminated quoted field");
        }
        line_ += std::count(text_.begin() + pos_, text_.begin() + q, '\n');
        if (q + 1 < text_.size() && text_[q + 1] == '"') {
            field.escaped = true;
            pos_ = q + 2;
            continue;
        }
        field.raw = text_.substr(begin, q - begin);
        field.quoted = true;
        pos_ = q + 1;
        break;
    }
    while (pos_ < text_.size() && isSpace(text_[pos_], delimiter_)) ++pos_;
    if (pos_ < text_.size() && text_[pos_] != delimiter_ && text_[pos_] != '\n' && text_[pos_] != '\r') {
        throw DataError(file_, line_, static_cast<long>(fieldIndex + 1),
                        std::string(text_.substr(begin - 1, pos_ - begin + 2)),
                        "unexpected text after a closing quote");
    }
}

bool Tokenizer::endOfRecord() {
    if (pos_ >= text_.size()) return true;
    if (text_[pos_] == '\r') {
        ++pos_;
        if (pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
        ++line_;
        return true;
    }
    if (text_[pos_] == '\n') {
        ++pos_;
        ++line_;
        return true;
    }
    return false;
}

std::string_view stripBom(std::string_view text) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    return text;
}

void checkLooksLikeText(std::string_view text, const std::string& file) {
    const std::string_view head = text.substr(0, kSniffBytes);
    for (std::size_t i = 0; i < head.size(); ++i) {
        const auto c = static_cast<unsigned char>(head[i]);
        // Tab, line feed, carriage return and form feed occur in text; other control bytes do not.
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') {
            char reason[96];
            std::snprintf(reason, sizeof reason, "not a text file (byte 0x%02X at offset %zu); is it binary?", c, i);
            throw DataError(file, reason);
        }
    }
}

std::string_view skipLines(std::string_view text, std::size_t count, long& line) {
    for (std::size_t i = 0; i < count && !text.empty(); ++i) {
        const std::size_t eol = text.find_first_of("\r\n");
        if (eol == std::string_view::npos) return {};
        std::size_t next = eol + 1;
        if (text[eol] == '\r' && next < text.size() && text[next] == '\n') ++next;
        text.remove_prefix(next);
        ++line;
    }
    return text;
}

bool isBlank(std::string_view text) {
    return std::all_of(text.begin(), text.end(),
                       [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; });
}

namespace {

// Field counts of the first records split with `delimiter`; empty when the text does not tokenize.
std::vector<std::size_t> fieldCounts(std::string_view text, char delimiter) {
    std::vector<std::size_t> counts;
    Tokenizer tokenizer(text, delimiter, "", 1);
    std::vector<Field> fields;
    try {
        while (counts.size() < kSniffRecords && tokenizer.next(fields)) counts.push_back(fields.size());
    } catch (const DataError&) {
        // An unterminated quote is reported later, with the chosen delimiter; keep what was read.
    }
    return counts;
}

}  // namespace

char detectDelimiter(std::string_view text) {
    // Only the first records matter; a bounded prefix keeps detection cheap on large files.
    // (A record cut at the end of the prefix is dropped from the counts.)
    constexpr std::size_t kDelimiterSniffBytes = std::size_t{64} * 1024;
    const bool cut = text.size() > kDelimiterSniffBytes;
    const std::string_view head = text.substr(0, kDelimiterSniffBytes);
    constexpr std::array<char, 3> kPreference = {'\t', ';', ','};

    char best = ',';
    std::size_t bestFirst = 0;
    for (char candidate : kPreference) {
        std::vector<std::size_t> counts = fieldCounts(head, candidate);
        if (cut && counts.size() > 1) counts.pop_back();
        if (counts.empty()) continue;
        const bool consistent =
            std::all_of(counts.begin(), counts.end(), [&](std::size_t n) { return n == counts.front(); });
        if (consistent && counts.front() > 1) return candidate;
        if (counts.front() > bestFirst) {
            bestFirst = counts.front();
            best = candidate;
        }
    }
    return bestFirst > 1 ? best : ',';
}

}  // namespace wb::csv
