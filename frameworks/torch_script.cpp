#include "frameworks/torch_script.h"

#include <map>

#include "frameworks/script_text.h"
#include "frameworks/task_code.h"
#include "frameworks/torch_data_path.h"
#include "frameworks/torch_task_code.h"

namespace wb {

namespace {

// What each switch value does in the generated loop, for the docstring.
std::string describeValue(const std::string& name, const std::string& value) {
    static const std::map<std::string, std::string> kText = {
        {"data_path=per_sample_gather", "a DataLoader over a TensorDataset fetches and collates every row on its own"},
        {"data_path=pageable_copy", "slices of CPU tensors, each copied to the device per batch"},
        {"data_path=pinned_async", "pinned CPU tensors, copied with non_blocking=True"},
        {"data_path=device_resident", "the rows copied to the device once, then sliced"},
        {"launch=eager_sync", "loss.item() after every step: the host waits for the device each step"},
        {"launch=eager", "metrics summed on the device and read once per epoch: no wait per step"},
        {"launch=graph_step", "the model compiled with torch.compile(mode='reduce-overhead')"},
        {"launch=fused", "a whole-step fused kernel (not in PyTorch)"},
        {"loss=sigmoid_bce", "a separate Sigmoid + BCELoss"},
        {"loss=bce_with_logits", "BCEWithLogitsLoss on the logits: fused and numerically stable"},
        {"zero_grad=twice", "model.zero_grad() and optimizer.zero_grad(), as posted"},
        {"zero_grad=once", "optimizer.zero_grad() once"},
        {"zero_grad=none", "optimizer.zero_grad(set_to_none=True): gradients written, not zeroed and added"},
        {"optimizer_kernel=per_tensor", "foreach=False: one update per parameter tensor"},
        {"optimizer_kernel=multi_tensor", "foreach=True: one multi-tensor update for all parameters"},
        {"precision=fp32", "fp32 throughout"},
        {"precision=tf32", "fp32 with TF32 tensor-core matrix products"},
        {"precision=bf16", "torch.autocast to bfloat16 for the forward pass, fp32 master weights"},
        {"precision=fp16", "torch.autocast to float16 with a GradScaler, fp32 master weights"},
        {"gemm=cublas", "PyTorch's own matrix-product kernels"},
        {"gemm=custom", "the workbench's own matrix products (not in PyTorch)"},
    };
    const auto it = kText.find(name + "=" + value);
    return it == kText.end() || name == "gemm" ? "" : it->second;
}

std::string activationModule(Activation a) {
    switch (a) {
        case Activation::Tanh: return "nn.Tanh()";
        case Activation::Relu: return "nn.ReLU()";
        case Activation::Sigmoid: return "nn.Sigmoid()";
        case Activation::Gelu: return "nn.GELU()  # the erf form";
        case Activation::Identity: return "nn.Identity()";
    }
    return "nn.Identity()";
}

std::string optimizerConstruction(const OptimizerSpec& o, bool foreach) {
    const std::string common = "model.parameters(), lr=" + pyNumber(o.lr);
    const std::string tail = ", weight_decay=" + pyNumber(o.weightDecay) + ", foreach=" + pyBool(foreach) + ")";
    switch (o.kind) {
        case OptimizerKind::Adam:
        case OptimizerKind::AdamW:
            return std::string("torch.optim.") + (o.kind == OptimizerKind::Adam ? "Adam" : "AdamW") + "(" + common +
                   ", betas=(" + pyNumber(o.beta1) + ", " + pyNumber(o.beta2) + "), eps=" + pyNumber(o.eps) + tail;
        case OptimizerKind::Sgd:
            return "torch.optim.SGD(" + common + ", momentum=" + pyNumber(o.momentum) +
                   ", dampening=" + pyNumber(o.dampening) + ", nesterov=" + pyBool(o.nesterov) + tail;
        case OptimizerKind::RmsProp:
            return "torch.optim.RMSprop(" + common + ", alpha=" + pyNumber(o.alpha) + ", eps=" + pyNumber(o.eps) +
                   ", momentum=" + pyNumber(o.momentum) + ", centered=" + pyBool(o.centered) + tail;
    }
    return {};
}

std::string docstring(const RunConfig& c, const ExecutionSettings& run, const TorchTarget& t,
                      const std::vector<IgnoredSwitch>& ignored, Task task) {
    const bool logits = run.loss == LossKind::BceWithLogits;
    const bool binary = task == Task::Binary;
    std::string s = "#!/usr/bin/env python3\n\"\"\"" + plain(c.name.empty() ? "custom" : c.name) +
                    ": a PyTorch training loop written by MLP Workbench.\n\n";
    s += "Model: inputs -> " + join(c.model.hidden, " -> ") + " -> " + (binary ? "1" : outputText(c, task)) + ", " +
         toString(c.model.activation) + "; loss: " +
         (binary ? (logits ? "BCEWithLogitsLoss" : "Sigmoid + BCELoss") : taskLossName(c, run.loss, task)) +
         "; optimizer: " + toString(c.optimizer.kind) + " (lr " + pyNumber(c.optimizer.lr) + ");\nbatch " +
         std::to_string(c.train.batchSize) + ", " + std::to_string(c.train.epochs) + " epochs, " +
         (c.train.shuffle ? "reshuffled every epoch" : "file order") + ", seed " + std::to_string(c.train.seed) +
         "; written for the " + (t.device == "cuda" ? "GPU (CUDA)" : "CPU") + ".\n\n";
    return s + switchesSection(run, ignored, describeForTask(describeValue, task)) +
           taskUsageSection("PyTorch and numpy", task);
}

std::string imports(const ExecutionSettings& run) {
    std::string s = R"PY(
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
import torch
from torch import nn
)PY";
    if (run.dataPath == DataPath::PerSampleGather) s += "from torch.utils.data import DataLoader, TensorDataset\n";
    return s;
}

std::string modelClass(const RunConfig& c, const ExecutionSettings& run, Task task) {
    const bool binary = task == Task::Binary;
    const bool probabilities = binary && run.loss == LossKind::SigmoidBce;
    std::string s = R"PY(

class Mlp(nn.Module):
    """Linear layers with )PY" +
                    toString(c.model.activation) +
                    R"PY( between them; parameters named layers.{i}.weight / layers.{i}.bias."""

    def __init__(self, inputs):
        super().__init__()
        widths = [inputs] + HIDDEN + [)PY" +
                    std::to_string(c.model.outputs) + R"PY(]
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(widths[:-1], widths[1:])])
        self.depth = len(widths) - 1
        self.activation = )PY" +
                    activationModule(c.model.activation) + "\n";
    if (c.model.init == InitKind::Glorot)
        s += R"PY(        for layer in self.layers:  # Keras' glorot_uniform weights and zero biases
            nn.init.xavier_uniform_(layer.weight)
            nn.init.zeros_(layer.bias)
)PY";
    if (probabilities)
        s += "        self.probability = nn.Sigmoid()  # loss=sigmoid_bce: the model ends in a Sigmoid\n";
    if (!binary) s += torchTaskProbability(task, run);
    s += R"PY(
    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < self.depth - 1:
                x = self.activation(x)
)PY";
    if (!binary) return s + torchTaskReturn(task, run);
    s += probabilities ? "        return self.probability(x)\n"
                       : "        return x  # logits: BCEWithLogitsLoss applies the sigmoid inside\n";
    return s;
}

std::string zeroGradCode(ZeroGrad z) {
    switch (z) {
        case ZeroGrad::Twice:
            return "        # zero_grad=twice: as posted, the model and then the optimizer zero the same gradients\n"
                   "        model.zero_grad(set_to_none=False)\n"
                   "        optimizer.zero_grad(set_to_none=False)\n";
        case ZeroGrad::Once: return "        optimizer.zero_grad(set_to_none=False)  # zero_grad=once\n";
        case ZeroGrad::None:
            return "        optimizer.zero_grad(set_to_none=True)  # zero_grad=none: backward writes fresh gradients\n";
    }
    return {};
}

std::string forwardCode(Precision p) {
    if (p == Precision::Bf16 || p == Precision::Fp16) {
        const std::string dtype = p == Precision::Bf16 ? "torch.bfloat16" : "torch.float16";
        return "        with torch.autocast(device_type=DEVICE, dtype=" + dtype + "):  # precision=" + toString(p) +
               "\n            outputs = forward(inputs)\n        loss = loss_fn(outputs.float(), targets)\n";
    }
    return "        outputs = forward(inputs)\n        loss = loss_fn(outputs, targets)\n";
}

std::string trainEpochCode(const ExecutionSettings& run, Task task, bool weighted) {
    const bool sync = run.launch == Launch::EagerSync;
    const bool scaled = run.precision == Precision::Fp16;
    const std::string threshold = run.loss == LossKind::SigmoidBce ? "0.5" : "0";
    std::string s = R"PY(

def train_epoch(forward, model, loss_fn, optimizer, epoch_batches, device, scaler):
    """One pass over the training rows: (sum of the rows' losses, rows classified right, rows)."""
    model.train()
)PY";
    s += sync ? "    loss_sum, correct, samples = 0.0, 0, 0\n"
              : "    # launch=eager: the metrics are summed on the device and read once, at the epoch's end.\n"
                "    loss_sum = torch.zeros((), dtype=torch.float64, device=device)\n"
                "    correct = torch.zeros((), dtype=torch.int64, device=device)\n"
                "    samples = 0\n";
    s += torchTaskWeightSum(run, weighted);
    if (task == Task::Regression)
        s += sync ? "    squared, absolute = 0.0, 0.0  # sums of (z - t)^2 and |z - t| over the rows\n"
                  : "    squared = torch.zeros((), dtype=torch.float64, device=device)  # sum of (z - t)^2\n"
                    "    absolute = torch.zeros((), dtype=torch.float64, device=device)  # sum of |z - t|\n";
    s += "    for inputs, targets in epoch_batches():\n";
    s += zeroGradCode(run.zeroGrad);
    s += forwardCode(run.precision);
    s += scaled ? "        scaler.scale(loss).backward()  # fp16: the loss scaled so small gradients survive\n"
                  "        scaler.step(optimizer)\n"
                  "        scaler.update()\n"
                : "        loss.backward()\n        optimizer.step()\n";
    s += "        rows = targets.shape[0]\n        samples += rows\n";
    if (task != Task::Binary) {
        if (sync)
            s += "        # launch=eager_sync: loss.item() makes the host wait for the device after every step.\n";
        return s + torchTaskTrainSums(run, task, weighted);
    }
    if (sync)
        s += "        # launch=eager_sync: loss.item() makes the host wait for the device after every step.\n"
             "        loss_sum += loss.item() * rows\n"
             "        correct += int(((outputs >= " +
             threshold +
             ") == (targets >= 0.5)).sum().item())\n"
             "    return loss_sum, correct, samples\n";
    else
        s += "        loss_sum += loss.detach().double() * rows\n"
             "        correct += ((outputs.detach() >= " +
             threshold +
             ") == (targets >= 0.5)).sum()\n"
             "    return loss_sum.item(), int(correct.item()), samples\n";
    return s;
}

std::string evaluateCode(const ExecutionSettings& run, Task task) {
    const std::string threshold = run.loss == LossKind::SigmoidBce ? "0.5" : "0";
    const bool autocast = run.precision == Precision::Bf16 || run.precision == Precision::Fp16;
    std::string forward = "        outputs = model(x).float()\n";
    if (autocast)
        forward = std::string("        with torch.autocast(device_type=DEVICE, dtype=") +
                  (run.precision == Precision::Bf16 ? "torch.bfloat16" : "torch.float16") +
                  "):\n            outputs = model(x).float()\n";
    const std::string head = std::string(R"PY(

def evaluate(model, loss_fn, x, y):
    """(sum of the rows' losses, rows classified right)PY") +
                             (task == Task::Regression ? ", 0, sums of squared and absolute errors" : "") +
                             R"PY() on resident rows, without training."""
    model.eval()
    with torch.no_grad():
)PY" + forward + R"PY(        loss = loss_fn(outputs, y).item() * y.shape[0]
)PY";
    if (task != Task::Binary) return head + torchTaskEvaluateSums(task);
    return head + R"PY(        correct = int(((outputs >= )PY" + threshold + R"PY() == (y >= 0.5)).sum().item())
    return loss, correct
)PY";
}

std::string setupCode(const RunConfig& c, const ExecutionSettings& run, Task task) {
    std::string s = R"PY(

def build(inputs, device, init_weights):
    """The model (from init_weights when given), its forward function, the loss and the optimizer."""
    model = Mlp(inputs)
    if init_weights:
        state = {k: torch.from_numpy(v) for k, v in read_safetensors(init_weights).items()}
        model.load_state_dict(state, strict=False)
        missing = [k for k in model.state_dict() if k not in state]
        if missing:
            raise ValueError(f"{init_weights} lacks {', '.join(missing)}")
    model.to(device)
)PY";
    if (c.framework.torch.scriptModel)
        s += "    model = torch.jit.script(model)  # the model compiled with TorchScript\n";
    s += run.launch == Launch::GraphStep
             ? "    # launch=graph_step: the forward (and its backward) compiled once and replayed as a graph.\n"
               "    forward = torch.compile(model, mode=\"reduce-overhead\")\n"
             : "    forward = model\n";
    if (task != Task::Binary)
        s += torchTaskLoss(c, run, task);
    else
        s += run.loss == LossKind::SigmoidBce
                 ? "    loss_fn = nn.BCELoss()  # loss=sigmoid_bce: on the model's Sigmoid output\n"
                 : "    loss_fn = nn.BCEWithLogitsLoss()  # loss=bce_with_logits\n";
    s += "    optimizer = " + optimizerConstruction(c.optimizer, run.optimizerKernel == OptimizerKernel::MultiTensor) +
         "  # optimizer_kernel=" + toString(run.optimizerKernel) + "\n";
    if (run.precision == Precision::Tf32)
        s += "    torch.backends.cuda.matmul.allow_tf32 = True  # precision=tf32: tensor-core matrix products\n";
    s += run.precision == Precision::Fp16 ? "    scaler = torch.cuda.amp.GradScaler()  # precision=fp16\n"
                                          : "    scaler = None\n";
    s += "    return model, forward, loss_fn, optimizer, scaler\n";
    return s;
}

std::string mainCode(Task task) {
    std::string s = R"PY(

def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def main():
    claim_stdout()
    args = parse_args()
    torch.manual_seed(SEED)
    device = torch.device(args.device)
    x, y = load_rows(args.data, args.labels)
    val = None
    if args.val_data:
        vx, vy = load_rows(args.val_data, args.val_labels)
        val = (torch.from_numpy(vx).to(device), torch.from_numpy(vy).to(device))
    model, forward, loss_fn, optimizer, scaler = build(x.shape[1], device, args.init_weights)
    epoch_batches = make_batches(x, y, device, torch.Generator().manual_seed(SEED))
    facts = {"framework": "torch", "torch": torch.__version__, "python": sys.executable,
             "python_version": platform.python_version(), "device": str(device),
             "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else cpu_name(),
             "threads": torch.get_num_threads()}
    emit({"event": "ready", **facts})

    log = EpochLog(val[1].shape[0] if val else 0)
    for epoch in range(1, args.epochs + 1):
        synchronize(device)
        start = time.perf_counter()
        train = train_epoch(forward, model, loss_fn, optimizer, epoch_batches, device, scaler)
        val_sums = evaluate(model, loss_fn, *val) if val else None
        synchronize(device)
        if not log.add(epoch, start, time.perf_counter(), train, val_sums):
            break

)PY" + scriptEnding("{k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}");
    if (task != Task::Regression) return s;
    const std::string log = "    log = EpochLog(val[1].shape[0] if val else 0)\n";
    return s.replace(s.find(log), log.size(),
                     "    log = EpochLog(val[1].shape[0] if val else 0, (spread(y), spread(vy) if val else None))\n");
}

}  // namespace

std::string torchScript(const RunConfig& config, const TorchTarget& target) {
    const Task task = scriptTask(config);
    const auto ignored = withTaskIgnored(torchIgnoredSwitches(config.execution, target), task);
    const ExecutionSettings run = torchEffectiveSettings(config.execution, target);
    return docstring(config, run, target, ignored, task) + imports(run) +
           scriptConstants(config, "torch", target.device, "PyTorch loop") + modelClass(config, run, task) +
           taskFileHelpers(task) + taskRunHelpers(task) + torchDataPathCode(run, config.framework.torch) +
           trainEpochCode(run, task, task == Task::Multiclass && !config.model.classWeights.values.empty()) +
           evaluateCode(run, task) + setupCode(config, run, task) + mainCode(task);
}

}  // namespace wb
