// probeCudaBackend: what `mlpwb info`, the GUI and the registry are told about the devices.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "kernels/cuda_backend.h"
#include "kernels/cuda_device_info.h"

namespace wb {

namespace {
// Why no device can be used, or an empty string when one can.
std::string unavailableReason(cudaError_t status, int count) {
    int driver = 0;
    (void)cudaDriverGetVersion(&driver);  // 0 when no driver is installed; never fails otherwise
    if (driver == 0) return "no NVIDIA driver";
    if (status == cudaErrorInsufficientDriver)
        return "the NVIDIA driver (CUDA " + cudaVersionString(driver) + ") is older than this build's CUDA runtime (" +
               cudaVersionString(CUDART_VERSION) + ")";
    if (status == cudaErrorNoDevice || (status == cudaSuccess && count == 0)) return "no CUDA device";
    if (status != cudaSuccess) return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
    return {};
}

BackendInfo probeDevices() {
    BackendInfo info;
    info.name = "cuda";
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    (void)cudaGetLastError();  // a failed probe must not poison later calls
    info.reason = unavailableReason(status, count);
    if (!info.reason.empty()) return info;
    info.available = true;
    info.details.emplace_back("devices", std::to_string(count));
    for (int d = 0; d < count; ++d) {
        const CudaDeviceFacts f = cudaDeviceFacts(d);
        if (d == 0) info.device = f.name;
        info.details.emplace_back("device " + std::to_string(d), f.summary());
    }
    for (const auto& kv : cudaVersionFacts()) info.details.push_back(kv);
    return info;
}

// The probe never throws: a device whose properties cannot be read makes the backend unavailable.
BackendInfo probeOnce() {
    try {
        return probeDevices();
    } catch (const std::exception& e) {
        BackendInfo info;
        info.name = "cuda";
        info.reason = e.what();
        return info;
    }
}
}  // namespace

BackendInfo probeCudaBackend() {
    static const BackendInfo info = probeOnce();  // the answer does not change while we run
    return info;
}

}  // namespace wb
