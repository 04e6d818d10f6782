#include "epoch_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "errors.h"

namespace wb {

namespace {

// The line is formatted by hand: building a nlohmann::json object per epoch (a dozen map nodes) and
// dumping it was most of what recording an epoch cost. The keys and numbers are those of
// to_json(EpochMetrics) (shortest round-trip numbers, null for what is not finite or not measured),
// so the line reads back through from_json like any other.
class LineWriter {
public:
    explicit LineWriter(std::string& out) : out_(out) { out_.assign("{"); }
    void key(const char* name) {
        if (out_.size() > 1) out_ += ',';
        out_ += '"';
        out_ += name;
        out_ += "\":";
    }
    void number(const char* name, double v) {
        key(name);
        if (!std::isfinite(v)) {
            out_ += "null";
            return;
        }
        char text[32];
        const auto end = std::to_chars(text, text + sizeof text, v).ptr;
        out_.append(text, end);
    }
    void number(const char* name, const std::optional<double>& v) {
        if (v) return number(name, *v);
        key(name);
        out_ += "null";
    }
    void boolean(const char* name, bool v) {
        key(name);
        out_ += v ? "true" : "false";
    }
    void raw(const char* text) { out_ += text; }
    void end() { out_ += "}\n"; }

private:
    std::string& out_;
};

void formatLine(const EpochMetrics& m, std::string& line) {
    LineWriter w(line);
    w.number("epoch", m.epoch);
    w.boolean("warmup", m.warmup);
    w.number("train_loss", m.trainLoss);
    w.number("train_accuracy", m.trainAccuracy);
    w.number("val_loss", m.valLoss);
    w.number("val_accuracy", m.valAccuracy);
    w.number("wall_ms", m.wallMs);
    w.number("device_ms", m.deviceMs);
    w.number("samples_per_s", m.samplesPerSecond);
    w.key("phases_ms");
    if (m.phases) {
        std::string inner;
        LineWriter p(inner);
        p.number("data", m.phases->data);
        p.number("forward", m.phases->forward);
        p.number("backward", m.phases->backward);
        p.number("optimizer", m.phases->optimizer);
        p.number("other", m.phases->other);
        inner += '}';
        w.raw(inner.c_str());
    } else {
        w.raw("null");
    }
    w.number("elapsed_ms", m.elapsedMs);
    w.end();
}

}  // namespace

EpochJournal::EpochJournal(const std::string& recordPath) {
    if (recordPath.empty()) return;
    path_ = pathFor(recordPath);
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) throw IoError("cannot write the epoch journal '" + path_ + "': " + std::strerror(errno));
}

EpochJournal::~EpochJournal() {
    if (fd_ >= 0) ::close(fd_);
}

void EpochJournal::append(const EpochMetrics& m) {
    if (fd_ < 0) return;
    formatLine(m, line_);
    // One write(2) per line, no stdio buffer in between: once it returns the line is the kernel's,
    // and a kill -9 cannot lose it (a power cut can; the record is fsynced at status changes).
    std::size_t done = 0;
    while (done < line_.size()) {
        const ssize_t n = ::write(fd_, line_.data() + done, line_.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw IoError("cannot write the epoch journal '" + path_ + "': " + std::strerror(n < 0 ? errno : ENOSPC));
        done += static_cast<std::size_t>(n);
    }
}

void EpochJournal::discard() {
    if (fd_ < 0) return;
    ::close(fd_);
    fd_ = -1;
    std::remove(path_.c_str());
}

std::string EpochJournal::pathFor(const std::string& recordPath) {
    return recordPath + ".epochs.jsonl";
}

std::vector<EpochMetrics> EpochJournal::read(const std::string& recordPath) {
    std::vector<EpochMetrics> epochs;
    std::ifstream in(pathFor(recordPath));
    for (std::string line; std::getline(in, line);) {
        try {
            epochs.push_back(nlohmann::json::parse(line).get<EpochMetrics>());
        } catch (const std::exception&) {
            break;  // a torn line: the epoch in flight when the run was killed
        }
    }
    return epochs;
}

}  // namespace wb
