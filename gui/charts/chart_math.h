// The numbers behind the metric charts, apart from any drawing: TensorBoard's smoothing, the band
// over repeats, and the automatic value range that one diverged run cannot flatten for all the others.
#pragma once

#include <optional>
#include <vector>

namespace wb::gui {

// TensorBoard's smoothing: an exponential moving average, last = f * last + (1 - f) * x, started at
// zero and divided by (1 - f^n) after n finite points (the debiasing of Adam's moments), so the
// first points are not pulled towards zero and the first one is its raw value. As TensorBoard does,
// non-finite values pass through unsmoothed and a constant series stays as it is. factor 0 returns
// the values unchanged; factor is clamped to [0, 0.99].
std::vector<double> smoothExponential(const std::vector<double>& values, double factor);

// One point of a band over the repeats of one configuration: the line and the band around it.
struct BandPoint {
    double center = 0, low = 0, high = 0;
};
enum class BandKind {
    MedianRange,   // the median, and the lowest to the highest value
    MeanInterval,  // the mean, and its 95 % confidence interval (Student's t over n - 1 degrees of freedom)
};
// The band of `values` (finite, at least one); one value is its own band.
BandPoint repeatBand(std::vector<double> values, BandKind kind);

struct ValueRange {
    double lower = 0;
    double upper = 0;
};

// The drawn values of one run (train, validation, raw) and whether its status is "diverged".
struct RangeSource {
    std::vector<double> values;
    bool diverged = false;
};

// The value range that shows every run's curve. Non-finite values never count, nor values <= 0 on a
// log axis. The runs that did not diverge count with all their points: they give [lo, hi]. A run
// whose status is "diverged" counts only with its points inside [lo - span, hi + span] (span =
// hi - lo, on a log axis the same as a ratio): its sane epochs are in view, its tail that ran off to
// 1e9 is cut at the frame instead of squashing every other curve into a flat line at the bottom.
// When only diverged runs exist, each is cut at 10x the median of its own finite points (a run
// that blew up late has most of its points sane). nullopt when nothing is left to show.
std::optional<ValueRange> robustValueRange(const std::vector<RangeSource>& sources, bool logScale);

}  // namespace wb::gui
