#include "frameworks/keras_script.h"

#include <map>

#include "frameworks/keras_task_code.h"
#include "frameworks/script_text.h"
#include "frameworks/task_code.h"

namespace wb {

namespace {

// What each switch value does in the generated loop, for the docstring.
std::string describeValue(const std::string& name, const std::string& value) {
    static const std::map<std::string, std::string> kText = {
        {"data_path=per_sample_gather",
         "a tf.data.Dataset.from_tensor_slices yields every row on its own and batch() collates them"},
        {"data_path=pageable_copy", "fit slices batches from the host arrays and copies each to the device"},
        {"data_path=device_resident", "fit slices its batches from the arrays where the model runs"},
        {"launch=eager_sync", "compile(run_eagerly=True): every step runs op by op from Python"},
        {"launch=graph_step", "compile(jit_compile=False): the step is a tf.function graph, as in Keras 2"},
        {"launch=fused", "compile(jit_compile=True): the step compiled whole by XLA"},
        {"loss=sigmoid_bce", "a sigmoid output layer and BinaryCrossentropy(from_logits=False)"},
        {"loss=bce_with_logits", "a linear output layer and BinaryCrossentropy(from_logits=True)"},
        {"precision=fp32", "fp32 throughout (TF32 switched off on a GPU)"},
        {"precision=tf32", "fp32 variables, TF32 tensor-core matrix products"},
        {"precision=bf16", "the mixed_bfloat16 policy: bfloat16 compute, fp32 variables and output layer"},
        {"precision=fp16", "the mixed_float16 policy: float16 compute with a LossScaleOptimizer"},
    };
    const auto it = kText.find(name + "=" + value);
    return it == kText.end() ? "" : it->second;
}

// Where Keras' formulas for this run differ from PyTorch's (and so from the cpu backend's).
std::string formulaNotes(const RunConfig& c, const ExecutionSettings& run, Task task) {
    const OptimizerSpec& o = c.optimizer;
    std::string s = "Where Keras computes differently from PyTorch (and the workbench's cpu backend):\n";
    if (o.kind == OptimizerKind::Adam || o.kind == OptimizerKind::AdamW)
        s += "  Adam adds epsilon to sqrt(v) before the bias correction, PyTorch after it (a larger\n"
             "  effective epsilon in the first steps).\n";
    if (o.kind == OptimizerKind::RmsProp)
        s += "  RMSprop adds epsilon under the square root, PyTorch outside it: epsilon is passed as eps**2\n"
             "  so the two agree wherever sqrt(v) is much larger than eps.\n";
    if (o.kind == OptimizerKind::Sgd && o.dampening != 0.0)
        s += "  SGD has no dampening: PyTorch's dampening=" + pyNumber(o.dampening) + " is not applied.\n";
    if (o.weightDecay != 0.0 && o.kind != OptimizerKind::AdamW)
        s += "  weight_decay is decoupled (var -= lr * wd * var); PyTorch's " + toString(o.kind) +
             " adds wd * var to the gradient.\n";
    if (task == Task::Multiclass && run.loss == LossKind::SigmoidBce)
        s += "  Cross-entropy on a softmax output is computed from the logits in a graph and on\n"
             "  probabilities clipped to [1e-7, 1 - 1e-7] eagerly; PyTorch takes the log as it is.\n";
    if (task == Task::Binary && run.loss == LossKind::SigmoidBce)
        s += "  Binary cross-entropy on a sigmoid output is computed from the logits in a graph and on\n"
             "  probabilities clipped to [1e-7, 1 - 1e-7] eagerly; PyTorch's BCELoss clamps log at -100.\n";
    s += "  fit reports the epoch's loss as a mean over its rows: loss_sum is that mean times the rows.\n";
    return s;
}

std::string docstring(const RunConfig& c, const ExecutionSettings& run, const KerasTarget& t,
                      const std::vector<IgnoredSwitch>& ignored, Task task) {
    std::string s = "#!/usr/bin/env python3\n\"\"\"" + plain(c.name.empty() ? "custom" : c.name) +
                    ": a Keras training loop (model.fit) written by MLP Workbench.\n\n";
    s += "Model: inputs -> " + join(c.model.hidden, " -> ") + " -> " +
         (task == Task::Binary ? "1" : outputText(c, task)) + ", " + toString(c.model.activation) +
         "; loss: " + kerasLossName(c, run, task) + "; optimizer: " + toString(c.optimizer.kind) + " (lr " +
         pyNumber(c.optimizer.lr) + ");\nbatch " + std::to_string(c.train.batchSize) + ", " +
         std::to_string(c.train.epochs) + " epochs, " + (c.train.shuffle ? "reshuffled every epoch" : "file order") +
         ", seed " + std::to_string(c.train.seed) + "; written for the " + (t.device == "cuda" ? "GPU (CUDA)" : "CPU") +
         ".\n\n";
    return s + switchesSection(run, ignored, describeForTask(describeValue, task)) + formulaNotes(c, run, task) +
           taskUsageSection("TensorFlow, Keras 3 and numpy", task);
}

std::string imports() {
    return R"PY(
import argparse
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

tf = keras = None  # imported by load_keras(), once the device is known
)PY";
}

std::string activationName(Activation a) {
    switch (a) {
        case Activation::Tanh: return "\"tanh\"";
        case Activation::Relu: return "\"relu\"";
        case Activation::Sigmoid: return "\"sigmoid\"";
        case Activation::Gelu: return "\"gelu\"  # Keras' gelu is the erf form, as nn.GELU()";
        case Activation::Identity: return "None";
    }
    return "None";
}

std::string loadKerasCode() {
    return R"PY(

def load_keras(device):
    """Imports TensorFlow and Keras for `device`: the environment has to be set before the import."""
    global tf, keras
    os.environ["KERAS_BACKEND"] = "tensorflow"
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up chatter
    if device == "cpu":
        os.environ["CUDA_VISIBLE_DEVICES"] = ""  # a GPU build must not take the GPU for a CPU run
    import tensorflow
    import keras as keras_module
    tf, keras = tensorflow, keras_module
    if device == "cuda" and not tf.config.list_physical_devices("GPU"):
        raise RuntimeError(f"--device cuda, but TensorFlow {tf.__version__} sees no GPU")
)PY";
}

std::string precisionCode(Precision p) {
    std::string s = "\n\ndef set_precision(device):\n";
    switch (p) {
        case Precision::Fp32:
            return s +
                   "    if device == \"cuda\":  # precision=fp32: TensorFlow would use TF32 on an Ampere GPU\n"
                   "        tf.config.experimental.enable_tensor_float_32_execution(False)\n";
        case Precision::Tf32:
            return s + "    tf.config.experimental.enable_tensor_float_32_execution(True)  # precision=tf32\n";
        case Precision::Bf16:
            return s + "    keras.mixed_precision.set_global_policy(\"mixed_bfloat16\")  # precision=bf16\n";
        case Precision::Fp16:
            return s +
                   "    # precision=fp16: compile() wraps the optimizer in a LossScaleOptimizer under this policy.\n"
                   "    keras.mixed_precision.set_global_policy(\"mixed_float16\")\n";
    }
    return s + "    pass\n";
}

std::string modelCode(const RunConfig& c, const ExecutionSettings& run, Task task) {
    const bool torchInit = c.model.init == InitKind::Torch;
    std::string s = R"PY(

def initializers(fan_in):
)PY";
    s +=
        torchInit
            ? R"PY(    """nn.Linear's default initialisation in Keras' terms: weight and bias ~ U(-1/sqrt(fan_in), +)."""
    bound = 1.0 / math.sqrt(fan_in)
    return {"kernel_initializer": keras.initializers.VarianceScaling(1.0 / 3.0, "fan_in", "uniform"),
            "bias_initializer": keras.initializers.RandomUniform(-bound, bound)}
)PY"
            : "    return {}  # Keras' own glorot_uniform kernels and zero biases\n";
    s += R"PY(

def build_model(inputs):
    """The founding post's Sequential model: Dense(width, activation) per hidden layer, then Dense(1)."""
    activation = )PY" +
         activationName(c.model.activation) + R"PY(
    layers, fan_in = [keras.Input(shape=(inputs,))], inputs
    for width in HIDDEN:
        layers.append(keras.layers.Dense(width, activation=activation, **initializers(fan_in)))
        fan_in = width
)PY";
    if (task != Task::Binary)
        s += kerasTaskOutputLayer(c, run, task);
    else
        s += run.loss == LossKind::SigmoidBce
                 ? "    # loss=sigmoid_bce: the model ends in a sigmoid; the output layer stays float32 as posted.\n"
                   "    layers.append(keras.layers.Dense(1, activation=\"sigmoid\", dtype=\"float32\", "
                   "**initializers(fan_in)))\n"
                 : "    # loss=bce_with_logits: the output is the logit; the output layer stays float32 as posted.\n"
                   "    layers.append(keras.layers.Dense(1, activation=None, dtype=\"float32\", "
                   "**initializers(fan_in)))\n";
    s += R"PY(    return keras.Sequential(layers)


def dense_layers(model):
    return [layer for layer in model.layers if layer.weights]


def set_initial_weights(model, path):
    """Loads layers.{i}.weight (out, in) and layers.{i}.bias; Keras kernels are (in, out)."""
    tensors = read_safetensors(path)
    for i, layer in enumerate(dense_layers(model)):
        weight, bias = tensors.get(f"layers.{i}.weight"), tensors.get(f"layers.{i}.bias")
        if weight is None or bias is None:
            raise ValueError(f"{path} lacks layers.{i}.weight or layers.{i}.bias")
        layer.set_weights([weight.T.copy(), bias])


def final_tensors(model):
    """The trained weights under the workbench's names, kernels back to (out, in)."""
    tensors = {}
    for i, layer in enumerate(dense_layers(model)):
        kernel, bias = layer.get_weights()
        tensors[f"layers.{i}.weight"] = kernel.T.copy()
        tensors[f"layers.{i}.bias"] = bias
    return tensors
)PY";
    return s;
}

std::string optimizerConstruction(const OptimizerSpec& o) {
    const std::string lr = "learning_rate=" + pyFloat(o.lr);
    // Keras' weight_decay is always decoupled (see the docstring); AdamW's is PyTorch's too.
    const std::string decay = o.weightDecay != 0.0 ? ", weight_decay=" + pyFloat(o.weightDecay) : "";
    switch (o.kind) {
        case OptimizerKind::Adam:
        case OptimizerKind::AdamW:
            return std::string("keras.optimizers.") + (o.kind == OptimizerKind::Adam ? "Adam" : "AdamW") + "(" + lr +
                   ", beta_1=" + pyFloat(o.beta1) + ", beta_2=" + pyFloat(o.beta2) + ", epsilon=" + pyFloat(o.eps) +
                   decay + ")  # epsilon before the bias correction (PyTorch: after)";
        case OptimizerKind::Sgd:
            return "keras.optimizers.SGD(" + lr + ", momentum=" + pyFloat(o.momentum) +
                   ", nesterov=" + pyBool(o.nesterov) + decay + ")" +
                   (o.dampening != 0.0 ? "  # no dampening in Keras" : "");
        case OptimizerKind::RmsProp:
            return "keras.optimizers.RMSprop(" + lr + ", rho=" + pyFloat(o.alpha) +
                   ", momentum=" + pyFloat(o.momentum) + ", epsilon=" + pyFloat(o.eps) +
                   " ** 2, centered=" + pyBool(o.centered) + decay +
                   ")  # epsilon squared: Keras adds it under the square root";
    }
    return {};
}

std::string compileCode(const RunConfig& c, const ExecutionSettings& run, Task task) {
    const bool logits = run.loss == LossKind::BceWithLogits;
    std::string launch;
    switch (run.launch) {
        case Launch::EagerSync:
            launch =
                "    # launch=eager_sync: every step op by op from Python, waiting for each.\n"
                "    run_eagerly, jit_compile = True, False\n";
            break;
        case Launch::Fused:
            launch =
                "    # launch=fused: the whole train step compiled by XLA into a few fused kernels.\n"
                "    run_eagerly, jit_compile = False, True\n";
            break;
        default:
            launch =
                "    # launch=graph_step: the step traced once into a tf.function graph and replayed, without\n"
                "    # XLA (Keras 2's default; Keras 3 would choose XLA by itself on a GPU).\n"
                "    run_eagerly, jit_compile = False, False\n";
    }
    return R"PY(

def compile_model(model):
    """model.compile with the run's loss, optimizer and launch; accuracy on the output's threshold."""
)PY" + launch +
           "    optimizer = " + optimizerConstruction(c.optimizer) + kerasTaskLossDefinition(c, run, task) +
           (task != Task::Binary ? "\n    model.compile(" + kerasTaskCompileArguments(c, run, task) +
                                       "                  run_eagerly=run_eagerly, jit_compile=jit_compile)\n"
                                 : "\n    model.compile(loss=keras.losses.BinaryCrossentropy(from_logits=" +
                                       pyBool(logits) + "),  # loss=" + toString(run.loss) +
                                       "\n                  optimizer=optimizer,\n                  "
                                       "metrics=[keras.metrics.BinaryAccuracy(name=\"accuracy\", threshold=" +
                                       (logits ? "0.0" : "0.5") +
                                       ")],\n                  run_eagerly=run_eagerly, jit_compile=jit_compile)\n");
}

std::string dataCode(const ExecutionSettings& run) {
    std::string s = R"PY(

def fit_inputs(x, y):
    """What model.fit trains on, as keyword arguments of fit."""
)PY";
    if (run.dataPath == DataPath::PerSampleGather)
        return s +
               R"PY(    # data_path=per_sample_gather: the rows one by one from a tf.data.Dataset, collated by batch(),
    # as a DataLoader over a TensorDataset does; fit takes the dataset's batches as they come.
    rows = tf.data.Dataset.from_tensor_slices((x, y))
    if SHUFFLE:
        rows = rows.shuffle(x.shape[0], seed=SEED, reshuffle_each_iteration=True)
    return {"x": rows.batch(BATCH_SIZE), "shuffle": False}  # the dataset shuffles itself
)PY";
    return s + "    # data_path=" + toString(run.dataPath) +
           ": fit slices whole batches from the arrays through its own tf.data pipeline.\n"
           "    return {\"x\": x, \"y\": y, \"batch_size\": BATCH_SIZE, \"shuffle\": SHUFFLE}\n";
}

std::string recorderCode(Task task) {
    std::string s = R"PY(

def make_recorder(log, rows, rows_val):
    """A callback that times each epoch from on_epoch_begin to on_epoch_end (fit validates before
    on_epoch_end, so validation is inside) and emits its line. fit's loss and accuracy are means over
    the epoch's rows (each batch weighted by its rows): times the rows they are the sums."""

    class EpochRecorder(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.start = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            end = time.perf_counter()
            train = (logs["loss"] * rows, round(logs["accuracy"] * rows), rows)
            val = (logs["val_loss"] * rows_val, round(logs["val_accuracy"] * rows_val)) if rows_val else None
            if not log.add(epoch + 1, self.start, end, train, val):
                self.model.stop_training = True

    return EpochRecorder()
)PY";
    if (task != Task::Regression) return s;
    // A regression's sums: fit's mean squared and absolute errors times the rows.
    const std::string train = "            train = (logs[\"loss\"] * rows, round(logs[\"accuracy\"] * rows), rows)\n";
    s.replace(s.find(train), train.size(),
              "            train = (logs[\"loss\"] * rows, 0, rows, logs[\"squared_error\"] * rows,\n"
              "                     logs[\"absolute_error\"] * rows)\n");
    const std::string val =
        "            val = (logs[\"val_loss\"] * rows_val, round(logs[\"val_accuracy\"] * rows_val)) if rows_val else "
        "None\n";
    s.replace(s.find(val), val.size(),
              "            val = (logs[\"val_loss\"] * rows_val, 0, logs[\"val_squared_error\"] * rows_val,\n"
              "                   logs[\"val_absolute_error\"] * rows_val) if rows_val else None\n");
    return s;
}

std::string mainCode(Task task) {
    std::string s = R"PY(

def device_name(device):
    if device == "cuda":
        gpu = tf.config.list_physical_devices("GPU")[0]
        return tf.config.experimental.get_device_details(gpu).get("device_name", gpu.name)
    return cpu_name()


def main():
    claim_stdout()
    args = parse_args()
    load_keras(args.device)
    set_precision(args.device)
    keras.utils.set_random_seed(SEED)  # the initial weights without --init-weights, and the shuffling
    x, y = load_rows(args.data, args.labels)
    val = load_rows(args.val_data, args.val_labels) if args.val_data else None
    model = build_model(x.shape[1])
    if args.init_weights:
        set_initial_weights(model, args.init_weights)
    compile_model(model)
    facts = {"framework": "keras", "keras": keras.__version__, "tensorflow": tf.__version__,
             "python": sys.executable, "python_version": platform.python_version(), "device": args.device,
             "device_name": device_name(args.device),
             "threads": tf.config.threading.get_intra_op_parallelism_threads() or os.cpu_count()}
    emit({"event": "ready", **facts})

    log = EpochLog(val[0].shape[0] if val else 0)
    # Validation batches are as large as the training batches (fit's default for arrays, said
    # explicitly because a tf.data input would otherwise validate in batches of 32).
    validation = {"validation_data": val, "validation_batch_size": BATCH_SIZE} if val else {}
    model.fit(**fit_inputs(x, y), epochs=args.epochs, verbose=0,
              callbacks=[make_recorder(log, x.shape[0], log.rows_val)], **validation)

)PY" + scriptEnding("final_tensors(model)");
    if (task != Task::Regression) return s;
    const std::string log = "    log = EpochLog(val[0].shape[0] if val else 0)\n";
    return s.replace(
        s.find(log), log.size(),
        "    log = EpochLog(val[0].shape[0] if val else 0, (spread(y), spread(val[1]) if val else None))\n");
}

}  // namespace

std::string kerasScript(const RunConfig& config, const KerasTarget& target) {
    const Task task = scriptTask(config);
    const auto ignored = withTaskIgnored(kerasIgnoredSwitches(config.execution, target), task);
    const ExecutionSettings run = kerasEffectiveSettings(config.execution, target);
    return docstring(config, run, target, ignored, task) + imports() +
           scriptConstants(config, "keras", target.device, "Keras loop") + taskFileHelpers(task) +
           taskRunHelpers(task) + loadKerasCode() + precisionCode(run.precision) + modelCode(config, run, task) +
           compileCode(config, run, task) + dataCode(run) + recorderCode(task) + mainCode(task);
}

}  // namespace wb
