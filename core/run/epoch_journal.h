// A RunRecord's epochs as they happen, appended one JSON line each to "<record>.epochs.jsonl", so that
// recording an epoch costs the same at epoch 4,000 as at epoch 1 (the record itself is rewritten only
// when the run starts and when its status changes). RunRecord::load reads the journal of a record
// left "running" (a killed run): every finished epoch survives, at most the one in flight is lost.
#pragma once

#include <string>
#include <vector>

#include "core/run/epoch_metrics.h"

namespace wb {

class EpochJournal {
public:
    // Starts an empty journal beside `recordPath` (empty path: records nothing). Throws IoError.
    explicit EpochJournal(const std::string& recordPath);
    ~EpochJournal();
    EpochJournal(const EpochJournal&) = delete;
    EpochJournal& operator=(const EpochJournal&) = delete;

    // One line in one write(2) (not fsynced: a kill loses nothing the kernel has). Throws IoError.
    void append(const EpochMetrics& m);
    // The record now holds every epoch: the journal goes.
    void discard();

    static std::string pathFor(const std::string& recordPath);
    // The epochs of a journal; a torn last line (a kill mid-write) is left out. Empty when there is none.
    static std::vector<EpochMetrics> read(const std::string& recordPath);

private:
    std::string path_;
    int fd_ = -1;
    std::string line_;  // reused: no allocation per epoch once it has grown
};

}  // namespace wb
