#include "frameworks/probe_signals.h"

#include <signal.h>

#include <atomic>
#include <mutex>

namespace wb {

namespace {
std::mutex gMutex;
int gDepth = 0;                                // guards alive (probes may run on several threads)
struct sigaction gPreviousInt, gPreviousTerm;  // what the process had before the first guard
std::atomic<int> gArrived{0};                  // the signal that arrived, 0 for none

extern "C" void onProbeSignal(int signal) {
    gArrived.store(signal);
}

// Catches `signal`, unless the process ignores it (started in the background, under nohup): then a
// probe must not be stopped by it either.
void install(int signal, struct sigaction& previous) {
    struct sigaction action = {};
    action.sa_handler = onProbeSignal;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal, &action, &previous);
    if (previous.sa_handler == SIG_IGN) ::sigaction(signal, &previous, nullptr);
}
}  // namespace

ProbeSignals::ProbeSignals() {
    std::lock_guard lock(gMutex);
    if (gDepth++ == 0) {
        gArrived.store(0);
        install(SIGINT, gPreviousInt);
        install(SIGTERM, gPreviousTerm);
    }
}

ProbeSignals::~ProbeSignals() {
    std::lock_guard lock(gMutex);
    if (--gDepth > 0) return;
    ::sigaction(SIGINT, &gPreviousInt, nullptr);
    ::sigaction(SIGTERM, &gPreviousTerm, nullptr);
    // Delivered now to what the process had chosen: the default ends it, a handler sees its stop.
    if (const int signal = gArrived.exchange(0)) ::raise(signal);
}

bool ProbeSignals::arrived() {
    return gArrived.load() != 0;
}

}  // namespace wb
