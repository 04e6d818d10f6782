#include "sweep/trial_command.h"

#include "core/platform/shell_quote.h"

namespace wb::sweep {

std::string trialCommand(const PlannedTrial& trial, const std::string& program) {
    std::vector<std::string> words = {program, "train"};
    words.insert(words.end(), trial.args.begin(), trial.args.end());
    return shellCommand(words);
}

}  // namespace wb::sweep
