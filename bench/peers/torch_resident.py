#!/usr/bin/python3
"""PyTorch peer: the same model over resident tensors, sliced directly, with BCEWithLogitsLoss.

The answer's first fixes applied to the founding loop, and nothing else:
  * the whole data set is one tensor pair on the device (moved once on cuda; on the CPU a
    zero-copy view of the numpy arrays), and each batch is a slice x[i:i + bs]
    (the workbench's data_path=device_resident);
  * one optimizer.zero_grad() per step (zero_grad=once; set_to_none is this version's default);
  * nn.BCEWithLogitsLoss on the logit (loss=bce_with_logits);
  * Adam, lr 1e-3, fp32; no .item() or other host sync per step.

The epoch's training loss and accuracy are accumulated on the device from detached tensors and
read once per epoch (see common.train_and_record), as in torch_dataloader.py.

Run with Debian's PyTorch:
  /usr/bin/python3 bench/peers/torch_resident.py --data x.npy --labels y.npy --epochs 200 \
      --device cpu --threads 2 --out run.json
Prints one line per epoch and the median epoch time (warm-up epoch 1 excluded). Prints a line
starting "SKIP:" and exits 0 when torch is missing or --device cuda has no GPU.
"""

import sys

import common

DEFAULT_NAME = "PyTorch (resident tensors)"

# What the measured loop does, recorded in the RunRecord's config.peer.
LOOP = {
    "script": "bench/peers/torch_resident.py",
    "description": "resident tensors sliced per batch, optimizer.zero_grad() once, "
                   "BCEWithLogitsLoss on the logit, Adam",
    "switches": {"data_path": "device_resident", "loss": "bce_with_logits", "zero_grad": "once",
                 "optimizer_kernel": "per_tensor", "precision": "fp32"},
    "per_step_host_sync": False,
}


def make_epoch_runner(model, x, y, batch_size, lr):
    """Returns run_epoch(): one pass over the resident tensors x (rows, features), y (rows, 1).

    run_epoch() returns (sum of per-sample losses, number of correct predictions) as 0-d tensors
    on the data's device, accumulated without a host sync.
    """
    torch = common.torch
    loss_func = common.nn.BCEWithLogitsLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    rows = x.shape[0]
    loss_sum = torch.zeros((), dtype=torch.float64, device=x.device)
    correct = torch.zeros((), dtype=torch.int64, device=x.device)

    def run_epoch():
        loss_sum.zero_()
        correct.zero_()
        for start in range(0, rows, batch_size):
            inputs = x[start:start + batch_size]    # (B, features), a view
            targets = y[start:start + batch_size]   # (B, 1), a view
            optimizer.zero_grad()
            logits = model(inputs)                  # (B, 1)
            loss = loss_func(logits, targets)
            loss.backward()
            optimizer.step()
            # Metrics: detached batch loss x batch rows and correct count (logit >= 0), summed
            # on the device and read once per epoch (no per-step host sync).
            loss_sum.add_(loss.detach(), alpha=targets.shape[0])
            correct.add_(((logits.detach() >= 0) == targets).sum())
        return loss_sum, correct

    return run_epoch


def main(argv=None):
    args, reason = common.parse_peer_args(__doc__, DEFAULT_NAME, argv)
    if reason:
        return common.skip(reason)

    torch = common.torch
    try:
        x_host, y_host, model = common.prepare(args, output_sigmoid=False)
    except (OSError, ValueError) as exc:  # unreadable file, wrong shape, non-binary labels
        return common.fail(exc)
    # Moved to the device once (on the CPU: zero-copy views of the numpy arrays).
    x = torch.from_numpy(x_host).to(args.device)
    y = torch.from_numpy(y_host).reshape(-1, 1).to(args.device)
    run_epoch = make_epoch_runner(model, x, y, args.batch_size, args.lr)
    return common.train_and_record(args, x_host, model, common.peer_config(args, LOOP), run_epoch)


if __name__ == "__main__":
    sys.exit(main())
