// BackendRegistry: which switches a backend ignores, answered per backend name without constructing
// one (the ablation and the GUI ask it), and the same answer as the backend's own notApplicable.
#include <QtTest>

#include <string>
#include <vector>

#include "core/cpu/cpu_backend.h"
#include "core/model/execution_settings.h"
#include "core/platform/errors.h"
#include "core/run/backend.h"
#ifdef WB_WITH_CUDA
#include "kernels/cuda_backend.h"
#endif

using namespace wb;

Q_DECLARE_METATYPE(wb::ExecutionSettings)

namespace {
// "launch, gemm": the names in `list`, for messages.
QString namesOf(const std::vector<IgnoredSwitch>& list) {
    QStringList names;
    for (const auto& i : list) names << QString::fromStdString(i.name);
    return names.join(", ");
}

// `s` with the switches in `sets` ("switch=value" each) set.
ExecutionSettings with(ExecutionSettings s, const std::vector<std::pair<std::string, std::string>>& sets) {
    for (const auto& [name, value] : sets) setSwitch(s, name, value);
    return s;
}
}  // namespace

class TestBackendRegistry : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
#ifdef WB_WITH_CUDA
        registerCudaBackend();
#endif
    }

    void cpuListWithoutAnInstanceEqualsTheBackends_data() {
        QTest::addColumn<ExecutionSettings>("settings");
        QTest::addColumn<QStringList>("ignored");  // the switches the CPU ignores, in order
        for (const Preset& p : presets()) {
            QStringList ignored;
            if (p.settings.dataPath == DataPath::PageableCopy || p.settings.dataPath == DataPath::PinnedAsync)
                ignored << "data_path";
            ignored << "launch";
            if (p.settings.precision != Precision::Fp32) ignored << "precision";
            ignored << "gemm";
            QTest::newRow(p.name.c_str()) << p.settings << ignored;
        }
        QTest::newRow("defaults") << ExecutionSettings{} << QStringList{"launch", "gemm"};
        QTest::newRow("pageable_copy, bf16") << with({}, {{"data_path", "pageable_copy"}, {"precision", "bf16"}})
                                             << QStringList{"data_path", "launch", "precision", "gemm"};
        QTest::newRow("pinned_async, tf32") << with({}, {{"data_path", "pinned_async"}, {"precision", "tf32"}})
                                            << QStringList{"data_path", "launch", "precision", "gemm"};
        QTest::newRow("per_sample_gather, fused, custom")
            << with({}, {{"data_path", "per_sample_gather"}, {"launch", "fused"}, {"gemm", "custom"}})
            << QStringList{"launch", "gemm"};
        QTest::newRow("persistent, custom")
            << with({}, {{"launch", "persistent"}, {"gemm", "custom"}}) << QStringList{"launch", "gemm"};
        QTest::newRow("twice, multi_tensor, sigmoid_bce")
            << with({}, {{"zero_grad", "twice"}, {"optimizer_kernel", "multi_tensor"}, {"loss", "sigmoid_bce"}})
            << QStringList{"launch", "gemm"};
    }
    void cpuListWithoutAnInstanceEqualsTheBackends() {
        QFETCH(ExecutionSettings, settings);
        QFETCH(QStringList, ignored);
        const std::vector<IgnoredSwitch> fromRegistry = BackendRegistry::instance().notApplicable("cpu", settings);
        const std::vector<IgnoredSwitch> fromBackend = makeCpuBackend()->notApplicable(settings);
        QVERIFY2(fromRegistry == fromBackend, qPrintable(namesOf(fromRegistry) + " vs " + namesOf(fromBackend)));
        QCOMPARE(namesOf(fromRegistry), ignored.join(", "));
        for (const auto& i : fromRegistry) {
            QVERIFY2(!i.reason.empty(), i.name.c_str());
            // The name is separate now: a reason does not start with "switch=" or "switch:".
            QVERIFY2(i.reason.rfind(i.name, 0) != 0, i.reason.c_str());
        }
    }

    void findIgnoredFindsBySwitchName() {
        const auto list = cpuIgnoredSwitches(with({}, {{"precision", "fp16"}}));
        const IgnoredSwitch* precision = findIgnored(list, "precision");
        QVERIFY(precision != nullptr);
        QCOMPARE(QString::fromStdString(precision->reason), QString("the CPU backend computes in fp32"));
        QVERIFY(findIgnored(list, "loss") == nullptr);
        QVERIFY(findIgnored({}, "launch") == nullptr);
    }

    void unknownBackendIsConfigError() {
        QVERIFY_THROWS_EXCEPTION(ConfigError, BackendRegistry::instance().notApplicable("tpu", ExecutionSettings{}));
    }

    // The CUDA backend's list needs no device: the registry answers it on a machine without one. A build
    // without the CUDA backend answers as create() does.
    void cudaListNeedsNoDevice() {
        const ExecutionSettings fused = with({}, {{"launch", "fused"}, {"gemm", "custom"}, {"zero_grad", "once"}});
#ifdef WB_WITH_CUDA
        const auto list = BackendRegistry::instance().notApplicable("cuda", fused);
        QVERIFY(list == cudaIgnoredSwitches(fused));
        QVERIFY(findIgnored(list, "zero_grad") != nullptr);
        QVERIFY(findIgnored(list, "optimizer_kernel") != nullptr);
        QVERIFY(findIgnored(list, "launch") == nullptr);  // launch=fused itself is honoured
        QVERIFY(BackendRegistry::instance().notApplicable("cuda", ExecutionSettings{}).empty());
        // launch=persistent ignores what fused ignores, with its own reasons.
        const ExecutionSettings persistent = with(fused, {{ "launch", "persistent" }});
        const auto persistentList = BackendRegistry::instance().notApplicable("cuda", persistent);
        QCOMPARE(namesOf(persistentList), QString("zero_grad, optimizer_kernel, validation"));
        const IgnoredSwitch* kernel = findIgnored(persistentList, "optimizer_kernel");
        QVERIFY(kernel != nullptr && kernel->reason.find("persistent") != std::string::npos);
        QCOMPARE(namesOf(BackendRegistry::instance().notApplicable("cuda", with(persistent,
                                                                                {{ "zero_grad",
                                                                                   "none" }}))),
                 QString("optimizer_kernel, validation"));
#else
        QVERIFY_THROWS_EXCEPTION(DeviceError, BackendRegistry::instance().notApplicable("cuda", fused));
#endif
    }
};

QTEST_GUILESS_MAIN(TestBackendRegistry)
#include "tst_backend_registry.moc"
