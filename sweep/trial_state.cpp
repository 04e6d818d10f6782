#include "sweep/trial_state.h"

#include <unistd.h>

#include <ctime>

#include "core/platform/enum_names.h"
#include "core/platform/errors.h"
#include "core/platform/json_fields.h"

namespace wb::sweep {

namespace {
// The states a trial's file may hold; "damaged" is shown, never read from a file.
const EnumNames<TrialState>& writtenStates() {
    static const EnumNames<TrialState> names = {{TrialState::Pending, "pending"},     {TrialState::Running, "running"},
                                                {TrialState::Completed, "completed"}, {TrialState::Failed, "failed"},
                                                {TrialState::Cancelled, "cancelled"}, {TrialState::Stopped, "stopped"}};
    return names;
}
}  // namespace

std::string toString(TrialState s) {
    return s == TrialState::Damaged ? "damaged" : enumName(writtenStates(), s);
}

TrialState trialStateFromString(const std::string& s) {
    try {
        return enumFromName(writtenStates(), s, "trial state");
    } catch (const ConfigError& e) {  // a damaged file, not a bad option
        throw DataError("", std::string("state: ") + e.what());
    }
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
            {"stopped_at_epoch", stoppedAtEpoch},
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
        s.stoppedAtEpoch = fieldOr(j, "stopped_at_epoch", 0);
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
