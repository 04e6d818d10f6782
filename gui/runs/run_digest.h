// What the runs table shows of a run's epochs, without the epochs: how many, the summary (median,
// fastest, total, the last epoch), the range of its timed epochs (a single run's speed interval) and
// whether it is a regression. The store keeps one per run, current as epochs arrive, so listing,
// sorting and filtering ten thousand runs never walks their epochs.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "core/run/run_record.h"

namespace wb::gui {

struct RunDigest {
    std::size_t epochCount = 0;
    RunSummary summary;  // as RunRecord::summary() computes it
    // The fastest and slowest timed epoch (the warm-up left out unless it is the only epoch), as
    // timeSpread() takes them for one run; null without one.
    std::optional<double> timedLow, timedHigh;
    bool regression = false;  // an epoch has a regression's metrics
};

// From the epochs in memory.
RunDigest digestOf(const RunRecord& record);

// A RunRecord's JSON text skimmed for the table: the record without its epochs (parsed as
// RunRecord::fromJson parses it) and the digest of its epochs, read by a scanner that looks only at
// each epoch's wall time, warm-up flag and regression metric (the last epoch is parsed whole).
// Several times faster than parsing the whole file. nullopt where the text is anything but one
// well-formed record whose epochs all have a positive wall time: the caller reads it whole, which
// says what is wrong. `name` names the file in errors.
struct SkimmedRun {
    RunRecord head;  // epochs empty
    RunDigest digest;
};
std::optional<SkimmedRun> skimRunRecord(std::string_view text, const std::string& name);

}  // namespace wb::gui
