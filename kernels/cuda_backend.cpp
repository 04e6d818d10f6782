// The CUDA backend: every switch of DESIGN.md on one device. The verbs of a step live in DeviceMlp
// (eager and graph paths), the data paths in BatchSource, the fused step in fused_step.h; this file
// orders them per `launch`, times them with CUDA events and reads the device's sums once per epoch.
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "batch_source.h"
#include "cublas_handle.h"
#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_device_info.h"
#include "cuda_graph.h"
#include "cuda_stream.h"
#include "device_mlp.h"
#include "errors.h"
#include "fused_step.h"

namespace wb {

namespace {
constexpr std::size_t kCublasWorkspaceBytes = 32u << 20;  // fixed, so cuBLAS allocates nothing inside a graph

// Five events per eager step: after zero_grad, after the data, after forward + loss, after backward,
// after the optimizer.
constexpr int kStepMarks = 5;

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

        // The fused path brings its own products; its validation forward pass uses cuBLAS in fp32.
        const Gemm evalGemm = x.launch == Launch::Fused ? Gemm::Cublas : x.gemm;
        mlp_ = std::make_unique<DeviceMlp>(problem, batch, stream_->get(), cublas_->get(), evalGemm);
        source_ = std::make_unique<BatchSource>(*problem.data, x.dataPath, batch, stream_->get());
        if (x.launch == Launch::Fused) {
            plan_ = makeFusedPlan(problem.model, problem.data->cols, x.loss, batch);
            fusedScratch_ = DeviceBuffer<unsigned char>(fusedScratchBytes(plan_));
            fusedScratch_.zero(stream_->get());
        }
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
        if (eagerLaunch()) marks_.resize(static_cast<std::size_t>(steps_) * kStepMarks);
        optimizerStepsBefore_ = 0;
        stream_->synchronize();
    }

    EpochResult trainEpoch(const std::vector<std::uint32_t>* order, const CancelFlag& cancel) override {
        selectDevice();
        const cudaStream_t s = stream_->get();
        const int batch = problem_.batchSize;
        EpochResult result;
        epochStart_->record(s);
        mlp_->beginEpoch();
        source_->beginEpoch(order);
        int stepsRun = 0;
        if (problem_.execution.launch == Launch::Fused && problem_.execution.dataPath == DataPath::DeviceResident) {
            if (!cancel.load(std::memory_order_relaxed)) {
                fusedResidentEpoch(order != nullptr);
                stepsRun = steps_;
            }
        } else {
            for (int step = 0; step < steps_; ++step) {
                if (cancel.load(std::memory_order_relaxed)) break;
                const int n = rowsOf(step);
                runStep(step, n);
                ++stepsRun;
                if (problem_.execution.launch == Launch::EagerSync && !lossOfStepIsFinite()) {
                    result.nonFiniteStep = step + 1;  // loss.item() showed it: stop, as the CPU does
                    break;
                }
            }
        }
        epochEnd_->record(s);
        DeviceCounters& c = readCounters();
        result.cancelled = stepsRun < steps_ && !result.nonFiniteStep;
        result.samples = std::min(rows_, static_cast<std::size_t>(stepsRun) * static_cast<std::size_t>(batch));
        result.lossSum = c.lossSum;
        result.correct = static_cast<std::size_t>(c.correct);
        if (!result.nonFiniteStep && c.nonFiniteStep > 0)
            result.nonFiniteStep =
                problem_.execution.launch == Launch::Fused ? c.nonFiniteStep - optimizerStepsBefore_ : c.nonFiniteStep;
        optimizerStepsBefore_ = c.optimizerStep;
        const double deviceMs = epochEnd_->msSince(*epochStart_);
        result.deviceMs = deviceMs;
        if (eagerLaunch()) result.phases = phasesOf(stepsRun, deviceMs);  // graph and fused: not separable
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
        return {hostCounters_.data()->lossSum, static_cast<std::size_t>(hostCounters_.data()->correct)};
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
    bool eagerLaunch() const {
        return problem_.execution.launch == Launch::Eager || problem_.execution.launch == Launch::EagerSync;
    }
    void selectDevice() const { WB_CUDA_CHECK(cudaSetDevice(device_)); }
    int rowsOf(int step) const {
        const std::size_t first = static_cast<std::size_t>(step) * static_cast<std::size_t>(problem_.batchSize);
        return static_cast<int>(std::min(static_cast<std::size_t>(problem_.batchSize), rows_ - first));
    }
    int zeroings() const {
        const ZeroGrad z = problem_.execution.zeroGrad;
        return z == ZeroGrad::Twice ? 2 : z == ZeroGrad::Once ? 1 : 0;
    }

    // Frees the previous run's device state first (the stream last), so a second setup starts clean.
    void freeDeviceState() {
        graphs_.clear();
        fusedEpochGraph_ = CudaGraph();
        marks_.clear();
        mlp_.reset();
        source_.reset();
        fusedScratch_ = DeviceBuffer<unsigned char>();
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

    // One step of `n` rows, by launch mode.
    void runStep(int step, int n) {
        const cudaStream_t s = stream_->get();
        switch (problem_.execution.launch) {
            case Launch::EagerSync:
            case Launch::Eager: {
                CudaEvent* m = &marks_[static_cast<std::size_t>(step) * kStepMarks];
                mlp_->beginStep();
                mlp_->zeroGrads(zeroings());
                m[0].record(s);
                const DeviceBatch b = source_->stage(step, n, /*fixedAddress=*/false);
                m[1].record(s);
                mlp_->forward(b.x, n);
                mlp_->loss(b.y, n, mlp_->counters(), /*training=*/true);
                m[2].record(s);
                mlp_->backward(b.x, n, zeroings() > 0);
                m[3].record(s);
                mlp_->optimizerStep();
                m[4].record(s);
                break;
            }
            case Launch::GraphStep: {
                const DeviceBatch b = source_->stage(step, n, /*fixedAddress=*/true);
                CudaGraph& g = graphs_[std::make_tuple(b.x, b.y, n)];  // one per batch address and size
                if (g.ready()) {
                    g.launch(s);
                    break;
                }
                // The first step with this address and size (all in the warm-up epoch, which so pays
                // for every capture): eager, so cuBLAS picks its kernels, then captured without running.
                enqueueStep(b, n);
                g.capture(s, [&] { enqueueStep(b, n); });
                break;
            }
            case Launch::Fused: {
                const DeviceBatch b = source_->stage(step, n, /*fixedAddress=*/false);
                FusedStepArgs a = fusedArgs();
                a.x = b.x;
                a.y = b.y;
                a.batchRows = n;
                checkFusedArgs(a);
                launchFusedStep(a, s);
                break;
            }
        }
        source_->release(step);
    }

    // The body of a graph step (and of the warm-up step it replaces).
    void enqueueStep(const DeviceBatch& b, int n) {
        mlp_->beginStep();
        mlp_->zeroGrads(zeroings());
        mlp_->forward(b.x, n);
        mlp_->loss(b.y, n, mlp_->counters(), /*training=*/true);
        mlp_->backward(b.x, n, zeroings() > 0);
        mlp_->optimizerStep();
    }

    FusedStepArgs fusedArgs() {
        DeviceCounters* c = mlp_->counters();
        FusedStepArgs a;
        a.plan = plan_;
        a.optimizer = mlp_->optimizerScalars();
        a.params = mlp_->params();
        a.state0 = mlp_->optimizerState(0);
        a.state1 = mlp_->optimizerState(1);
        a.state2 = mlp_->optimizerState(2);
        a.stepCount = &c->optimizerStep;  // device addresses inside the counters
        a.lossSum = &c->lossSum;
        a.correct = &c->correct;
        a.nonFiniteStep = &c->nonFiniteStep;
        a.stepLoss = &c->stepLoss;
        a.scratch = fusedScratch_.data();
        return a;
    }

    // launch=fused on resident data: every step of the epoch straight from the resident rows; the
    // epoch runs eagerly once, is captured as one graph in that warm-up epoch, and is replayed after.
    void fusedResidentEpoch(bool shuffled) {
        const cudaStream_t s = stream_->get();
        FusedStepArgs a = fusedArgs();
        a.x = source_->residentX();
        a.y = source_->residentY();
        a.rowIndex = shuffled ? source_->residentOrder() : nullptr;
        a.firstRow = 0;
        a.batchRows = rowsOf(0);
        checkFusedArgs(a);
        const auto rows = static_cast<std::int64_t>(rows_);
        if (fusedEpochGraph_.ready() && fusedGraphShuffled_ == shuffled) {
            fusedEpochGraph_.launch(s);
            return;
        }
        // The warm-up epoch: eager (the kernel is loaded before its capture), then captured without
        // running, so the capture is paid in the epoch summaries leave out.
        launchFusedEpoch(a, rows, problem_.batchSize, s);
        fusedEpochGraph_.capture(s, [&] { launchFusedEpoch(a, rows, problem_.batchSize, s); });
        fusedGraphShuffled_ = shuffled;
    }

    // eager_sync: loss.item() — copy this step's loss to the host and wait for it.
    bool lossOfStepIsFinite() {
        const cudaStream_t s = stream_->get();
        WB_CUDA_CHECK(cudaMemcpyAsync(&hostCounters_.data()->stepLoss, &mlp_->counters()->stepLoss, sizeof(double),
                                      cudaMemcpyDeviceToHost, s));
        stream_->synchronize();
        const double loss = hostCounters_.data()->stepLoss;
        return loss - loss == 0.0;
    }

    DeviceCounters& readCounters() {
        WB_CUDA_CHECK(cudaMemcpyAsync(hostCounters_.data(), mlp_->counters(), sizeof(DeviceCounters),
                                      cudaMemcpyDeviceToHost, stream_->get()));
        stream_->synchronize();  // the one read of the epoch
        return *hostCounters_.data();
    }

    PhaseTimes phasesOf(int stepsRun, double deviceMs) const {
        PhaseTimes p;
        for (int step = 0; step < stepsRun; ++step) {
            const CudaEvent* m = &marks_[static_cast<std::size_t>(step) * kStepMarks];
            p.data += m[1].msSince(m[0]);
            p.forward += m[2].msSince(m[1]);
            p.backward += m[3].msSince(m[2]);
            p.optimizer += m[4].msSince(m[3]);
        }
        // zero_grad, step bookkeeping and the epoch's own work: the measured rest of the device time
        p.other = std::max(0.0, deviceMs - p.data - p.forward - p.backward - p.optimizer);
        return p;
    }

    int device_;
    CudaDeviceFacts facts_;
    std::vector<std::pair<std::string, std::string>> versions_;
    TrainingProblem problem_;
    std::size_t rows_ = 0;
    int steps_ = 0;
    int optimizerStepsBefore_ = 0;
    std::size_t freeBytesAtSetup_ = 0, trainingDataBytes_ = 0;

    // Destroyed in reverse order: the handle before its workspace, the stream last.
    std::unique_ptr<CudaStream> stream_;
    DeviceBuffer<unsigned char> cublasWorkspace_;
    std::unique_ptr<CublasHandle> cublas_;
    std::unique_ptr<DeviceMlp> mlp_;
    std::unique_ptr<BatchSource> source_;
    FusedPlan plan_;
    DeviceBuffer<unsigned char> fusedScratch_;
    CudaGraph fusedEpochGraph_;
    bool fusedGraphShuffled_ = false;
    std::map<std::tuple<const float*, const float*, int>, CudaGraph> graphs_;
    DeviceBuffer<float> valX_, valY_;            // (valRows, cols), (valRows)
    DeviceBuffer<DeviceCounters> evalCounters_;  // (1)
    PinnedBuffer<DeviceCounters> hostCounters_;  // (1) where the epoch's sums land
    std::unique_ptr<CudaEvent> epochStart_, epochEnd_;
    std::vector<CudaEvent> marks_;  // (steps, kStepMarks) eager paths only
};
}  // namespace

// The validation note is named "validation", not "launch": under launch=fused the launch switch
// itself is honoured; what runs differently is the validation pass, which is no switch.
std::vector<IgnoredSwitch> cudaIgnoredSwitches(const ExecutionSettings& s) {
    std::vector<IgnoredSwitch> out;
    if (s.launch == Launch::Fused) {
        if (s.zeroGrad != ZeroGrad::None)
            out.push_back(
                {"zero_grad", "the fused step writes its gradients into its own scratch, there is nothing to zero"});
        out.push_back({"optimizer_kernel", "the fused step applies the optimizer inside its one kernel"});
        out.push_back({"validation", "the fused path has no evaluation kernel; validation runs cuBLAS fp32"});
    }
    return out;
}

std::unique_ptr<Backend> makeCudaBackend(int device) {
    return std::make_unique<CudaBackend>(device);
}

}  // namespace wb
