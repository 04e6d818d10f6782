#include "trial_command.h"

#include "shell_quote.h"

namespace wb::sweep {

std::string trialCommand(const PlannedTrial& trial, const std::string& program) {
    std::vector<std::string> words = {program, "train"};
    words.insert(words.end(), trial.args.begin(), trial.args.end());
    return shellCommand(words);
}

}  // namespace wb::sweep
