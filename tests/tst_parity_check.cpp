// The parity check behind `mlpwb verify` (core/measure/parity_check.h), exercised on the CPU: the
// combinations it walks, the tolerances by precision, the comparison of two runs, and the whole
// check with the CPU backend as candidate (it must pass) and with candidates that are wrong or
// unavailable (they must fail, with the reason).
#include <QtTest>

#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cpu/cpu_backend.h"
#include "core/measure/parity_check.h"
#include "core/measure/switch_combinations.h"
#include "core/platform/errors.h"

using namespace wb;

namespace {
// A candidate that trains on the CPU but reports its weights off by `shift` (a broken kernel).
class ShiftedBackend final : public Backend {
public:
    explicit ShiftedBackend(float shift) : inner_(makeCpuBackend()), shift_(shift) {}
    std::string name() const override { return "shifted"; }
    std::string deviceName() const override { return "test double"; }
    void setup(const TrainingProblem& p) override { inner_->setup(p); }
    EpochResult trainEpoch(const std::vector<std::uint32_t>* order, const CancelFlag& cancel) override {
        return inner_->trainEpoch(order, cancel);
    }
    EvalResult evaluate(const float* x, const float* y, std::size_t rows) override {
        return inner_->evaluate(x, y, rows);
    }
    MlpParams parameters() const override {
        MlpParams p = inner_->parameters();
        for (float& v : p.values) v += shift_;
        return p;
    }
    std::vector<IgnoredSwitch> notApplicable(const ExecutionSettings&) const override { return {}; }
    std::vector<std::pair<std::string, std::string>> environment() const override { return {}; }

private:
    std::unique_ptr<Backend> inner_;
    float shift_;
};

RunTrace traceOf(std::vector<double> losses, std::vector<float> values) {
    RunTrace t;
    t.epochLoss = std::move(losses);
    t.params = MlpParams::zeros({2, 2, 1});  // 2 -> 2 -> 1: weights 4 + 2, then 2 + 1
    t.params.values = std::move(values);
    return t;
}
}  // namespace

class TestParityCheck : public QObject {
    Q_OBJECT

private slots:
    // Every combination of the enums' values, counted with plain loops, minus the refused ones.
    void combinationsAreExactlyTheValidOnes() {
        std::size_t expected = 0, all = 0;
        for (auto d :
             {DataPath::PerSampleGather, DataPath::PageableCopy, DataPath::PinnedAsync, DataPath::DeviceResident})
            for (auto l : {Launch::EagerSync, Launch::Eager, Launch::GraphStep, Launch::Fused, Launch::Persistent})
                for (auto loss : {LossKind::SigmoidBce, LossKind::BceWithLogits})
                    for (auto z : {ZeroGrad::Twice, ZeroGrad::Once, ZeroGrad::None})
                        for (auto o : {OptimizerKernel::PerTensor, OptimizerKernel::MultiTensor})
                            for (auto p : {Precision::Fp32, Precision::Tf32, Precision::Bf16, Precision::Fp16})
                                for (auto g : {Gemm::Cublas, Gemm::Custom}) {
                                    ++all;
                                    if (!ExecutionSettings{d, l, loss, z, o, p, g}.refusal()) ++expected;
                                }
        QCOMPARE(combinationCount(), all);
        const auto combos = validCombinations();
        QCOMPARE(combos.size(), expected);
        QVERIFY(expected > 100 && expected < all);  // the refusals remove some, not most
        std::set<std::string> seen;
        for (const auto& s : combos) {
            QVERIFY(!s.refusal());
            QVERIFY(seen.insert(describeCombination(s)).second);  // no duplicates
        }
        for (const auto& preset : presets()) QVERIFY(seen.count(describeCombination(preset.settings)) == 1);
    }

    // launch=persistent runs on resident rows, its own products, fp32: what verify walks
    // through for it is every loss, zero_grad and optimizer_kernel, 2 x 3 x 2 combinations.
    void persistentCombinations() {
        int persistent = 0;
        for (const auto& s : validCombinations()) {
            if (s.launch != Launch::Persistent) continue;
            ++persistent;
            QVERIFY(s.dataPath == DataPath::DeviceResident && s.gemm == Gemm::Custom && s.precision == Precision::Fp32);
        }
        QCOMPARE(persistent, 12);
    }

    void describeNamesEverySwitch() {
        const std::string line = describeCombination(presetByName("Fastest").settings);
        QCOMPARE(QString::fromStdString(line),
                 QString("data_path=device_resident launch=persistent loss=bce_with_logits zero_grad=none "
                         "optimizer_kernel=multi_tensor precision=fp32 gemm=custom"));
    }

    void tolerancesByPrecision() {
        QCOMPARE(toleranceFor(Precision::Fp32).weights, 1e-4);
        QCOMPARE(toleranceFor(Precision::Fp32).loss, 1e-4);
        QCOMPARE(toleranceFor(Precision::Tf32).weights, 1e-2);
        QCOMPARE(toleranceFor(Precision::Bf16).weights, 5e-2);
        QCOMPARE(toleranceFor(Precision::Fp16).loss, 5e-2);
    }

    void identicalTracesPass() {
        const RunTrace a = traceOf({0.7, 0.6}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
        const ParityComparison c = compareTraces(a, a, toleranceFor(Precision::Fp32));
        QVERIFY2(c.passed, c.message.c_str());
        QCOMPARE(c.lossError, 0.0);
        QCOMPARE(c.weightError, 0.0);
    }

    // A relative error of ~2e-3 in one tensor: beyond fp32's tolerance, within tf32's.
    void weightErrorIsJudgedByPrecision() {
        const RunTrace ref = traceOf({0.7}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
        const RunTrace got = traceOf({0.7}, {1, 2, 3, 4.01f, 5, 6, 7, 8, 9});
        const ParityComparison strict = compareTraces(ref, got, toleranceFor(Precision::Fp32));
        QVERIFY(!strict.passed);
        QVERIFY2(QString::fromStdString(strict.message).contains("layer 0 weight"), strict.message.c_str());
        const double expected = 0.01 / std::sqrt(1.0 + 4 + 9 + 16);  // ||diff|| / ||reference|| of layer 0's weight
        QVERIFY(std::abs(strict.weightError - expected) < 1e-6);
        QVERIFY(compareTraces(ref, got, toleranceFor(Precision::Tf32)).passed);
    }

    void lossErrorFails() {
        const RunTrace ref = traceOf({0.7, 0.6}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
        const RunTrace got = traceOf({0.7, 0.61}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
        const ParityComparison c = compareTraces(ref, got, toleranceFor(Precision::Tf32));
        QVERIFY(!c.passed);
        QVERIFY(std::abs(c.lossError - 0.01 / 0.6) < 1e-9);
        QVERIFY(compareTraces(ref, got, toleranceFor(Precision::Bf16)).passed);
    }

    void nanAndShapeMismatchFail() {
        const RunTrace ref = traceOf({0.7}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
        RunTrace nan = ref;
        nan.params.values[8] = std::numeric_limits<float>::quiet_NaN();
        QVERIFY(!compareTraces(ref, nan, toleranceFor(Precision::Fp16)).passed);
        RunTrace nanLoss = ref;
        nanLoss.epochLoss[0] = std::numeric_limits<double>::quiet_NaN();
        QVERIFY(!compareTraces(ref, nanLoss, toleranceFor(Precision::Fp16)).passed);
        RunTrace shorter = ref;
        shorter.epochLoss.clear();
        const ParityComparison c = compareTraces(ref, shorter, toleranceFor(Precision::Fp16));
        QVERIFY(!c.passed);
        QVERIFY(QString::fromStdString(c.message).contains("shape"));
    }

    // The problem meets a partial last batch and shuffled orders.
    void problemHasPartialBatchAndPermutations() {
        const ParityProblem p = makeParityProblem(300, 2, 7);
        QCOMPARE(p.data.trainRows(), std::size_t{300});
        QVERIFY(300 % p.batchSize != 0);
        QCOMPARE(p.orders.size(), std::size_t{2});
        for (const auto& order : p.orders) {
            std::set<std::uint32_t> rows(order.begin(), order.end());
            QCOMPARE(rows.size(), std::size_t{300});
            QCOMPARE(*rows.rbegin(), 299u);
        }
        QVERIFY(p.orders[0] != p.orders[1]);
    }

    // The CPU against itself: equal to the last bit whatever the switches it ignores.
    void cpuAgainstItselfPasses() {
        const ParityProblem problem = makeParityProblem();
        std::vector<ExecutionSettings> some;
        for (const auto& preset : presets()) some.push_back(preset.settings);
        int reports = 0;
        const VerifySummary s = verifyCombinations(
            some, [] { return makeCpuBackend(); },
            [&](const ParityOutcome& o) {
                ++reports;
                QVERIFY2(o.status == ParityOutcome::Status::Passed, formatOutcome(o).c_str());
                QCOMPARE(o.comparison.weightError, 0.0);
            },
            problem);
        QCOMPARE(s.passed, static_cast<int>(some.size()));
        QCOMPARE(s.failed, 0);
        QCOMPARE(reports, static_cast<int>(some.size()));
    }

    void wrongCandidateFails() {
        const ParityProblem problem = makeParityProblem();
        const auto reference = makeCpuBackend();
        ShiftedBackend shifted(1e-3f);
        const ParityOutcome o = checkCombination(*reference, shifted, problem, ExecutionSettings{});
        QVERIFY(o.status == ParityOutcome::Status::Failed);
        QVERIFY2(QString::fromStdString(formatOutcome(o)).startsWith("FAIL"), formatOutcome(o).c_str());
        QVERIFY(o.comparison.lossError == 0.0);  // the losses agree: only the weights are off
    }

    void unavailableCandidateFailsWithReason() {
        const ParityProblem problem = makeParityProblem();
        const std::vector<ExecutionSettings> two = {ExecutionSettings{}, presetByName("Fastest").settings};
        std::vector<std::string> lines;
        const VerifySummary s = verifyCombinations(
            two, []() -> std::unique_ptr<Backend> { throw DeviceError("cudaErrorNoDevice", "no device here"); },
            [&](const ParityOutcome& o) { lines.push_back(formatOutcome(o)); }, problem);
        QCOMPARE(s.failed, 2);
        QCOMPARE(s.passed, 0);
        QCOMPARE(lines.size(), std::size_t{2});
        QVERIFY2(QString::fromStdString(lines[0]).contains("no device here"), lines[0].c_str());
    }

    // verify --isolate's orchestration with fake children: a crash and a device error fail only their
    // own combination, named; the next child starts after it; the rest pass.
    void isolatedChildrenContainFailures() {
        const auto all = wb::validCombinations();
        const std::vector<wb::ExecutionSettings> combos(all.begin(), all.begin() + 6);
        std::vector<std::size_t> starts;
        const auto child = [&](std::size_t first, const std::function<void(const std::string&)>& onLine) {
            starts.push_back(first);
            onLine("verify: header");
            for (std::size_t i = first; i < combos.size(); ++i) {
                onLine("BEGIN " + std::to_string(i));
                wb::ParityOutcome o;
                o.settings = combos[i];
                if (i == 2) {  // crashes mid-combination (an illegal address that aborts)
                    onLine("terminate called after throwing");
                    return -1;
                }
                o.status = i == 4 ? wb::ParityOutcome::Status::Failed : wb::ParityOutcome::Status::Passed;
                if (i == 4) o.message = "illegal memory access";
                onLine(wb::formatOutcome(o));
                if (i == 4) return 5;  // a device error ends the child
            }
            return 0;
        };
        std::vector<std::string> lines;
        const wb::VerifySummary s =
            wb::verifyIsolated(combos, child, [&](const std::string& line) { lines.push_back(line); });
        QCOMPARE(s.passed, 4);
        QCOMPARE(s.failed, 2);
        QCOMPARE(starts, (std::vector<std::size_t>{0, 3, 5}));
        QCOMPARE(lines.size(), combos.size());
        QVERIFY2(
            lines[2].rfind("FAIL", 0) == 0 && lines[2].find(wb::describeCombination(combos[2])) != std::string::npos,
            lines[2].c_str());
        QVERIFY2(lines[2].find("exit code -1: terminate called") != std::string::npos, lines[2].c_str());
        QVERIFY2(lines[4].find("illegal memory access") != std::string::npos, lines[4].c_str());
    }

    // A child that dies before its first combination fails every remaining one once, without restarts.
    void isolatedChildDeadOnArrival() {
        const auto all = wb::validCombinations();
        const std::vector<wb::ExecutionSettings> combos(all.begin(), all.begin() + 3);
        int children = 0;
        std::vector<std::string> lines;
        const wb::VerifySummary s = wb::verifyIsolated(
            combos,
            [&](std::size_t, const std::function<void(const std::string&)>& onLine) {
                ++children;
                onLine("mlpwb: cannot load libcudart");
                return 2;
            },
            [&](const std::string& line) { lines.push_back(line); });
        QCOMPARE(children, 1);
        QCOMPARE(s.failed, 3);
        QVERIFY2(lines[0].find("before any combination") != std::string::npos, lines[0].c_str());
        QVERIFY2(lines[0].find("cannot load libcudart") != std::string::npos, lines[0].c_str());
    }
};

QTEST_GUILESS_MAIN(TestParityCheck)
#include "tst_parity_check.moc"
