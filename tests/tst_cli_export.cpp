// `mlpwb export --answer/--ablation` end to end on answers and ablations made by hand: the script of
// the fixed loop (the fastest step measured, not every fix applied) with its switches and a comment
// naming the step, its time and the fixes it leaves out; an ablation's for its own framework or
// another; and what it refuses, in one line, writing nothing: an engine without a measured fixed
// loop, a malformed file, a run whose configuration does not read back, problem options beside it.
// Nothing trains, and no interpreter the files name is run.
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/cli_runner.h"
#include "tests/fixed_loop_fixture.h"
#include "tests/test_support.h"

using namespace wb;

namespace {
constexpr int kTimeoutMs = 60000;

// What each file of the suite holds, by name (written once in initTestCase).
Answer answerNamed(const QString& name) {
    Answer a = fixture::torchAnswer();
    AblationResult& torch = *a.engines.front().ablation;
    if (name == "keras.json") {
        a.engines.back() = fixture::engineOf(fixture::ablationOf(
            "keras", {{"data_path", "device_resident"}, {"loss", "bce_with_logits"}}, {900, 80, 60}));
    } else if (name == "pruned.json") {  // every fix but graph capture, measured last, is the fastest
        torch = fixture::ablationOf("torch",
                                    {{"data_path", "device_resident"},
                                     {"launch", "graph_step"},
                                     {"loss", "bce_with_logits"},
                                     {AblationStep::kWithoutCostly, ""}},
                                    {400, 30, 45, 40, 20});
    } else if (name == "seed-only.json") {
        torch.steps.resize(1);
    } else if (name == "unreadable-config.json") {
        torch.steps[1].runs.front().config["model"] = {{"hidden", "wide"}};
    } else if (name == "other-switches.json") {
        torch.steps[1].runs.front().config["execution"]["launch"] = "graph_step";
    } else if (name == "hostile-names.json") {  // text from the file is never code in the script
        torch.steps[1].name = "data_path=device_resident\nimport shutil; shutil.rmtree('/')  # \"\"\"";
        a.engines.back().reason = "keras is\nnot importable\r\nby python3";
    }
    return a;
}

const QStringList kAnswers = {
    "answer.json",         "keras.json",        "pruned.json", "seed-only.json", "unreadable-config.json",
    "other-switches.json", "hostile-names.json"};
}  // namespace

class TestCliExport : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // The interpreter the files name leaves a mark when run: no export may run it.
        fixture::recordedPython() = dir_.filePath("python-from-the-file").toStdString();
        QFile python(QString::fromStdString(fixture::recordedPython()));
        QVERIFY(python.open(QIODevice::WriteOnly));
        python.write("#!/bin/sh\ntouch \"$(dirname \"$0\")/the-file-s-python-ran\"\nexit 1\n");
        python.close();
        python.setPermissions(python.permissions() | QFileDevice::ExeOwner);
        for (const QString& name : kAnswers) answerNamed(name).save(dir_.filePath(name).toStdString());
        fixture::torchGraphCostsTime().save(dir_.filePath("torch-ablation.json").toStdString());
        fixture::ablationOf("cpu", {{"data_path", "device_resident"}, {"loss", "bce_with_logits"}}, {5, 4, 3})
            .save(dir_.filePath("cpu-ablation.json").toStdString());
    }

    void writesTheFixedLoop_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("says");  // in the comment at the top, its lines joined
        QTest::addColumn<QStringList>("has");   // in the script
        QTest::addColumn<QStringList>("hasNot");
        // The fixed loop is data_path=device_resident at 30 ms; launch=graph_step after it, 45 ms, is left out.
        QTest::newRow("PyTorch by default")
            << QStringList{"--answer", "answer.json"}
            << QStringList{"The fixed loop of answer.json on PyTorch (test device): the fastest configuration "
                           "measured there, the step 'data_path=device_resident', 30.0 ms per epoch (the median "
                           "of its 3 run(s); the seed loop: 400 ms).",
                           "Its fixes to the seed loop: data_path=device_resident.",
                           "Left out, as the fastest step measured is not every fix applied: launch=graph_step, "
                           "which cost 15.0 ms per epoch."}
            << QStringList{"\"\"\"fixed loop (data_path=device_resident): a PyTorch training loop",
                           "  data_path=device_resident: ", "  launch=eager_sync: ", "import torch",
                           "written for the CPU"}
            << QStringList{"torch.compile(", "DataLoader(TensorDataset(", "launch=graph_step: "};
        QTest::newRow("PyTorch named, its own name")
            << QStringList{"--answer", "answer.json", "--engine", "torch", "--name", "my loop"}
            << QStringList{"the step 'data_path=device_resident'"}
            << QStringList{"\"\"\"my loop: a PyTorch training loop", "\"name\":\"my loop\""}
            << QStringList{"torch.compile("};
        // Every fix but graph capture, measured as a step of its own: 20 ms, against 30, 45 and 40.
        QTest::newRow("every fix but the costly one")
            << QStringList{"--answer", "pruned.json"}
            << QStringList{"the step 'without launch=graph_step', 20.0 ms per epoch",
                           "Its fixes to the seed loop: data_path=device_resident, loss=bce_with_logits.",
                           "launch=graph_step, which cost 15.0 ms per epoch."}
            << QStringList{"nn.BCEWithLogitsLoss()"} << QStringList{"torch.compile(", "nn.BCELoss()"};
        QTest::newRow("Keras") << QStringList{"--answer", "keras.json", "--engine", "keras"}
                               << QStringList{"The fixed loop of keras.json on Keras (test device)",
                                              "the step 'loss=bce_with_logits', 60.0 ms per epoch",
                                              "No measured fix is left out."}
                               << QStringList{"import keras"} << QStringList{"import torch"};
        QTest::newRow("an ablation, for its own framework")
            << QStringList{"--ablation", "torch-ablation.json"}
            << QStringList{"The fixed loop of torch-ablation.json on PyTorch (test device)",
                           "launch=graph_step, which cost 15.0 ms per epoch."}
            << QStringList{"import torch"} << QStringList{"torch.compile("};
        QTest::newRow("an ablation of the CPU backend, for PyTorch")
            << QStringList{"--ablation", "cpu-ablation.json"}
            << QStringList{"The fixed loop of cpu-ablation.json, measured on our CPU backend (test device), written "
                           "for PyTorch: the fastest configuration measured there, the step 'loss=bce_with_logits', "
                           "3.00 ms per epoch"}
            << QStringList{"nn.BCEWithLogitsLoss()"} << QStringList{"DataLoader(TensorDataset("};
        QTest::newRow("an ablation of the CPU backend, for JAX")
            << QStringList{"--ablation", "cpu-ablation.json", "--engine", "jax"} << QStringList{"written for JAX"}
            << QStringList{"import jax"} << QStringList{"import torch"};
        QTest::newRow("names from the file stay text")
            << QStringList{"--answer", "hostile-names.json"}
            << QStringList{"the step 'data_path=device_resident import shutil; shutil.rmtree('/') # '''',"}
            << QStringList{"fixed loop (data_path=device_resident import shutil; shutil.rmtree('/')  # ''')"}
            << QStringList{"\nimport shutil"};
    }
    void writesTheFixedLoop() {
        QFETCH(QStringList, args);
        QFETCH(QStringList, says);
        QFETCH(QStringList, has);
        QFETCH(QStringList, hasNot);
        RUN_MLPWB(r, (QStringList{"export"} + args));
        QVERIFY2(r.exitCode == 0, r.describe());
        const QString script = QString::fromUtf8(r.out);
        QVERIFY2(script.startsWith("#!/usr/bin/env python3\n# The fixed loop of "), r.describe());
        QStringList comment;  // the lines after #!, up to the docstring, each within the scripts' width
        for (const QString& line : script.split(QChar(0x0a)).mid(1)) {
            if (!line.startsWith("# ")) break;
            QVERIFY2(line.size() <= 99, qPrintable(line));
            comment << line.mid(2);
        }
        const QString about = comment.join(' ');
        for (const QString& text : says) QVERIFY2(about.contains(text), qPrintable(text + "\n" + about));
        for (const QString& text : has) QVERIFY2(script.contains(text), qPrintable(text + "\n" + script.left(3000)));
        for (const QString& text : hasNot)
            QVERIFY2(!script.contains(text), qPrintable(text + "\n" + script.left(3000)));

        // Valid Python, where an interpreter is at hand (no framework needed to parse it).
        const QString python = QStandardPaths::findExecutable("python3");
        if (python.isEmpty()) return;
        QProcess parse;
        parse.start(python, {"-c", "import ast, sys; ast.parse(sys.stdin.read())"});
        parse.write(r.out);
        parse.closeWriteChannel();
        QVERIFY(parse.waitForFinished(30000));
        QVERIFY2(parse.exitCode() == 0, parse.readAllStandardError().constData());
    }

    // --out writes the same script, executable, and says how to run it.
    void writesTheFile() {
        const QString out = dir_.filePath("fixed.py");
        RUN_MLPWB(r, (QStringList{"export", "--answer", "answer.json", "--out", out}));
        QVERIFY2(r.exitCode == 0, r.describe());
        QVERIFY(QFileInfo(out).isExecutable());
        QVERIFY2(r.err.contains("python3 " + out.toUtf8() + " --data x.npy"), r.describe());
        RUN_MLPWB(printed, (QStringList{"export", "--answer", "answer.json"}));
        QCOMPARE(readAll(out).toUtf8(), printed.out);
    }

    void refusals_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("says");
        QTest::newRow("an engine that was missing")
            << QStringList{"--answer", "answer.json", "--engine", "keras"} << 3
            << "answer.json: keras has no measured fixed loop (it was not available: keras is not importable by "
               "python3)";
        QTest::newRow("an engine not asked")
            << QStringList{"--answer", "answer.json", "--engine", "jax"} << 3
            << "answer.json: jax has no measured fixed loop (the answer did not ask it)";
        QTest::newRow("only the seed loop measured")
            << QStringList{"--answer", "seed-only.json"} << 3
            << "seed-only.json: torch has no measured fixed loop (no step after its seed loop was measured)";
        QTest::newRow("a reason over several lines")
            << QStringList{"--answer", "hostile-names.json", "--engine", "keras"} << 3
            << "(it was not available: keras is not importable  by python3)";
        QTest::newRow("a configuration that does not read back")
            << QStringList{"--answer", "unreadable-config.json"} << 3
            << "unreadable-config.json: the fixed loop of torch holds no configuration that reads back";
        QTest::newRow("a run of other switches than its step's")
            << QStringList{"--answer", "other-switches.json"} << 3 << "records a run of other switches";
        QTest::newRow("not JSON") << QStringList{"--answer", "broken.json"} << 3 << "broken.json";
        QTest::newRow("not an answer") << QStringList{"--answer", "array.json"} << 3 << "not an answer";
        QTest::newRow("an answer given as an ablation")
            << QStringList{"--ablation", "answer.json"} << 3 << "answer.json";
        QTest::newRow("a missing file") << QStringList{"--answer", "no-such.json"} << 3 << "no-such.json";
        QTest::newRow("a problem option beside it")
            << QStringList{"--answer", "answer.json", "--layers", "3"} << 4
            << "--answer writes the fixed loop as the file recorded it: leave out --layers";
        QTest::newRow("a switch beside it")
            << QStringList{"--ablation", "torch-ablation.json", "--launch", "eager"} << 4 << "leave out --launch";
        QTest::newRow("both files") << QStringList{"--answer", "answer.json", "--ablation", "torch-ablation.json"} << 2
                                    << "--answer excludes --ablation";
    }
    void refusals() {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, says);
        QFile broken(dir_.filePath("broken.json"));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write("{\"schema\": \"mlpwb.answer/1\", \"engines\": [");
        broken.close();
        QFile array(dir_.filePath("array.json"));
        QVERIFY(array.open(QIODevice::WriteOnly));
        array.write("[]");
        array.close();
        const QString out = dir_.filePath("refused.py");
        RUN_MLPWB(r, (QStringList{"export"} + args + QStringList{"--out", out}));
        QVERIFY2(r.exitCode == exitCode, r.describe());
        QVERIFY2(QString::fromUtf8(r.err).contains(says), r.describe());
        QVERIFY2(r.errLines().size() == 1, r.describe());  // one clear line
        QVERIFY(r.out.isEmpty());
        QVERIFY(!QFile::exists(out));
    }

    void cleanupTestCase() { QVERIFY(!QFile::exists(dir_.filePath("the-file-s-python-ran"))); }
};

QTEST_GUILESS_MAIN(TestCliExport)
#include "tst_cli_export.moc"
