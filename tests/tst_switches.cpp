// The switch table (core/model/execution_settings.h) against the facts written once here, and the
// front ends that read it: a configuration's JSON and command line, the switch names a setting takes,
// the ablation's fix named after each switch, and `mlpwb train --help`. (The execution panel's rows
// are checked against the same table in tests/gui/tst_config_panels.cpp.)
#include <QProcess>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/measure/ablation_catalogue.h"
#include "core/model/execution_settings.h"
#include "core/platform/errors.h"
#include "core/run/run_config.h"
#include "core/run/train_command_line.h"

using namespace wb;

namespace {
struct Expected {
    const char* name;
    const char* label;
    const char* values;  // in the enum's order
    const char* fix;     // the value the ablation's fix of the same name sets; "" for none
};
// The facts, once.
const Expected kSwitches[] = {
    {"data_path", "Data path", "per_sample_gather pageable_copy pinned_async device_resident", "device_resident"},
    {"launch", "Launch", "eager_sync eager graph_step fused persistent", "graph_step"},
    {"loss", "Loss", "sigmoid_bce bce_with_logits", "bce_with_logits"},
    {"zero_grad", "zero_grad", "twice once none", "none"},
    {"optimizer_kernel", "Optimizer kernel", "per_tensor multi_tensor", "multi_tensor"},
    {"precision", "Precision", "fp32 tf32 bf16 fp16", "fp16"},
    {"gemm", "Matrix products", "cublas custom", ""},
};

std::vector<std::string> words(const char* text) {
    std::vector<std::string> out;
    for (const QString& w : QString(text).split(' ', Qt::SkipEmptyParts)) out.push_back(w.toStdString());
    return out;
}
}  // namespace

class TestSwitches : public QObject {
    Q_OBJECT

private slots:
    void theTableHoldsEachSwitchOnce() {
        QCOMPARE(switchSpecs().size(), std::size(kSwitches));
        for (std::size_t i = 0; i < switchSpecs().size(); ++i) {
            const SwitchSpec& spec = switchSpecs()[i];
            QCOMPARE(spec.name, std::string(kSwitches[i].name));
            QCOMPARE(spec.label, std::string(kSwitches[i].label));
            QCOMPARE(spec.valueNames(), words(kSwitches[i].values));
            QCOMPARE(spec.fixValue, std::string(kSwitches[i].fix));
            QCOMPARE(spec.fixHelp.empty(), spec.fixValue.empty());
            QVERIFY2(!spec.help.empty(), spec.name.c_str());
            for (const SwitchValue& v : spec.values) QVERIFY2(!v.help.empty(), (spec.name + "=" + v.name).c_str());
            QCOMPARE(&switchSpec(spec.name), &spec);
        }
        QCOMPARE(switchSpec("data_path").option(), std::string("--data-path"));
        QCOMPARE(switchSpec("optimizer_kernel").option(), std::string("--optimizer-kernel"));
        QVERIFY(!switchSpec("zero_grad").findValue("sometimes"));
    }

    void anUnknownSwitchIsRefusedWithTheList() {
        try {
            switchSpec("turbo");
            QFAIL("no ConfigError");
        } catch (const ConfigError& e) {
            QVERIFY2(
                QString(e.what()).contains("data_path, launch, loss, zero_grad, optimizer_kernel, precision, gemm"),
                e.what());
        }
    }

    // Every value of every switch, set and read back through the table, JSON and the settings' names.
    void everyValueRoundTrips() {
        for (const SwitchSpec& spec : switchSpecs()) {
            for (const SwitchValue& v : spec.values) {
                ExecutionSettings s;
                setSwitch(s, spec.name, v.name);
                QCOMPARE(switchValue(s, spec.name), v.name);
                const nlohmann::json j = s;
                QCOMPARE(j.at(spec.name).get<std::string>(), v.name);
                QCOMPARE(j.get<ExecutionSettings>(), s);
            }
        }
        const nlohmann::json j = ExecutionSettings{};
        QCOMPARE(j.size(), std::size(kSwitches));
        const auto described = describeSwitches(ExecutionSettings{});
        QCOMPARE(described.size(), std::size(kSwitches));
        for (std::size_t i = 0; i < described.size(); ++i) {
            QCOMPARE(described[i].name, std::string(kSwitches[i].name));
            QCOMPARE(described[i].values, words(kSwitches[i].values));
        }
    }

    // The ablation's fix named after a switch sets it to the table's value and says the table's
    // sentence; the default order starts with them, in the table's order.
    void eachSwitchFixComesFromTheTable() {
        std::vector<std::string> expectedOrder;
        for (const Expected& e : kSwitches) {
            if (!*e.fix) {
                QVERIFY_THROWS_EXCEPTION(ConfigError, ablationFixByName(e.name));
                continue;
            }
            const AblationFix fix = ablationFixByName(e.name);
            QCOMPARE(fix.sets.size(), std::size_t{1});
            QCOMPARE(fix.sets[0].first, std::string(e.name));
            QCOMPARE(fix.sets[0].second, std::string(e.fix));
            QCOMPARE(fix.description, switchSpec(e.name).fixHelp);
            expectedOrder.push_back(e.name);
        }
        const auto order = defaultFixOrder();
        QVERIFY(order.size() > expectedOrder.size());
        QCOMPARE(std::vector<std::string>(order.begin(), order.begin() + static_cast<long>(expectedOrder.size())),
                 expectedOrder);
    }

    // The command line that repeats a run names each switch by its option and value.
    void theCommandLineNamesEverySwitch() {
        RunConfig c;
        c.execution = presetByName("Seed PyTorch loop").settings;
        const std::vector<std::string> line = trainCommandLine(c);
        for (const SwitchSpec& spec : switchSpecs()) {
            const std::string arg = spec.option() + "=" + spec.get(c.execution);
            QVERIFY2(std::find(line.begin(), line.end(), arg) != line.end(), arg.c_str());
        }
    }

    // `mlpwb train --help` offers each switch's option with its values and what it is about.
    void theHelpListsEverySwitch() {
        QProcess p;
        p.start(QStringLiteral(WB_MLPWB_PATH), {"train", "--help"});
        QVERIFY(p.waitForFinished(30000));
        const QString help = QString::fromUtf8(p.readAllStandardOutput()).simplified();
        for (const SwitchSpec& spec : switchSpecs()) {
            QVERIFY2(help.contains(QString::fromStdString(spec.option())), spec.name.c_str());
            QVERIFY2(help.contains(QString::fromStdString(spec.valueNames()[0])), spec.name.c_str());
            const QString start = QString::fromStdString(spec.help).left(30).simplified();
            QVERIFY2(help.contains(start), qPrintable(start));
        }
    }
};

QTEST_GUILESS_MAIN(TestSwitches)
#include "tst_switches.moc"
