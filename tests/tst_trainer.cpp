// The Trainer driving the CPU backend: learning, determinism, cancellation, divergence, the record
// written after every epoch, and that each execution switch keeps the maths of the step.
#include <QtTest>

#include <atomic>
#include <limits>

#include "core/cpu/cpu_backend.h"
#include "core/data/builtin_data.h"
#include "core/data/prepare.h"
#include "core/platform/errors.h"
#include "core/train/trainer.h"
#include "tests/test_support.h"

using namespace wb;

namespace {
// The CPU backend with a device that fails where the test says: in setup (out of memory on a GPU) or
// when the trained parameters are read back (a sticky error that the last kernel left behind).
class FailingBackend : public Backend {
public:
    enum class FailIn { Setup, Parameters };
    explicit FailingBackend(FailIn where) : where_(where) {}
    std::string name() const override { return "failing"; }
    std::string deviceName() const override { return "a device that fails"; }
    void setup(const TrainingProblem& problem) override {
        if (where_ == FailIn::Setup) throw DeviceError("cudaErrorMemoryAllocation", "out of device memory");
        inner_->setup(problem);
    }
    EpochResult trainEpoch(const std::vector<std::uint32_t>* order, const CancelFlag& cancel) override {
        return inner_->trainEpoch(order, cancel);
    }
    EvalResult evaluate(const float* x, const float* y, std::size_t rows) override {
        return inner_->evaluate(x, y, rows);
    }
    MlpParams parameters() const override {
        if (where_ == FailIn::Parameters) throw DeviceError("cudaErrorIllegalAddress", "an illegal memory access");
        return inner_->parameters();
    }
    std::vector<IgnoredSwitch> notApplicable(const ExecutionSettings& s) const override {
        return inner_->notApplicable(s);
    }
    std::vector<std::pair<std::string, std::string>> environment() const override { return {}; }

private:
    FailIn where_;
    std::unique_ptr<Backend> inner_ = makeCpuBackend();
};
// A backend whose epochs report the losses a test scripts (epoch by epoch), to check the rules the
// trainer applies to them.
class ScriptedLossBackend : public Backend {
public:
    ScriptedLossBackend(std::vector<double> trainLoss, std::vector<double> valLoss)
        : train_(std::move(trainLoss)), val_(std::move(valLoss)) {}
    std::string name() const override { return "scripted"; }
    std::string deviceName() const override { return "none"; }
    void setup(const TrainingProblem&) override {}
    EpochResult trainEpoch(const std::vector<std::uint32_t>*, const CancelFlag&) override {
        EpochResult r;
        r.samples = 100;
        r.lossSum = train_.at(epoch_) * 100;
        r.validation = EvalResult{val_.at(epoch_), 0};
        r.wallMs = 1;
        ++epoch_;
        return r;
    }
    EvalResult evaluate(const float*, const float*, std::size_t) override { return {}; }
    MlpParams parameters() const override { return {}; }
    std::vector<IgnoredSwitch> notApplicable(const ExecutionSettings&) const override { return {}; }
    std::vector<std::pair<std::string, std::string>> environment() const override { return {}; }

private:
    std::vector<double> train_, val_;
    std::size_t epoch_ = 0;
};
}  // namespace

class TestTrainer : public QObject {
    Q_OBJECT

private:
    Dataset dataset_ = generateSeedLike(4000, 5);

    RunConfig smallConfig(int epochs) const {
        RunConfig c;
        c.name = "test";
        c.train.epochs = epochs;
        c.train.batchSize = 256;
        return c;
    }

    RunRecord train(const RunConfig& c, const std::string& path = {}) {
        const PreparedData data = prepare(dataset_, c.prepare);
        auto backend = makeCpuBackend();
        Trainer trainer(c, dataset_, data, *backend, path);
        CancelFlag cancel{false};
        return trainer.run(cancel);
    }

    static std::vector<double> losses(const RunRecord& r) {
        std::vector<double> out;
        for (const auto& e : r.epochs) out.push_back(e.trainLoss);
        return out;
    }

private slots:
    void fiveEpochsLowerTheLoss() {
        const RunRecord r = train(smallConfig(5));
        WB_COMPARE_NAME(r.status, "completed");
        QCOMPARE(r.epochs.size(), std::size_t{5});
        QVERIFY(r.epochs.back().trainLoss < r.epochs.front().trainLoss);
        QVERIFY(r.epochs.front().warmup);
        QVERIFY(!r.epochs.back().warmup);
        QVERIFY(r.epochs.back().phases.has_value());
        QVERIFY(r.summary().medianEpochMs.value() > 0);
    }

    void sameSeedGivesBitIdenticalCurves() {
        RunConfig c = smallConfig(3);
        c.train.shuffle = true;
        c.prepare.valSplit = 0.2;
        const RunRecord a = train(c), b = train(c);
        QCOMPARE(losses(a), losses(b));
        QCOMPARE(a.epochs.back().valLoss, b.epochs.back().valLoss);
        c.train.seed = 2;
        QVERIFY(losses(train(c)) != losses(a));
    }

    void validationMetricsWhenSplit() {
        RunConfig c = smallConfig(2);
        c.prepare.valSplit = 0.25;
        const RunRecord r = train(c);
        QVERIFY(r.epochs.back().valLoss.has_value());
        QCOMPARE(r.dataset.valRows + r.dataset.trainRows, std::size_t{4000});
        QVERIFY(!train(smallConfig(1)).epochs.back().valLoss.has_value());
    }

    // Switches that change how, not what: the loss curve must not change.
    void switchesKeepTheMaths_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("value");
        QTest::newRow("per-sample gather") << "data_path"
                                           << "per_sample_gather";
        QTest::newRow("zero_grad twice") << "zero_grad"
                                         << "twice";
        QTest::newRow("zero_grad none") << "zero_grad"
                                        << "none";
        QTest::newRow("multi-tensor optimizer") << "optimizer_kernel"
                                                << "multi_tensor";
    }

    void switchesKeepTheMaths() {
        QFETCH(QString, name);
        QFETCH(QString, value);
        RunConfig c = smallConfig(2);
        c.train.shuffle = true;
        const auto base = losses(train(c));
        setSwitch(c.execution, name.toStdString(), value.toStdString());
        QCOMPARE(losses(train(c)), base);
    }

    void sigmoidBceChangesLittleButRuns() {
        RunConfig c = smallConfig(2);
        c.execution.loss = LossKind::SigmoidBce;
        const auto l = losses(train(c));
        const auto base = losses(train(smallConfig(2)));
        QVERIFY(std::abs(l.back() - base.back()) < 1e-4);
    }

    void cancelStopsAndMarksTheRun() {
        const RunConfig c = smallConfig(50);
        const PreparedData data = prepare(dataset_, c.prepare);
        auto backend = makeCpuBackend();
        Trainer trainer(c, dataset_, data, *backend);
        CancelFlag cancel{false};
        const RunRecord r = trainer.run(cancel, {[&](const EpochMetrics& m, const RunRecord&) {
                                            if (m.epoch == 2) cancel.store(true);
                                        }});
        WB_COMPARE_NAME(r.status, "cancelled");
        QCOMPARE(r.epochs.size(), std::size_t{2});
    }

    void divergenceNamesEpochAndStep() {
        RunConfig c = smallConfig(5);
        c.optimizer = OptimizerSpec::defaults(OptimizerKind::Sgd);
        c.optimizer.lr = 1e30;
        c.model.activation = Activation::Identity;  // unbounded, so the logits overflow to inf
        const RunRecord r = train(c);
        WB_COMPARE_NAME(r.status, "diverged");
        QVERIFY2(QString::fromStdString(r.message).contains("epoch"), r.message.c_str());
        QVERIFY2(QString::fromStdString(r.message).contains("step"), r.message.c_str());
    }

    // lr 1e30 "completing" with a loss of 8e29, or a validation loss of NaN, is divergence.
    void divergenceRules_data() {
        QTest::addColumn<QList<double>>("train");
        QTest::addColumn<QList<double>>("val");
        QTest::addColumn<QString>("status");
        QTest::addColumn<QString>("message");
        const double nan = std::numeric_limits<double>::quiet_NaN();
        QTest::newRow("learning") << QList<double>{0.7, 0.6, 0.5} << QList<double>{0.7, 0.6, 0.5} << "completed"
                                  << "";
        QTest::newRow("grows past the factor")
            << QList<double>{0.7, 2.0, 0.7e6 + 1} << QList<double>{0.5, 0.5, 0.5} << "diverged"
            << "the loss grew past 1000000 times its first value at epoch 3";
        QTest::newRow("validation NaN") << QList<double>{0.7, 0.6, 0.5} << QList<double>{0.7, nan, 0.5} << "diverged"
                                        << "the validation loss became non-finite at epoch 2";
    }
    void divergenceRules() {
        QFETCH(QList<double>, train);
        QFETCH(QList<double>, val);
        QFETCH(QString, status);
        QFETCH(QString, message);
        RunConfig c = smallConfig(3);
        c.prepare.valSplit = 0.2;
        const PreparedData data = prepare(dataset_, c.prepare);
        ScriptedLossBackend backend({train.begin(), train.end()}, {val.begin(), val.end()});
        Trainer trainer(c, dataset_, data, backend);
        CancelFlag cancel{false};
        const RunRecord r = trainer.run(cancel);
        WB_COMPARE_NAME(r.status, status.toStdString().c_str());
        QCOMPARE(QString::fromStdString(r.message), message);
    }

    // The record is written when the run starts and ends; in between, epochs go to a journal that
    // the end of the run removes.
    void journalGoesWhenTheRunEnds() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("run.json").toStdString();
        train(smallConfig(2), path);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"run.json"});
    }

    void recordWrittenAfterEveryEpoch() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("run.json").toStdString();
        const RunConfig c = smallConfig(3);
        const PreparedData data = prepare(dataset_, c.prepare);
        auto backend = makeCpuBackend();
        Trainer trainer(c, dataset_, data, *backend, path);
        CancelFlag cancel{false};
        std::vector<std::size_t> seen;
        trainer.run(cancel, {[&](const EpochMetrics&, const RunRecord&) {
                        seen.push_back(RunRecord::load(path).epochs.size());
                    }});
        QCOMPARE(seen, (std::vector<std::size_t>{1, 2, 3}));
        const RunRecord final = RunRecord::load(path);
        WB_COMPARE_NAME(final.status, "completed");
        QCOMPARE(QString::fromStdString(final.environment.at("backend")), QString("cpu"));
        QVERIFY(final.config.at("model").at("hidden") == nlohmann::json({20, 10}));
    }

    // A device error in setup or when reading the weights back fails the run (never `running`, never an
    // exception out of run()), with the message, and the record is written.
    void deviceErrorFailsTheRecord_data() {
        QTest::addColumn<int>("where");
        QTest::addColumn<QString>("message");
        QTest::addColumn<int>("epochs");
        QTest::newRow("setup") << int(FailingBackend::FailIn::Setup) << "cudaErrorMemoryAllocation" << 0;
        QTest::newRow("parameters") << int(FailingBackend::FailIn::Parameters) << "cudaErrorIllegalAddress" << 2;
    }
    void deviceErrorFailsTheRecord() {
        QFETCH(int, where);
        QFETCH(QString, message);
        QFETCH(int, epochs);
        QTemporaryDir dir;
        const std::string path = dir.filePath("run.json").toStdString();
        const RunConfig c = smallConfig(2);
        const PreparedData data = prepare(dataset_, c.prepare);
        FailingBackend backend(static_cast<FailingBackend::FailIn>(where));
        Trainer trainer(c, dataset_, data, backend, path);
        CancelFlag cancel{false};
        const RunRecord r = trainer.run(cancel);
        WB_COMPARE_NAME(r.status, "failed");
        QVERIFY2(QString::fromStdString(r.message).contains(message), r.message.c_str());
        QCOMPARE(int(r.epochs.size()), epochs);
        const RunRecord saved = RunRecord::load(path);
        WB_COMPARE_NAME(saved.status, "failed");
        QCOMPARE(QString::fromStdString(saved.message), QString::fromStdString(r.message));
        QCOMPARE(QString::fromStdString(saved.environment.at("backend")), QString("failing"));
        QVERIFY(trainer.finalParams().layers.empty());
    }

    // A ConfigError from the backend's setup still propagates (the Trainer contract: bad configs throw).
    void configErrorFromSetupStillThrows() {
        class RefusingBackend : public FailingBackend {
        public:
            RefusingBackend() : FailingBackend(FailIn::Parameters) {}
            void setup(const TrainingProblem&) override { throw ConfigError("switches this backend refuses"); }
        };
        const RunConfig c = smallConfig(1);
        const PreparedData data = prepare(dataset_, c.prepare);
        RefusingBackend backend;
        Trainer trainer(c, dataset_, data, backend);
        CancelFlag cancel{false};
        QVERIFY_THROWS_EXCEPTION(ConfigError, trainer.run(cancel));
    }
};

QTEST_GUILESS_MAIN(TestTrainer)
#include "tst_trainer.moc"
