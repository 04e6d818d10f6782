#include "core/data/task.h"

#include "core/platform/enum_names.h"

namespace wb {

namespace {
const EnumNames<Task> kTaskNames = {
    {Task::Binary, "binary"}, {Task::Multiclass, "multiclass"}, {Task::Regression, "regression"}};
const EnumNames<TaskChoice> kChoiceNames = {{TaskChoice::Auto, "auto"},
                                            {TaskChoice::Binary, "binary"},
                                            {TaskChoice::Multiclass, "multiclass"},
                                            {TaskChoice::Regression, "regression"}};
const EnumNames<RegressionLoss> kRegressionLossNames = {{RegressionLoss::Mse, "mse"}, {RegressionLoss::Huber, "huber"}};
}  // namespace

int outputsFor(Task task, std::size_t classes) {
    return task == Task::Multiclass ? static_cast<int>(classes) : 1;
}

void requireBinaryTask(Task task, const std::string& backend) {
    if (task != Task::Binary)
        throw ConfigError("the " + backend + " backend trains binary labels only so far, and this data is a " +
                          toString(task) + " task; train it with --backend cpu");
}

std::string toString(Task t) {
    return enumName(kTaskNames, t);
}
std::string toString(TaskChoice t) {
    return enumName(kChoiceNames, t);
}
std::string toString(RegressionLoss l) {
    return enumName(kRegressionLossNames, l);
}
Task taskFromString(const std::string& s) {
    return enumFromName(kTaskNames, s, "task");
}
TaskChoice taskChoiceFromString(const std::string& s) {
    return enumFromName(kChoiceNames, s, "task");
}
RegressionLoss regressionLossFromString(const std::string& s) {
    return enumFromName(kRegressionLossNames, s, "regression loss");
}

}  // namespace wb
