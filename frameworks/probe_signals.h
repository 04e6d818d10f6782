// Ctrl+C (SIGINT) and SIGTERM while an interpreter is asked what it offers. The probe's child runs in
// a process group of its own (a terminal's Ctrl+C reaches only us), so a signal that killed us there
// would leave it running as an orphan. While a ProbeSignals lives, those signals only stop the probe;
// when the last one ends, the signal is raised again under the handler the process had before (the
// default one ends the process, mlpwb's stop handler stops the command), after the child is gone.
#pragma once

namespace wb {

class ProbeSignals {
public:
    ProbeSignals();   // catches SIGINT and SIGTERM (nested and concurrent guards share one catch)
    ~ProbeSignals();  // the last one restores the handlers and raises a signal that arrived
    ProbeSignals(const ProbeSignals&) = delete;
    ProbeSignals& operator=(const ProbeSignals&) = delete;

    // Whether a SIGINT or SIGTERM arrived since the first guard began.
    static bool arrived();
};

}  // namespace wb
