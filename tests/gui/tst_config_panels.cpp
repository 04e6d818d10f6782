// The model and execution panels produce the specs the user set, whether through their setters or
// by driving their widgets; the optimizer shows only its own fields; presets, "custom", refused
// combinations and switches the CPU ignores are shown as such.
#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/run/run_config.h"
#include "gui/panels/execution_panel.h"
#include "gui/panels/model_panel.h"

using namespace wb;
using namespace wb::gui;
using nlohmann::json;

namespace {

// A little script of user actions, so each data row says what the user did in words:
// "choose <combo> <item data>", "type <spin box> <text>", "toggle <check box>", "click <button>",
// "row <list> <index>". Steps are separated by ';'. Returns what went wrong, or an empty string.
// (Key events reach a spin box whether or not it is shown, so the panels need no window.)
QString drive(QWidget& panel, const QString& script) {
    for (const QString& step : script.split(';', Qt::SkipEmptyParts)) {
        const QStringList words = step.trimmed().split(' ');
        const QString verb = words.value(0), name = words.value(1), arg = words.mid(2).join(' ');
        if (verb == "choose") {
            auto* combo = panel.findChild<QComboBox*>(name);
            if (!combo || combo->findData(arg) < 0) return "no combo item " + step;
            combo->setCurrentIndex(combo->findData(arg));
        } else if (verb == "type") {
            auto* spin = panel.findChild<QAbstractSpinBox*>(name);
            if (!spin) return "no spin box " + name;
            spin->setFocus();
            spin->selectAll();
            QTest::keyClicks(spin, arg);
            QTest::keyClick(spin, Qt::Key_Return);
        } else if (verb == "toggle" || verb == "click") {
            auto* button = panel.findChild<QAbstractButton*>(name);
            if (!button) return "no button " + name;
            button->click();  // as a click does: toggles and emits clicked(), wherever the button is
        } else if (verb == "row") {
            auto* list = panel.findChild<QListWidget*>(name);
            if (!list) return "no list " + name;
            list->setCurrentRow(arg.toInt());
        } else {
            return "unknown step " + step;
        }
    }
    return {};
}

template <typename T>
QString jsonText(const T& value) {
    return QString::fromStdString(json(value).dump());
}

// `base` with the keys of `patch` (a JSON object) replaced: rows list only what differs from defaults.
QString patched(json base, const QString& patch) {
    base.merge_patch(json::parse(patch.toStdString()));
    return QString::fromStdString(base.dump());
}

// The panel asks the registry which backends can train off the GUI thread; a test starts from its answer.
bool backendsKnown(const ExecutionPanel& panel) {
    return QTest::qWaitFor([&] { return !panel.checkingBackends(); }, 60000);
}

QStandardItem* comboItem(QComboBox* combo, const QString& data) {
    return qobject_cast<QStandardItemModel*>(combo->model())->item(combo->findData(data));
}

}  // namespace

class TestConfigPanels : public QObject {
    Q_OBJECT

private slots:
    // ---- model panel -----------------------------------------------------------------------------

    void modelFromWidgets_data() {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("patch");  // over the default ModelSpec
        QTest::newRow("defaults: the founding model") << ""
                                                      << "{}";
        QTest::newRow("widths and relu") << "row hiddenLayers 0; type layerWidth 64; row hiddenLayers 1; "
                                            "type layerWidth 32; choose activation relu"
                                         << R"({"hidden":[64,32],"activation":"relu"})";
        QTest::newRow("add after the last") << "row hiddenLayers 1; click addLayer; type layerWidth 5"
                                            << R"({"hidden":[20,10,5]})";
        QTest::newRow("no hidden layer, glorot") << "click removeLayer; click removeLayer; choose init glorot"
                                                 << R"({"hidden":[],"init":"glorot"})";
        QTest::newRow("gelu") << "choose activation gelu"
                              << R"({"activation":"gelu"})";
    }

    void modelFromWidgets() {
        QFETCH(QString, script);
        QFETCH(QString, patch);
        ModelPanel panel;
        const QString problem = drive(panel, script);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(jsonText(panel.modelSpec()), patched(json(ModelSpec{}), patch));
    }

    void optimizerFromWidgets_data() {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("patch");  // over PyTorch's defaults of the type in the patch
        QTest::newRow("adam defaults") << ""
                                       << R"({"type":"adam"})";
        QTest::newRow("adam lr typed as 3e-3") << "type lr 3e-3"
                                               << R"({"type":"adam","lr":0.003})";
        QTest::newRow("sgd nesterov") << "choose optimizerType sgd; type momentum 0.9; toggle nesterov"
                                      << R"({"type":"sgd","momentum":0.9,"nesterov":true})";
        QTest::newRow("rmsprop centered") << "choose optimizerType rmsprop; toggle centered; type alpha 0.9"
                                          << R"({"type":"rmsprop","centered":true,"alpha":0.9})";
        QTest::newRow("adamw decay and beta2") << "choose optimizerType adamw; type weightDecay 0.05; type beta2 0.99"
                                               << R"({"type":"adamw","weight_decay":0.05,"beta2":0.99})";
        QTest::newRow("a new type drops the old edits") << "type lr 0.5; choose optimizerType sgd"
                                                        << R"({"type":"sgd"})";
    }

    void optimizerFromWidgets() {
        QFETCH(QString, script);
        QFETCH(QString, patch);
        ModelPanel panel;
        const QString problem = drive(panel, script);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        const auto kind = optimizerKindFromString(json::parse(patch.toStdString()).at("type").get<std::string>());
        QCOMPARE(jsonText(panel.optimizerSpec()), patched(json(OptimizerSpec::defaults(kind)), patch));
    }

    void trainFromWidgets_data() {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("patch");
        QTest::newRow("defaults: 200 epochs, batch 2048, no shuffle") << ""
                                                                      << "{}";
        QTest::newRow("all fields") << "type epochs 50; type batchSize 512; toggle shuffle; type trainSeed 7"
                                    << R"({"epochs":50,"batch_size":512,"shuffle":true,"seed":7})";
    }

    void trainFromWidgets() {
        QFETCH(QString, script);
        QFETCH(QString, patch);
        ModelPanel panel;
        const QString problem = drive(panel, script);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(jsonText(panel.trainSpec()), patched(json(TrainSpec{}), patch));
    }

    void modelSettersRoundTrip_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("optimizer");
        QTest::addColumn<QString>("train");
        QTest::newRow("founding case") << json(ModelSpec{}).dump().c_str()
                                       << json(OptimizerSpec::defaults(OptimizerKind::Adam)).dump().c_str()
                                       << json(TrainSpec{}).dump().c_str();
        QTest::newRow("wide sgd")
            << R"({"hidden":[1024,1,300],"activation":"identity","init":"glorot"})"
            << R"({"type":"sgd","lr":0.25,"beta1":0.9,"beta2":0.999,"eps":1e-08,"weight_decay":0.0001,)"
               R"("momentum":0.95,"dampening":0.0,"nesterov":true,"alpha":0.99,"centered":false})"
            << R"({"epochs":3,"batch_size":64,"shuffle":true,"seed":123456,"divergence_factor":0.0})";
        QTest::newRow("rmsprop tiny eps")
            << R"({"hidden":[],"activation":"sigmoid","init":"torch"})"
            << R"({"type":"rmsprop","lr":0.01,"beta1":0.9,"beta2":0.999,"eps":1e-10,"weight_decay":0.0,)"
               R"("momentum":0.5,"dampening":0.0,"nesterov":false,"alpha":0.9,"centered":true})"
            << R"({"epochs":100000,"batch_size":1,"shuffle":false,"seed":0,"divergence_factor":50.0})";
    }

    void modelSettersRoundTrip() {
        QFETCH(QString, model);
        QFETCH(QString, optimizer);
        QFETCH(QString, train);
        ModelPanel panel;
        QSignalSpy changed(&panel, &ModelPanel::changed);
        panel.setModelSpec(json::parse(model.toStdString()).get<ModelSpec>());
        panel.setOptimizerSpec(json::parse(optimizer.toStdString()).get<OptimizerSpec>());
        panel.setTrainSpec(json::parse(train.toStdString()).get<TrainSpec>());
        QCOMPARE(changed.count(), 3);  // one per setter, not one per field
        QCOMPARE(jsonText(panel.modelSpec()), QString::fromStdString(json::parse(model.toStdString()).dump()));
        QCOMPARE(jsonText(panel.optimizerSpec()), QString::fromStdString(json::parse(optimizer.toStdString()).dump()));
        QCOMPARE(jsonText(panel.trainSpec()), QString::fromStdString(json::parse(train.toStdString()).dump()));
    }

    void optimizerShowsOnlyItsFields_data() {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QStringList>("shown");
        QTest::addColumn<QStringList>("hidden");
        QTest::addColumn<double>("lr");
        const QStringList adam = {"lr", "beta1", "beta2", "eps", "weightDecay"};
        const QStringList notAdam = {"momentum", "dampening", "nesterov", "alpha", "centered"};
        QTest::newRow("Adam") << "adam" << adam << notAdam << 1e-3;
        QTest::newRow("AdamW") << "adamw" << adam << notAdam << 1e-3;
        QTest::newRow("SGD") << "sgd" << QStringList{"lr", "momentum", "dampening", "nesterov", "weightDecay"}
                             << QStringList{"beta1", "beta2", "eps", "alpha", "centered"} << 1e-3;
        QTest::newRow("RMSprop") << "rmsprop"
                                 << QStringList{"lr", "alpha", "eps", "momentum", "centered", "weightDecay"}
                                 << QStringList{"beta1", "beta2", "dampening", "nesterov"} << 1e-2;
    }

    void optimizerShowsOnlyItsFields() {
        QFETCH(QString, type);
        QFETCH(QStringList, shown);
        QFETCH(QStringList, hidden);
        QFETCH(double, lr);
        ModelPanel panel;
        panel.setOptimizerSpec(OptimizerSpec::defaults(OptimizerKind::Sgd));  // start from another type
        QVERIFY(drive(panel, "type lr 0.7; choose optimizerType adam; choose optimizerType " + type).isEmpty());
        for (const QString& name : shown) {
            auto* field = panel.findChild<QWidget*>(name);
            QVERIFY2(field && field->isVisibleTo(&panel), qPrintable(name));
        }
        for (const QString& name : hidden) {
            auto* field = panel.findChild<QWidget*>(name);
            QVERIFY2(field && !field->isVisibleTo(&panel), qPrintable(name));
        }
        QCOMPARE(panel.optimizerSpec().lr, lr);  // PyTorch's default, not the 0.7 typed before
        QCOMPARE(jsonText(panel.optimizerSpec()), jsonText(OptimizerSpec::defaults(panel.optimizerSpec().kind)));
    }

    void nesterovWithoutMomentumIsFlagged() {
        ModelPanel panel;
        QVERIFY(drive(panel, "choose optimizerType sgd; toggle nesterov").isEmpty());
        auto* warning = panel.findChild<QLabel*>("optimizerWarning");
        QVERIFY(warning->isVisibleTo(&panel));
        QVERIFY2(warning->text().contains("Nesterov"), qPrintable(warning->text()));
        QVERIFY(drive(panel, "type momentum 0.9").isEmpty());
        QVERIFY(!warning->isVisibleTo(&panel));
    }

    void parameterCount_data() {
        QTest::addColumn<int>("inputs");
        QTest::addColumn<QString>("hidden");
        QTest::addColumn<int>("expected");
        QTest::newRow("61-20-10-1, the founding model") << 61 << "[20,10]" << 1461;
        QTest::newRow("logistic regression") << 4 << "[]" << 5;
        QTest::newRow("57-64-32-1") << 57 << "[64,32]" << 58 * 64 + 65 * 32 + 33;
    }

    void parameterCount() {
        QFETCH(int, inputs);
        QFETCH(QString, hidden);
        QFETCH(int, expected);
        ModelPanel panel;
        ModelSpec spec;
        spec.hidden = json::parse(hidden.toStdString()).get<std::vector<int>>();
        panel.setModelSpec(spec);
        panel.setInputs(inputs);
        QCOMPARE(panel.parameterCount(), static_cast<std::size_t>(expected));
        const QString shown = panel.findChild<QLabel*>("parameterCount")->text();
        QVERIFY2(shown.startsWith(QLocale().toString(expected)), qPrintable(shown));
    }

    void parameterCountFollowsTheLayerEditor() {
        ModelPanel panel;
        panel.setInputs(61);
        QVERIFY(drive(panel, "row hiddenLayers 1; click addLayer; type layerWidth 5").isEmpty());
        QCOMPARE(panel.parameterCount(), std::size_t{62 * 20 + 21 * 10 + 11 * 5 + 6});
    }

    // ---- execution panel -------------------------------------------------------------------------

    void executionFromWidgets_data() {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("patch");  // over the default ExecutionSettings
        QTest::addColumn<QString>("preset");
        QTest::newRow("one switch by hand") << "choose data_path per_sample_gather"
                                            << R"({"data_path":"per_sample_gather"})"
                                            << "custom";
        QTest::newRow("by hand into the seed loop")
            << "choose data_path per_sample_gather; choose launch eager_sync; choose loss sigmoid_bce; "
               "choose zero_grad twice"
            << R"({"data_path":"per_sample_gather","launch":"eager_sync","loss":"sigmoid_bce","zero_grad":"twice"})"
            << "Seed PyTorch loop";
        QTest::newRow("preset Fastest")
            << "choose preset Fastest"
            << R"({"launch":"persistent","zero_grad":"none","optimizer_kernel":"multi_tensor",)"
               R"("gemm":"custom"})"
            << "Fastest";
        QTest::newRow("preset, then a change by hand")
            << "choose preset Static graph (Keras-like); choose zero_grad twice"
            << R"({"launch":"graph_step","zero_grad":"twice","optimizer_kernel":"multi_tensor"})"
            << "custom";
        QTest::newRow("fp16 is the seed answer") << "choose precision fp16"
                                                 << R"({"precision":"fp16"})"
                                                 << "Seed answer's fixes";
    }

    void executionFromWidgets() {
        QFETCH(QString, script);
        QFETCH(QString, patch);
        QFETCH(QString, preset);
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        QSignalSpy changed(&panel, &ExecutionPanel::changed);
        const QString problem = drive(panel, script);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(jsonText(panel.settings()), patched(json(ExecutionSettings{}), patch));
        QCOMPARE(panel.preset(), preset);
        QCOMPARE(panel.findChild<QComboBox*>("preset")->currentText(), preset);
        QVERIFY(panel.valid());
        QCOMPARE(changed.count(), script.count(';') + 1);
    }

    void presetsSetTheSwitches_data() {
        QTest::addColumn<QString>("name");
        for (const Preset& p : presets()) QTest::newRow(p.name.c_str()) << QString::fromStdString(p.name);
    }

    void presetsSetTheSwitches() {
        QFETCH(QString, name);
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        panel.selectPreset(name);
        QCOMPARE(jsonText(panel.settings()), jsonText(presetByName(name.toStdString()).settings));
        QCOMPARE(panel.preset(), name);
        // One switch by hand makes it custom; setting it back finds the preset again.
        auto* zeroGrad = panel.findChild<QComboBox*>("zero_grad");
        const int original = zeroGrad->currentIndex();
        zeroGrad->setCurrentIndex((original + 1) % zeroGrad->count());
        QCOMPARE(panel.preset(), ExecutionPanel::kCustom);
        zeroGrad->setCurrentIndex(original);
        QCOMPARE(panel.preset(), name);
    }

    // Each switch's row reads the switch table (core/model/execution_settings.h; its facts are
    // written once in tests/tst_switches.cpp): the label, the row's tooltip, the values and theirs.
    void eachSwitchRowReadsTheTable() {
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        for (const SwitchSpec& spec : switchSpecs()) {
            auto* combo = panel.findChild<QComboBox*>(QString::fromStdString(spec.name));
            QVERIFY2(combo, spec.name.c_str());
            QLabel* label = nullptr;
            for (auto* form : panel.findChildren<QFormLayout*>())
                if (auto* l = qobject_cast<QLabel*>(form->labelForField(combo))) label = l;
            QVERIFY2(label, spec.name.c_str());
            QCOMPARE(label->text(), QString::fromStdString(spec.label));
            QCOMPARE(label->toolTip(), QString::fromStdString(spec.help));
            QCOMPARE(combo->count(), static_cast<int>(spec.values.size()));
            for (int i = 0; i < combo->count(); ++i) {
                const SwitchValue& value = spec.values[static_cast<std::size_t>(i)];
                QCOMPARE(combo->itemText(i), QString::fromStdString(value.name));
                QVERIFY2(combo->itemData(i, Qt::ToolTipRole).toString().startsWith(QString::fromStdString(value.help)),
                         value.name.c_str());
            }
        }
    }

    void setSettingsRoundTripsAndFindsThePreset() {
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        panel.setSettings(presetByName("Seed PyTorch loop").settings);
        QCOMPARE(panel.preset(), QString("Seed PyTorch loop"));
        ExecutionSettings custom = presetByName("Seed PyTorch loop").settings;
        custom.zeroGrad = ZeroGrad::None;
        panel.setSettings(custom);
        QCOMPARE(jsonText(panel.settings()), jsonText(custom));
        QCOMPARE(panel.preset(), ExecutionPanel::kCustom);
    }

    void refusedValuesAreDisabledWithTheReason_data() {
        QTest::addColumn<QString>("setup");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("fused needs the custom gemm") << ""
                                                     << "launch"
                                                     << "fused"
                                                     << "cuBLAS";
        QTest::newRow("persistent needs the custom gemm") << ""
                                                          << "launch"
                                                          << "persistent"
                                                          << "gemm=custom";
        QTest::newRow("custom gemm has no tf32") << "choose gemm custom"
                                                 << "precision"
                                                 << "tf32"
                                                 << "TF32";
        QTest::newRow("sigmoid_bce refuses fp16") << "choose loss sigmoid_bce"
                                                  << "precision"
                                                  << "fp16"
                                                  << "bce_with_logits";
    }

    void refusedValuesAreDisabledWithTheReason() {
        QFETCH(QString, setup);
        QFETCH(QString, name);
        QFETCH(QString, value);
        QFETCH(QString, mentions);
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        QVERIFY(drive(panel, setup).isEmpty());
        QStandardItem* item = comboItem(panel.findChild<QComboBox*>(name), value);
        QVERIFY(!item->isEnabled());
        QVERIFY2(item->toolTip().contains(mentions), qPrintable(item->toolTip()));
        QVERIFY(panel.valid());
        // Set anyway (a preset file, an old configuration): the panel says it cannot run, and why.
        ExecutionSettings refused = panel.settings();
        setSwitch(refused, name.toStdString(), value.toStdString());
        panel.setSettings(refused);
        QVERIFY(!panel.valid());
        QVERIFY2(panel.invalidReason().contains(mentions), qPrintable(panel.invalidReason()));
        auto* warning = panel.findChild<QLabel*>("refusalLabel");
        QVERIFY(warning->isVisibleTo(&panel));
        QVERIFY(warning->text().contains(mentions));
    }

    void switchesTheCpuIgnoresAreGreyed_data() {
        QTest::addColumn<QString>("settings");  // a patch over the defaults
        QTest::addColumn<QStringList>("greyed");
        QTest::addColumn<QStringList>("applying");
        QTest::newRow("defaults") << "{}" << QStringList{"launch", "gemm"}
                                  << QStringList{"data_path", "loss", "zero_grad", "optimizer_kernel", "precision"};
        QTest::newRow("a host-to-device copy and fp16")
            << R"({"data_path":"pinned_async","precision":"fp16"})"
            << QStringList{"launch", "gemm", "data_path", "precision"} << QStringList{"loss", "zero_grad"};
    }

    void switchesTheCpuIgnoresAreGreyed() {
        QFETCH(QString, settings);
        QFETCH(QStringList, greyed);
        QFETCH(QStringList, applying);
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        QCOMPARE(panel.backend(), QString("cpu"));
        panel.setSettings(
            json::parse(patched(json(ExecutionSettings{}), settings).toStdString()).get<ExecutionSettings>());
        for (const QString& name : greyed) {
            auto* combo = panel.findChild<QComboBox*>(name);
            QVERIFY2(combo->property("notApplicable").toBool(), qPrintable(name));
            QVERIFY2(combo->toolTip().startsWith("Not applicable on the CPU: "), qPrintable(combo->toolTip()));
            QVERIFY(combo->isEnabled());  // still editable: the configuration may be meant for a GPU
        }
        for (const QString& name : applying)
            QVERIFY2(!panel.findChild<QComboBox*>(name)->property("notApplicable").toBool(), qPrintable(name));
        // Per value: on the CPU a pinned copy is no different from resident data, gathering is.
        auto* dataPath = panel.findChild<QComboBox*>("data_path");
        QVERIFY(comboItem(dataPath, "pinned_async")->toolTip().contains("Not applicable on the CPU"));
        QVERIFY(!comboItem(dataPath, "per_sample_gather")->toolTip().contains("Not applicable"));
    }

    void backendsComeFromTheRegistry() {
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        auto* combo = panel.findChild<QComboBox*>("backend");
        QVERIFY(combo);
        QStandardItem* cpu = comboItem(combo, "cpu");
        QVERIFY(cpu->isEnabled());
        QVERIFY2(cpu->text().startsWith(QString("CPU — ")), qPrintable(cpu->text()));
        QStandardItem* cuda = comboItem(combo, "cuda");
        QVERIFY2(cuda, "a CUDA entry is always listed, available or with the reason why not");
        if (!cuda->isEnabled()) QVERIFY(!cuda->toolTip().isEmpty());
        bool registryHasCuda = false;
        for (const BackendInfo& info : BackendRegistry::instance().list()) registryHasCuda |= info.name == "cuda";
        if (!registryHasCuda) QVERIFY(cuda->toolTip().contains("no CUDA backend"));
        panel.setBackend("cuda");
        if (!cuda->isEnabled()) QCOMPARE(panel.backend(), QString("cpu"));  // an unavailable one is not taken
    }
};

QTEST_MAIN(TestConfigPanels)
#include "tst_config_panels.moc"
