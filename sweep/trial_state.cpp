#include "trial_state.h"

#include <unistd.h>

#include <array>
#include <ctime>

namespace wb::sweep {

namespace {
constexpr std::array<const char*, 5> kNames = {"pending", "running", "completed", "failed", "cancelled"};
}

std::string toString(TrialState s) {
    return kNames[static_cast<std::size_t>(s)];
}

TrialState trialStateFromString(const std::string& s) {
    for (std::size_t i = 0; i < kNames.size(); ++i)
        if (s == kNames[i]) return static_cast<TrialState>(i);
    return TrialState::Pending;
}

nlohmann::json TrialStatus::toJson() const {
    return {{"state", toString(state)},
            {"attempt", attempt},
            {"host", host},
            {"pid", pid},
            {"engine", engine},
            {"slurm_job", slurmJob},
            {"started_at", startedAt},
            {"finished_at", finishedAt},
            {"error", error},
            {"timing", timing}};
}

TrialStatus TrialStatus::fromJson(const nlohmann::json& j) {
    TrialStatus s;
    if (!j.is_object()) return s;
    s.state = trialStateFromString(j.value("state", "pending"));
    s.attempt = j.value("attempt", 0);
    s.host = j.value("host", "");
    s.pid = j.value("pid", 0L);
    s.engine = j.value("engine", "");
    s.slurmJob = j.value("slurm_job", "");
    s.startedAt = j.value("started_at", "");
    s.finishedAt = j.value("finished_at", "");
    s.error = j.value("error", "");
    s.timing = j.value("timing", "");
    return s;
}

std::string utcNow() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

std::string shortHostName() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "localhost";
    std::string host(name);
    return host.substr(0, host.find('.'));
}

}  // namespace wb::sweep
