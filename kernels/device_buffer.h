// Move-only owners of device memory and of pinned (page-locked) host memory. Sizes are in elements.
// Copies are explicit (copyFrom/copyTo), never implicit.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "kernels/cuda_check.h"

namespace wb {

template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        if (count > 0) WB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
    }
    ~DeviceBuffer() {
        if (data_) (void)cudaFree(data_);  // nothing to report from a destructor
    }
    DeviceBuffer(DeviceBuffer&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)), count_(std::exchange(o.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(data_, o.data_);
        std::swap(count_, o.count_);
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

    // Host -> device of `count` elements at element `offset`, ordered on `stream`.
    void copyFrom(const T* host, std::size_t count, cudaStream_t stream, std::size_t offset = 0) {
        if (count > 0)
            WB_CUDA_CHECK(cudaMemcpyAsync(data_ + offset, host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
    }
    // Device -> host; the caller synchronises `stream` before reading `host`.
    void copyTo(T* host, std::size_t count, cudaStream_t stream) const {
        if (count > 0) WB_CUDA_CHECK(cudaMemcpyAsync(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    }
    void zero(cudaStream_t stream) {
        if (count_ > 0) WB_CUDA_CHECK(cudaMemsetAsync(data_, 0, bytes(), stream));
    }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

// Page-locked host memory: the only kind a host -> device copy can run asynchronously from.
template <typename T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    explicit PinnedBuffer(std::size_t count) : count_(count) {
        if (count > 0) WB_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), count * sizeof(T)));
    }
    ~PinnedBuffer() {
        if (data_) (void)cudaFreeHost(data_);
    }
    PinnedBuffer(PinnedBuffer&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)), count_(std::exchange(o.count_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
        std::swap(data_, o.data_);
        std::swap(count_, o.count_);
        return *this;
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;

    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return count_; }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

}  // namespace wb
