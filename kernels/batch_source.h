// How a training batch reaches the device, one class per cause of the founding case (data_path):
//   per_sample_gather  rows copied one by one into a pageable host batch, then a synchronous copy
//                      (a DataLoader over a TensorDataset, collated sample by sample);
//   pageable_copy      the rows shuffled once per epoch on the host, each batch a synchronous copy of
//                      a contiguous slice of pageable memory;
//   pinned_async       two pinned host batches and two device batches: batch k+1 is gathered and
//                      copied on a second stream while batch k computes (also how a data set larger
//                      than the GPU trains: only two batches ever live on the device);
//   device_resident    the training rows copied to the device once; a shuffled batch is one gather
//                      kernel, an unshuffled one a view (a device copy only when a fixed address is
//                      needed and an epoch has more than 1024 steps).
// Shapes: rows x cols training data, B the batch capacity.
#pragma once

#include <cstdint>
#include <vector>

#include "core/data/prepare.h"
#include "core/model/execution_settings.h"
#include "kernels/cuda_stream.h"
#include "kernels/device_buffer.h"

namespace wb {

struct DeviceBatch {
    const float* x = nullptr;  // (n, cols)
    const float* y = nullptr;  // (n)
};

class BatchSource {
public:
    BatchSource(const PreparedData& data, DataPath path, int batchCapacity, cudaStream_t compute);

    // `order` (rows) is the epoch's permutation, or null for file order; it must outlive the epoch.
    void beginEpoch(const std::vector<std::uint32_t>* order);
    // Batch `step` (rows [step B, step B + n)) on the device, ready for work queued on the compute
    // stream after this call. `fixedAddress`: a replayed graph will read the batch where it is now, so
    // it must be there again whenever the same address and n come back; the batch is either in one
    // buffer every step of the same size, or (device_resident in file order, at most 1024 steps) a view
    // of the resident rows, whose address is the same for the same step every epoch. The caller keys
    // its graphs by (x, y, n), so either way a graph only ever reads its own batch.
    DeviceBatch stage(int step, int n, bool fixedAddress);
    // The compute stream is done with batch `step` once the work queued so far finishes
    // (pinned_async: also starts gathering and copying batch step + 1).
    void release(int step);

    // device_resident only: the rows and the epoch's permutation on the device (null in file order).
    const float* residentX() const { return residentX_.data(); }
    const float* residentY() const { return residentY_.data(); }
    const std::uint32_t* residentOrder() const { return order_ ? residentOrder_.data() : nullptr; }

private:
    std::size_t rowOf(std::size_t i) const { return order_ ? (*order_)[i] : i; }
    // Host rows [first, first + n) of the epoch's order into (xOut (n, cols), yOut (n)).
    void gatherOnHost(std::size_t first, int n, float* xOut, float* yOut) const;
    void prefetch(int step);  // pinned_async: gather and copy batch `step` on the copy stream

    const PreparedData& data_;
    DataPath path_;
    int batch_;
    std::size_t cols_;
    int steps_ = 0;
    cudaStream_t compute_;
    const std::vector<std::uint32_t>* order_ = nullptr;

    DeviceBuffer<float> batchX_, batchY_;  // (B, cols), (B): the fixed-address batch
    std::vector<float> hostX_,
        hostY_;                    // per_sample_gather: (B, cols), (B) pageable; pageable_copy: (rows, cols), (rows)
    bool shuffledOnHost_ = false;  // pageable_copy: hostX_ holds this epoch's shuffled rows
    // pinned_async: two slots
    CudaStream copyStream_;
    PinnedBuffer<float> pinnedX_[2], pinnedY_[2];  // (B, cols), (B)
    DeviceBuffer<float> slotX_[2], slotY_[2];      // (B, cols), (B)
    CudaEvent copyDone_[2]{CudaEvent(false), CudaEvent(false)};
    CudaEvent computeDone_[2]{CudaEvent(false), CudaEvent(false)};
    int prefetched_ = -1;  // the last step whose copy was queued
    // device_resident
    DeviceBuffer<float> residentX_, residentY_;  // (rows, cols), (rows)
    DeviceBuffer<std::uint32_t> residentOrder_;  // (rows)
};

}  // namespace wb
