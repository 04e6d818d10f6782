// What the metric charts' x axis counts: epochs, elapsed seconds, or training samples seen, the
// three ways TensorBoard and W&B users compare runs of different speeds and data sizes.
#pragma once

#include <QString>
#include <cstddef>
#include <optional>
#include <vector>

namespace wb::gui {

struct RunEntry;

enum class XAxis { Epoch, ElapsedTime, SamplesSeen };

QString xAxisLabel(XAxis axis);

// The training rows one epoch of `run` goes through: the record's dataset.train_rows when it says,
// else (a run still training, whose dataset part is written at the end) the samples of its first
// timed epoch, samples/s x wall time, which the trainer computed from exactly that count. nullopt
// when neither is known (a peer record that writes neither).
std::optional<std::size_t> trainRowsOf(const RunEntry& run);

// Where each epoch of `run` sits on `axis`. By time: the recorded elapsed time, or, where a file
// lacks it (older peers write none), the running sum of the epochs' wall times, so keys ascend. By
// samples: epoch x training rows; when the rows are unknown, the epoch number, and `byEpochInstead`
// (when given) is set, so the chart can say so.
std::vector<double> xKeys(const RunEntry& run, XAxis axis, bool* byEpochInstead = nullptr);

}  // namespace wb::gui
