#include "frameworks/jax_script.h"

#include <map>

#include "frameworks/jax_epoch_code.h"
#include "frameworks/jax_optimizers.h"
#include "frameworks/jax_task_code.h"
#include "frameworks/script_text.h"
#include "frameworks/task_code.h"

namespace wb {

namespace {

bool wholeEpoch(const ExecutionSettings& run) {
    return run.launch == Launch::GraphStep || run.launch == Launch::Fused;
}

// What each switch value does in the generated loop, for the docstring.
std::string describeValue(const std::string& name, const std::string& value) {
    static const std::map<std::string, std::string> kText = {
        {"data_path=per_sample_gather", "every batch gathered row by row in Python (np.stack), then copied"},
        {"data_path=pageable_copy", "batches sliced from host arrays, each copied with jax.device_put"},
        {"data_path=device_resident", "the rows put on the device once and sliced there"},
        {"launch=eager_sync", "a Python loop over a jitted step, reading the loss after every step"},
        {"launch=eager", "a Python loop over a jitted step, the losses read once per epoch"},
        {"launch=graph_step", "the whole epoch one jit: lax.scan over the batches (as launch=fused)"},
        {"launch=fused", "the whole epoch one jit: lax.scan over the batches, fused by XLA"},
        {"loss=sigmoid_bce", "a sigmoid output and BCELoss' formula (each log clamped at -100)"},
        {"loss=bce_with_logits", "BCEWithLogitsLoss' stable formula on the logits"},
        {"precision=fp32", "fp32 throughout, matrix products at 'highest' precision"},
        {"precision=tf32", "fp32 with TF32 matrix products"},
        {"precision=bf16", "the forward pass in bfloat16, fp32 parameters and loss"},
        {"precision=fp16", "the forward pass in float16 with a dynamic loss scale, fp32 parameters"},
    };
    const auto it = kText.find(name + "=" + value);
    return it == kText.end() ? "" : it->second;
}

std::string docstring(const RunConfig& c, const ExecutionSettings& run, const JaxTarget& t,
                      const std::vector<IgnoredSwitch>& ignored, Task task) {
    const bool binary = task == Task::Binary;
    std::string s = "#!/usr/bin/env python3\n\"\"\"" + plain(c.name.empty() ? "custom" : c.name) +
                    ": a JAX training loop written by MLP Workbench.\n\n";
    s += "Model: inputs -> " + join(c.model.hidden, " -> ") + " -> " + (binary ? "1" : outputText(c, task)) + ", " +
         toString(c.model.activation) + "; loss: " +
         (binary ? (run.loss == LossKind::BceWithLogits ? "BCE with logits" : "sigmoid + BCE")
                 : taskLossName(c, run.loss, task)) +
         "; optimizer: " + toString(c.optimizer.kind) + " (lr " + pyNumber(c.optimizer.lr) + ");\nbatch " +
         std::to_string(c.train.batchSize) + ", " + std::to_string(c.train.epochs) + " epochs, " +
         (c.train.shuffle ? "reshuffled every epoch" : "file order") + ", seed " + std::to_string(c.train.seed) +
         "; written for the " + (t.device == "cuda" ? "GPU (CUDA)" : "CPU") +
         ".\nThe loss and the optimizer are PyTorch's formulas, written out in jax.numpy.\n\n";
    return s + switchesSection(run, ignored, describeForTask(describeValue, task)) +
           taskUsageSection("JAX and numpy", task);
}

std::string imports() {
    return R"PY(
import argparse
import functools
import json
import math
import os
import platform
import statistics
import struct
import sys
import tempfile
import time

import numpy as np
import jax
import jax.numpy as jnp
)PY";
}

std::string activationCode(Activation a) {
    switch (a) {
        case Activation::Tanh: return "jnp.tanh";
        case Activation::Relu: return "jax.nn.relu";
        case Activation::Sigmoid: return "jax.nn.sigmoid";
        case Activation::Gelu: return "functools.partial(jax.nn.gelu, approximate=False)  # the erf form";
        case Activation::Identity: return "lambda h: h";
    }
    return "lambda h: h";
}

// COMPUTE: the dtype of the forward pass; the matrix-product precision for fp32/tf32.
std::string precisionCode(Precision p) {
    switch (p) {
        case Precision::Bf16:
            return "\nCOMPUTE = jnp.bfloat16  # precision=bf16: the forward pass in bfloat16, as autocast\n"
                   "MATMUL_PRECISION = \"default\"\n";
        case Precision::Fp16:
            return "\nCOMPUTE = jnp.float16  # precision=fp16: the forward pass in float16, the loss scaled\n"
                   "MATMUL_PRECISION = \"default\"\n";
        case Precision::Tf32:
            return "\nCOMPUTE = jnp.float32\nMATMUL_PRECISION = \"tensorfloat32\"  # precision=tf32\n";
        case Precision::Fp32: break;
    }
    return "\nCOMPUTE = jnp.float32\n"
           "MATMUL_PRECISION = \"highest\"  # precision=fp32: no TF32 or bf16 passes on a GPU\n";
}

std::string modelCode(const RunConfig& c, const ExecutionSettings& run, Task task) {
    const bool probabilities = run.loss == LossKind::SigmoidBce;
    std::string s = "\n\nACTIVATION = " + activationCode(c.model.activation) + "\n";
    if (task == Task::Binary)
        s += std::string("THRESHOLD = ") +
             (probabilities ? "0.5  # on the sigmoid's probability\n" : "0.0  # on the logit\n");
    s += R"PY(

def forward(params, x):
    """The model's output (B, )PY" +
         std::to_string(c.model.outputs) + R"PY() for x (B, cols); params = [w0 (out, in), b0, w1, b1, ...]."""
    h = x.astype(COMPUTE)
    for i in range(0, len(params), 2):
        h = h @ params[i].T.astype(COMPUTE) + params[i + 1].astype(COMPUTE)
        if i + 2 < len(params):
            h = ACTIVATION(h)
    z = h.astype(jnp.float32)
)PY";
    if (task != Task::Binary) return s + jaxTaskModel(c, run, task);
    if (!probabilities)
        return s + R"PY(    return z  # the logit: the loss applies the sigmoid inside


def row_losses(z, y):
    """loss=bce_with_logits, BCEWithLogitsLoss per row: max(z, 0) - z y + log(1 + exp(-|z|))."""
    return jnp.maximum(z, 0.0) - z * y + jnp.log1p(jnp.exp(-jnp.abs(z)))
)PY";
    return s + R"PY(    return jax.nn.sigmoid(z)  # loss=sigmoid_bce: the model ends in a sigmoid


@jax.custom_vjp
def row_losses(p, y):
    """loss=sigmoid_bce, BCELoss per row: -(y log p + (1 - y) log(1 - p)), each log clamped at -100."""
    return -(y * jnp.maximum(jnp.log(p), -100.0) + (1 - y) * jnp.maximum(jnp.log(1 - p), -100.0))


def _row_losses_forward(p, y):
    return row_losses(p, y), (p, y)


def _row_losses_backward(saved, g):
    p, y = saved  # BCELoss' own gradient: (p - y) / max(p (1 - p), 1e-12)
    return g * (p - y) / jnp.maximum(p * (1 - p), 1e-12), jnp.zeros_like(y)


row_losses.defvjp(_row_losses_forward, _row_losses_backward)
)PY";
}

std::string paramsCode(const RunConfig& c) {
    const std::string draw =
        c.model.init == InitKind::Glorot
            ? "        limit = math.sqrt(6.0 / (fan_in + fan_out))  # Keras' glorot_uniform, zero biases\n"
              "        params += [rng.uniform(-limit, limit, (fan_out, fan_in)), np.zeros(fan_out)]\n"
            : "        bound = 1.0 / math.sqrt(fan_in)  # nn.Linear's default: U(-1/sqrt(fan_in), +)\n"
              "        params += [rng.uniform(-bound, bound, (fan_out, fan_in)), rng.uniform(-bound, bound, "
              "fan_out)]\n";
    return R"PY(

def batch_loss(params, x, y):
    """The batch's mean loss (in float32) and the model's outputs."""
    out = forward(params, x)
    return jnp.mean(row_losses(out, y)), out


def initial_params(inputs, path):
    """[w0, b0, w1, b1, ...] from `path` (safetensors), else drawn with numpy from SEED."""
    widths = [inputs] + HIDDEN + [)PY" +
           std::to_string(c.model.outputs) + R"PY(]
    names = [f"layers.{i}.{kind}" for i in range(len(widths) - 1) for kind in ("weight", "bias")]
    if path:
        tensors = read_safetensors(path)
        missing = [name for name in names if name not in tensors]
        if missing:
            raise ValueError(f"{path} lacks {', '.join(missing)}")
        return [tensors[name] for name in names]
    rng, params = np.random.default_rng(SEED), []
    for fan_in, fan_out in zip(widths[:-1], widths[1:]):
)PY" + draw +
           R"PY(    return [p.astype(np.float32) for p in params]


def named_tensors(params):
    return {f"layers.{i // 2}.{'weight' if i % 2 == 0 else 'bias'}": np.asarray(p) for i, p in enumerate(params)}
)PY";
}

std::string stepCode(Precision p) {
    if (p != Precision::Fp16)
        return R"PY(

def initial_carry(params):
    return params, optimizer_init(params)


def train_step(carry, batch):
    """One optimizer step on batch = (x (B, cols), y (B, 1)); carry = (params, optimizer state).
    Returns the new carry and the batch's (mean loss, rows classified right)."""
    params, state = carry
    x, y = batch
    (loss, out), grads = jax.value_and_grad(batch_loss, has_aux=True)(params, x, y)
    params, state = optimizer_update(params, grads, state)
    return (params, state), (loss, jnp.sum((out >= THRESHOLD) == (y >= 0.5)))
)PY";
    return R"PY(

def initial_carry(params):
    # GradScaler's dynamic loss scale: 2^16 to start, and the good steps since it last grew.
    return params, (optimizer_init(params), (jnp.float32(65536.0), jnp.zeros((), jnp.int32)))


def train_step(carry, batch):
    """One optimizer step on batch = (x (B, cols), y (B, 1)), as GradScaler does it (precision=fp16):
    the loss scaled before the gradient and the gradient unscaled; a step whose gradients overflow
    is skipped and halves the scale, 2000 good steps in a row double it."""
    params, (state, (scale, good)) = carry
    x, y = batch

    def scaled_loss(p):
        loss, out = batch_loss(p, x, y)
        return loss * scale, (loss, out)

    (_, (loss, out)), grads = jax.value_and_grad(scaled_loss, has_aux=True)(params)
    grads = [g / scale for g in grads]
    finite = jnp.all(jnp.stack([jnp.all(jnp.isfinite(g)) for g in grads]))
    stepped, stepped_state = optimizer_update(params, grads, state)
    keep = lambda new, old: jax.tree_util.tree_map(lambda a, b: jnp.where(finite, a, b), new, old)
    params, state = keep(stepped, params), keep(stepped_state, state)
    good = jnp.where(finite, good + 1, 0)
    scale = jnp.where(finite, jnp.where(good >= 2000, scale * 2.0, scale), scale * 0.5)
    good = jnp.where(good >= 2000, 0, good)
    return (params, (state, (scale, good))), (loss, jnp.sum((out >= THRESHOLD) == (y >= 0.5)))
)PY";
}

std::string mainCode() {
    return R"PY(

@jax.jit
def evaluate(params, x, y):
    """(mean loss, rows classified right) on resident rows, without training."""
    out = forward(params, x)
    return jnp.mean(row_losses(out, y)), jnp.sum((out >= THRESHOLD) == (y >= 0.5))


def main():
    claim_stdout()
    args = parse_args()
    jax.config.update("jax_platforms", "cpu" if args.device == "cpu" else "cuda")
    jax.config.update("jax_default_matmul_precision", MATMUL_PRECISION)
    device = jax.devices()[0]
    x, y = load_rows(args.data, args.labels)
    val = tuple(jax.device_put(a, device) for a in load_rows(args.val_data, args.val_labels)) if args.val_data else None
    # The whole carry committed to the device, so the compiled epoch sees the same inputs every epoch.
    carry = jax.device_put(initial_carry(initial_params(x.shape[1], args.init_weights)), device)
    train_epoch = make_train_epoch(x, y, device)
    facts = {"framework": "jax", "jax": jax.__version__,
             "jaxlib": getattr(sys.modules.get("jaxlib"), "__version__", ""), "python": sys.executable,
             "python_version": platform.python_version(), "device": args.device,
             "device_name": device.device_kind if args.device == "cuda" else cpu_name(),
             "threads": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()}
    emit({"event": "ready", **facts})

    log = EpochLog(int(val[1].shape[0]) if val else 0)
    shuffling = np.random.default_rng(SEED)
    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        carry, train = train_epoch(carry, shuffling.permutation(x.shape[0]) if SHUFFLE else None)
        val_sums = None
        if val:
            loss, right = evaluate(carry[0], *val)
            val_sums = (float(loss) * log.rows_val, int(right))
        if not log.add(epoch, start, time.perf_counter(), train, val_sums):
            break

)PY" + scriptEnding("named_tensors(carry[0])");
}

}  // namespace

std::string jaxScript(const RunConfig& config, const JaxTarget& target) {
    const Task task = scriptTask(config);
    const auto ignored = withTaskIgnored(jaxIgnoredSwitches(config.execution, target), task);
    const ExecutionSettings run = jaxEffectiveSettings(config.execution, target);
    const bool scan = wholeEpoch(run);
    std::string script = docstring(config, run, target, ignored, task) + imports() +
                         scriptConstants(config, "jax", target.device, "JAX loop") + precisionCode(run.precision) +
                         taskFileHelpers(task) + taskRunHelpers(task) + modelCode(config, run, task) +
                         paramsCode(config) + jaxOptimizerCode(config.optimizer) + stepCode(run.precision) +
                         (scan ? jaxEpochDataCode(run.dataPath) : jaxStepDataCode(run.dataPath)) + jaxEpochSumsCode() +
                         (scan ? jaxScanEpochCode(run.launch) : jaxStepLoopCode(run.launch)) + mainCode();
    return task == Task::Binary ? script
                                : jaxTaskRewrite(std::move(script), task, !config.model.classWeights.values.empty());
}

}  // namespace wb
