#include "core/run/epoch_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/platform/errors.h"
#include "core/platform/safe_open.h"

namespace wb {

EpochJournal::EpochJournal(const std::string& recordPath) {
    if (recordPath.empty()) return;
    path_ = pathFor(recordPath);
    // The journal's name is ours, never the user's: a link or a second hard link there is refused,
    // so a record in a folder from elsewhere cannot lead the journal's truncation out of it.
    fd_ = openOwnFile(path_, O_WRONLY | O_CREAT | O_TRUNC, "the epoch journal");
}

EpochJournal::~EpochJournal() {
    if (fd_ >= 0) ::close(fd_);
}

void EpochJournal::append(const EpochMetrics& m) {
    if (fd_ < 0) return;
    line_.clear();
    appendEpochJson(m, line_);
    line_ += '\n';
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
