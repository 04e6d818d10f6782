#!/usr/bin/env python3
"""JAX peer: the whole epoch in one jit-compiled function, the steps in lax.scan.

The workload of every peer (61 -> 20 -> 10 -> 1 tanh, binary cross-entropy on the logit, Adam
lr 1e-3, batch 2048, no shuffling), written the way JAX wants it:
  * the data set lives on the device, reshaped once into full batches (steps, batch, features)
    plus the tail batch (the rows that do not fill a batch, as a second, smaller step);
  * one epoch = one call of a jit-compiled function: lax.scan runs the full batches' steps, then
    the tail step runs, all inside the same compiled program, so Python is not in the loop;
  * Adam written out as torch.optim.Adam computes it (no optax needed); the loss is the stable
    binary cross-entropy with logits, the batch mean as in PyTorch;
  * fp32 matmuls at "highest" precision, so a GPU does not silently use TF32 (PyTorch's default).

--threads T restricts the process to T CPUs (an affinity mask: XLA sizes its pool from it).
Initial weights: --init-weights FILE (the workbench's safetensors names), else nn.Linear's
default distribution drawn with numpy from --seed (same distribution as PyTorch, other numbers).

Run with the peers' venv (bench/peers/setup_venv.sh):
  .venv/bin/python bench/peers/jax_scan.py --data x.npy --labels y.npy --epochs 20 --device cpu --out run.json
Prints one line per epoch and the median epoch time (warm-up epoch 1, which compiles, excluded).
Prints a line starting "SKIP:" and exits 0 when JAX is missing or --device cuda has no GPU.
"""

import os
import sys

import peer_core

DEFAULT_NAME = "JAX jit+scan"

# What the measured loop does, recorded in the RunRecord's config.peer.
LOOP = {
    "script": "bench/peers/jax_scan.py",
    "description": "the whole epoch in one jit: lax.scan over resident full batches + the tail "
                   "batch, BCE with logits, Adam written out, fp32 matmuls at highest precision",
    "switches": {"data_path": "device_resident", "launch": "fused", "loss": "bce_with_logits",
                 "zero_grad": "none", "optimizer_kernel": "multi_tensor", "precision": "fp32"},
    "per_step_host_sync": False,
}

BETA1, BETA2, EPS = 0.9, 0.999, 1e-8


def limit_cpus(threads):
    """Restricts this process to `threads` of the CPUs it may run on, before JAX starts.

    XLA has no supported thread-count setting; it sizes its CPU thread pool from the CPUs the
    process may use (sched_getaffinity), so an affinity mask is how --threads T is honoured.
    Returns the number of CPUs now allowed.
    """
    allowed = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, allowed[:max(1, min(threads, len(allowed)))])
    return len(os.sched_getaffinity(0))


def import_jax(device):
    """Imports JAX for `device`; returns (jax, jnp, reason): reason is why the peer must skip."""
    if device == "cpu":
        os.environ.setdefault("JAX_PLATFORMS", "cpu")  # do not probe for GPUs on a CPU run
    try:
        import jax
        import jax.numpy as jnp
    except ImportError as exc:
        return None, None, f"JAX is not importable by {sys.executable} ({exc}); use the peers' venv " \
                           "(bench/peers/setup_venv.sh)"
    if device == "cuda":
        try:
            jax.devices("gpu")
        except RuntimeError as exc:
            return None, None, f"--device cuda requested but JAX sees no GPU ({exc}; jax {jax.__version__})"
    return jax, jnp, None


def make_epoch(jax, jnp, lr):
    """Returns epoch(params, opt, x_full, y_full, x_tail, y_tail) -> (params, opt, loss_sum, correct).

    params: [(w (out, in), b (out,)), ...] per layer; opt: (step, m, v) with m, v shaped as params;
    x_full (steps, batch, features), y_full (steps, batch, 1); x_tail (tail, features),
    y_tail (tail, 1) (tail may be 0 rows, then the tail step is skipped at trace time).
    """

    def forward(params, x):  # x (B, features) -> logits (B, 1)
        for w, b in params[:-1]:
            x = jnp.tanh(x @ w.T + b)
        w, b = params[-1]
        return x @ w.T + b

    def loss_fn(params, x, y):  # mean BCE with logits over the batch, and the logits
        z = forward(params, x)
        loss = jnp.mean(jnp.maximum(z, 0.0) - z * y + jnp.log1p(jnp.exp(-jnp.abs(z))))
        return loss, z

    def adam(params, grads, opt):  # torch.optim.Adam's update, weight_decay 0
        step, m, v = opt
        step = step + 1
        m = jax.tree_util.tree_map(lambda m_, g: BETA1 * m_ + (1 - BETA1) * g, m, grads)
        v = jax.tree_util.tree_map(lambda v_, g: BETA2 * v_ + (1 - BETA2) * g * g, v, grads)
        correction1 = 1 - BETA1 ** step
        correction2 = 1 - BETA2 ** step
        params = jax.tree_util.tree_map(
            lambda p, m_, v_: p - (lr / correction1) * m_ / (jnp.sqrt(v_) / jnp.sqrt(correction2) + EPS),
            params, m, v)
        return params, (step, m, v)

    def train_step(params, opt, x, y):
        (loss, z), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
        params, opt = adam(params, grads, opt)
        correct = jnp.sum((z >= 0).astype(jnp.int32) == y.astype(jnp.int32))
        return params, opt, loss * x.shape[0], correct

    def epoch(params, opt, x_full, y_full, x_tail, y_tail):
        def body(carry, batch):
            params_, opt_, loss_sum, correct = carry
            params_, opt_, loss, right = train_step(params_, opt_, *batch)
            return (params_, opt_, loss_sum + loss, correct + right), None

        init = (params, opt, jnp.zeros((), jnp.float32), jnp.zeros((), jnp.int32))
        (params, opt, loss_sum, correct), _ = jax.lax.scan(body, init, (x_full, y_full))
        if x_tail.shape[0] > 0:  # static: decided when tracing
            params, opt, loss, right = train_step(params, opt, x_tail, y_tail)
            loss_sum, correct = loss_sum + loss, correct + right
        return params, opt, loss_sum, correct

    return jax.jit(epoch, donate_argnums=(0, 1))


def split_batches(x, y, batch_size):
    """x (rows, f), y (rows,) -> x_full (steps, batch, f), y_full (steps, batch, 1), x_tail, y_tail."""
    rows = x.shape[0]
    steps = rows // batch_size
    full = steps * batch_size
    x_full = x[:full].reshape(steps, batch_size, x.shape[1])
    y_full = y[:full].reshape(steps, batch_size, 1)
    return x_full, y_full, x[full:], y[full:].reshape(-1, 1)


def main(argv=None):
    args = peer_core.parse_args(__doc__, DEFAULT_NAME, argv)
    reason = peer_core.numpy_unavailable_reason()
    if reason:
        return peer_core.skip(reason)
    cpus = limit_cpus(args.threads) if args.threads is not None else None
    jax, jnp, reason = import_jax(args.device)
    if reason:
        return peer_core.skip(reason)
    jax.config.update("jax_default_matmul_precision", "highest")  # fp32, not TF32, on a GPU
    np = peer_core.np

    try:
        x, y = peer_core.load_npy_dataset(args.data, args.labels)
        if args.init_weights:
            tensors = peer_core.load_initial_tensors(args.init_weights, x.shape[1], args.hidden)
        else:
            tensors = peer_core.torch_default_init(x.shape[1], args.hidden, args.seed)
    except (OSError, ValueError) as exc:  # unreadable file, wrong shape, non-binary labels
        return peer_core.fail(exc)

    device = jax.devices("gpu" if args.device == "cuda" else "cpu")[0]
    names = list(tensors)
    params = [(jax.device_put(tensors[w], device), jax.device_put(tensors[b], device))
              for w, b in zip(names[0::2], names[1::2])]
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    opt = (jax.device_put(jnp.zeros((), jnp.float32), device), zeros,
           jax.tree_util.tree_map(jnp.zeros_like, params))
    batches = [jax.device_put(a, device) for a in split_batches(x, y, args.batch_size)]  # moved once
    epoch = make_epoch(jax, jnp, args.lr)

    # threads: the CPUs the process may use with --threads (XLA's pool follows them), else None.
    env = peer_core.base_environment("jax", args.device, f"jax {jax.__version__}", cpus)
    env["jaxlib"] = getattr(sys.modules.get("jaxlib"), "__version__", None)
    env["device_name"] = str(device.device_kind)
    config = peer_core.peer_config(args, LOOP, backend="jax", init="torch")
    config["precision_note"] = "jax_default_matmul_precision=highest (true fp32 matmuls)"
    record = peer_core.RunRecord(args.out, args.name, config,
                                 peer_core.dataset_description(args.data, args.labels, x), env)
    state = {"params": params, "opt": opt}

    def run_epoch():
        state["params"], state["opt"], loss_sum, correct = epoch(state["params"], state["opt"], *batches)
        return float(loss_sum), int(correct)  # the epoch's only host sync

    code = peer_core.run_epochs(args, int(x.shape[0]), record, run_epoch)
    if code == 0 and args.save_weights:
        final = {}
        for i, (w, b) in enumerate(state["params"]):
            final[f"layers.{i}.weight"] = np.asarray(w)
            final[f"layers.{i}.bias"] = np.asarray(b)
        peer_core.write_safetensors(args.save_weights, final)
    return code


if __name__ == "__main__":
    sys.exit(main())
