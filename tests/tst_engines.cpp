// The engine table (core/run/engines.h) against the facts written once here, and the front ends that
// read it: a run configuration and an answer plan take exactly these names and refuse another with
// the list; the answer asks them in this order and says what installs each one that is missing;
// the conclusion calls each by its name in prose; a framework is told apart from ours.
#include <QtTest>

#include "core/measure/answer.h"
#include "core/platform/errors.h"
#include "core/run/engines.h"
#include "core/run/run_config.h"

using namespace wb;

namespace {
struct Expected {
    const char* name;
    const char* label;
    const char* prose;
    bool framework;
};
// The facts, once: what a user sees in menus (label) and in sentences (prose).
const Expected kEngines[] = {
    {"cpu", "CPU", "our CPU backend", false},
    {"cuda", "CUDA", "our CUDA backend", false},
    {"torch", "PyTorch", "PyTorch", true},
    {"keras", "Keras", "Keras", true},
    {"jax", "JAX", "JAX", true},
};

QString configErrorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const ConfigError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}
}  // namespace

class TestEngines : public QObject {
    Q_OBJECT

private slots:
    void theTableHoldsEachEngineOnce() {
        QCOMPARE(engines().size(), std::size(kEngines));
        for (std::size_t i = 0; i < engines().size(); ++i) {
            const EngineFacts& e = engines()[i];
            QCOMPARE(e.name, std::string(kEngines[i].name));
            QCOMPARE(e.label, std::string(kEngines[i].label));
            QCOMPARE(e.prose, std::string(kEngines[i].prose));
            QCOMPARE(e.framework, kEngines[i].framework);
            QCOMPARE(isFrameworkBackend(e.name), kEngines[i].framework);
            QCOMPARE(findEngine(e.name), &e);
        }
        QVERIFY(!findEngine("pytorch"));  // a peer's name, not an engine
        QCOMPARE(engineLabel("pytorch"), std::string("pytorch"));
        QCOMPARE(engineNameList(), std::string("cpu, cuda, torch, keras, jax"));
    }

    void aRunAndAnAnswerTakeTheseNamesAndNoOther() {
        for (const Expected& e : kEngines) {
            RunConfig c;
            c.backend = e.name;
            QVERIFY2(configErrorOf([&] { c.validate(); }).isEmpty(), e.name);
            AnswerPlan plan;
            plan.engines = {e.name};
            QVERIFY2(configErrorOf([&] { plan.validate(); }).isEmpty(), e.name);
        }
        RunConfig c;
        c.backend = "tensorflow";
        QVERIFY(configErrorOf([&] { c.validate(); }).contains("(valid: cpu, cuda, torch, keras, jax)"));
        AnswerPlan plan;
        plan.engines = {"tensorflow"};
        QVERIFY(configErrorOf([&] { plan.validate(); }).contains("(cpu, cuda, torch, keras, jax)"));
    }

    // Asked with no engine named: every engine, in the table's order, each missing one with what
    // installs it (the CUDA one: the package when that is what is missing, else the device it needs).
    void theAnswerAsksEveryEngineAndSaysWhatInstallsIt() {
        const std::vector<AnswerEngine> asked = answerEngines(AnswerPlan{}, {});
        QCOMPARE(asked.size(), std::size(kEngines));
        for (std::size_t i = 0; i < asked.size(); ++i) {
            QCOMPARE(asked[i].engine, std::string(kEngines[i].name));
            QVERIFY(!asked[i].available);
        }
        QCOMPARE(installHint("cpu", "anything"), std::string());
        QVERIFY(installHint("torch", "no module named torch").find("pip install torch") != std::string::npos);
        QCOMPARE(installHint("cuda", "the plugin is not installed"),
                 std::string("sudo apt-get install mlp-workbench-cuda"));
        QVERIFY(installHint("cuda", "no CUDA device").find("NVIDIA GPU") != std::string::npos);
    }

    // The conclusion names an engine that could not run by its prose name, with its install hint.
    void theConclusionCallsEachEngineByItsProseName() {
        for (const Expected& e : kEngines) {
            Answer answer;
            AnswerPlan plan;
            plan.engines = {e.name};
            answer.engines = answerEngines(plan, {});
            answer.status = AnswerStatus::Completed;
            QString text;
            for (const auto& line : answer.conclusion()) text += QString::fromStdString(line) + "\n";
            QVERIFY2(text.contains(e.prose), qPrintable(QString(e.name) + ": " + text));
        }
    }
};

QTEST_GUILESS_MAIN(TestEngines)
#include "tst_engines.moc"
