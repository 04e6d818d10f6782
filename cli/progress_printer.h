// Per-epoch output of `mlpwb train`: a progress bar redrawn in place on a terminal, one plain line
// per epoch otherwise (logs, pipes, CI).
#pragma once

#include <cstdio>

#include "core/run/epoch_metrics.h"
#include "core/run/run_record.h"

namespace wb::cli {

class ProgressPrinter {
public:
    ProgressPrinter(std::FILE* out, int totalEpochs, bool quiet);
    void epoch(const EpochMetrics& m);
    // Ends the bar and prints the summary of the run.
    void finish(const RunRecord& record);

private:
    std::FILE* out_;
    int total_;
    bool quiet_;
    bool terminal_;
    bool barOpen_ = false;
    double lastDrawMs_ = 0;  // elapsed time of the run at the last redraw
};

}  // namespace wb::cli
