// The per-framework table: each framework's loop on the device its facts and options say, its own
// ignored switches and its own generator; `mlpwb export` picks the generator by the run's backend.
#include <QtTest>

#include "core/platform/errors.h"
#include "frameworks/framework_backend.h"
#include "frameworks/framework_loop.h"

using namespace wb;

namespace {
FrameworkFacts facts(const std::string& framework, bool available, bool cuda) {
    FrameworkFacts f;
    f.framework = framework;
    f.available = available;
    f.cuda = cuda;
    f.version = "9.9.9";
    return f;
}

FrameworkOptions onDevice(const std::string& device) {
    FrameworkOptions o;
    o.device = device;
    return o;
}
}  // namespace

class FrameworkLoopTest : public QObject {
    Q_OBJECT
private slots:
    void deviceFromFactsAndOptions_data() {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<bool>("available");
        QTest::addColumn<bool>("cuda");
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("device");
        for (const wb::EngineFacts& engine : wb::engines()) {
            if (!engine.framework) continue;
            const char* fw = engine.name.c_str();
            QTest::addRow("%s auto, a GPU seen", fw) << fw << true << true << "auto"
                                                     << "cuda";
            QTest::addRow("%s auto, no GPU", fw) << fw << true << false << "auto"
                                                 << "cpu";
            QTest::addRow("%s cpu asked", fw) << fw << true << true << "cpu"
                                              << "cpu";
            QTest::addRow("%s unavailable, auto", fw) << fw << false << true << "auto"
                                                      << "cpu";
            QTest::addRow("%s unavailable, cuda asked", fw) << fw << false << false << "cuda"
                                                            << "cuda";
        }
    }
    void deviceFromFactsAndOptions() {
        QFETCH(QString, framework);
        QFETCH(bool, available);
        QFETCH(bool, cuda);
        QFETCH(QString, option);
        QFETCH(QString, device);
        const std::string name = framework.toStdString();
        const FrameworkLoop loop = frameworkLoop(name, facts(name, available, cuda), onDevice(option.toStdString()));
        QCOMPARE(QString::fromStdString(loop.device), device);
        RunConfig c;
        c.backend = name;
        QVERIFY(QString::fromStdString(loop.script(c)).contains("FRAMEWORK = \"" + framework + "\""));
    }

    // zero_grad means nothing to Keras and JAX (no gradient buffers); PyTorch honours it.
    void eachFrameworkHasItsOwnRules() {
        const ExecutionSettings s;
        const auto has = [&](const char* fw) {
            return findIgnored(frameworkLoop(fw, facts(fw, true, false), onDevice("auto")).ignored(s), "zero_grad") !=
                   nullptr;
        };
        QVERIFY(!has("torch"));
        QVERIFY(has("keras"));
        QVERIFY(has("jax"));
    }

    void unknownFrameworkIsRefused() {
        QVERIFY_THROWS_EXCEPTION(ConfigError, frameworkLoop("mxnet", FrameworkFacts{}, FrameworkOptions{}));
        RunConfig c;
        c.backend = "cpu";
        QVERIFY_THROWS_EXCEPTION(ConfigError, frameworkScript(c));
    }

    // What `mlpwb export --framework F` writes (the interpreter may lack F: then for the CPU).
    void exportPicksTheGeneratorByBackend_data() {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<QString>("construct");
        QTest::newRow("torch") << "torch"
                               << "torch.optim.Adam(";
        QTest::newRow("keras") << "keras"
                               << "model.fit(";
        QTest::newRow("jax") << "jax"
                             << "jax.value_and_grad(";
    }
    void exportPicksTheGeneratorByBackend() {
        QFETCH(QString, backend);
        QFETCH(QString, construct);
        RunConfig c;
        c.backend = backend.toStdString();
        QVERIFY(QString::fromStdString(frameworkScript(c)).contains(construct));
    }
};

QTEST_GUILESS_MAIN(FrameworkLoopTest)
#include "tst_framework_loop.moc"
