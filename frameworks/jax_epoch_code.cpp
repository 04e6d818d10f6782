#include "frameworks/jax_epoch_code.h"

namespace wb {

namespace {
// host_batches(): the epoch's batches as numpy arrays, for the data paths that start on the host.
std::string hostBatchesCode(DataPath d) {
    std::string s = R"PY(

def host_batches(x, y, order):
    """The epoch's batches (x (B, cols), y (B, 1)) as host arrays, in `order` (None: file order)."""
)PY";
    if (d == DataPath::PerSampleGather)
        return s +
               R"PY(    # data_path=per_sample_gather: every batch gathered row by row (np.stack of single rows), as a
    # DataLoader over a TensorDataset collates its rows.
    index = np.arange(x.shape[0]) if order is None else order
    for start in range(0, x.shape[0], BATCH_SIZE):
        rows = index[start:start + BATCH_SIZE]
        yield np.stack([x[i] for i in rows]), np.stack([y[i] for i in rows])
)PY";
    return s + R"PY(    # data_path=pageable_copy: whole batches sliced from the host arrays.
    xs, ys = (x, y) if order is None else (x[order], y[order])
    for start in range(0, x.shape[0], BATCH_SIZE):
        yield xs[start:start + BATCH_SIZE], ys[start:start + BATCH_SIZE]
)PY";
}
}  // namespace

// make_batches(): epoch_batches(order), the batches on the device, one per jitted step.
std::string jaxStepDataCode(DataPath d) {
    if (d == DataPath::DeviceResident)
        return R"PY(

def make_batches(x, y, device):
    """Returns epoch_batches(order): the epoch's batches on the device."""
    # data_path=device_resident: the rows put on the device once; a batch is a slice there.
    x_dev, y_dev = jax.device_put(x, device), jax.device_put(y, device)

    def epoch_batches(order):
        xs, ys = (x_dev, y_dev) if order is None else (x_dev[order], y_dev[order])
        for start in range(0, x.shape[0], BATCH_SIZE):
            yield xs[start:start + BATCH_SIZE], ys[start:start + BATCH_SIZE]
    return epoch_batches
)PY";
    return hostBatchesCode(d) + R"PY(

def make_batches(x, y, device):
    """Returns epoch_batches(order): the epoch's batches on the device."""
    def epoch_batches(order):
        for xb, yb in host_batches(x, y, order):
            yield jax.device_put(xb, device), jax.device_put(yb, device)  # each batch copied on its own
    return epoch_batches
)PY";
}

// make_epoch_rows(): epoch_rows(order), the epoch's rows on the device for the one-program epoch.
std::string jaxEpochDataCode(DataPath d) {
    if (d == DataPath::DeviceResident)
        return R"PY(

def make_epoch_rows(x, y, device):
    """Returns epoch_rows(order): (x, y, order) on the device for scan_epoch."""
    # data_path=device_resident: the rows put on the device once; scan_epoch permutes and slices them there.
    x_dev, y_dev = jax.device_put(x, device), jax.device_put(y, device)

    def epoch_rows(order):
        return x_dev, y_dev, None if order is None else jax.device_put(order, device)
    return epoch_rows
)PY";
    return hostBatchesCode(d) + R"PY(

def make_epoch_rows(x, y, device):
    """Returns epoch_rows(order): (x, y, None) on the device for scan_epoch."""
    def epoch_rows(order):
        # The epoch is one program, so the host's batches are joined and copied once per epoch.
        xs, ys = zip(*host_batches(x, y, order))
        return jax.device_put(np.concatenate(xs), device), jax.device_put(np.concatenate(ys), device), None
    return epoch_rows
)PY";
}

std::string jaxEpochSumsCode() {
    return R"PY(

def epoch_sums(losses, rights, sizes):
    """(loss_sum, correct, samples) from the steps' mean losses and right counts, summed in float64."""
    losses = np.asarray(losses, dtype=np.float64)
    return float(np.dot(losses, np.asarray(sizes, dtype=np.float64))), int(np.sum(np.asarray(rights))), int(sum(sizes))
)PY";
}

std::string jaxStepLoopCode(Launch launch) {
    std::string s = R"PY(

def make_train_epoch(x, y, device):
    """Returns train_epoch(carry, order) -> (carry, (loss_sum, correct, samples))."""
    epoch_batches = make_batches(x, y, device)
    step = jax.jit(train_step)  # one compiled step, called from Python for every batch

    def train_epoch(carry, order):
)PY";
    if (launch == Launch::EagerSync)
        return s + R"PY(        loss_sum, correct, samples = 0.0, 0, 0
        for batch in epoch_batches(order):
            carry, (loss, right) = step(carry, batch)
            rows = batch[1].shape[0]
            # launch=eager_sync: float() waits for the step to finish, after every step.
            loss_sum += float(loss) * rows
            correct += int(right)
            samples += rows
        return carry, (loss_sum, correct, samples)
    return train_epoch
)PY";
    return s + R"PY(        losses, rights, sizes = [], [], []
        for batch in epoch_batches(order):
            # launch=eager: the step is dispatched and Python moves on; nothing waits for it here.
            carry, (loss, right) = step(carry, batch)
            losses.append(loss)
            rights.append(right)
            sizes.append(batch[1].shape[0])
        return carry, epoch_sums(jnp.stack(losses), jnp.stack(rights), sizes)  # the epoch's one wait
    return train_epoch
)PY";
}

std::string jaxScanEpochCode(Launch launch) {
    return "\n\n# launch=" + toString(launch) +
           R"PY(: the whole epoch is one jit-compiled program; lax.scan runs its steps
# on the device without returning to Python (graph_step and fused both run this in JAX: the
# compiled epoch is JAX's graph, and XLA fuses inside it).
def scan_epoch(carry, x, y, order):
    """One epoch: lax.scan over the full batches, then the last partial batch (its shape differs,
    so it is one more step after the scan, decided when tracing). Returns the carry and the
    steps' mean losses and right counts."""
    if order is not None:
        x, y = x[order], y[order]
    rows, cols = x.shape
    steps = rows // BATCH_SIZE
    full = steps * BATCH_SIZE
    losses, rights = jnp.zeros((0,), jnp.float32), jnp.zeros((0,), jnp.int32)
    if steps > 0:
        batches = (x[:full].reshape(steps, BATCH_SIZE, cols), y[:full].reshape(steps, BATCH_SIZE, 1))
        carry, (losses, rights) = jax.lax.scan(train_step, carry, batches)
    if full < rows:
        carry, (loss, right) = train_step(carry, (x[full:], y[full:]))
        losses, rights = jnp.append(losses, loss), jnp.append(rights, right.astype(jnp.int32))
    return carry, losses, rights


def make_train_epoch(x, y, device):
    """Returns train_epoch(carry, order) -> (carry, (loss_sum, correct, samples))."""
    epoch_rows = make_epoch_rows(x, y, device)
    epoch = jax.jit(scan_epoch)
    rows = x.shape[0]
    sizes = [BATCH_SIZE] * (rows // BATCH_SIZE) + ([rows % BATCH_SIZE] if rows % BATCH_SIZE else [])

    def train_epoch(carry, order):
        carry, losses, rights = epoch(carry, *epoch_rows(order))
        return carry, epoch_sums(losses, rights, sizes)  # the epoch's one wait
    return train_epoch
)PY";
}

}  // namespace wb
