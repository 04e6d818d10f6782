#include "kernels/batch_source.h"

#include <algorithm>
#include <cstring>

#include "kernels/cuda_check.h"
#include "kernels/step_kernels.h"

namespace wb {

namespace {
// device_resident in file order hands out views even where a fixed address is asked for: a caller
// that keys its graphs by batch address (cuda_backend.cpp) then captures one graph per step, each
// replayed every epoch, and no step pays a device-to-device copy. Above this many steps per epoch
// the graphs would cost more (capture time, driver memory) than the copies: copy, one graph.
constexpr int kMaxStepsForViewGraphs = 1024;
}  // namespace

BatchSource::BatchSource(const PreparedData& data, DataPath path, int batchCapacity, cudaStream_t compute)
    : data_(data),
      path_(path),
      batch_(batchCapacity),
      cols_(data.cols),
      compute_(compute),
      batchX_(static_cast<std::size_t>(batchCapacity) * data.cols),
      batchY_(static_cast<std::size_t>(batchCapacity)) {
    const auto cap = static_cast<std::size_t>(batchCapacity);
    steps_ = static_cast<int>((data.trainRows() + cap - 1) / cap);
    switch (path_) {
        case DataPath::PerSampleGather:
            hostX_.resize(cap * cols_);
            hostY_.resize(cap);
            break;
        case DataPath::PageableCopy: break;  // hostX_ grows on the first shuffled epoch
        case DataPath::PinnedAsync:
            for (int s = 0; s < 2; ++s) {
                pinnedX_[s] = PinnedBuffer<float>(cap * cols_);
                pinnedY_[s] = PinnedBuffer<float>(cap);
                slotX_[s] = DeviceBuffer<float>(cap * cols_);
                slotY_[s] = DeviceBuffer<float>(cap);
            }
            break;
        case DataPath::DeviceResident:
            residentX_ = DeviceBuffer<float>(data.trainX.size());
            residentY_ = DeviceBuffer<float>(data.trainY.size());
            residentOrder_ = DeviceBuffer<std::uint32_t>(data.trainRows());
            residentX_.copyFrom(data.trainX.data(), data.trainX.size(), compute_);
            residentY_.copyFrom(data.trainY.data(), data.trainY.size(), compute_);
            break;
    }
}

void BatchSource::beginEpoch(const std::vector<std::uint32_t>* order) {
    order_ = order;
    shuffledOnHost_ = false;
    prefetched_ = -1;
    if (path_ == DataPath::DeviceResident && order)  // one upload of the permutation per epoch
        residentOrder_.copyFrom(order->data(), order->size(), compute_);
}

void BatchSource::gatherOnHost(std::size_t first, int n, float* xOut, float* yOut) const {
    for (int i = 0; i < n; ++i) {  // sample by sample, as a DataLoader's fetch + collate
        const std::size_t row = rowOf(first + static_cast<std::size_t>(i));
        std::memcpy(xOut + static_cast<std::size_t>(i) * cols_, data_.trainX.data() + row * cols_,
                    cols_ * sizeof(float));
        yOut[i] = data_.trainY[row];
    }
}

void BatchSource::prefetch(int step) {
    const int slot = step % 2;
    const std::size_t first = static_cast<std::size_t>(step) * static_cast<std::size_t>(batch_);
    const int n = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(batch_), data_.trainRows() - first));
    copyDone_[slot].synchronize();  // the previous copy out of this pinned slot has finished
    if (order_) {
        gatherOnHost(first, n, pinnedX_[slot].data(), pinnedY_[slot].data());
    } else {  // file order: one contiguous block
        std::memcpy(pinnedX_[slot].data(), data_.trainX.data() + first * cols_,
                    static_cast<std::size_t>(n) * cols_ * sizeof(float));
        std::memcpy(pinnedY_[slot].data(), data_.trainY.data() + first, static_cast<std::size_t>(n) * sizeof(float));
    }
    const cudaStream_t copy = copyStream_.get();
    WB_CUDA_CHECK(cudaStreamWaitEvent(copy, computeDone_[slot].get(), 0));  // the device slot is free again
    slotX_[slot].copyFrom(pinnedX_[slot].data(), static_cast<std::size_t>(n) * cols_, copy);
    slotY_[slot].copyFrom(pinnedY_[slot].data(), static_cast<std::size_t>(n), copy);
    copyDone_[slot].record(copy);
    prefetched_ = step;
}

DeviceBatch BatchSource::stage(int step, int n, bool fixedAddress) {
    const std::size_t first = static_cast<std::size_t>(step) * static_cast<std::size_t>(batch_);
    const std::size_t xCount = static_cast<std::size_t>(n) * cols_;
    switch (path_) {
        case DataPath::PerSampleGather:
            gatherOnHost(first, n, hostX_.data(), hostY_.data());
            batchX_.copyFrom(hostX_.data(), xCount, compute_);  // pageable: the host waits for the copy
            batchY_.copyFrom(hostY_.data(), static_cast<std::size_t>(n), compute_);
            return {batchX_.data(), batchY_.data()};
        case DataPath::PageableCopy: {
            const float* xs = data_.trainX.data();
            const float* ys = data_.trainY.data();
            if (order_) {
                if (!shuffledOnHost_) {  // one bulk shuffle per epoch, then contiguous slices
                    hostX_.resize(data_.trainX.size());
                    hostY_.resize(data_.trainY.size());
                    gatherOnHost(0, static_cast<int>(data_.trainRows()), hostX_.data(), hostY_.data());
                    shuffledOnHost_ = true;
                }
                xs = hostX_.data();
                ys = hostY_.data();
            }
            batchX_.copyFrom(xs + first * cols_, xCount, compute_);
            batchY_.copyFrom(ys + first, static_cast<std::size_t>(n), compute_);
            return {batchX_.data(), batchY_.data()};
        }
        case DataPath::PinnedAsync: {
            if (prefetched_ < step) prefetch(step);  // the first step of an epoch; later ones came from release()
            const int slot = step % 2;
            WB_CUDA_CHECK(cudaStreamWaitEvent(compute_, copyDone_[slot].get(), 0));
            return {slotX_[slot].data(), slotY_[slot].data()};
        }
        case DataPath::DeviceResident:
            if (order_) {
                launchGatherRows(residentX_.data(), residentY_.data(), residentOrder_.data(),
                                 static_cast<std::int64_t>(first), n, static_cast<int>(cols_), batchX_.data(),
                                 batchY_.data(), compute_);
                return {batchX_.data(), batchY_.data()};
            }
            // A view's address is the same for the same step in every epoch (the partial last batch
            // included: its n differs from the others', so a graph keyed by address and n is its own).
            if (!fixedAddress || steps_ <= kMaxStepsForViewGraphs)
                return {residentX_.data() + first * cols_, residentY_.data() + first};
            WB_CUDA_CHECK(cudaMemcpyAsync(batchX_.data(), residentX_.data() + first * cols_, xCount * sizeof(float),
                                          cudaMemcpyDeviceToDevice, compute_));
            WB_CUDA_CHECK(cudaMemcpyAsync(batchY_.data(), residentY_.data() + first,
                                          static_cast<std::size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice,
                                          compute_));
            return {batchX_.data(), batchY_.data()};
    }
    return {};
}

void BatchSource::release(int step) {
    if (path_ != DataPath::PinnedAsync) return;
    computeDone_[step % 2].record(compute_);
    // With this step queued, gather and copy the next one: the host and the copy stream work while
    // the compute stream runs this step.
    if (step + 1 < steps_) prefetch(step + 1);
}

}  // namespace wb
