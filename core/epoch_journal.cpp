#include "epoch_journal.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "errors.h"

namespace wb {

EpochJournal::EpochJournal(const std::string& recordPath) {
    if (recordPath.empty()) return;
    path_ = pathFor(recordPath);
    file_ = std::fopen(path_.c_str(), "w");
    if (!file_) throw IoError("cannot write the epoch journal '" + path_ + "': " + std::strerror(errno));
}

EpochJournal::~EpochJournal() {
    if (file_) std::fclose(file_);
}

void EpochJournal::append(const EpochMetrics& m) {
    if (!file_) return;
    const std::string line = nlohmann::json(m).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
        throw IoError("cannot write the epoch journal '" + path_ + "': " + std::strerror(errno));
}

void EpochJournal::discard() {
    if (!file_) return;
    std::fclose(file_);
    file_ = nullptr;
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
