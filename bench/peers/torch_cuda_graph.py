#!/usr/bin/env python3
"""PyTorch peer: the whole training step captured once as a CUDA Graph and replayed (GPU only).

PyTorch's "whole-network capture" recipe (torch.cuda.graph) applied to the resident-tensor loop:
  * data resident on the GPU; each step copies its batch into static input tensors
    (a device-to-device copy) and replays the graph (data_path=device_resident, launch=graph_step);
  * the captured step: zero_grad (in place, so the .grad tensors keep their addresses), forward,
    BCEWithLogitsLoss, backward, Adam (capturable=True, so its step count lives on the GPU), and the
    epoch's loss and correct-count sums: one graph launch per step, no host sync;
  * two graphs: one for the full batches and one for the smaller last batch, sharing the same
    parameters, gradients and optimizer state;
  * capture needs a few eager warm-up steps on a side stream; they change the weights, so the
    weights are put back and the optimizer's state zeroed afterwards (in place), and training
    starts from the same point as every other peer.
Needs a CUDA GPU and torch >= 1.10 (Debian's 1.13 works where it has CUDA; the peers' venv too).
  .venv/bin/python bench/peers/torch_cuda_graph.py --data x.npy --labels y.npy --epochs 20 --device cuda --out run.json
Prints one line per epoch and the median epoch time (warm-up epoch 1, which captures, excluded).
Prints a line starting "SKIP:" and exits 0 without a GPU (this peer has no CPU mode).
"""

import sys

import common

DEFAULT_NAME = "PyTorch CUDA Graph step"

# What the measured loop does, recorded in the RunRecord's config.peer.
LOOP = {
    "script": "bench/peers/torch_cuda_graph.py",
    "description": "resident tensors; per step a copy into static inputs and one replay of a "
                   "torch.cuda.graph-captured step (zero_grad, forward, BCEWithLogitsLoss, "
                   "backward, capturable Adam, metric sums)",
    "switches": {"data_path": "device_resident", "launch": "graph_step", "loss": "bce_with_logits",
                 "zero_grad": "once", "optimizer_kernel": "per_tensor", "precision": "fp32"},
    "per_step_host_sync": False,
}

WARMUP_STEPS = 3  # eager steps on a side stream before capture, as PyTorch's recipe does


class CapturedStep:
    """One captured training step for batches of exactly `batch` rows.

    static_x (batch, features) and static_y (batch, 1) are the graph's inputs; replay() runs the
    step on whatever they hold and adds to the shared sums loss_sum () and correct ().
    """

    def __init__(self, torch, model, optimizer, loss_func, batch, features, sums, pool=None):
        device = sums[0].device
        self.static_x = torch.zeros((batch, features), device=device)
        self.static_y = torch.zeros((batch, 1), device=device)
        self._torch = torch
        loss_sum, correct = sums

        def step():
            optimizer.zero_grad(set_to_none=False)  # in place: the .grad addresses stay fixed
            logits = model(self.static_x)                          # (batch, 1)
            loss = loss_func(logits, self.static_y)
            loss.backward()
            optimizer.step()
            loss_sum.add_(loss.detach(), alpha=batch)
            correct.add_(((logits.detach() >= 0) == self.static_y).sum())

        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(WARMUP_STEPS):
                step()
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph, pool=pool):
            step()

    def run(self, inputs, targets):
        """Copies one batch into the static inputs (device to device) and replays the step."""
        self.static_x.copy_(inputs)
        self.static_y.copy_(targets)
        self.graph.replay()


def reset_training_state(torch, model, initial, optimizer, sums):
    """Puts the weights back to `initial` and zeroes Adam's state and the sums, all in place
    (the captured graphs hold these tensors' addresses)."""
    with torch.no_grad():
        for name, tensor in model.state_dict().items():
            tensor.copy_(initial[name])
        for state in optimizer.state.values():
            for value in state.values():
                if torch.is_tensor(value):
                    value.zero_()
        for tensor in sums:
            tensor.zero_()


def build_steps(model, x, batch_size, lr):
    """Captures the full-batch step and, when rows % batch_size != 0, the last-batch step.

    Returns (steps {rows_in_batch: CapturedStep}, (loss_sum, correct)).
    """
    torch = common.torch
    loss_func = common.nn.BCEWithLogitsLoss()
    # Gradients must exist before capture so that zero_grad(set_to_none=False) zeroes them in place.
    for parameter in model.parameters():
        parameter.grad = torch.zeros_like(parameter)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, capturable=True)
    sums = (torch.zeros((), dtype=torch.float64, device=x.device),
            torch.zeros((), dtype=torch.int64, device=x.device))
    initial = {name: t.detach().clone() for name, t in model.state_dict().items()}
    rows, features = x.shape
    sizes = [min(batch_size, rows)] + ([rows % batch_size] if rows > batch_size and rows % batch_size else [])
    steps = {}
    pool = None
    for size in sizes:
        steps[size] = CapturedStep(torch, model, optimizer, loss_func, size, features, sums, pool)
        pool = steps[size].graph.pool()  # the graphs run one after another: share their memory
    reset_training_state(torch, model, initial, optimizer, sums)
    torch.cuda.synchronize()
    return steps, sums


def make_epoch_runner(steps, sums, x, y, batch_size):
    """Returns run_epoch(): one pass over the resident x (rows, features), y (rows, 1) by replays."""
    rows = x.shape[0]
    loss_sum, correct = sums

    def run_epoch():
        loss_sum.zero_()
        correct.zero_()
        for start in range(0, rows, batch_size):
            inputs = x[start:start + batch_size]    # (B, features), a view
            targets = y[start:start + batch_size]   # (B, 1), a view
            steps[inputs.shape[0]].run(inputs, targets)
        return loss_sum, correct

    return run_epoch


def main(argv=None):
    args, reason = common.parse_peer_args(__doc__, DEFAULT_NAME, argv)
    if reason:
        return common.skip(reason)
    if args.device != "cuda":
        return common.skip("torch.cuda.graphs capture needs a GPU: run with --device cuda")
    torch = common.torch
    if not hasattr(torch.cuda, "CUDAGraph"):
        return common.skip(f"torch {torch.__version__} has no torch.cuda.CUDAGraph")

    try:
        x_host, y_host, model = common.prepare(args, output_sigmoid=False)
    except (OSError, ValueError) as exc:  # unreadable file, wrong shape, non-binary labels
        return common.fail(exc)
    x = torch.from_numpy(x_host).to(args.device)                  # moved once
    y = torch.from_numpy(y_host).reshape(-1, 1).to(args.device)   # (rows, 1)
    steps, sums = build_steps(model, x, args.batch_size, args.lr)
    run_epoch = make_epoch_runner(steps, sums, x, y, args.batch_size)
    config = common.peer_config(args, LOOP)
    config["peer"] = dict(LOOP, capture="before epoch 1, not timed", graphs=sorted(steps))
    return common.train_and_record(args, x_host, model, config, run_epoch)


if __name__ == "__main__":
    sys.exit(main())
