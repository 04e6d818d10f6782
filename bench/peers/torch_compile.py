#!/usr/bin/env python3
"""PyTorch 2 peer: the training step compiled with torch.compile(mode="reduce-overhead").

The founding answer's first fix ("启用静态图编译": compile the model) applied to the resident-tensor
loop of torch_resident.py:
  * data resident on the device, each batch a slice (data_path=device_resident);
  * the step's forward + loss compiled as one function with torch.compile(mode="reduce-overhead",
    dynamic=False) (AOTAutograd compiles its backward too), and optimizer.step() compiled as a
    second function, the "compiled optimizer" recipe. On a GPU, reduce-overhead records each
    compiled graph as a CUDA Graph and replays it (cudagraph trees); on a CPU there are no CUDA
    Graphs, so the mode only means Inductor-generated C++ kernels: the run is labelled "(CPU)";
  * BCEWithLogitsLoss, one zero_grad (set_to_none), Adam lr 1e-3 (capturable on a GPU, so its
    step count stays on the device inside the graph); fp32; no per-step host sync.
With dynamic=False the full batches and the smaller last batch each get their own graph (two
compilations, both in the warm-up epoch 1).

Needs torch 2 (the peers' venv, bench/peers/setup_venv.sh) and, on a CPU, a C++ compiler for
Inductor. Run:
  .venv/bin/python bench/peers/torch_compile.py --data x.npy --labels y.npy --epochs 20 --device cuda --out run.json
Prints one line per epoch and the median epoch time (warm-up epoch 1, which compiles, excluded).
Prints a line starting "SKIP:" and exits 0 when torch 2 is missing or --device cuda has no GPU.
"""

import sys

import common

DEFAULT_NAME = "PyTorch torch.compile (reduce-overhead)"

# What the measured loop does, recorded in the RunRecord's config.peer.
LOOP = {
    "script": "bench/peers/torch_compile.py",
    "description": "resident tensors sliced per batch; forward+loss and optimizer.step each "
                   "torch.compile(mode='reduce-overhead', dynamic=False); BCEWithLogitsLoss, Adam",
    "switches": {"data_path": "device_resident", "launch": "graph_step", "loss": "bce_with_logits",
                 "zero_grad": "once", "optimizer_kernel": "multi_tensor", "precision": "fp32"},
    "per_step_host_sync": False,
}


def make_epoch_runner(model, x, y, batch_size, lr, device):
    """Returns run_epoch(): one pass over x (rows, features), y (rows, 1) with the compiled step.

    run_epoch() returns (sum of per-sample losses, number of correct predictions) as 0-d tensors
    on the data's device, accumulated without a host sync.
    """
    torch = common.torch
    loss_func = common.nn.BCEWithLogitsLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, capturable=(device == "cuda"))
    rows = x.shape[0]
    loss_sum = torch.zeros((), dtype=torch.float64, device=x.device)
    correct = torch.zeros((), dtype=torch.int64, device=x.device)

    @torch.compile(mode="reduce-overhead", dynamic=False)
    def forward_loss(inputs, targets):  # (B, features), (B, 1) -> loss (), logits (B, 1)
        logits = model(inputs)
        return loss_func(logits, targets), logits

    @torch.compile(mode="reduce-overhead", dynamic=False)
    def optimizer_step():
        optimizer.step()

    def run_epoch():
        loss_sum.zero_()
        correct.zero_()
        for start in range(0, rows, batch_size):
            inputs = x[start:start + batch_size]    # (B, features), a view
            targets = y[start:start + batch_size]   # (B, 1), a view
            torch.compiler.cudagraph_mark_step_begin()  # a new iteration: earlier outputs may be reused
            optimizer.zero_grad(set_to_none=True)
            loss, logits = forward_loss(inputs, targets)
            loss.backward()
            optimizer_step()
            # Metrics, read before the next replay can overwrite the graph's outputs.
            loss_sum.add_(loss.detach(), alpha=targets.shape[0])
            correct.add_(((logits.detach() >= 0) == targets).sum())
        return loss_sum, correct

    return run_epoch


def main(argv=None):
    args, reason = common.parse_peer_args(__doc__, DEFAULT_NAME, argv)
    if reason:
        return common.skip(reason)
    torch = common.torch
    if common.torch_major() < 2 or not hasattr(torch, "compile"):
        return common.skip(f"torch.compile needs PyTorch 2; {sys.executable} has torch {torch.__version__} "
                           "(use the peers' venv, bench/peers/setup_venv.sh)")

    try:
        x_host, y_host, model = common.prepare(args, output_sigmoid=False)
    except (OSError, ValueError) as exc:  # unreadable file, wrong shape, non-binary labels
        return common.fail(exc)
    if args.device == "cpu" and args.name == DEFAULT_NAME:
        args.name = DEFAULT_NAME + " (CPU)"  # no CUDA Graphs on a CPU: Inductor kernels only
    x = torch.from_numpy(x_host).to(args.device)                  # moved once
    y = torch.from_numpy(y_host).reshape(-1, 1).to(args.device)   # (rows, 1)
    run_epoch = make_epoch_runner(model, x, y, args.batch_size, args.lr, args.device)
    config = common.peer_config(args, LOOP)
    config["peer"] = dict(LOOP, cuda_graphs=(args.device == "cuda"))
    return common.train_and_record(args, x_host, model, config, run_epoch)


if __name__ == "__main__":
    sys.exit(main())
