#include "frameworks/torch_data_path.h"

namespace wb {

// make_batches(): returns epoch_batches(), a generator of (inputs (B, cols), targets (B, 1)) on the device.
std::string torchDataPathCode(const ExecutionSettings& run, const TorchOptions& o) {
    std::string s = R"PY(

def make_batches(x, y, device, generator):
    """Returns epoch_batches(): one epoch of (inputs (B, cols), targets (B, 1)) on the device."""
    rows = x.shape[0]
)PY";
    switch (run.dataPath) {
        case DataPath::PerSampleGather: {
            std::string loaderArgs = "batch_size=BATCH_SIZE, shuffle=SHUFFLE, generator=generator";
            loaderArgs += ",\n                        num_workers=" + std::to_string(o.numWorkers);
            if (o.prefetchFactor > 0) loaderArgs += ", prefetch_factor=" + std::to_string(o.prefetchFactor);
            if (o.pinMemory) loaderArgs += ", pin_memory=True";
            s +=
                R"PY(    # data_path=per_sample_gather: the founding post's loader. The DataLoader asks the TensorDataset
    # for every row on its own and collates the rows into a batch, then .to(device) copies it.
    loader = DataLoader(TensorDataset(torch.Tensor(x), torch.Tensor(y)), )PY" +
                loaderArgs + R"PY()

    def epoch_batches():
        for inputs, targets in loader:
            yield inputs.to(device), targets.to(device)
    return epoch_batches
)PY";
            return s;
        }
        case DataPath::PageableCopy:
            s += R"PY(    # data_path=pageable_copy: whole batches sliced from CPU tensors, each copied to the device
    # synchronously from ordinary (pageable) memory.
    x_host, y_host = torch.from_numpy(x), torch.from_numpy(y)

    def epoch_batches():
        xs, ys = x_host, y_host
        if SHUFFLE:
            order = torch.randperm(rows, generator=generator)
            xs, ys = x_host[order], y_host[order]
        for start in range(0, rows, BATCH_SIZE):
            yield xs[start:start + BATCH_SIZE].to(device), ys[start:start + BATCH_SIZE].to(device)
    return epoch_batches
)PY";
            return s;
        case DataPath::PinnedAsync:
            s += R"PY(    # data_path=pinned_async: the rows in pinned (page-locked) memory, so each batch's copy is a
    # DMA that runs with non_blocking=True while the host queues the step's kernels.
    x_host, y_host = torch.from_numpy(x).pin_memory(), torch.from_numpy(y).pin_memory()
    x_order, y_order = torch.empty_like(x_host).pin_memory(), torch.empty_like(y_host).pin_memory()

    def epoch_batches():
        xs, ys = x_host, y_host
        if SHUFFLE:
            order = torch.randperm(rows, generator=generator)
            xs = torch.index_select(x_host, 0, order, out=x_order)
            ys = torch.index_select(y_host, 0, order, out=y_order)
        for start in range(0, rows, BATCH_SIZE):
            yield (xs[start:start + BATCH_SIZE].to(device, non_blocking=True),
                   ys[start:start + BATCH_SIZE].to(device, non_blocking=True))
    return epoch_batches
)PY";
            return s;
        case DataPath::DeviceResident:
            s += R"PY(    # data_path=device_resident: the rows copied to the device once; a batch is a slice (a view).
    x_dev, y_dev = torch.from_numpy(x).to(device), torch.from_numpy(y).to(device)

    def epoch_batches():
        xs, ys = x_dev, y_dev
        if SHUFFLE:
            order = torch.randperm(rows, generator=generator).to(device)
            xs, ys = x_dev[order], y_dev[order]
        for start in range(0, rows, BATCH_SIZE):
            yield xs[start:start + BATCH_SIZE], ys[start:start + BATCH_SIZE]
    return epoch_batches
)PY";
            return s;
    }
    return s;
}

}  // namespace wb
