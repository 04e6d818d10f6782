// Move-only owners of a CUDA stream and a CUDA event.
#pragma once

#include <cuda_runtime_api.h>

#include <utility>

#include "kernels/cuda_check.h"

namespace wb {

class CudaStream {
public:
    CudaStream() { WB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
    ~CudaStream() {
        if (stream_) (void)cudaStreamDestroy(stream_);
    }
    CudaStream(CudaStream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
    CudaStream& operator=(CudaStream&& o) noexcept {
        std::swap(stream_, o.stream_);
        return *this;
    }
    CudaStream(const CudaStream&) = delete;
    CudaStream& operator=(const CudaStream&) = delete;

    cudaStream_t get() const { return stream_; }
    void synchronize() const { WB_CUDA_CHECK(cudaStreamSynchronize(stream_)); }
    // Work queued on this stream after this call waits for `event`.
    void wait(cudaEvent_t event) const { WB_CUDA_CHECK(cudaStreamWaitEvent(stream_, event, 0)); }

private:
    cudaStream_t stream_ = nullptr;
};

class CudaEvent {
public:
    // `timing` false makes a lighter event for ordering only.
    explicit CudaEvent(bool timing = true) {
        WB_CUDA_CHECK(cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming));
    }
    ~CudaEvent() {
        if (event_) (void)cudaEventDestroy(event_);
    }
    CudaEvent(CudaEvent&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
    CudaEvent& operator=(CudaEvent&& o) noexcept {
        std::swap(event_, o.event_);
        return *this;
    }
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;

    cudaEvent_t get() const { return event_; }
    void record(cudaStream_t stream) const { WB_CUDA_CHECK(cudaEventRecord(event_, stream)); }
    void synchronize() const { WB_CUDA_CHECK(cudaEventSynchronize(event_)); }
    // Milliseconds from `start` to this event (both recorded and complete).
    float msSince(const CudaEvent& start) const {
        float ms = 0;
        WB_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
        return ms;
    }

private:
    cudaEvent_t event_ = nullptr;
};

}  // namespace wb
