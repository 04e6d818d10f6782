#include "frameworks/jax_task_code.h"

#include <stdexcept>

#include "frameworks/script_text.h"

namespace wb {

namespace {
// Every `from` in `text` replaced by `to`; a template without `from` is a generator bug.
std::string replaceAll(std::string text, const std::string& from, const std::string& to) {
    std::size_t at = text.find(from);
    if (at == std::string::npos) throw std::logic_error("jax_task_code: the loop template lacks \"" + from + "\"");
    for (; at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
    return text;
}

std::string multiclassModel(const ExecutionSettings& run) {
    const std::string hits = R"PY(

def hits(out, y):
    """Rows whose first largest output is the label (torch.argmax)."""
    return jnp.sum(jnp.argmax(out, axis=1) == y[:, 0].astype(jnp.int32))
)PY";
    if (run.loss == LossKind::SigmoidBce)
        return R"PY(    return jax.nn.softmax(z, axis=1)  # loss=sigmoid_bce: the model ends in a softmax


def row_losses(p, y):
    """loss=sigmoid_bce, NLLLoss of log(softmax) per row (B, 1): -log p[label], the log taken apart."""
    return -jnp.take_along_axis(jnp.log(p), y.astype(jnp.int32), axis=1)
)PY" + hits;
    return R"PY(    return z  # one logit per class: the loss applies the log-softmax inside


def row_losses(z, y):
    """loss=bce_with_logits, CrossEntropyLoss per row (B, 1): -log_softmax(z)[label], fused and stable."""
    return -jnp.take_along_axis(jax.nn.log_softmax(z, axis=1), y.astype(jnp.int32), axis=1)
)PY" + hits;
}

std::string regressionModel(const RunConfig& c) {
    const std::string loss = c.model.regressionLoss == RegressionLoss::Huber ? R"PY(def row_losses(z, y):
    """HuberLoss(delta=1) per row: (z - y)^2 / 2 within 1 of the target, |z - y| - 1/2 beyond."""
    d = z - y
    return jnp.where(jnp.abs(d) < 1.0, 0.5 * d * d, jnp.abs(d) - 0.5)
)PY"
                                                                             : R"PY(def row_losses(z, y):
    """MSELoss per row: (z - y)^2."""
    return (z - y) ** 2
)PY";
    return R"PY(    return z  # the prediction of the standardised target


)PY" + loss +
           R"PY(

def hits(out, y):
    """A regression classifies nothing: a step counts the sums of (z - t)^2 and |z - t| instead."""
    d = out - y
    return jnp.stack([jnp.sum(d * d), jnp.sum(jnp.abs(d))])
)PY";
}
}  // namespace

// --class-weights: PyTorch's CrossEntropyLoss(weight=w) mean, written out (the loop uses no optax).
std::string classWeightedMean(const std::vector<float>& weights) {
    return R"PY(

CLASS_WEIGHT = )PY" +
           pyFloatList(weights) +
           R"PY(  # --class-weights, in the class order


def weighted_mean(losses, y):
    """CrossEntropyLoss(weight=w)'s batch loss: sum w[y] l / sum w[y] over the rows (B, 1), not the
    mean over rows. An epoch's loss is its batches' losses averaged by rows."""
    w = jnp.asarray(CLASS_WEIGHT, jnp.float32)[y[:, 0].astype(jnp.int32)][:, None]
    return jnp.sum(w * losses) / jnp.sum(w)
)PY";
}

std::string jaxTaskModel(const RunConfig& c, const ExecutionSettings& run, Task task) {
    if (task == Task::Regression) return regressionModel(c);
    const std::string model = multiclassModel(run);
    return c.model.classWeights.values.empty() ? model : model + classWeightedMean(c.model.classWeights.values);
}

std::string jaxTaskRewrite(std::string script, Task task, bool weighted) {
    script = replaceAll(std::move(script), "jnp.sum((out >= THRESHOLD) == (y >= 0.5))", "hits(out, y)");
    if (weighted && task == Task::Multiclass)
        script = replaceAll(std::move(script), "jnp.mean(row_losses(out, y))", "weighted_mean(row_losses(out, y), y)");
    if (task != Task::Regression) return script;
    // The pair of error sums travels where a classification's count does, summed in float64.
    const std::pair<const char*, const char*> kRegression[] = {
        {"        loss_sum, correct, samples = 0.0, 0, 0\n",
         "        loss_sum, errors, samples = 0.0, np.zeros(2), 0\n"},
        {"            correct += int(right)\n", "            errors += np.asarray(right, dtype=np.float64)\n"},
        {"        return carry, (loss_sum, correct, samples)\n",
         "        return carry, (loss_sum, 0, samples, *errors)\n"},
        {"    return float(np.dot(losses, np.asarray(sizes, dtype=np.float64))), int(np.sum(np.asarray(rights))), "
         "int(sum(sizes))\n",
         "    errors = np.sum(np.asarray(rights, dtype=np.float64), axis=0)  # (squared, absolute)\n"
         "    return float(np.dot(losses, np.asarray(sizes, dtype=np.float64))), 0, int(sum(sizes)), *errors\n"},
        {"    losses, rights = jnp.zeros((0,), jnp.float32), jnp.zeros((0,), jnp.int32)\n",
         "    losses, rights = jnp.zeros((0,), jnp.float32), jnp.zeros((0, 2), jnp.float32)\n"},
        {"jnp.append(rights, right.astype(jnp.int32))", "jnp.concatenate([rights, right[None]])"},
        {"            val_sums = (float(loss) * log.rows_val, int(right))\n",
         "            val_sums = (float(loss) * log.rows_val, 0, *(float(e) for e in right))\n"},
        {"    log = EpochLog(int(val[1].shape[0]) if val else 0)\n",
         "    log = EpochLog(int(val[1].shape[0]) if val else 0, (spread(y), spread(val[1]) if val else None))\n"},
    };
    for (const auto& [from, to] : kRegression)
        if (script.find(from) != std::string::npos) script = replaceAll(std::move(script), from, to);
    return script;
}

}  // namespace wb
