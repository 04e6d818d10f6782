// mlpwb's exit codes (documented in README.md). Scripts rely on them: never renumber.
#pragma once

namespace wb::cli {

enum ExitCode : int {
    kOk = 0,           // the command did what it was asked; a run completed
    kUsage = 2,        // what the flag parser refuses: unknown flag, missing or out-of-range value
    kDataError = 3,    // a bad input file (the message names file, line, column and text)
    kConfigError = 4,  // values mlpwb checks itself: unknown names, refused combinations, misfit weights
    kDeviceError = 5,  // the backend is unavailable or the device failed
    kIoError = 6,      // an output file could not be written
    kDiverged = 7,     // the loss became non-finite (the run file says `diverged`)
    kRunFailed = 8,    // the run failed while training (the run file says `failed`)
    kMemoryError = 9,  // the run would need more memory than is available (both figures named)
    kBusy = 10,        // a sweep folder or trial is being driven or run by another process (the lock's holder named)
    kCancelled = 130,  // interrupted (Ctrl+C); the run file says `cancelled`
};

}  // namespace wb::cli
