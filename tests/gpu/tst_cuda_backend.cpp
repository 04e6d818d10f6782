// The CUDA backend on a real device (ctest label gpu): every valid combination of the switches
// against the CPU reference (the checks of `mlpwb verify`), the presets through the Trainer with their
// timing fields, and device errors. Without a CUDA build or a device, every test skips with the reason.
#include <QtTest>

#include <string>

#include "builtin_data.h"
#include "errors.h"
#include "parity_check.h"
#include "switch_combinations.h"
#include "trainer.h"
#ifdef WB_WITH_CUDA
#include "cuda_backend.h"
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
        RunConfig config;
        config.backend = "cuda";
        config.execution = presetByName(preset.toStdString()).settings;
        config.train.epochs = 4;
        config.train.batchSize = 512;
        config.train.shuffle = true;
        config.prepare.valSplit = 0.2;
        const Dataset ds = generateSeedLike(5000, 3);
        const PreparedData data = prepare(ds, config.prepare);
        auto backend = makeCudaBackend(0);
        Trainer trainer(config, ds, data, *backend);
        const CancelFlag never{false};
        const RunRecord r = trainer.run(never);
        QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
        QCOMPARE(r.epochs.size(), std::size_t{4});
        QVERIFY(r.epochs.back().trainLoss < r.epochs.front().trainLoss);
        QVERIFY(r.epochs.back().valLoss.has_value());
        QVERIFY(r.environment.count("compute_capability") == 1);
        QVERIFY(r.environment.count("cuda_driver") == 1);
        const Launch launch = config.execution.launch;
        const bool eager = launch == Launch::Eager || launch == Launch::EagerSync;
        for (const auto& e : r.epochs) {
            QVERIFY(e.deviceMs.has_value() && *e.deviceMs > 0.0);
            QCOMPARE(e.phases.has_value(), eager);  // graph and fused: not separable
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
#endif
};

QTEST_GUILESS_MAIN(TestCudaBackend)
#include "tst_cuda_backend.moc"
