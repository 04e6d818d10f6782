// The persistent epoch kernel on a real device (ctest label gpu), the first thing a GPU run checks of
// launch=persistent: the device's facts, the kernel against its CPU twin (the same block program;
// the device's tanhf, expf, erff differ from the host's by a few ulp, so within tolerance), two
// device runs bit for bit, and against the fused kernel on the same device. Without a CUDA build
// or a device, every test skips with the reason.
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "tests/fused_fixture.h"
#include "tests/persistent_fixture.h"
#ifdef WB_WITH_CUDA
#include <cuda_runtime_api.h>

#include "kernels/device_buffer.h"
#endif

using namespace wb;
using namespace wb::test;

namespace {

#ifdef WB_WITH_CUDA
// A persistent run's buffers on the device, as a CudaBackend strategy would hold them.
class DeviceRun {
public:
    DeviceRun(const PersistentPlan& plan, const OptimizerSpec& opt, const MlpParams& initial, const Data& data)
        : plan_(plan),
          opt_(stepmath::optimizerScalars(opt)),
          params_(initial.count()),
          m_(initial.count()),
          v_(initial.count()),
          table_(4096),
          x_(data.x.size()),
          y_(data.y.size()),
          order_(data.rows),
          scratch_(plan.scratch.bytes),
          loss_(1),
          correct_(1),
          count_(1),
          rows_(static_cast<std::int64_t>(data.rows)) {
        const std::vector<stepmath::StepScalars> table = persistentStepTable(opt_, 0, 4096);
        params_.copyFrom(initial.values.data(), initial.count(), nullptr);
        m_.zero(nullptr);
        v_.zero(nullptr);
        table_.copyFrom(table.data(), table.size(), nullptr);
        x_.copyFrom(data.x.data(), data.x.size(), nullptr);
        y_.copyFrom(data.y.data(), data.y.size(), nullptr);
        scratch_.zero(nullptr);
        loss_.zero(nullptr);
        correct_.zero(nullptr);
        count_.zero(nullptr);
    }

    void epoch(const std::vector<std::uint32_t>* order) {
        PersistentArgs a;
        a.plan = plan_;
        a.optimizer = opt_;
        a.params = params_.data();
        a.state0 = m_.data();
        a.state1 = v_.data();
        a.stepTable = table_.data();
        a.tableLength = 4096;
        a.stepsDone = steps_;
        a.x = x_.data();
        a.y = y_.data();
        if (order) order_.copyFrom(order->data(), order->size(), nullptr);
        a.rowIndex = order ? order_.data() : nullptr;
        a.rows = rows_;
        a.lossSum = loss_.data();
        a.correct = correct_.data();
        a.stepCount = count_.data();
        a.scratch = scratch_.data();
        launchPersistentEpoch(a, nullptr);
        WB_CUDA_CHECK(cudaDeviceSynchronize());
        steps_ += persistentSteps(plan_, rows_);
    }

    std::vector<float> params() const {
        std::vector<float> out(params_.size());
        params_.copyTo(out.data(), out.size(), nullptr);
        WB_CUDA_CHECK(cudaDeviceSynchronize());
        return out;
    }
    double lossSum() const { return read(loss_); }
    unsigned long long correct() const { return read(correct_); }
    int stepCount() const { return read(count_); }

private:
    template <typename T>
    static T read(const DeviceBuffer<T>& b) {
        T v{};
        b.copyTo(&v, 1, nullptr);
        WB_CUDA_CHECK(cudaDeviceSynchronize());
        return v;
    }

    PersistentPlan plan_;
    stepmath::OptimizerScalars opt_;
    DeviceBuffer<float> params_, m_, v_;
    DeviceBuffer<stepmath::StepScalars> table_;
    DeviceBuffer<float> x_, y_;
    DeviceBuffer<std::uint32_t> order_;
    DeviceBuffer<unsigned char> scratch_;
    DeviceBuffer<double> loss_;
    DeviceBuffer<unsigned long long> correct_;
    DeviceBuffer<int> count_;
    std::int64_t rows_;
    std::int64_t steps_ = 0;
};

// The largest difference in units of 1e-4 relative plus 1e-5 absolute (several epochs of Adam on
// values whose transcendental parts differ by a few ulp between the device and the host).
double worstDifference(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double d =
            std::abs(static_cast<double>(a[i]) - b[i]) / (1e-4 * std::abs(static_cast<double>(b[i])) + 1e-5);
        if (!(d <= worst)) worst = d;
    }
    return worst;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::bit_cast<std::uint32_t>(a[i]) != std::bit_cast<std::uint32_t>(b[i])) return false;
    return true;
}

std::vector<std::uint32_t> permutation(std::size_t n, unsigned seed) {
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), std::mt19937(seed));
    return order;
}
#endif

}  // namespace

class TestPersistentEpoch : public QObject {
    Q_OBJECT

private slots:
    void init() {
#ifndef WB_WITH_CUDA
        QSKIP("this build has no CUDA backend (WB_CUDA=OFF or no CUDA toolkit)");
#else
        int devices = 0;
        const cudaError_t e = cudaGetDeviceCount(&devices);
        if (e != cudaSuccess || devices == 0)
            QSKIP(
                qPrintable(QString("CUDA unavailable: %1").arg(e != cudaSuccess ? cudaGetErrorName(e) : "no device")));
#endif
    }

    // Present in every build, so a build without CUDA reports the skip and its reason.
    void deviceCanRunTheSeed() {
#ifdef WB_WITH_CUDA
        const PersistentDevice dev = queryPersistentDevice(0);
        qInfo("%d SMs, %d resident blocks per SM, %zu bytes of shared memory per block, cooperative %d", dev.smCount,
              dev.blocksPerSm, dev.sharedBytesPerBlock, dev.cooperativeLaunch ? 1 : 0);
        const auto why = persistentRefusal(modelOf({20, 10}, Activation::Tanh), 61,
                                           optimizer(OptimizerKind::Adam, 1e-3), Precision::Fp32, 2048, dev);
        QVERIFY2(!why.has_value(), why ? why->c_str() : "");
#endif
    }

#ifdef WB_WITH_CUDA
    // Three shuffled epochs of the seed with a partial last batch, against the twin of the same plan,
    // then a second device run bit for bit.
    void matchesTwinAndRepeats() {
        const ModelSpec model = modelOf({20, 10}, Activation::Tanh);
        const OptimizerSpec opt = optimizer(OptimizerKind::Adam, 1e-3);
        const Data data = makeData(5000, 61, 7u);
        const MlpParams initial = initParams(model, 61, 42);
        const PersistentDevice dev = queryPersistentDevice(0);
        PersistentRun twin(model, 61, LossKind::BceWithLogits, opt, 2048, initial, dev);
        DeviceRun gpu(twin.plan(), opt, initial, data), again(twin.plan(), opt, initial, data);
        for (unsigned e = 0; e < 3; ++e) {
            const std::vector<std::uint32_t> order = permutation(data.rows, 100u + e);
            twin.epoch(data, &order);
            gpu.epoch(&order);
            again.epoch(&order);
        }
        QCOMPARE(gpu.stepCount(), twin.stepCount());
        const double worst = worstDifference(gpu.params(), twin.params());
        QVERIFY2(worst <= 1.0, qPrintable(QString("parameters off by %1 of the tolerance").arg(worst)));
        QVERIFY(std::abs(gpu.lossSum() - twin.lossSum()) <= 1e-5 * twin.lossSum());
        QVERIFY(std::llabs(static_cast<long long>(gpu.correct()) - static_cast<long long>(twin.correct())) <= 3);
        QVERIFY(sameBits(gpu.params(), again.params()));
        QCOMPARE(gpu.lossSum(), again.lossSum());
    }
#endif
};

QTEST_GUILESS_MAIN(TestPersistentEpoch)
#include "tst_persistent_epoch.moc"
