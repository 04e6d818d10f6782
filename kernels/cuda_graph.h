// Move-only owner of a captured CUDA graph and its executable instance.
#pragma once

#include <cuda_runtime_api.h>

#include <utility>

#include "kernels/cuda_check.h"

namespace wb {

class CudaGraph {
public:
    CudaGraph() = default;
    ~CudaGraph() { reset(); }
    CudaGraph(CudaGraph&& o) noexcept
        : graph_(std::exchange(o.graph_, nullptr)), exec_(std::exchange(o.exec_, nullptr)) {}
    CudaGraph& operator=(CudaGraph&& o) noexcept {
        std::swap(graph_, o.graph_);
        std::swap(exec_, o.exec_);
        return *this;
    }
    CudaGraph(const CudaGraph&) = delete;
    CudaGraph& operator=(const CudaGraph&) = delete;

    // Records what `enqueue` puts on `stream` (which must not be the legacy default stream) without
    // running it, and instantiates it. A failure inside ends the capture before it is reported.
    template <typename Enqueue>
    void capture(cudaStream_t stream, Enqueue&& enqueue) {
        reset();
        WB_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        try {
            enqueue();
        } catch (...) {
            cudaGraph_t broken = nullptr;
            (void)cudaStreamEndCapture(stream, &broken);
            if (broken) (void)cudaGraphDestroy(broken);
            (void)cudaGetLastError();
            throw;
        }
        WB_CUDA_CHECK(cudaStreamEndCapture(stream, &graph_));
        WB_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
    }
    bool ready() const { return exec_ != nullptr; }
    void launch(cudaStream_t stream) const { WB_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

private:
    void reset() {
        if (exec_) (void)cudaGraphExecDestroy(exec_);
        if (graph_) (void)cudaGraphDestroy(graph_);
        exec_ = nullptr;
        graph_ = nullptr;
    }
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
};

}  // namespace wb
