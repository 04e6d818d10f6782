// The PyTorch group of the execution panel: shown only while the torch backend is selected, its
// device and knobs reach the RunConfig the window queues (and come back with the last configuration),
// a prefetch factor only with DataLoader workers, and the device chosen decides what PyTorch ignores.
// "torch" here is a stand-in registered by the test, so it is selectable without PyTorch installed.
#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/run/backend.h"
#include "gui/panels/execution_panel.h"
#include "gui/window/main_window.h"

using namespace wb;
using namespace wb::gui;
using nlohmann::json;

namespace {

BackendInfo standInProbe() {
    return {"torch", true, "a stand-in for PyTorch", "", {}};
}

std::unique_ptr<Backend> noFactory(int /*device*/) {
    return nullptr;  // never trains: the panel only shows what it offers
}

std::vector<IgnoredSwitch> noIgnores(const ExecutionSettings&) {
    return {};  // the panel asks PyTorch's own rules, with its device, instead
}

// The panel asks the registry which backends can train off the GUI thread; a test starts from its answer.
bool backendsKnown(const ExecutionPanel& panel) {
    return QTest::qWaitFor([&] { return !panel.checkingBackends(); }, 60000);
}

// "choose <combo> <item data>", "type <spin box> <text>", "toggle <check box>"; steps separated by ';'.
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
            if (!spin->isEnabled()) return "disabled: " + name;
            spin->setFocus();
            spin->selectAll();
            QTest::keyClicks(spin, arg);
            QTest::keyClick(spin, Qt::Key_Return);
        } else if (verb == "toggle") {
            auto* box = panel.findChild<QCheckBox*>(name);
            if (!box) return "no check box " + name;
            box->click();
        } else {
            return "unknown step " + step;
        }
    }
    return {};
}

// The options as JSON without the interpreter (the machine's setting, tested on its own).
QString optionsText(FrameworkOptions o) {
    o.python.clear();
    return QString::fromStdString(json(o).dump());
}

QString patched(const QString& patch) {
    json base = FrameworkOptions{};
    base.merge_patch(json::parse(patch.toStdString()));
    return optionsText(base.get<FrameworkOptions>());
}

QStandardItem* comboItem(QComboBox* combo, const QString& data) {
    return qobject_cast<QStandardItemModel*>(combo->model())->item(combo->findData(data));
}

}  // namespace

class TestTorchOptions : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("MLP Workbench tests");
        QCoreApplication::setApplicationName("tst_torch_options");
        QSettings().clear();
        // The interpreter is asked what its PyTorch offers: one that does not exist answers at once.
        QSettings().setValue(ExecutionPanel::kPythonSetting, dir_.filePath("no-such-python"));
        BackendRegistry::instance().add("torch", standInProbe, noFactory, noIgnores);
    }

    void shownOnlyForTorch_data() {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<bool>("shown");
        QTest::newRow("cpu") << "cpu" << false;
        QTest::newRow("torch") << "torch" << true;
    }

    void shownOnlyForTorch() {
        QFETCH(QString, backend);
        QFETCH(bool, shown);
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        auto* group = panel.findChild<QWidget*>("torchOptions");
        QVERIFY(group);
        panel.setBackend(backend);
        QCOMPARE(panel.backend(), backend);
        QCOMPARE(group->isVisibleTo(&panel), shown);
        // Back and forth: it follows the selection, not the first one.
        panel.setBackend(shown ? "cpu" : "torch");
        QCOMPARE(group->isVisibleTo(&panel), !shown);
        // The interpreter row is there for every backend: it is how torch becomes selectable.
        QVERIFY(panel.findChild<QWidget*>("python")->isVisibleTo(&panel));
    }

    void optionsFromWidgets_data() {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("patch");  // over the default FrameworkOptions
        QTest::newRow("defaults") << ""
                                  << "{}";
        QTest::newRow("device cpu") << "choose frameworkDevice cpu"
                                    << R"({"device":"cpu"})";
        QTest::newRow("workers and prefetch") << "type numWorkers 4; type prefetchFactor 8"
                                              << R"({"torch":{"num_workers":4,"prefetch_factor":8}})";
        QTest::newRow("pinned, scripted, on cuda")
            << "toggle pinMemory; toggle scriptModel; choose frameworkDevice cuda"
            << R"({"device":"cuda","torch":{"pin_memory":true,"script_model":true}})";
        QTest::newRow("no workers: no prefetch") << "type numWorkers 2; type prefetchFactor 3; type numWorkers 0"
                                                 << R"({"torch":{"num_workers":0,"prefetch_factor":0}})";
    }

    // What the user sets in the group is what the window's next run carries.
    void optionsFromWidgets() {
        QFETCH(QString, script);
        QFETCH(QString, patch);
        MainWindow window;
        auto* panel = window.findChild<ExecutionPanel*>();
        QVERIFY(backendsKnown(*panel));
        panel->setBackend("torch");
        const QString problem = drive(*panel, script);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(optionsText(panel->frameworkOptions()), patched(patch));
        const RunConfig config = window.currentConfig();
        QCOMPARE(config.backend, std::string("torch"));
        QCOMPARE(optionsText(config.framework), patched(patch));
        config.framework.validate();  // never a combination PyTorch refuses
    }

    void settersRoundTrip_data() {
        QTest::addColumn<QString>("options");
        QTest::newRow("defaults") << "{}";
        QTest::newRow("all knobs")
            << R"({"device":"cuda","torch":{"num_workers":64,"prefetch_factor":2,"pin_memory":true,"script_model":true}})";
        QTest::newRow("cpu, workers, PyTorch's prefetch") << R"({"device":"cpu","torch":{"num_workers":1}})";
    }

    void settersRoundTrip() {
        QFETCH(QString, options);
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        QSignalSpy changed(&panel, &ExecutionPanel::changed);
        const FrameworkOptions wanted = json::parse(patched(options).toStdString()).get<FrameworkOptions>();
        panel.setFrameworkOptions(wanted);
        QCOMPARE(changed.count(), 1);  // one for the setter, not one per field
        QCOMPARE(optionsText(panel.frameworkOptions()), optionsText(wanted));
        QCOMPARE(panel.findChild<QSpinBox*>("numWorkers")->value(), wanted.torch.numWorkers);
        QCOMPARE(panel.findChild<QCheckBox*>("pinMemory")->isChecked(), wanted.torch.pinMemory);
    }

    // The window keeps its last configuration: a torch run's knobs come back in the next window.
    void lastConfigurationKeepsTheKnobs() {
        FrameworkOptions wanted;
        wanted.device = "cpu";
        wanted.torch = {3, 5, true, true};
        {
            MainWindow first;
            auto* panel = first.findChild<ExecutionPanel*>();
            QVERIFY(backendsKnown(*panel));
            panel->setBackend("torch");
            panel->setFrameworkOptions(wanted);
            first.close();  // saves the settings
        }
        MainWindow second;
        auto* panel = second.findChild<ExecutionPanel*>();
        QVERIFY(backendsKnown(*panel));
        QCOMPARE(panel->backend(), QString("torch"));  // asked for before the check answered, taken after
        QCOMPARE(optionsText(second.currentConfig().framework), optionsText(wanted));
    }

    void prefetchNeedsWorkers() {
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        panel.setBackend("torch");
        auto* workers = panel.findChild<QSpinBox*>("numWorkers");
        auto* prefetch = panel.findChild<QSpinBox*>("prefetchFactor");
        QVERIFY(!prefetch->isEnabled());
        QCOMPARE(prefetch->text(), QString("default"));
        workers->setValue(2);
        QVERIFY(prefetch->isEnabled());
        prefetch->setValue(6);
        QCOMPARE(panel.frameworkOptions().torch.prefetchFactor, 6);
        workers->setValue(0);
        QVERIFY(!prefetch->isEnabled());
        QCOMPARE(panel.frameworkOptions().torch.prefetchFactor, 0);
    }

    void dataLoaderKnobsFollowTheDataPath_data() {
        QTest::addColumn<QString>("dataPath");
        QTest::addColumn<bool>("applies");
        QTest::newRow("per_sample_gather: a DataLoader") << "per_sample_gather" << true;
        QTest::newRow("device_resident: slices") << "device_resident" << false;
        QTest::newRow("pinned_async: slices") << "pinned_async" << false;
    }

    void dataLoaderKnobsFollowTheDataPath() {
        QFETCH(QString, dataPath);
        QFETCH(bool, applies);
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        panel.setBackend("torch");
        ExecutionSettings s;
        setSwitch(s, "data_path", dataPath.toStdString());
        panel.setSettings(s);
        QCOMPARE(panel.findChild<QLabel*>("loaderNote")->isVisibleTo(&panel), !applies);
        QVERIFY(panel.findChild<QSpinBox*>("numWorkers")->isEnabled());  // greyed, still editable
    }

    // What PyTorch ignores depends on the device chosen here: fp16 autocast is a CUDA feature.
    void theDeviceDecidesWhatPyTorchIgnores_data() {
        QTest::addColumn<QString>("device");
        QTest::addColumn<bool>("precisionIgnored");
        QTest::newRow("cpu") << "cpu" << true;
        QTest::newRow("cuda") << "cuda" << false;
        QTest::newRow("auto, on an interpreter without CUDA") << "auto" << true;
    }

    void theDeviceDecidesWhatPyTorchIgnores() {
        QFETCH(QString, device);
        QFETCH(bool, precisionIgnored);
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        panel.setBackend("torch");
        panel.setSettings(presetByName("Seed answer's fixes").settings);  // fp16
        FrameworkOptions o;
        o.device = device.toStdString();
        panel.setFrameworkOptions(o);
        auto* precision = panel.findChild<QComboBox*>("precision");
        QCOMPARE(precision->property("notApplicable").toBool(), precisionIgnored);
        if (precisionIgnored)
            QVERIFY2(precision->toolTip().startsWith("Not applicable in PyTorch: "), qPrintable(precision->toolTip()));
        // Per value too: bf16 autocast runs on a CPU, fp16 does not.
        QCOMPARE(comboItem(precision, "fp16")->toolTip().contains("Not applicable in PyTorch"), precisionIgnored);
        QVERIFY(!comboItem(precision, "bf16")->toolTip().contains("Not applicable"));
    }

    // A backend asked for while the check runs is selected once the answer says it can train.
    void aBackendAskedForDuringTheCheckIsTakenAfter() {
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        panel.setPython(dir_.filePath("another-missing-python"));
        QVERIFY(panel.checkingBackends());
        panel.setBackend("torch");
        QVERIFY(!panel.valid());  // not yet: it is being asked
        QVERIFY2(panel.invalidReason().contains("asking"), qPrintable(panel.invalidReason()));
        QVERIFY(backendsKnown(panel));
        QCOMPARE(panel.backend(), QString("torch"));
        QVERIFY2(panel.valid(), qPrintable(panel.invalidReason()));
    }
};

QTEST_MAIN(TestTorchOptions)
#include "tst_torch_options.moc"
