// The CUDA backend: every switch of docs/ARCHITECTURE.md ("Execution settings") on one device. The verbs of a step live
// in DeviceMlp (eager and graph paths), the data paths in BatchSource, the fused step in fused_step.h, and how an epoch
// is queued in one LaunchStrategy per `launch` (launch_strategy.h), chosen at setup; this file owns what they share,
// times each epoch with CUDA events and reads the device's sums once per epoch.
#include <cstdio>
#include <memory>

#include "core/platform/errors.h"
#include "kernels/batch_source.h"
#include "kernels/cublas_handle.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_check.h"
#include "kernels/cuda_device_info.h"
#include "kernels/cuda_stream.h"
#include "kernels/device_mlp.h"
#include "kernels/launch_strategy.h"

namespace wb {

namespace {
constexpr std::size_t kCublasWorkspaceBytes = 32u << 20;  // fixed, so cuBLAS allocates nothing inside a graph

// The epoch's (or validation pass's) sums the device accumulated.
LossSums sumsOf(const DeviceCounters& c) {
    return {c.lossSum, static_cast<std::size_t>(c.correct), c.squaredError, c.absoluteError, c.weightSum};
}

// The eager and graph paths train every task (their loss kernel runs stepmath::rowLoss); the fused
// and persistent kernels compute the binary loss inside their own code, so they refuse the others.
void requireBinaryUnlessPerOp(const TrainingProblem& problem) {
    const Launch l = problem.execution.launch;
    if ((l == Launch::Fused || l == Launch::Persistent) && problem.data->task != Task::Binary)
        throw ConfigError("launch=" + toString(l) +
                          " computes a binary loss inside its fused kernels, and this data is a " +
                          toString(problem.data->task) + " task; use launch=graph_step or eager");
}

class CudaBackend final : public Backend {
public:
    explicit CudaBackend(int device) : device_(device) {
        int count = 0;
        WB_CUDA_CHECK(cudaGetDeviceCount(&count));
        if (device < 0 || device >= count)
            throw DeviceError(
                "", "no CUDA device " + std::to_string(device) + " (this machine has " + std::to_string(count) + ")");
        facts_ = cudaDeviceFacts(device);
        versions_ = cudaVersionFacts();
    }
    // The members free their device memory, handle and streams after this body: on this device,
    // whichever device the thread selected since.
    ~CudaBackend() override { (void)cudaSetDevice(device_); }
    CudaBackend(const CudaBackend&) = delete;
    CudaBackend& operator=(const CudaBackend&) = delete;

    std::string name() const override { return "cuda"; }
    std::string deviceName() const override { return facts_.name; }

    void setup(const TrainingProblem& problem) override {
        if (!problem.data || problem.data->trainRows() == 0) throw ConfigError("no training rows");
        requireBinaryUnlessPerOp(problem);
        problem.execution.validate();
        selectDevice();
        freeDeviceState();
        recordFreeMemory(problem);
        problem_ = problem;
        const ExecutionSettings& x = problem.execution;
        const int batch = problem.batchSize;
        rows_ = problem.data->trainRows();
        steps_ = static_cast<int>((rows_ + static_cast<std::size_t>(batch) - 1) / static_cast<std::size_t>(batch));

        stream_ = std::make_unique<CudaStream>();
        cublas_ = std::make_unique<CublasHandle>();
        cublas_->setStream(stream_->get());
        cublas_->setMathMode(x.precision == Precision::Tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
        cublasWorkspace_ = DeviceBuffer<unsigned char>(kCublasWorkspaceBytes);
        WB_CUBLAS_CHECK(cublasSetWorkspace(cublas_->get(), cublasWorkspace_.data(), cublasWorkspace_.bytes()));

        // A mode with its own products (fused) uses the DeviceMlp only for validation, in cuBLAS fp32.
        const Gemm evalGemm = launchHasOwnProducts(x.launch) ? Gemm::Cublas : x.gemm;
        mlp_ = std::make_unique<DeviceMlp>(problem, batch, stream_->get(), cublas_->get(), evalGemm);
        source_ = std::make_unique<BatchSource>(*problem.data, x.dataPath, batch, stream_->get());
        if (problem.data->valRows() > 0) {
            valX_ = DeviceBuffer<float>(problem.data->valX.size());
            valY_ = DeviceBuffer<float>(problem.data->valY.size());
            valX_.copyFrom(problem.data->valX.data(), valX_.size(), stream_->get());
            valY_.copyFrom(problem.data->valY.data(), valY_.size(), stream_->get());
        }
        evalCounters_ = DeviceBuffer<DeviceCounters>(1);
        evalCounters_.zero(stream_->get());
        hostCounters_ = PinnedBuffer<DeviceCounters>(1);
        epochStart_ = std::make_unique<CudaEvent>();
        epochEnd_ = std::make_unique<CudaEvent>();
        context_ = {device_, &problem_, mlp_.get(), source_.get(), stream_->get(), hostCounters_.data(), rows_, steps_};
        launch_ = makeLaunchStrategy(context_);
        stream_->synchronize();
    }

    EpochResult trainEpoch(const std::vector<std::uint32_t>* order, const CancelFlag& cancel) override {
        selectDevice();
        const cudaStream_t s = stream_->get();
        epochStart_->record(s);
        const EpochRun run = launch_->runEpoch(order, cancel);
        epochEnd_->record(s);
        if (!run.countersQueued) context_.queueCounterCopy();
        stream_->synchronize();  // the one wait of the epoch
        const DeviceCounters& c = *hostCounters_.data();
        EpochResult result;
        result.nonFiniteStep = run.hostNonFinite;
        const int deviceNonFinite = launch_->nonFiniteStepOf(c);  // every epoch: the fused strategy counts steps
        if (!result.nonFiniteStep && deviceNonFinite > 0) result.nonFiniteStep = deviceNonFinite;
        result.cancelled = run.stepsRun < steps_ && !result.nonFiniteStep;
        result.samples =
            std::min(rows_, static_cast<std::size_t>(run.stepsRun) * static_cast<std::size_t>(problem_.batchSize));
        static_cast<LossSums&>(result) = sumsOf(c);
        const double deviceMs = epochEnd_->msSince(*epochStart_);
        result.deviceMs = deviceMs;
        result.phases = launch_->phases(run.stepsRun, deviceMs);  // null where the mode fuses them
        return result;
    }

    EvalResult evaluate(const float* x, const float* y, std::size_t rows) override {
        selectDevice();
        const cudaStream_t s = stream_->get();
        const std::size_t cols = problem_.data->cols;
        const float* dx = valX_.data();
        const float* dy = valY_.data();
        DeviceBuffer<float> tmpX, tmpY;
        if (!(x == problem_.data->valX.data() && rows == problem_.data->valRows())) {  // not the resident split
            tmpX = DeviceBuffer<float>(rows * cols);
            tmpY = DeviceBuffer<float>(rows);
            tmpX.copyFrom(x, rows * cols, s);
            tmpY.copyFrom(y, rows, s);
            dx = tmpX.data();
            dy = tmpY.data();
        }
        launchBeginEpoch(evalCounters_.data(), s);
        const auto batch = static_cast<std::size_t>(problem_.batchSize);
        for (std::size_t start = 0; start < rows; start += batch) {
            const int n = static_cast<int>(std::min(batch, rows - start));
            mlp_->forward(dx + start * cols, n);
            mlp_->loss(dy + start, n, evalCounters_.data(), /*training=*/false);
        }
        evalCounters_.copyTo(hostCounters_.data(), 1, s);
        stream_->synchronize();
        return sumsOf(*hostCounters_.data());
    }

    MlpParams parameters() const override {
        if (!mlp_) return problem_.initialParams;
        selectDevice();
        return mlp_->download();
    }

    std::vector<IgnoredSwitch> notApplicable(const ExecutionSettings& s) const override {
        return cudaIgnoredSwitches(s);
    }

    std::vector<std::pair<std::string, std::string>> environment() const override {
        std::vector<std::pair<std::string, std::string>> env = {
            {"cuda_device_index", std::to_string(device_)},
            {"cuda_device", facts_.name},
            {"compute_capability", std::to_string(facts_.major) + "." + std::to_string(facts_.minor)},
            {"gpu_memory_gib", std::to_string(facts_.memoryGiB)},
            {"multiprocessors", std::to_string(facts_.multiprocessors)},
            {"gpu_free_memory_gib_at_setup", gib(freeBytesAtSetup_)},
            {"training_data_gib", gib(trainingDataBytes_)}};
        for (const auto& kv : versions_) env.push_back(kv);
        return env;
    }

private:
    void selectDevice() const { WB_CUDA_CHECK(cudaSetDevice(device_)); }

    // Frees the previous run's device state first (the stream last), so a second setup starts clean.
    void freeDeviceState() {
        launch_.reset();  // its graphs and scratch refer to the buffers below
        mlp_.reset();
        source_.reset();
        valX_ = DeviceBuffer<float>();
        valY_ = DeviceBuffer<float>();
        cublas_.reset();
        stream_.reset();
    }

    // What the device had free before this run allocated anything, beside the size of the training
    // rows: the record then shows whether the data could have been resident at all (pinned_async
    // trains data sets larger than the free memory).
    void recordFreeMemory(const TrainingProblem& problem) {
        std::size_t free = 0, total = 0;
        WB_CUDA_CHECK(cudaMemGetInfo(&free, &total));
        freeBytesAtSetup_ = free;
        trainingDataBytes_ = (problem.data->trainX.size() + problem.data->trainY.size()) * sizeof(float);
    }
    static std::string gib(std::size_t bytes) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
        return buf;
    }

    int device_;
    CudaDeviceFacts facts_;
    std::vector<std::pair<std::string, std::string>> versions_;
    TrainingProblem problem_;
    std::size_t rows_ = 0;
    int steps_ = 0;
    std::size_t freeBytesAtSetup_ = 0, trainingDataBytes_ = 0;

    // Destroyed in reverse order: the handle before its workspace, the stream last.
    std::unique_ptr<CudaStream> stream_;
    DeviceBuffer<unsigned char> cublasWorkspace_;
    std::unique_ptr<CublasHandle> cublas_;
    std::unique_ptr<DeviceMlp> mlp_;
    std::unique_ptr<BatchSource> source_;
    DeviceBuffer<float> valX_, valY_;            // (valRows, cols), (valRows)
    DeviceBuffer<DeviceCounters> evalCounters_;  // (1)
    PinnedBuffer<DeviceCounters> hostCounters_;  // (1) where the epoch's sums land
    std::unique_ptr<CudaEvent> epochStart_, epochEnd_;
    LaunchContext context_;                   // what the strategy shares with this backend
    std::unique_ptr<LaunchStrategy> launch_;  // destroyed first: its graphs refer to the buffers above
};
}  // namespace

std::vector<IgnoredSwitch> cudaIgnoredSwitches(const ExecutionSettings& s) {
    return launchIgnoredSwitches(s);
}

std::unique_ptr<Backend> makeCudaBackend(int device) {
    return std::make_unique<CudaBackend>(device);
}

}  // namespace wb
