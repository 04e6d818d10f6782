// The execution switches: presets, refusals with reasons, names, JSON round trips.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/model/execution_settings.h"
#include "core/platform/errors.h"
#include "tests/test_support.h"

using namespace wb;

namespace {
// The Fastest preset on the persistent path: the one accepted data path, gemm and precision.
ExecutionSettings persistentSettings() {
    ExecutionSettings s = presetByName("Fastest").settings;
    setSwitch(s, "launch", "persistent");
    return s;
}
}  // namespace

class TestExecutionSettings : public QObject {
    Q_OBJECT

private slots:
    void presetsAreValidAndRoundTrip() {
        QVERIFY(presets().size() >= 4);
        for (const auto& p : presets()) {
            QVERIFY2(!p.settings.refusal(), qPrintable(QString::fromStdString(p.name)));
            const nlohmann::json j = p.settings;
            QVERIFY(j.get<ExecutionSettings>() == p.settings);
            QCOMPARE(QString::fromStdString(matchingPreset(p.settings, p.backend).value_or("")),
                     QString::fromStdString(p.name));
        }
        // The founding Keras fit's switches are also PyTorch's loop after four fixes: a torch run with
        // them is no Keras fit.
        const ExecutionSettings& fit = presetByName("Seed Keras fit").settings;
        QCOMPARE(matchingPreset(fit, "keras").value_or(""), std::string("Seed Keras fit"));
        QVERIFY(!matchingPreset(fit, "torch"));
        QCOMPARE(matchingPreset(fit).value_or(""), std::string("Seed Keras fit"));  // no engine named
    }

    void seedPresetIsTheFoundingLoop() {
        const ExecutionSettings s = presetByName("seed pytorch loop").settings;  // case-insensitive
        WB_COMPARE_NAME(s.dataPath, "per_sample_gather");
        WB_COMPARE_NAME(s.launch, "eager_sync");
        WB_COMPARE_NAME(s.loss, "sigmoid_bce");
        WB_COMPARE_NAME(s.zeroGrad, "twice");
        WB_COMPARE_NAME(s.optimizerKernel, "per_tensor");
        WB_COMPARE_NAME(s.precision, "fp32");
    }

    void changedSwitchIsCustom() {
        ExecutionSettings s = presetByName("Fastest").settings;
        setSwitch(s, "zero_grad", "twice");
        QVERIFY(!matchingPreset(s));
    }

    // Each row: a switch set on top of a base (gemm, loss), and a word the reason must contain.
    void refusals_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("baseGemm");
        QTest::addColumn<QString>("baseLoss");
        QTest::addColumn<QString>("reasonMentions");
        QTest::newRow("fused with cublas") << "launch"
                                           << "fused"
                                           << "cublas"
                                           << "bce_with_logits"
                                           << "cuBLAS";
        QTest::newRow("tf32 with custom gemm") << "precision"
                                               << "tf32"
                                               << "custom"
                                               << "bce_with_logits"
                                               << "TF32";
        QTest::newRow("fp16 with sigmoid_bce") << "precision"
                                               << "fp16"
                                               << "cublas"
                                               << "sigmoid_bce"
                                               << "bce_with_logits";
        QTest::newRow("bf16 with custom gemm") << "precision"
                                               << "bf16"
                                               << "custom"
                                               << "bce_with_logits"
                                               << "gemm=cublas";
        QTest::newRow("fp16 with custom gemm") << "precision"
                                               << "fp16"
                                               << "custom"
                                               << "bce_with_logits"
                                               << "fp32";
    }

    void refusals() {
        QFETCH(QString, name);
        QFETCH(QString, value);
        QFETCH(QString, baseGemm);
        QFETCH(QString, baseLoss);
        QFETCH(QString, reasonMentions);
        ExecutionSettings s;
        setSwitch(s, "gemm", baseGemm.toStdString());
        setSwitch(s, "loss", baseLoss.toStdString());
        QVERIFY(!s.refusal());  // the base alone is fine: the refusal comes from the switch below
        setSwitch(s, name.toStdString(), value.toStdString());
        const auto why = s.refusal();
        QVERIFY(why.has_value());
        QVERIFY2(QString::fromStdString(*why).contains(reasonMentions), why->c_str());
        QVERIFY_THROWS_EXCEPTION(ConfigError, s.validate());
    }

    // The fused path (gemm=custom) in mixed precision is refused: its kernel computes in fp32.
    void fusedRefusesMixedPrecision() {
        ExecutionSettings s = presetByName("Fastest").settings;
        QVERIFY(!s.refusal());
        for (const char* p : {"fp16", "bf16"}) {
            setSwitch(s, "precision", p);
            QVERIFY(s.refusal().has_value());
        }
    }

    // launch=persistent: one kernel per epoch over resident rows, with its own fp32
    // products. Each row changes one switch of an accepted persistent setting.
    void persistentRefusals_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("reasonMentions");
        QTest::newRow("cublas") << "gemm"
                                << "cublas"
                                << "choose gemm=custom";
        for (const char* path : {"per_sample_gather", "pageable_copy", "pinned_async"})
            QTest::newRow(path) << "data_path" << path << "choose data_path=device_resident";
        for (const char* precision : {"tf32", "bf16", "fp16"})
            QTest::newRow(precision) << "precision" << precision << "choose precision=fp32";
    }

    void persistentRefusals() {
        QFETCH(QString, name);
        QFETCH(QString, value);
        QFETCH(QString, reasonMentions);
        ExecutionSettings s = persistentSettings();
        QVERIFY(!s.refusal());  // the base alone is fine: the refusal comes from the switch below
        setSwitch(s, name.toStdString(), value.toStdString());
        const auto why = s.refusal();
        QVERIFY(why.has_value());
        const QString reason = QString::fromStdString(*why);
        QVERIFY2(reason.startsWith("launch=persistent") && reason.contains(reasonMentions), why->c_str());
        QVERIFY_THROWS_EXCEPTION(ConfigError, s.validate());
    }

    // The switches the persistent kernel does not depend on are all accepted, and every such setting
    // round-trips through its JSON as "persistent".
    void persistentRoundTrips() {
        for (const char* loss : {"sigmoid_bce", "bce_with_logits"})
            for (const char* zero : {"twice", "once", "none"})
                for (const char* kernel : {"per_tensor", "multi_tensor"}) {
                    ExecutionSettings s = persistentSettings();
                    setSwitch(s, "loss", loss);
                    setSwitch(s, "zero_grad", zero);
                    setSwitch(s, "optimizer_kernel", kernel);
                    QVERIFY2(!s.refusal(), s.refusal().value_or("").c_str());
                    const nlohmann::json j = s;
                    QCOMPARE(QString::fromStdString(j.at("launch").get<std::string>()), QString("persistent"));
                    QVERIFY(j.get<ExecutionSettings>() == s);
                }
        WB_COMPARE_NAME(persistentSettings().launch, "persistent");
    }

    // Verified on a device, launch=persistent is the fastest preset's path (fused stays a switch value).
    void fastestRunsThePersistentPath() {
        WB_COMPARE_NAME(presetByName("Fastest").settings.launch, "persistent");
        QCOMPARE(matchingPreset(persistentSettings()).value_or(""), std::string("Fastest"));
    }

    void unknownNamesAreRefused() {
        ExecutionSettings s;
        QVERIFY_THROWS_EXCEPTION(ConfigError, setSwitch(s, "launch", "warp_speed"));
        QVERIFY_THROWS_EXCEPTION(ConfigError, setSwitch(s, "turbo", "on"));
        QVERIFY_THROWS_EXCEPTION(ConfigError, presetByName("nope"));
        try {
            setSwitch(s, "launch", "warp_speed");
        } catch (const ConfigError& e) {
            QVERIFY(QString(e.what()).contains("graph_step"));  // lists the valid values
        }
    }
};

QTEST_GUILESS_MAIN(TestExecutionSettings)
#include "tst_execution_settings.moc"
