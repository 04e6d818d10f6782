#include "trial_state.h"

#include <unistd.h>

#include <array>
#include <ctime>

#include "errors.h"
#include "json_fields.h"

namespace wb::sweep {

namespace {
constexpr std::array<const char*, 6> kNames = {"pending", "running", "completed", "failed", "cancelled", "damaged"};
constexpr std::size_t kWrittenStates = 5;  // "damaged" is shown, never read from a file
}  // namespace

std::string toString(TrialState s) {
    return kNames[static_cast<std::size_t>(s)];
}

TrialState trialStateFromString(const std::string& s) {
    for (std::size_t i = 0; i < kWrittenStates; ++i)
        if (s == kNames[i]) return static_cast<TrialState>(i);
    throw DataError("", "state: '" + s + "' is no trial state (pending, running, completed, failed, cancelled)");
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
    if (!j.is_object()) throw DataError("", std::string("expected an object, found ") + kindOf(j));
    TrialStatus s;
    try {
        s.state = trialStateFromString(fieldOr<std::string>(j, "state", "pending"));
        s.attempt = fieldOr(j, "attempt", 0);
        s.host = fieldOr<std::string>(j, "host", "");
        s.pid = fieldOr(j, "pid", 0L);
        s.engine = fieldOr<std::string>(j, "engine", "");
        s.slurmJob = fieldOr<std::string>(j, "slurm_job", "");
        s.startedAt = fieldOr<std::string>(j, "started_at", "");
        s.finishedAt = fieldOr<std::string>(j, "finished_at", "");
        s.error = fieldOr<std::string>(j, "error", "");
        s.timing = fieldOr<std::string>(j, "timing", "");
    } catch (const JsonFieldError& e) {
        throw DataError("", e.what());
    }
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
