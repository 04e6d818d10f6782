// mlpwb end to end: the built binary run with QProcess. Every run is tiny (2,000 built-in rows,
// a few epochs) except the one interrupted with SIGINT. Checks what scripts rely on: the exit codes
// of cli/exit_codes.h, one "mlpwb: ..." line on stderr per failure, and a run file that never
// claims success for a run that did not complete.
#include <QtTest>

#include <csignal>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

#include "core/measure/switch_combinations.h"

#include <sys/types.h>

namespace {

constexpr int kTimeoutMs = 60000;

QStringList tinyRun() {
    return {"train", "--builtin", "--rows", "2000", "--epochs", "3"};
}

void writeFile(const QString& path, const QByteArray& content) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) qFatal("cannot write %s", qPrintable(path));
    f.write(content);
}

}  // namespace

class TestCli : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    QString path(const QString& name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QVERIFY2(QFileInfo(QStringLiteral(WB_MLPWB_PATH)).isExecutable(), WB_MLPWB_PATH);
    }

    // `mlpwb train | head -2`: the reader goes away; the run stops as cancelled with its record
    // finalised, instead of dying of SIGPIPE with the record stuck at "running".
    void closedStdoutCancelsTheRun() {
        QProcess shell;
        shell.setWorkingDirectory(dir_.path());
        shell.start("bash",
                    {"-c", QString("'%1' train --builtin --rows 20000 --epochs 100000 --out pipe.json | head -2 "
                                   ">/dev/null; exit ${PIPESTATUS[0]}")
                               .arg(WB_MLPWB_PATH)});
        QVERIFY(shell.waitForFinished(kTimeoutMs));
        QCOMPARE(shell.exitCode(), 130);
        const nlohmann::json record = readJson(path("pipe.json"));
        QCOMPARE(QString::fromStdString(record.value("status", "")), QString("cancelled"));
    }

    // Outputs never destroy inputs: `--out` onto the data is refused before anything is trained.
    void outputOntoTheDataIsRefused() {
        std::ofstream(path("d.csv").toStdString()) << "a,b,y\n1,2,0\n3,4,1\n";
        RUN_MLPWB(r, (QStringList{"train", "--data", "d.csv", "--out", "d.csv", "--epochs", "1"}));
        QCOMPARE(r.exitCode, 6);
        QVERIFY2(r.err.contains("--out d.csv: is the same file as --data d.csv"), r.describe().constData());
        std::ifstream in(path("d.csv").toStdString());
        QCOMPARE(QString::fromStdString(std::string(std::istreambuf_iterator<char>(in), {})),
                 QString("a,b,y\n1,2,0\n3,4,1\n"));
    }

    void trainWritesRunFileAndCsv() {
        RUN_MLPWB(r, tinyRun() << "--out" << path("run.json") << "--csv" << path("run.csv"));
        QVERIFY2(r.exitCode == 0, r.describe());

        const nlohmann::json j = readJson(path("run.json"));
        QVERIFY2(j.is_object(), "run.json is missing or not JSON");
        QCOMPARE(str(j["schema"]), QString("mlpwb.run/1"));
        QCOMPARE(str(j["status"]), QString("completed"));
        QCOMPARE(j["epochs"].size(), std::size_t{3});
        QVERIFY(j["epochs"][0]["warmup"].get<bool>());
        QVERIFY(!j["epochs"][1]["warmup"].get<bool>());
        QVERIFY(j["summary"]["median_epoch_ms"].is_number());
        QVERIFY(j["summary"]["median_epoch_ms"].get<double>() > 0);
        QCOMPARE(j["config"]["model"]["hidden"], nlohmann::json({20, 10}));
        QCOMPARE(j["config"]["train"]["epochs"].get<int>(), 3);
        QCOMPARE(j["dataset"]["rows"].get<int>(), 2000);
        QVERIFY2(str(j["dataset"]["hash"]).startsWith("sha256:"), j["dataset"]["hash"].dump().c_str());
        QCOMPARE(str(j["environment"]["backend"]), QString("cpu"));
        QVERIFY(j["epochs"][2]["val_loss"].is_null());  // no validation split asked for

        QFile csv(path("run.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 4);
        QVERIFY(lines[0].startsWith("epoch,"));
        QVERIFY(lines[1].startsWith("1,"));
        QVERIFY(lines[3].startsWith("3,"));
        QVERIFY2(!QFileInfo::exists(path("run.json.tmp")), "a .tmp file was left behind");
    }

    void pipedStdoutGetsOnePlainLinePerEpoch() {
        RUN_MLPWB(r, tinyRun());
        QVERIFY2(r.exitCode == 0, r.describe());
        QVERIFY2(!r.out.contains('\r'), "progress bar written to a pipe");
        QVERIFY2(!r.out.contains('\x1b'), "escape sequences written to a pipe");
        const QStringList epochLines = r.outLines().filter(QRegularExpression("^epoch \\d+/3 "));
        QCOMPARE(epochLines.size(), 3);
        QVERIFY(epochLines[0].startsWith("epoch 1/3"));
        QVERIFY(epochLines[2].startsWith("epoch 3/3"));
    }

    void initWeightsStartFromSavedWeights() {
        RUN_MLPWB(fresh, tinyRun() << "--out" << path("fresh.json") << "--save-weights" << path("w.safetensors"));
        QVERIFY2(fresh.exitCode == 0, fresh.describe());
        QVERIFY(QFileInfo(path("w.safetensors")).size() > 0);

        // The seed no longer matters when the weights come from a file (no split, no shuffling).
        RUN_MLPWB(a, tinyRun() << "--init-weights" << path("w.safetensors") << "--seed"
                               << "5"
                               << "--out" << path("a.json"));
        RUN_MLPWB(b, tinyRun() << "--init-weights" << path("w.safetensors") << "--seed"
                               << "9"
                               << "--out" << path("b.json"));
        QVERIFY2(a.exitCode == 0, a.describe());
        QVERIFY2(b.exitCode == 0, b.describe());
        const nlohmann::json f = readJson(path("fresh.json")), ja = readJson(path("a.json")),
                             jb = readJson(path("b.json"));
        QVERIFY(f.is_object() && ja.is_object() && jb.is_object());
        for (int e = 0; e < 3; ++e)
            QCOMPARE(ja["epochs"][e]["train_loss"].get<double>(), jb["epochs"][e]["train_loss"].get<double>());
        // Starting from trained weights: the first epoch already beats the fresh run's first epoch.
        QVERIFY(ja["epochs"][0]["train_loss"].get<double>() < f["epochs"][0]["train_loss"].get<double>());
        QCOMPARE(str(ja["config"]["init_weights"]), path("w.safetensors"));

        // Weights that do not fit the model are a configuration error.
        RUN_MLPWB(misfit, tinyRun() << "--init-weights" << path("w.safetensors") << "--layers"
                                    << "5");
        QVERIFY2(misfit.exitCode == 4, misfit.describe());
        QCOMPARE(misfit.errLines().size(), 1);
        QVERIFY(misfit.errLines()[0].startsWith("mlpwb:"));
    }

    void usageErrors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("unknown flag") << (tinyRun() << "--bogus");
        QTest::newRow("--epochs 0") << QStringList{"train", "--epochs", "0"};
        QTest::newRow("--epochs abc") << QStringList{"train", "--epochs", "abc"};
        QTest::newRow("--epochs without a value") << QStringList{"train", "--epochs"};
        QTest::newRow("--rows 0") << QStringList{"train", "--rows", "0"};
        QTest::newRow("--batch-size -1") << QStringList{"train", "--batch-size", "-1"};
        // CLI11's range check refuses it while parsing: a bad flag value, exit 2.
        QTest::newRow("--val-split 0.999") << QStringList{"train", "--val-split", "0.999"};
        QTest::newRow("no subcommand") << QStringList{};
        QTest::newRow("unknown subcommand") << QStringList{"fly"};
    }
    void usageErrors() {
        QFETCH(QStringList, args);
        RUN_MLPWB(r, args);
        QVERIFY2(r.exitCode == 2, r.describe());
        QVERIFY2(r.errLines().size() == 1, r.describe());
        QVERIFY2(r.errLines()[0].startsWith("mlpwb:"), r.describe());
        QVERIFY2(r.out.isEmpty(), r.describe());
    }

    void configErrors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("--activation foo") << QStringList{"--activation", "foo"} << "foo";
        QTest::newRow("--layers 20,x") << QStringList{"--layers", "20,x"} << "20,x";
        QTest::newRow("--layers 0") << QStringList{"--layers", "0"} << "width 0";
        QTest::newRow("--layers -3") << QStringList{"--layers=-3"} << "-3";
        QTest::newRow("--preset nope") << QStringList{"--preset", "nope"} << "nope";
        QTest::newRow("--optimizer foo") << QStringList{"--optimizer", "foo"} << "foo";
        QTest::newRow("--backend foo") << QStringList{"--backend", "foo"} << "foo";
        QTest::newRow("--data-path foo") << QStringList{"--data-path", "foo"} << "foo";
        QTest::newRow("--header maybe") << QStringList{"--header", "maybe"} << "maybe";
        QTest::newRow("fused with cuBLAS") << QStringList{"--launch", "fused", "--gemm", "cublas"} << "fused";
        QTest::newRow("split leaves no training rows") << QStringList{"--rows", "10", "--val-split", "0.99"} << "0.99";
        QTest::newRow("--labels without --data") << QStringList{"--labels", "y.npy"} << "--labels";
    }
    void configErrors() {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        QStringList all{"train", "--builtin", "--epochs", "3"};
        if (!args.contains("--rows"))
            all << "--rows"
                << "2000";
        RUN_MLPWB(r, all << args << "--out" << path("config_error.json"));
        QVERIFY2(r.exitCode == 4, r.describe());
        QVERIFY2(r.errLines().size() == 1, r.describe());
        QVERIFY2(r.errLines()[0].startsWith("mlpwb:"), r.describe());
        QVERIFY2(r.errLines()[0].contains(mentions), r.describe());
        QVERIFY2(!QFileInfo::exists(path("config_error.json")), "a run file for a run that never started");
    }

    void dataErrors_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("content");  // "<dir>": make a directory; "<none>": write nothing
        QTest::addColumn<QString>("mentions");    // besides the file name
        QTest::newRow("missing file") << "missing.csv" << QByteArray("<none>") << "";
        QTest::newRow("a directory") << "folder.csv" << QByteArray("<dir>") << "directory";
        QTest::newRow("empty CSV") << "empty.csv" << QByteArray() << "empty";
        QTest::newRow("ragged row") << "ragged.csv" << QByteArray("a,b,y\n1,2,0\n3,4\n5,6,1\n") << ":3";
        QTest::newRow("three labels on three rows")
            << "label2.csv" << QByteArray("a,b,y\n1,2,0\n3,4,2\n5,6,1\n") << "--task regression";
        QTest::newRow("text in a feature") << "text.csv" << QByteArray("a,b,y\n1,2,0\n3,oops,1\n") << "oops";
        QTest::newRow("not a .npy") << "fake.npy" << QByteArray("hello, this is no numpy array\n") << "npy";
    }
    void dataErrors() {
        QFETCH(QString, file);
        QFETCH(QByteArray, content);
        QFETCH(QString, mentions);
        if (content == "<dir>")
            QVERIFY(QDir(dir_.path()).mkpath(file));
        else if (content != "<none>")
            writeFile(path(file), content);
        QStringList args{"train", "--epochs", "1", "--data", file, "--out", "data_error.json"};
        if (file.endsWith(".npy")) args << "--labels" << file;
        RUN_MLPWB(r, args);
        QVERIFY2(r.exitCode == 3, r.describe());
        QVERIFY2(r.errLines().size() == 1, r.describe());
        QVERIFY2(r.errLines()[0].startsWith("mlpwb:"), r.describe());
        QVERIFY2(r.errLines()[0].contains(file), r.describe());
        QVERIFY2(r.errLines()[0].contains(mentions), r.describe());
        QVERIFY2(!QFileInfo::exists(path("data_error.json")), "a run file for a run that never started");
    }

    void stringLabelsAreMapped() {
        QByteArray csv = "f1,f2,f3,answer\n";
        for (int i = 0; i < 40; ++i) {
            const bool yes = i % 2 == 1;
            csv += QByteArray::number(0.1 * i + (yes ? 1.0 : 0.0)) + ',' + QByteArray::number((i * 7) % 11) + ',' +
                   QByteArray::number(-0.5 * (i % 3)) + ',' + (yes ? "yes" : "no") + '\n';
        }
        writeFile(path("answers.csv"), csv);
        RUN_MLPWB(r, QStringList({"train", "--data", "answers.csv", "--epochs", "3", "--out", "answers.json"}));
        QVERIFY2(r.exitCode == 0, r.describe());
        const nlohmann::json j = readJson(path("answers.json"));
        QVERIFY(j.is_object());
        QCOMPARE(str(j["status"]), QString("completed"));
        QCOMPARE(j["dataset"]["label_mapping"], nlohmann::json({{"no", 0}, {"yes", 1}}));
        QCOMPARE(j["dataset"]["rows"].get<int>(), 40);
        QCOMPARE(j["dataset"]["features"].get<int>(), 3);
        QCOMPARE(str(j["dataset"]["label"]), QString("answer"));
    }

    void cudaUnavailableIsDeviceError() {
        RUN_MLPWB(info, QStringList{"info"});
        if (QRegularExpression("^cuda\\s+available", QRegularExpression::MultilineOption)
                .match(QString::fromUtf8(info.out))
                .hasMatch())
            QSKIP("a CUDA device is available here");
        RUN_MLPWB(r, tinyRun() << "--backend"
                               << "cuda"
                               << "--out" << path("cuda.json"));
        QVERIFY2(r.exitCode == 5, r.describe());
        QVERIFY2(r.errLines().size() == 1, r.describe());
        QVERIFY2(r.errLines()[0].startsWith("mlpwb:"), r.describe());
        QVERIFY2(r.errLines()[0].contains("unavailable"), r.describe());
        QVERIFY(!QFileInfo::exists(path("cuda.json")));
    }

    // Without a device, verify says why, skips every combination and exits 0.
    void verifyWithoutDeviceSkipsEverything() {
        RUN_MLPWB(info, QStringList{"info"});
        if (QRegularExpression("^cuda\\s+available", QRegularExpression::MultilineOption)
                .match(QString::fromUtf8(info.out))
                .hasMatch())
            QSKIP("a CUDA device is available here");
        RUN_MLPWB(r, QStringList{"verify"});
        QVERIFY2(r.exitCode == 0, r.describe());
        const QStringList lines = r.outLines();
        QVERIFY2(lines.size() >= 2 && lines[0].startsWith("CUDA unavailable: "), r.describe());
        const QString skipped = QString::number(wb::validCombinations().size());
        QVERIFY2(lines.last() == "0 passed, 0 failed, " + skipped + " skipped", r.describe());
    }

    // verify --backend cpu checks the checker: the CPU against itself passes, one line per combination.
    void verifyCpuAgainstItselfPasses() {
        RUN_MLPWB(r,
                  (QStringList{"verify", "--backend", "cpu", "--only", "launch=fused", "--only", "data_path=pinned"}));
        QVERIFY2(r.exitCode == 0, r.describe());
        const QStringList lines = r.outLines();
        int pass = 0;
        for (const QString& line : lines) {
            QVERIFY2(!line.startsWith("FAIL"), qPrintable(line));
            if (line.startsWith("PASS")) {
                QVERIFY2(line.contains("launch=fused") && line.contains("data_path=pinned_async"), qPrintable(line));
                ++pass;
            }
        }
        QVERIFY(pass > 0);
        QVERIFY2(lines.last() == QString::number(pass) + " passed, 0 failed", r.describe());
    }

    // launch=persistent is a verify filter like any value: its combinations only.
    void verifyCoversPersistent() {
        RUN_MLPWB(r, (QStringList{"verify", "--backend", "cpu", "--only", "launch=persistent", "--limit", "2", "--rows",
                                  "100", "--epochs", "1"}));
        QVERIFY2(r.exitCode == 0, r.describe());
        int pass = 0;
        for (const QString& line : r.outLines())
            if (line.startsWith("PASS")) {
                QVERIFY2(line.contains("launch=persistent") && line.contains("gemm=custom"), qPrintable(line));
                ++pass;
            }
        QCOMPARE(pass, 2);
    }

    // --isolate runs the combinations in child processes (this binary again): the same lines and total.
    void verifyIsolateRunsChildren() {
        RUN_MLPWB(r, (QStringList{"verify", "--backend", "cpu", "--isolate", "--only", "launch=fused", "--only",
                                  "data_path=pinned", "--limit", "3", "--rows", "100", "--epochs", "1"}));
        QVERIFY2(r.exitCode == 0, r.describe());
        const QStringList lines = r.outLines();
        int pass = 0;
        for (const QString& line : lines) {
            QVERIFY2(!line.startsWith("FAIL") && !line.startsWith("BEGIN"), qPrintable(line));
            if (line.startsWith("PASS")) ++pass;
        }
        QCOMPARE(pass, 3);
        QVERIFY2(lines.last().startsWith("3 passed, 0 failed"), r.describe());
    }

    // A crash, a hang and a device error in a child (injected through WB_VERIFY_CHILD_FAULT) fail only
    // their own combination, named; the next child checks the ones after it.
    void verifyIsolateContainsFaults_data() {
        QTest::addColumn<QString>("fault");
        QTest::addColumn<QString>("message");
        QTest::newRow("abort") << "1:abort"
                               << "child process ended with exit code -1";
        QTest::newRow("hang") << "1:hang"
                              << "no answer for 8 s: killed";
        QTest::newRow("device") << "1:device"
                                << "injected device error";
    }
    void verifyIsolateContainsFaults() {
        QFETCH(QString, fault);
        QFETCH(QString, message);
        qputenv("WB_VERIFY_CHILD_FAULT", fault.toUtf8());
        // 8 s per combination: the healthy children (start-up and 100 rows) must answer within it
        // on a loaded 2-core machine too (2 s failed there while builds ran beside the tests).
        const MlpwbResult r =
            runMlpwb(QStringList{"verify", "--backend", "cpu", "--isolate", "--only", "launch=fused", "--limit", "3",
                                 "--rows", "100", "--epochs", "1", "--combination-timeout", "8"},
                     dir_.path(), kTimeoutMs);
        qunsetenv("WB_VERIFY_CHILD_FAULT");
        QVERIFY(r.finished);
        QVERIFY2(r.exitCode != 0, r.describe());
        const QStringList lines = r.outLines();
        QVERIFY2(lines.size() == 5, r.describe());  // the header, 3 outcomes, the total
        QVERIFY2(lines[1].startsWith("PASS") && lines[3].startsWith("PASS"), r.describe());
        QVERIFY2(lines[2].startsWith("FAIL  data_path=") && lines[2].contains(message), r.describe());
        QVERIFY2(lines.last().startsWith("2 passed, 1 failed"), r.describe());
    }

    // Without a device, --isolate starts no child: it says why and skips everything (exit 0).
    void verifyIsolateWithoutDevice() {
        RUN_MLPWB(info, QStringList{"info"});
        if (QRegularExpression("^cuda\\s+available", QRegularExpression::MultilineOption)
                .match(QString::fromUtf8(info.out))
                .hasMatch())
            QSKIP("a CUDA device is available here");
        RUN_MLPWB(r, (QStringList{"verify", "--isolate", "--only", "launch=fused"}));
        QVERIFY2(r.exitCode == 0, r.describe());
        QVERIFY2(r.outLines().value(0).startsWith("CUDA unavailable: "), r.describe());
        QVERIFY2(r.outLines().last().contains(" skipped"), r.describe());
    }

    // The problem's options reach it: the first line names rows, batch, epochs and the order.
    void verifyProblemOptions() {
        RUN_MLPWB(r, (QStringList{"verify", "--backend", "cpu", "--only", "launch=graph_step", "--only", "gemm=custom",
                                  "--rows", "700", "--batch-size", "256", "--epochs", "3", "--file-order"}));
        QVERIFY2(r.exitCode == 0, r.describe());
        const QStringList lines = r.outLines();
        QVERIFY2(lines.first().contains("700 rows, batch 256, 3 epochs, file order"), r.describe());
        QVERIFY2(lines.last().endsWith("passed, 0 failed"), r.describe());
    }

    void verifyFilterMatchingNothingIsConfigError() {
        RUN_MLPWB(r, (QStringList{"verify", "--backend", "cpu", "--only", "launch=warp_speed"}));
        QVERIFY2(r.exitCode == 4, r.describe());
        QVERIFY2(r.errLines().size() == 1 && r.errLines()[0].startsWith("mlpwb:"), r.describe());
    }

    void divergingRunSaysSo() {
        // Plain SGD with an absurd rate on unbounded activations: the logits overflow to inf in the
        // second epoch. (With tanh and bce_with_logits the loss grows huge but stays finite.)
        RUN_MLPWB(r, tinyRun() << "--optimizer"
                               << "sgd"
                               << "--lr"
                               << "1e30"
                               << "--activation"
                               << "identity"
                               << "--no-standardize"
                               << "--out" << path("diverged.json") << "--save-weights" << path("diverged.safetensors"));
        QVERIFY2(r.exitCode == 7, r.describe());
        QVERIFY2(r.errLines().size() == 1, r.describe());
        QVERIFY2(r.errLines()[0].startsWith("mlpwb:"), r.describe());
        const nlohmann::json j = readJson(path("diverged.json"));
        QVERIFY(j.is_object());
        QCOMPARE(str(j["status"]), QString("diverged"));
        const QString message = str(j["message"]);
        QVERIFY2(QRegularExpression("epoch \\d+").match(message).hasMatch(), qPrintable(message));
        QVERIFY2(QRegularExpression("step \\d+").match(message).hasMatch(), qPrintable(message));
        QVERIFY(j["epochs"].size() < 3);
        for (const auto& e : j["epochs"]) QVERIFY(e["train_loss"].is_number());  // no NaN written as null
        // Never a file claiming success, and no weights saved from a run that blew up.
        QVERIFY(str(j["status"]) != "completed");
        QVERIFY(!QFileInfo::exists(path("diverged.safetensors")));
    }

    void unwritableOutputIsIoError() {
        RUN_MLPWB(r, tinyRun() << "--out" << path("no/such/folder/run.json"));
        QVERIFY2(r.exitCode == 6, r.describe());
        QVERIFY2(r.errLines().size() == 1, r.describe());
        QVERIFY2(r.errLines()[0].startsWith("mlpwb:"), r.describe());
    }

    void presetsListsTheNamedPresets() {
        RUN_MLPWB(r, QStringList{"presets"});
        QVERIFY2(r.exitCode == 0, r.describe());
        const QStringList lines = r.outLines();
        QVERIFY2(lines.contains("Seed PyTorch loop"), r.out);
        QVERIFY2(lines.contains("Fastest"), r.out);
        QVERIFY(r.out.contains("data_path"));
    }

    void infoSaysCpuAvailable() {
        RUN_MLPWB(r, QStringList{"info"});
        QVERIFY2(r.exitCode == 0, r.describe());
        QVERIFY2(QRegularExpression("^cpu\\s+available", QRegularExpression::MultilineOption)
                     .match(QString::fromUtf8(r.out))
                     .hasMatch(),
                 r.out);
        QVERIFY2(r.out.contains("cuda"), r.out);  // available or not, with the reason
    }

    void versionExitsZero() {
        RUN_MLPWB(r, QStringList{"--version"});
        QVERIFY2(r.exitCode == 0, r.describe());
        QVERIFY2(r.out.startsWith("mlpwb "), r.out);
    }

    void sigintCancelsAndSaysSo() {
        QProcess p;
        p.setWorkingDirectory(dir_.path());
        p.start(QStringLiteral(WB_MLPWB_PATH),
                QStringList{"train", "--builtin", "--rows", "200000", "--epochs", "100000", "--out", "cancelled.json"});
        QVERIFY(p.waitForStarted(kTimeoutMs));
        QByteArray out;
        QElapsedTimer timer;
        timer.start();
        while (!out.contains("epoch 1/") && p.state() == QProcess::Running && timer.elapsed() < kTimeoutMs) {
            p.waitForReadyRead(1000);
            out += p.readAllStandardOutput();
        }
        if (!out.contains("epoch 1/")) {
            p.kill();
            p.waitForFinished();
            QFAIL(("no first epoch line within 60 s; stdout: " + out + "\nstderr: " + p.readAllStandardError())
                      .constData());
        }
        QCOMPARE(::kill(static_cast<pid_t>(p.processId()), SIGINT), 0);
        if (!p.waitForFinished(kTimeoutMs)) {
            p.kill();
            p.waitForFinished();
            QFAIL("mlpwb did not stop within 60 s of SIGINT");
        }
        const QByteArray err = p.readAllStandardError();
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);  // handled, not killed by the signal
        QVERIFY2(p.exitCode() == 130, err.constData());
        const nlohmann::json j = readJson(path("cancelled.json"));
        QVERIFY(j.is_object());
        QCOMPARE(str(j["status"]), QString("cancelled"));
        QVERIFY2(str(j["message"]).contains("cancelled"), j["message"].dump().c_str());
        QVERIFY(j["epochs"].size() >= 1);
        QVERIFY(j["epochs"].size() < 100000);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
