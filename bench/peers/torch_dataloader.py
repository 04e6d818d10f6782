#!/usr/bin/python3
"""PyTorch peer: the founding training loop AS POSTED (with the answer's sigmoid fix).

What the loop does, line by line as in the founding post (see /work/shared/seed/):
  * TensorDataset(torch.Tensor(x), torch.Tensor(y)) + DataLoader(batch_size=2048, shuffle=False):
    every batch is fetched sample by sample and collated (the workbench's
    data_path=per_sample_gather);
  * inputs.to(device), targets.to(device) for every batch, then targets.reshape(-1, 1);
  * model.zero_grad(); optimizer.zero_grad()  (zero_grad=twice);
  * the model ends with a separate nn.Sigmoid and the loss is nn.BCELoss (loss=sigmoid_bce).
    The posted code applied BCELoss to raw outputs, which is a bug; the answer's fixed version
    puts a sigmoid in front, and that is what this peer runs;
  * Adam, lr 1e-3; no .item() or other host sync per step.

Only one thing is added to the posted loop: the epoch's training loss and accuracy, accumulated
on the device from detached tensors and read once per epoch (see common.train_and_record), so the
measured loop gains a few tiny on-device ops per step but no host sync.

Run with Debian's PyTorch:
  /usr/bin/python3 bench/peers/torch_dataloader.py --data x.npy --labels y.npy --epochs 200 \
      --device cpu --threads 2 --out run.json
Prints one line per epoch and the median epoch time (warm-up epoch 1 excluded). Prints a line
starting "SKIP:" and exits 0 when torch is missing or --device cuda has no GPU.
"""

import sys

import common

DEFAULT_NAME = "PyTorch (DataLoader)"

# What the measured loop does, recorded in the RunRecord's config.peer.
LOOP = {
    "script": "bench/peers/torch_dataloader.py",
    "description": "founding loop as posted: DataLoader over TensorDataset, .to(device) per batch, "
                   "model.zero_grad() + optimizer.zero_grad(), Sigmoid + BCELoss, Adam",
    "switches": {"data_path": "per_sample_gather", "loss": "sigmoid_bce", "zero_grad": "twice",
                 "optimizer_kernel": "per_tensor", "precision": "fp32"},
    "per_step_host_sync": False,
}


def make_epoch_runner(model, loader, device, lr):
    """Returns run_epoch(): one pass of the founding loop over `loader`.

    run_epoch() returns (sum of per-sample losses, number of correct predictions) as 0-d tensors
    on `device`, accumulated without a host sync.
    """
    torch = common.torch
    nn = common.nn
    loss_func = nn.BCELoss()  # on the model's sigmoid output (the answer's fix)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    loss_sum = torch.zeros((), dtype=torch.float64, device=device)
    correct = torch.zeros((), dtype=torch.int64, device=device)

    def run_epoch():
        loss_sum.zero_()
        correct.zero_()
        for inputs, targets in loader:
            inputs, targets = inputs.to(device), targets.to(device)
            targets = targets.reshape(-1, 1)
            model.zero_grad()
            optimizer.zero_grad()
            outputs = model(inputs)
            clf_loss = loss_func(outputs, targets)
            clf_loss.backward()
            optimizer.step()
            # Metrics, not in the posted code (which has no .item()): accumulate the detached
            # batch loss x batch rows and the correct count (p >= 0.5) on the device; the sums are
            # read once per epoch, so no per-step host sync is added.
            loss_sum.add_(clf_loss.detach(), alpha=targets.shape[0])
            correct.add_(((outputs.detach() >= 0.5) == targets).sum())
        return loss_sum, correct

    return run_epoch


def main(argv=None):
    args, reason = common.parse_peer_args(__doc__, DEFAULT_NAME, argv)
    if reason:
        return common.skip(reason)

    torch = common.torch
    from torch.utils.data import DataLoader, TensorDataset

    try:
        x, y, model = common.prepare(args, output_sigmoid=True)
    except (OSError, ValueError) as exc:  # unreadable file, wrong shape, non-binary labels
        return common.fail(exc)
    # As posted: float tensors built from the host arrays, batches assembled by the DataLoader.
    train_tensor = TensorDataset(torch.Tensor(x), torch.Tensor(y))
    train_loader = DataLoader(dataset=train_tensor, batch_size=args.batch_size, shuffle=False)
    run_epoch = make_epoch_runner(model, train_loader, args.device, args.lr)
    return common.train_and_record(args, x, model, common.peer_config(args, LOOP), run_epoch)


if __name__ == "__main__":
    sys.exit(main())
