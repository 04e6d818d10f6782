#include "frameworks/task_code.h"

#include <stdexcept>

#include "core/platform/errors.h"
#include "core/run/task_metrics.h"

namespace wb {

namespace {
// `text` with its one `from` replaced by `to`. The binary text is the template of every task, so a
// missing `from` is a generator bug: it must fail the generator's tests, not pass silently.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    if (at == std::string::npos) throw std::logic_error("task_code: the loop template lacks \"" + from + "\"");
    return text.replace(at, from.size(), to);
}

// A regression's EpochLog: the line also carries the sums of squared and absolute errors (the
// workbench turns them into MSE, MAE and R^2 in the target's units), and the record gets MSE, MAE
// and R^2 in the units of the targets this loop was given. No accuracy: nothing is classified.
const char* kRegressionLog = R"PY(class EpochLog:
    """Emits one JSON line per epoch, keeps the RunRecord's epochs and notices a non-finite loss."""

    def __init__(self, rows_val, spreads=(None, None)):
        """spreads: the sum of (t - mean t)^2 over the training and the validation targets, for R^2."""
        self.rows_val, self.spreads = rows_val, spreads
        self.epochs, self.status, self.message = [], "completed", ""
        self.run_start = time.perf_counter()

    def add(self, epoch, start, end, train, val):
        """train: (loss_sum, correct, samples, squared, absolute); val: (loss_sum, correct, squared,
        absolute) or None; squared and absolute: sums of (z - t)^2 and |z - t| over the rows. False: stop."""
        loss_sum, _, samples, squared, absolute = train
        val_loss_sum, _, val_squared, val_absolute = val if val else (None, None, None, None)
        wall_ms = (end - start) * 1000.0
        line = {"epoch": epoch, "warmup": epoch == 1,
                "train_loss": finite(loss_sum / samples), "train_accuracy": None,
                "val_loss": finite(val_loss_sum / self.rows_val) if val else None, "val_accuracy": None,
                **errors_of("train", squared, absolute, samples, self.spreads[0]),
                **errors_of("val", val_squared, val_absolute, self.rows_val, self.spreads[1] if val else None),
                "wall_ms": wall_ms, "device_ms": None, "samples_per_s": samples / (wall_ms / 1000.0),
                "phases_ms": None, "elapsed_ms": (end - self.run_start) * 1000.0,
                "loss_sum": finite(loss_sum), "correct": 0, "samples": samples,
                "val_loss_sum": finite(val_loss_sum) if val else None, "val_correct": 0 if val else None,
                "squared_error": finite(squared), "absolute_error": finite(absolute),
                "val_squared_error": finite(val_squared) if val else None,
                "val_absolute_error": finite(val_absolute) if val else None}
        emit(line)
        self.epochs.append({k: line[k] for k in RECORD_FIELDS})
        if line["loss_sum"] is None:
            self.status, self.message = "diverged", f"loss became non-finite at epoch {epoch}"
            return False
        return True
)PY";

// The helpers the regression log uses, ahead of it.
const char* kRegressionHelpers = R"PY(

def spread(targets):
    """sum (t - mean t)^2 in float64: the spread R^2 compares the squared error with."""
    t = np.asarray(targets, dtype=np.float64).reshape(-1)
    return float(np.sum((t - t.mean()) ** 2)) if t.size else 0.0


def errors_of(split, squared, absolute, rows, spread_):
    """MSE, MAE and R^2 of `split` from the sums over its rows (None without the split)."""
    if squared is None or not rows:
        return {f"{split}_mse": None, f"{split}_mae": None, f"{split}_r2": None}
    r2 = 1.0 - squared / spread_ if spread_ else (0.0 if spread_ is not None else None)
    return {f"{split}_mse": finite(squared / rows), f"{split}_mae": finite(absolute / rows), f"{split}_r2": finite(r2)}


)PY";
}  // namespace

namespace {
// The loop writes the class weights as numbers: `balanced` must have been counted (a run's Trainer
// or `mlpwb export` does it from the data), and there must be one per class.
void checkClassWeights(const RunConfig& c, Task task) {
    const ClassWeights& w = c.model.classWeights;
    if (w.empty()) return;
    if (task != Task::Multiclass)
        throw ConfigError("class weights apply to multiclass; this loop's task is " + toString(task));
    if (w.values.empty())
        throw ConfigError("balanced class weights are counted from the training rows: give the data (--data)");
    if (w.values.size() != static_cast<std::size_t>(c.model.outputs))
        throw ConfigError("class weights: " + std::to_string(w.values.size()) + " given, but this data has " +
                          std::to_string(c.model.outputs) + " classes");
}

Task taskOfConfig(const RunConfig& c) {
    if (c.data.task == TaskChoice::Regression) return Task::Regression;
    if (c.model.outputs > 1) return Task::Multiclass;
    if (c.data.task == TaskChoice::Multiclass)
        throw ConfigError(
            "a multiclass loop needs the number of classes, which only the loaded data says: "
            "give the data (--data) so that its classes are counted");
    return Task::Binary;
}
}  // namespace

Task scriptTask(const RunConfig& c) {
    const Task task = taskOfConfig(c);
    checkClassWeights(c, task);
    return task;
}

std::vector<IgnoredSwitch> withTaskIgnored(std::vector<IgnoredSwitch> ignored, Task task) {
    if (task == Task::Regression) ignored.push_back(regressionLossSwitch());
    return ignored;
}

DescribeSwitch describeForTask(DescribeSwitch describe, Task task) {
    if (task == Task::Binary) return describe;
    return [describe = std::move(describe), task](const std::string& name, const std::string& value) -> std::string {
        if (name != "loss") return describe(name, value);
        if (task == Task::Regression) return "";  // listed as not applicable instead
        return value == "sigmoid_bce" ? "separate steps: a softmax, its log, then the negative log-likelihood"
                                      : "cross-entropy on the logits: fused and numerically stable";
    };
}

std::string outputText(const RunConfig& c, Task task) {
    return task == Task::Multiclass ? std::to_string(c.model.outputs) + " (one logit per class)"
                                    : "1 (the standardised target)";
}

std::string taskLossName(const RunConfig& c, LossKind kind, Task task) {
    if (task == Task::Regression)
        return c.model.regressionLoss == RegressionLoss::Huber ? "HuberLoss(delta=1)" : "MSELoss";
    return kind == LossKind::SigmoidBce ? "Softmax + log + NLLLoss" : "CrossEntropyLoss";
}

std::string taskUsageSection(const std::string& needs, Task task) {
    const std::string text = usageSection(needs);
    if (task == Task::Binary) return text;
    return replaced(text, "labels (rows,) of 0 and 1",
                    task == Task::Multiclass
                        ? "labels (rows,) the class index 0..K-1"
                        : "targets (rows,) standardised\nas the workbench does: (t - mean) / std of the training rows");
}

std::string taskFileHelpers(Task task) {
    const std::string text = pythonFileHelpers();
    if (task == Task::Binary) return text;
    return replaced(text, "\"\"\"Features (rows, cols) and labels (rows, 1) as float32 arrays.\"\"\"",
                    task == Task::Multiclass
                        ? "\"\"\"Features (rows, cols) and class indices (rows, 1) as float32 arrays.\"\"\""
                        : "\"\"\"Features (rows, cols) and targets (rows, 1) as float32 arrays.\"\"\"");
}

std::string taskRunHelpers(Task task) {
    std::string text = pythonRunHelpers();
    if (task == Task::Binary) return text;
    text = replaced(text, "help=\"labels 0/1, (rows,) .npy\"",
                    task == Task::Multiclass ? "help=\"class indices 0..K-1, (rows,) .npy\""
                                             : "help=\"standardised targets, (rows,) .npy\"");
    if (task == Task::Multiclass) return text;
    text = replaced(text, "\"val_accuracy\", \"wall_ms\",",
                    "\"val_accuracy\", \"train_mse\", \"train_mae\",\n                 \"train_r2\", \"val_mse\", "
                    "\"val_mae\", \"val_r2\", \"wall_ms\",");
    const auto begin = text.find("class EpochLog:"), end = text.find("    def summary(self):");
    if (begin == std::string::npos || end == std::string::npos)
        throw std::logic_error("task_code: the loop template lacks EpochLog");
    return text.substr(0, begin) + std::string(kRegressionHelpers).substr(2) + kRegressionLog + "\n" + text.substr(end);
}

}  // namespace wb
