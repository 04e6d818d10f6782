#include "gui/runs/run_digest.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/platform/json_file.h"

namespace wb::gui {

namespace {

// One epoch as the digest needs it.
struct EpochTime {
    double wallMs = 0;
    bool warmup = false;
};

// The digest of epochs in order; the last one is given whole.
RunDigest digestFrom(const std::vector<EpochTime>& times, std::optional<EpochMetrics> last, bool regression) {
    RunDigest d;
    d.epochCount = times.size();
    d.regression = regression;
    // RunRecord::summary(): the warm-up left out unless it is all there is; the total in epoch order.
    std::vector<double> timed;
    for (const EpochTime& t : times) {
        d.summary.totalMs += t.wallMs;
        if (!t.warmup) timed.push_back(t.wallMs);
    }
    if (timed.empty())
        for (const EpochTime& t : times) timed.push_back(t.wallMs);
    d.summary.medianEpochMs = median(timed);
    if (!timed.empty()) d.summary.minEpochMs = *std::min_element(timed.begin(), timed.end());
    d.summary.final = std::move(last);
    // timeSpread() of one run: its timed epochs are the non-warm-up ones, or the one epoch there is.
    std::vector<double> spread;
    for (const EpochTime& t : times)
        if (!t.warmup || times.size() == 1) spread.push_back(t.wallMs);
    if (!spread.empty()) {
        d.timedLow = *std::min_element(spread.begin(), spread.end());
        d.timedHigh = *std::max_element(spread.begin(), spread.end());
    }
    return d;
}

// Walks JSON text without building anything: skips whitespace, strings and whole values, and reads
// the few scalars the digest needs. Every method returns false on text it does not expect.
class Skimmer {
public:
    explicit Skimmer(std::string_view text) : text_(text) {}

    std::size_t at() const { return pos_; }
    bool done() const { return pos_ >= text_.size(); }
    char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

    void skipSpace() {
        while (pos_ < text_.size() &&
               (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t'))
            ++pos_;
    }

    bool expect(char c) {
        skipSpace();
        if (peek() != c) return false;
        ++pos_;
        return true;
    }

    // A string; `raw` is its text between the quotes, escapes left as written.
    bool string(std::string_view& raw) {
        skipSpace();
        if (peek() != '"') return false;
        const std::size_t start = ++pos_;
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c == '\\') {
                pos_ += 2;
            } else if (c == '"') {
                raw = text_.substr(start, pos_ - start);
                ++pos_;
                return true;
            } else {
                ++pos_;
            }
        }
        return false;
    }

    // Any value, containers by bracket depth (no recursion: a file cannot make the stack grow).
    bool skipValue() {
        skipSpace();
        const char first = peek();
        if (first == '"') {
            std::string_view ignored;
            return string(ignored);
        }
        if (first != '{' && first != '[') return scalar();
        std::size_t depth = 0;
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c == '"') {
                std::string_view ignored;
                if (!string(ignored)) return false;
                continue;
            }
            ++pos_;
            if (c == '{' || c == '[') ++depth;
            if ((c == '}' || c == ']') && --depth == 0) return true;
        }
        return false;
    }

    bool number(double& value) {
        skipSpace();
        const char* begin = text_.data() + pos_;
        const auto [end, error] = std::from_chars(begin, text_.data() + text_.size(), value);
        if (error != std::errc()) return false;
        pos_ += static_cast<std::size_t>(end - begin);
        return true;
    }

    bool boolean(bool& value) {
        skipSpace();
        for (const bool meaning : {true, false}) {
            const std::string_view word = meaning ? "true" : "false";
            if (text_.substr(pos_, word.size()) != word) continue;
            pos_ += word.size();
            value = meaning;
            return true;
        }
        return false;
    }

    bool isNull() {
        skipSpace();
        return text_.substr(pos_, 4) == "null";
    }

private:
    bool scalar() {
        const std::size_t start = pos_;
        while (pos_ < text_.size() && !endsScalar(text_[pos_])) ++pos_;
        return pos_ > start;
    }

    static bool endsScalar(char c) {
        switch (c) {
            case ',':
            case '}':
            case ']':
            case ' ':
            case '\n':
            case '\r':
            case '\t': return true;
            default: return false;
        }
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

// The members of the object at the skimmer's position: `onMember(key)` reads or skips each value.
template <typename OnMember>
bool members(Skimmer& s, OnMember onMember) {
    if (!s.expect('{')) return false;
    if (s.expect('}')) return true;
    do {
        std::string_view key;
        if (!s.string(key) || !s.expect(':') || !onMember(key)) return false;
    } while (s.expect(','));
    return s.expect('}');
}

struct EpochsSkim {
    std::vector<EpochTime> times;
    std::size_t lastBegin = 0, lastEnd = 0;  // the last epoch's text
    bool regression = false;
};

bool skimEpoch(Skimmer& s, EpochsSkim& skim) {
    EpochTime time;
    bool timed = false;
    const bool ok = members(s, [&](std::string_view key) {
        if (key == "wall_ms") return timed = s.number(time.wallMs);
        if (key == "warmup") return s.boolean(time.warmup);
        if (key == "train_mse" && !s.isNull()) skim.regression = true;
        return s.skipValue();
    });
    // A time the full reader refuses (negative, zero, not finite): it says so, not the skim.
    if (!ok || !timed || !std::isfinite(time.wallMs) || time.wallMs <= 0) return false;
    skim.times.push_back(time);
    return true;
}

bool skimEpochs(Skimmer& s, EpochsSkim& skim) {
    if (!s.expect('[')) return false;
    if (s.expect(']')) return true;
    do {
        s.skipSpace();
        skim.lastBegin = s.at();
        if (!skimEpoch(s, skim)) return false;
        skim.lastEnd = s.at();
    } while (s.expect(','));
    return s.expect(']');
}

}  // namespace

RunDigest digestOf(const RunRecord& record) {
    std::vector<EpochTime> times;
    times.reserve(record.epochs.size());
    bool regression = false;
    for (const EpochMetrics& e : record.epochs) {
        times.push_back({e.wallMs, e.warmup});
        regression = regression || e.trainRegression.has_value();
    }
    std::optional<EpochMetrics> last;
    if (!record.epochs.empty()) last = record.epochs.back();
    return digestFrom(times, std::move(last), regression);
}

std::optional<SkimmedRun> skimRunRecord(std::string_view text, const std::string& name) {
    // The top-level object: every member but "epochs" goes back into a text parsed as usual.
    Skimmer s(text);
    EpochsSkim skim;
    std::size_t epochsBegin = 0, epochsEnd = 0;
    bool sawEpochs = false;
    const bool ok = members(s, [&](std::string_view key) {
        if (key != "epochs") return s.skipValue();
        if (sawEpochs) return false;  // twice: let the full reader decide what that means
        sawEpochs = true;
        s.skipSpace();
        epochsBegin = s.at();
        const bool read = skimEpochs(s, skim);
        epochsEnd = s.at();
        return read;
    });
    s.skipSpace();
    if (!ok || !s.done() || !sawEpochs) return std::nullopt;
    try {
        std::string head(text.substr(0, epochsBegin));
        head += "[]";
        head += text.substr(epochsEnd);
        SkimmedRun run{RunRecord::fromJson(parseJsonText(head, name, "run record")), {}};
        std::optional<EpochMetrics> last;
        if (!skim.times.empty()) {
            const std::string lastText(text.substr(skim.lastBegin, skim.lastEnd - skim.lastBegin));
            last = parseJsonText(lastText, name, "run record").get<EpochMetrics>();
        }
        run.digest = digestFrom(skim.times, std::move(last), skim.regression);
        return run;
    } catch (const std::exception&) {  // DataError, a json type error: the full reader explains it
        return std::nullopt;
    }
}

}  // namespace wb::gui
