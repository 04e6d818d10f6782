// The CUDA backend on a real device (ctest label gpu): every valid combination of the switches
// against the CPU reference (the checks of `mlpwb verify`), the presets through the Trainer with their
// timing fields, the persistent path (Fastest) against the fused one, multiclass and regression
// against PyTorch's fixture, and device errors. Without a
// CUDA build or a device, every test skips with the reason.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/data/builtin_data.h"
#include "core/measure/parity_check.h"
#include "core/measure/switch_combinations.h"
#include "core/model/safetensors.h"
#include "core/platform/errors.h"
#include "core/train/trainer.h"
#include "tests/parity_support.h"
#ifdef WB_WITH_CUDA
#include "kernels/cuda_backend.h"
#endif

using namespace wb;

class TestCudaBackend : public QObject {
    Q_OBJECT

private slots:
    void init() {
#ifndef WB_WITH_CUDA
        QSKIP("this build has no CUDA backend (WB_CUDA=OFF or no CUDA toolkit)");
#else
        const BackendInfo info = probeCudaBackend();
        if (!info.available) QSKIP(qPrintable("CUDA unavailable: " + QString::fromStdString(info.reason)));
#endif
    }

    // Present in every build, so a build without CUDA reports the skip and its reason.
    void cudaIsListedAndAvailable() {
#ifdef WB_WITH_CUDA
        registerCudaBackend();
        bool listed = false;
        for (const auto& b : BackendRegistry::instance().list()) listed = listed || (b.name == "cuda" && b.available);
        QVERIFY(listed);
#endif
    }

#ifdef WB_WITH_CUDA
    void everyCombinationMatchesTheCpu() {
        std::string failures;
        const VerifySummary s = verifyCombinations(
            validCombinations(), [] { return makeCudaBackend(0); },
            [&](const ParityOutcome& o) {
                if (o.status != ParityOutcome::Status::Passed) failures += formatOutcome(o) + "\n";
            },
            makeParityProblem());
        QVERIFY2(s.failed == 0, failures.c_str());
        QCOMPARE(static_cast<std::size_t>(s.passed), validCombinations().size());
    }

    void presetsTrainThroughTheTrainer_data() {
        QTest::addColumn<QString>("preset");
        for (const auto& p : presets()) QTest::newRow(p.name.c_str()) << QString::fromStdString(p.name);
    }

    // Each preset completes, learns, records the device and times what it can time honestly.
    void presetsTrainThroughTheTrainer() {
        QFETCH(QString, preset);
        const RunRecord r = trainFourEpochs(presetByName(preset.toStdString()).settings);
        QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
        QCOMPARE(r.epochs.size(), std::size_t{4});
        QVERIFY(r.epochs.back().trainLoss < r.epochs.front().trainLoss);
        QVERIFY(r.epochs.back().valLoss.has_value());
        QVERIFY(r.environment.count("compute_capability") == 1);
        QVERIFY(r.environment.count("cuda_driver") == 1);
        const Launch launch = presetByName(preset.toStdString()).settings.launch;
        const bool eager = launch == Launch::Eager || launch == Launch::EagerSync;
        for (const auto& e : r.epochs) {
            QVERIFY(e.deviceMs.has_value() && *e.deviceMs > 0.0);
            QCOMPARE(e.phases.has_value(), eager);  // graph and fused: not separable
        }
    }

    // launch=persistent (the Fastest preset's): through the Trainer (shuffled epochs, validation, the host's step
    // count across epochs) its epochs follow the fused path's from the same weights and order: the same
    // per-row arithmetic; its tiles may group the rows' gradients differently, so within verify's fp32
    // tolerance.
    void persistentFollowsFused() {
        ExecutionSettings persistent = presetByName("Fastest").settings;
        persistent.launch = Launch::Persistent;
        const RunRecord fused = trainFourEpochs(presetByName("Fastest").settings);
        const RunRecord r = trainFourEpochs(persistent);
        QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
        QCOMPARE(r.epochs.size(), fused.epochs.size());
        for (std::size_t i = 0; i < r.epochs.size(); ++i) {
            const double want = fused.epochs[i].trainLoss, got = r.epochs[i].trainLoss;
            QVERIFY2(std::abs(got - want) <= 1e-4 * std::max(1.0, std::abs(want)),
                     qPrintable(QString("epoch %1: %2 vs fused %3").arg(i + 1).arg(got).arg(want)));
            QVERIFY(!r.epochs[i].phases.has_value());  // one kernel per epoch: not separable
        }
        QVERIFY(r.epochs.back().trainLoss < r.epochs.front().trainLoss);
    }

    void tasksMatchPyTorch_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("launch");
        const nlohmann::json fixture = parity::readExpected(kTaskDir);  // outlives the loop over its items
        for (const auto& [name, c] : fixture.at("cases").items())
            for (const Launch l : {Launch::Eager, Launch::GraphStep})
                QTest::newRow((name + ", " + toString(l)).c_str()) << QString::fromStdString(name) << int(l);
    }

    // Multiclass and regression on the eager and graph paths: the PyTorch fixture's loss curve and
    // final weights (tests/data/parity_tasks), as the CPU backend matches them in tst_task_parity.
    void tasksMatchPyTorch() {
        QFETCH(QString, name);
        QFETCH(int, launch);
        const nlohmann::json fixture = parity::readExpected(kTaskDir);
        const nlohmann::json& c = fixture.at("cases").at(name.toStdString());
        RunConfig config = taskConfig(fixture, c);
        config.execution.launch = static_cast<Launch>(launch);
        const Dataset ds = parity::loadTaskCase(kTaskDir, c);
        const PreparedData data = prepare(ds, config.prepare);
        auto backend = makeCudaBackend(0);
        Trainer trainer(config, ds, data, *backend);
        const CancelFlag never{false};
        const RunRecord r = trainer.run(never);
        QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
        parity::compareLossCurve(r, c.at("epoch_train_loss").get<std::vector<double>>());
        parity::compareWeights(trainer.finalParams(),
                               loadSafetensors(kTaskDir + c.at("final_weights").get<std::string>()));
    }

    // The fused and persistent kernels compute the binary loss inside: other tasks are refused, with why.
    void fusedRefusesOtherTasks() {
        const nlohmann::json fixture = parity::readExpected(kTaskDir);
        const nlohmann::json& c = fixture.at("cases").at("k3_cross_entropy");
        RunConfig config = taskConfig(fixture, c);
        config.execution = presetByName("Fastest").settings;
        const Dataset ds = parity::loadTaskCase(kTaskDir, c);
        const PreparedData data = prepare(ds, config.prepare);
        auto backend = makeCudaBackend(0);
        Trainer trainer(config, ds, data, *backend);
        const CancelFlag never{false};
        try {
            trainer.run(never);
            QFAIL("trained");
        } catch (const ConfigError& e) {
            QVERIFY2(QString(e.what()).contains("multiclass"), e.what());
        }
    }

    void missingDeviceIsDeviceError() {
        QVERIFY_THROWS_EXCEPTION(DeviceError, makeCudaBackend(4096));
    }

    // The parameters come back as they went in before any step, bit for bit.
    void parametersRoundTrip() {
        const ParityProblem problem = makeParityProblem();
        auto backend = makeCudaBackend(0);
        backend->setup({&problem.data, problem.model, problem.optimizer, ExecutionSettings{}, problem.batchSize,
                        problem.initialParams});
        QVERIFY(backend->parameters().values == problem.initialParams.values);
    }

private:
    inline static const std::string kTaskDir = WB_TEST_DATA_DIR "/parity_tasks/";

    // The fixture's training on the CUDA backend in fp32, from its initial weights.
    static RunConfig taskConfig(const nlohmann::json& fixture, const nlohmann::json& c) {
        RunConfig config = parity::taskCaseConfig(kTaskDir, fixture, c);
        config.backend = "cuda";
        config.execution.dataPath = DataPath::DeviceResident;
        return config;
    }

    // Four shuffled epochs of 5000 seed-like rows (batch 512, a fifth for validation) on device 0.
    static RunRecord trainFourEpochs(const ExecutionSettings& settings) {
        RunConfig config;
        config.backend = "cuda";
        config.execution = settings;
        config.train.epochs = 4;
        config.train.batchSize = 512;
        config.train.shuffle = true;
        config.prepare.valSplit = 0.2;
        const Dataset ds = generateSeedLike(5000, 3);
        const PreparedData data = prepare(ds, config.prepare);
        auto backend = makeCudaBackend(0);
        Trainer trainer(config, ds, data, *backend);
        const CancelFlag never{false};
        return trainer.run(never);
    }
#endif
};

QTEST_GUILESS_MAIN(TestCudaBackend)
#include "tst_cuda_backend.moc"
