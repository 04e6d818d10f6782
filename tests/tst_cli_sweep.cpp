// `mlpwb sweep` end to end with the built binary and the local engine: a grid that completes and
// equals `mlpwb train` trial by trial, refusals that write nothing, a second driver refused, a
// kill -9 of the driver or of a trial that `resume` finishes, Ctrl+C, repeats and the report;
// hyperband's stopped trials; bayes refused without Optuna, run end to end and resumed after a kill -9
// where $MLPWB_TEST_OPTUNA_PYTHON names a Python with Optuna (CI's scripts/ci-venv.sh).
#include <QtTest>

#include <signal.h>

#include "core/platform/shell_quote.h"
#include "sweep/folder_lock.h"
#include "tests/cli_runner.h"
#include "tests/sweep_support.h"

namespace {
constexpr int kTimeoutMs = 240000;
// Small data: a trial takes a few milliseconds.
const QStringList kQuickBase = {"--builtin", "--rows", "2000", "--epochs", "6", "--val-split", "0.2"};
// Slower trials (about a second each on a 2-core machine) for the tests that stop a sweep midway.
const QStringList kSlowBase = {"--builtin", "--rows", "60000", "--epochs", "80", "--val-split", "0.2"};
// W&B's bayes over a log range and a list: 6 trials, in batches of the pool's size.
const char* const kBayesSpec =
    "method: bayes\nrun_cap: 6\nmetric: {name: val_loss, goal: minimize}\nparameters:\n"
    "  lr: {distribution: log_uniform_values, min: 1.0e-4, max: 1.0e-1}\n  batch_size: {values: [256, 1024]}\n";
}  // namespace

class TestCliSweep : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    static QString optunaPython() { return qEnvironmentVariable("MLPWB_TEST_OPTUNA_PYTHON"); }
    QString path(const QString& name) const { return dir_.path() + "/" + name; }

    nlohmann::json statusOf(const QString& sweepDir) {
        const MlpwbResult r = runMlpwb({"sweep", "status", sweepDir, "--json"}, dir_.path(), kTimeoutMs);
        if (r.exitCode != 0) return nullptr;
        return nlohmann::json::parse(r.out.toStdString(), nullptr, false);
    }

    // Starts `mlpwb sweep SPEC --out DIR ARGS` without waiting.
    void startSweep(QProcess& p, const QString& spec, const QString& out, const QStringList& args) {
        p.setWorkingDirectory(dir_.path());
        p.start(QStringLiteral(WB_MLPWB_PATH), QStringList{"sweep", spec, "--out", out} + args);
        QVERIFY(p.waitForStarted());
    }

    // Once trial `id` of the sweep in `dir` runs: kill -9 the driver, then the trial (it runs in a
    // process group of its own, so it goes on without the driver), mid-run, and wait until it is gone.
    static void killDriverAndTrial(QProcess& driver, const QString& dir, int id, int waitSeconds) {
        QVERIFY2(waitFor([&] { return str(trialState(dir, id)["state"]) == "running"; }, waitSeconds),
                 driver.readAllStandardError());
        ::kill(static_cast<pid_t>(driver.processId()), SIGKILL);
        driver.waitForFinished();
        const long trialPid = trialState(dir, id).value("pid", 0L);
        QVERIFY(trialPid > 0);
        ::kill(static_cast<pid_t>(trialPid), SIGKILL);
        QVERIFY(waitFor([&] { return ::kill(static_cast<pid_t>(trialPid), 0) != 0; }, 10));
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        writeText(path("grid.yaml"), kGridSpec);
    }

    void aGridCompletesAndEqualsTrainRunByRun() {
        RUN_MLPWB(r, QStringList({"sweep", "grid.yaml", "--out", "g"}) + kQuickBase);
        QVERIFY2(r.exitCode == 0, r.describe());
        QVERIFY2(r.out.contains("<- best"), r.describe());
        const auto status = statusOf(path("g"));
        QCOMPARE(statesOf(status), QStringList(6, "completed"));
        const auto& trials = status.at("trials");
        QCOMPARE(trials.at(4).at("parameters").at("batch_size").get<int>(), 1024);
        QCOMPARE(trials.at(4).at("parameters").at("lr").get<double>(), 0.003);
        QVERIFY(trials.at(4).at("val_loss").is_number());
        QCOMPARE(trials.at(4).at("metric").at("value"), trials.at(4).at("val_loss"));
        // The trial is `mlpwb train` with its arguments: the same losses, bit for bit.
        const auto plan = readJson(path("g/sweep.json"));
        QStringList args = {"train"};
        for (const auto& a : plan.at("trials").at(4).at("args")) args << str(a);
        args << "--out"
             << "solo.json"
             << "--quiet";
        RUN_MLPWB(solo, args);
        QVERIFY2(solo.exitCode == 0, solo.describe());
        QCOMPARE(readJson(path("solo.json")).at("summary").at("final").at("val_loss"), trials.at(4).at("val_loss"));
        // Trials of the pool shared the machine: their timing says so.
        QVERIFY(str(trials.at(0).at("timing")).startsWith("shared") || str(trials.at(0).at("timing")) == "exclusive");
    }

    void refusalsNameTheLineAndWriteNothing_data() {
        QTest::addColumn<QByteArray>("spec");
        QTest::addColumn<QString>("expected");
        QTest::newRow("value out of range")
            << QByteArray("method: grid\nparameters:\n  batch_size:\n    values: [64, 0]\n")
            << "bad.yaml:4: parameters.batch_size: value '0': --batch-size";
        QTest::newRow("value refused by the whole configuration")
            << QByteArray(
                   "method: grid\nparameters:\n  batch_size: {values: [64, 128]}\n  lr:\n    values:\n"
                   "      - 0.01\n      - -1\n")
            << "bad.yaml:7: parameters.lr: value '-1': learning rate must be positive";
        QTest::newRow("unknown parameter") << QByteArray("method: grid\nparameters:\n  learning_rate: {values: [1]}\n")
                                           << "bad.yaml:3: parameters.learning_rate: unknown parameter";
        QTest::newRow("unknown choice") << QByteArray(
                                               "method: grid\nparameters:\n  optimizer: {values: [adam, lion]}\n")
                                        << "bad.yaml:3: parameters.optimizer: value 'lion'";
        QTest::newRow("impossible combination") << QByteArray(
                                                       "method: grid\nparameters:\n  data_path: {value: "
                                                       "device_resident}\n  launch: {values: [persistent]}\n"
                                                       "  gemm: {values: [custom, cublas]}\n")
                                                << "bad.yaml:2: parameters: the combination data_path=device_resident "
                                                   "launch=persistent gemm=cublas is refused";
        QTest::newRow("a data file that is not there")
            << QByteArray("method: grid\nparameters:\n  data: {values: [missing.csv]}\n")
            << "bad.yaml:3: parameters.data: value 'missing.csv': --data missing.csv: no such file";
        QTest::newRow("syntax") << QByteArray("method: grid\nparameters: [\n") << "bad.yaml:3: YAML:";
        // The count comes first: a grid of 10^12 trials is refused as such, not by the bad value its
        // first trial holds, and before a million values are each parsed.
        QTest::newRow("a grid past the cap, refused before its values are checked") << [] {
            QByteArray spec = "method: grid\nparameters:\n";
            for (const char* name : {"batch_size", "lr", "epochs", "seed"}) {
                spec += QByteArray("  ") + name + ": {values: [" + (name == std::string("batch_size") ? "0" : "1");
                for (int i = 2; i <= 1000; ++i) spec += "," + QByteArray::number(i);
                spec += "]}\n";
            }
            return spec;
        }() << "bad.yaml:2: parameters: the grid has 1000000000000 trials, more than 100000";
        QTest::newRow("a range beyond 2^53")
            << QByteArray("method: grid\nparameters:\n  seed: {min: 1e17, max: 100000000000000016}\n")
            << "bad.yaml:3: parameters.seed.min: '1e17' is beyond 2^53";
        QTest::newRow("deep nesting") << "method: grid\nparameters:\n  lr: {values: " + QByteArray(5000, '[') +
                                             QByteArray(5000, ']') + "}\n"
                                      << "bad.yaml:3: YAML: nested too deeply";
    }
    void refusalsNameTheLineAndWriteNothing() {
        QFETCH(QByteArray, spec);
        QFETCH(QString, expected);
        writeText(path("bad.yaml"), spec);
        RUN_MLPWB(r, QStringList({"sweep", "bad.yaml", "--out", "never", "--epochs", "2"}));
        QCOMPARE(r.exitCode, 4);
        QVERIFY2(r.errLines().size() == 1 && r.errLines().first().startsWith("mlpwb: " + expected), r.describe());
        QVERIFY(!QFileInfo::exists(path("never")));
    }

    // The sweep files the README shows (docs/sweeps/) stay valid: mlpwb accepts each as written.
    // A sweep file is read only from a regular file: a folder or a device is named as such, and
    // /dev/zero is not read until memory runs out.
    // val_loss with no validation split in any trial: six trials used to run and the sweep ended
    // with no best. Refused with the line of the metric, before the folder is made.
    void aMetricNoTrialMeasuresIsRefused() {
        writeText(path("noval.yaml"),
                  "method: grid\nmetric:\n  name: val_loss\n  goal: minimize\nparameters:\n"
                  "  lr: {values: [0.001, 0.01]}\n");
        RUN_MLPWB(r, QStringList({"sweep", "noval.yaml", "--out", "noval", "--builtin", "--rows", "2000", "--epochs",
                                  "2", "--val-split", "0"}));
        QCOMPARE(r.exitCode, 4);  // a configuration error
        QVERIFY2(r.err.contains("noval.yaml:3: metric.name: val_loss is measured on the validation rows"),
                 r.describe());
        QVERIFY(!QFileInfo::exists(path("noval")));
        // With a split the same file runs.
        RUN_MLPWB(ok, QStringList({"sweep", "noval.yaml", "--out", "val", "--dry-run"}) + kQuickBase);
        QVERIFY2(ok.exitCode == 0, ok.describe());
    }

    void whatIsNoSweepFileIsRefused_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("expected");
        QTest::newRow("a folder") << "."
                                  << "mlpwb: . is a folder, not a sweep file";
        QTest::newRow("/dev/zero") << "/dev/zero"
                                   << "mlpwb: /dev/zero is not a regular file";
    }
    void whatIsNoSweepFileIsRefused() {
        QFETCH(QString, spec);
        QFETCH(QString, expected);
        RUN_MLPWB(r, QStringList({"sweep", spec, "--out", "never", "--builtin"}));
        QCOMPARE(r.exitCode, 4);
        QVERIFY2(r.errLines().size() == 1 && r.errLines().first().startsWith(expected), r.describe());
        QVERIFY(!QFileInfo::exists(path("never")));
    }

    // An sbatch option with a line break would end its #SBATCH line and make the rest a shell line:
    // refused in one line naming it, before anything is written (with --dry-run too).
    void aSlurmArgWithALineBreakIsRefused_data() {
        QTest::addColumn<QString>("arg");
        QTest::addColumn<QStringList>("more");
        QTest::addColumn<QString>("expected");
        const QString newline = "mlpwb: --slurm-arg \"--x\\nrm -rf y\": holds a newline";
        QTest::newRow("newline") << "--x\nrm -rf y" << QStringList() << newline;
        QTest::newRow("newline, dry run") << "--x\nrm -rf y" << QStringList({"--dry-run"}) << newline;
        QTest::newRow("carriage return") << "--x\rrm -rf y" << QStringList()
                                         << "mlpwb: --slurm-arg \"--x\\rrm -rf y\": holds a carriage return";
    }
    void aSlurmArgWithALineBreakIsRefused() {
        QFETCH(QString, arg);
        QFETCH(QStringList, more);
        QFETCH(QString, expected);
        RUN_MLPWB(r, QStringList({"sweep", "grid.yaml", "--out", "never", "--engine", "slurm",
                                  "--slurm-arg=--partition=gpu", "--slurm-arg", arg}) +
                         more + kQuickBase);
        QCOMPARE(r.exitCode, 4);
        QVERIFY2(r.errLines().size() == 1 && r.errLines().first().startsWith(expected), r.describe());
        QVERIFY(r.out.isEmpty());
        QVERIFY(!QFileInfo::exists(path("never")));
    }

    // The same from a sweep.json someone else wrote: `resume` refuses it before it writes a script.
    void aSlurmArgWithALineBreakInSweepJsonIsRefused_data() {
        QTest::addColumn<QByteArray>("arg");
        QTest::addColumn<QString>("expected");
        QTest::newRow("newline") << QByteArray("--x\nrm -rf y")
                                 << "mlpwb: sweep.json: engine.slurm_args \"--x\\nrm -rf y\": holds a newline";
        QTest::newRow("carriage return") << QByteArray("--x\rrm -rf y")
                                         << "mlpwb: sweep.json: engine.slurm_args \"--x\\rrm -rf y\": holds a "
                                            "carriage return";
        QTest::newRow("NUL") << QByteArray("--x\0rm -rf y", 12)
                             << "mlpwb: sweep.json: engine.slurm_args \"--x\\0rm -rf y\": holds a NUL byte";
    }
    void aSlurmArgWithALineBreakInSweepJsonIsRefused() {
        QFETCH(QByteArray, arg);
        QFETCH(QString, expected);
        const QString dir = path("tampered-" + QString(QTest::currentDataTag()).replace(' ', '-'));
        RUN_MLPWB(made, QStringList({"sweep", "grid.yaml", "--out", dir}) + kQuickBase);
        QCOMPARE(made.exitCode, 0);
        auto plan = readJson(dir + "/sweep.json");
        plan["engine"]["kind"] = "slurm";
        plan["engine"]["slurm_args"] = {"--partition=gpu", arg.toStdString()};
        writeText(dir + "/sweep.json", QByteArray::fromStdString(plan.dump(1)));
        QFile::remove(dir + "/trials/0005/state.json");  // one trial left to resume
        RUN_MLPWB(r, QStringList({"sweep", "resume", dir}));
        QCOMPARE(r.exitCode, 4);
        QVERIFY2(r.errLines().size() == 1 && r.errLines().first().startsWith(expected), r.describe());
        QVERIFY(QDir(dir).entryList({"submit-*.sh"}).isEmpty());
    }

    // The batch script `--dry-run --engine slurm` prints, for a folder, a sweep name and an sbatch
    // option full of shell syntax: bash reads one command, and (a stub in mlpwb's place) its
    // arguments arrive intact; nothing else runs.
    void theSlurmScriptRunsOneIntactCommand() {
        const QString hostile = "d$(touch${IFS}MARKER)`touch${IFS}MARKER`;&|*?[x]~!";
        const QString option = "--comment=$(touch MARKER) `touch MARKER`; touch MARKER | x && y '\"";
        writeText(path("hostile.yaml"),
                  "name: \"n'; touch MARKER; '\"\nmethod: grid\nparameters:\n"
                  "  lr: {values: [0.001, 0.003]}\n");
        RUN_MLPWB(r, QStringList({"sweep", "hostile.yaml", "--out", hostile, "--engine", "slurm", "--slurm-arg", option,
                                  "--dry-run"}) +
                         kQuickBase);
        QVERIFY2(r.exitCode == 0, r.describe());
        std::string script = r.out.toStdString();
        QVERIFY2(script.find("\n#SBATCH " + option.toStdString() + "\n") != std::string::npos, r.describe());
        const std::size_t exec = script.find("\nexec ");
        QVERIFY2(exec != std::string::npos, r.describe());
        for (std::size_t at = 0; at < exec; at = script.find('\n', at) + 1)  // #!, # and #SBATCH lines only
            QVERIFY2(script[at] == '#', r.describe());
        // mlpwb's place, taken by a stub that prints its arguments.
        const std::string program = wb::shellQuote(QFileInfo(WB_MLPWB_PATH).canonicalFilePath().toStdString());
        QVERIFY2(script.compare(exec + 6, program.size(), program) == 0, r.describe());
        const QString stub = path("stub-mlpwb");
        writeText(stub, "#!/bin/sh\nexec printf '%s\\0' \"$@\"\n");
        QVERIFY(QFile::setPermissions(stub, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        script.replace(exec + 6, program.size(), wb::shellQuote(stub.toStdString()));
        writeText(path("submit.sh"), QByteArray::fromStdString(script));
        QProcess bash;
        bash.setWorkingDirectory(dir_.path());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("SLURM_ARRAY_TASK_ID", "3");
        bash.setProcessEnvironment(env);
        bash.start("/bin/bash", {path("submit.sh")});
        QVERIFY(bash.waitForFinished(60000));
        const QString folder = QFileInfo(dir_.path()).canonicalFilePath() + "/" + hostile;
        QByteArray expected;  // printf '%s\0': each argument, then a NUL
        for (const QString& a :
             {QString("sweep"), QString("run-trial"), folder, QString("3"), QString("--engine"), QString("slurm")})
            expected += a.toUtf8() + '\0';
        QCOMPARE(bash.readAllStandardOutput(), expected);
        QVERIFY(!QFileInfo::exists(path("MARKER")));
        QVERIFY(!QFileInfo::exists(path(hostile)));
    }

    void theDocumentedExamplesAreAccepted_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("trials");
        QTest::newRow("grid with repeats") << "batch-and-lr.yaml" << 27;
        QTest::newRow("random search") << "random-search.yaml" << 30;
        QTest::newRow("execution switches") << "execution-switches.yaml" << 12;
        QTest::newRow("hyperband") << "hyperband-lr-wd.yaml" << 27;
    }
    void theDocumentedExamplesAreAccepted() {
        QFETCH(QString, file);
        QFETCH(int, trials);
        const QString spec = QStringLiteral(QT_TESTCASE_SOURCEDIR "/../docs/sweeps/") + file;
        RUN_MLPWB(r, QStringList({"sweep", spec, "--out", "never", "--dry-run", "--builtin", "--val-split", "0.2"}));
        QVERIFY2(r.exitCode == 0, r.describe());
        QVERIFY2(r.err.contains("sweep: " + QByteArray::number(trials) + " trials"), r.describe());
        QCOMPARE(r.outLines().size(), trials);
    }

    void badBaseOptionsAreNamedAsSuch() {
        RUN_MLPWB(r, QStringList({"sweep", "grid.yaml", "--out", "never", "--builtin", "--activation", "swish"}));
        QCOMPARE(r.exitCode, 4);
        QVERIFY2(r.err.contains("the base options"), r.describe());
        QVERIFY(!QFileInfo::exists(path("never")));
    }

    void aSecondDriverIsRefused() {
        RUN_MLPWB(first, QStringList({"sweep", "grid.yaml", "--out", "locked"}) + kQuickBase);
        QCOMPARE(first.exitCode, 0);
        auto lock = wb::sweep::FolderLock::tryAcquire(path("locked/driver.lock").toStdString());
        QVERIFY(lock.has_value());  // this test is the driver now
        RUN_MLPWB(second, QStringList({"sweep", "resume", "locked"}));
        QCOMPARE(second.exitCode, 10);
        QVERIFY2(second.err.contains("is being driven by another mlpwb sweep (pid"), second.describe());
        RUN_MLPWB(again, QStringList({"sweep", "grid.yaml", "--out", "locked"}) + kQuickBase);
        QCOMPARE(again.exitCode, 4);  // an existing sweep is never overwritten
        QVERIFY2(again.err.contains("already holds a sweep"), again.describe());
    }

    void resumeFinishesAfterTheDriverAndATrialAreKilled() {
        QProcess driver;
        startSweep(driver, "grid.yaml", "k", QStringList({"--jobs", "1"}) + kSlowBase);
        const QString dir = path("k");
        killDriverAndTrial(driver, dir, 1, 120);
        if (QTest::currentTestFailed()) return;
        const auto killed = statusOf(dir);
        QCOMPARE(statesOf(killed).at(0), QString("completed"));
        QCOMPARE(statesOf(killed).at(1), QString("failed"));  // `running`, its process gone: interrupted
        QVERIFY(str(killed.at("trials").at(1).at("error")).contains("interrupted"));
        RUN_MLPWB(resumed, QStringList({"sweep", "resume", "k"}));
        QVERIFY2(resumed.exitCode == 0, resumed.describe());
        const auto status = statusOf(dir);
        QCOMPARE(statesOf(status), QStringList(6, "completed"));
        QCOMPARE(status.at("trials").at(0).at("attempt").get<int>(), 1);  // completed work is kept
        QCOMPARE(status.at("trials").at(1).at("attempt").get<int>(), 2);  // the killed one ran again
    }

    void ctrlCCancelsCleanly() {
        QProcess driver;
        startSweep(driver, "grid.yaml", "c", QStringList({"--jobs", "2"}) + kSlowBase);
        const QString dir = path("c");
        QVERIFY(waitFor([&] { return str(trialState(dir, 0)["state"]) == "running"; }, 120));
        ::kill(static_cast<pid_t>(driver.processId()), SIGINT);
        QVERIFY(driver.waitForFinished(60000));
        QCOMPARE(driver.exitCode(), 130);
        QVERIFY(driver.readAllStandardError().contains("mlpwb sweep resume"));
        const QStringList states = statesOf(statusOf(dir));
        QVERIFY2(!states.contains("running"), qPrintable(states.join(' ')));  // each stopped trial says so
        QVERIFY2(states.contains("cancelled") || states.contains("completed"), qPrintable(states.join(' ')));
        QVERIFY2(states.contains("pending"), qPrintable(states.join(' ')));  // what did not start waits
        RUN_MLPWB(resumed, QStringList({"sweep", "resume", "c"}));
        QVERIFY2(resumed.exitCode == 0, resumed.describe());
        QCOMPARE(statesOf(statusOf(dir)), QStringList(6, "completed"));
    }

    // The sweep's --python is the one its trials' frameworks are asked in (it was python3 whatever
    // the sweep said): a trial that cannot run says why with the interpreter the user named.
    void theTrialsAskTheSweepsPython() {
        writeText(path("one.yaml"), "method: grid\nparameters:\n  lr: {values: [0.001]}\n");
        const QString python = path("no-such-python");
        RUN_MLPWB(r, QStringList({"sweep", "one.yaml", "--out", "py", "--backend", "torch", "--python", python}) +
                         kQuickBase);
        QVERIFY2(r.exitCode != 0, r.describe());
        const auto status = statusOf(path("py"));
        QCOMPARE(statesOf(status), QStringList({"failed"}));
        const QString error = str(status.at("trials").at(0).at("error"));
        QVERIFY2(error.contains(python), qPrintable(error));
    }

    void repeatsRunEachPointWithOtherSeeds() {
        writeText(path("rep.yaml"),
                  "method: grid\nrepeats: 3\nmetric: {name: train_loss}\nparameters:\n  lr: {values: [0.01]}\n");
        RUN_MLPWB(r, QStringList({"sweep", "rep.yaml", "--out", "rep", "--seed", "5"}) + kQuickBase);
        QVERIFY2(r.exitCode == 0, r.describe());
        const auto plan = readJson(path("rep/sweep.json"));
        const auto status = statusOf(path("rep"));
        QCOMPARE(plan.at("trials").at(0).at("config").at("train").at("seed").get<int>(), 5);
        QCOMPARE(plan.at("trials").at(2).at("config").at("train").at("seed").get<int>(), 7);
        const double a = status.at("trials").at(0).at("train_loss").get<double>();
        const double b = status.at("trials").at(1).at("train_loss").get<double>();
        QVERIFY(a != b);
        RUN_MLPWB(report, QStringList({"sweep", "report", "rep", "--format", "json"}));
        const auto j = nlohmann::json::parse(report.out.toStdString(), nullptr, false);
        const auto& value = j.at("effects").at(0).at("values").at(0);
        QCOMPARE(value.at("trials").get<int>(), 3);
        QVERIFY(value.at("min").get<double>() < value.at("max").get<double>());  // the spread over repeats
    }

    // W&B's metric.target: once a trial reaches it no new trial starts (one at a time here, so the
    // first reaches a target every run reaches, and the others are cancelled saying why); W&B's own
    // keys are said to be ignored before anything runs.
    void aReachedTargetStartsNoNewTrial() {
        writeText(path("target.yaml"),
                  "program: train.py\nmethod: grid\nmetric: {name: train_loss, goal: minimize, target: 100}\n"
                  "parameters:\n  lr: {values: [0.01, 0.02, 0.03]}\n");
        RUN_MLPWB(r, QStringList({"sweep", "target.yaml", "--out", "tgt", "--jobs", "1"}) + kQuickBase);
        QVERIFY2(r.err.contains("target.yaml:1: program: ignored: each trial runs `mlpwb train`"), r.describe());
        const auto status = statusOf(path("tgt"));
        QCOMPARE(statesOf(status), (QStringList{"completed", "cancelled", "cancelled"}));
        QVERIFY2(str(status.at("trials").at(2).at("error")).startsWith("metric.target 100 reached by trial 0"),
                 qPrintable(QString::fromStdString(status.at("trials").at(2).dump())));
        QCOMPARE(readJson(path("tgt/sweep.json")).at("metric").at("target").get<double>(), 100.0);
    }

    // W&B's hyperband, one trial at a time (a grid with early termination runs in an order drawn with
    // its seed): the first trial reaches the rung (epoch 2) alone and goes on; the learning rate that
    // learns goes on wherever it comes; a learning rate too small to learn that comes after it is worse
    // there than the best third and stops, its record kept and ending at the rung. Resume restarts
    // none; status and report count the epochs saved (4 of each stopped trial's 6).
    void losingTrialsStopAtTheirRung() {
        writeText(path("hb.yaml"),
                  "method: grid\nmetric: {name: train_loss}\nearly_terminate: {type: hyperband, min_iter: 2, eta: 3}\n"
                  "parameters:\n  lr: {values: [0.01, 1.0e-6, 1.0e-7]}\n");
        RUN_MLPWB(r,
                  QStringList({"sweep", "hb.yaml", "--out", "hb", "--jobs", "1", "--batch-size", "64"}) + kQuickBase);
        QVERIFY2(r.exitCode == 0, r.describe());
        const auto status = statusOf(path("hb"));
        const auto& trials = status.at("trials");
        int learner = -1, stopped = 0;
        for (const auto& t : trials)
            if (t.at("parameters").at("lr").get<double>() == 0.01) learner = t.at("id").get<int>();
        QVERIFY(learner >= 0);
        QCOMPARE(str(trials.at(learner).at("state")), QString("completed"));
        for (const auto& t : trials) {
            const int id = t.at("id").get<int>();
            if (id == 0 || id == learner) continue;
            if (id < learner) continue;  // a small learning rate before the learner may go on
            const QString dump = QString::fromStdString(t.dump());
            QCOMPARE(str(t.at("state")), QString("stopped"));
            QCOMPARE(t.at("stopped_at_epoch").get<int>(), 2);
            QCOMPARE(t.at("epochs").get<int>(), 2);
            QVERIFY2(str(t.at("error")).startsWith("hyperband rung 1 of 1 (epoch 2): train_loss "), qPrintable(dump));
            const QString folder = QString("hb/trials/%1/").arg(id, 4, 10, QChar('0'));
            QCOMPARE(str(readJson(path(folder + "run.json")).at("status")), QString("stopped"));
            QCOMPARE(readJson(path(folder + "rungs.json")).at("rungs").at(0).at("decision").get<std::string>(),
                     std::string("stop"));
        }
        for (const auto& t : trials) stopped += str(t.at("state")) == "stopped" ? 1 : 0;
        QVERIFY(learner == 0 || stopped > 0);
        QCOMPARE(status.at("early_termination").at("saved_epochs").get<int>(), 4 * stopped);
        QCOMPARE(status.at("early_termination").at("planned_epochs").get<int>(), 18);
        RUN_MLPWB(resumed, QStringList({"sweep", "resume", "hb"}));
        QVERIFY2(resumed.exitCode == 0 && resumed.err.contains("resuming 0 of 3 trials"), resumed.describe());
        RUN_MLPWB(text, QStringList({"sweep", "report", "hb"}));
        QVERIFY2(text.out.contains(
                     QString("Early termination: hyperband (min_iter 2, eta 3): %1 trial").arg(stopped).toUtf8()),
                 text.describe());
        QVERIFY2(text.out.contains(QString("Best: trial %1").arg(learner).toUtf8()), text.describe());
    }

    // method: bayes where the sweep's Python has no Optuna: refused before anything runs, with the
    // command that installs it (-S hides every installed package, Optuna too, wherever it is).
    void bayesWithoutOptunaIsRefusedBeforeAnythingRuns() {
        const QString python = path("python-without-packages");
        writeText(python, "#!/bin/sh\nexec python3 -S \"$@\"\n");
        QFile::setPermissions(python, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        writeText(path("bayes.yaml"), kBayesSpec);
        RUN_MLPWB(r, QStringList({"sweep", "bayes.yaml", "--out", "nb", "--python", python}) + kQuickBase);
        QCOMPARE(r.exitCode, 4);
        QVERIFY2(r.err.contains("cannot import optuna") && r.err.contains(python.toUtf8() + " -m pip install optuna"),
                 r.describe());
        QVERIFY(!QFileInfo::exists(path("nb")));
        RUN_MLPWB(missing,
                  QStringList({"sweep", "bayes.yaml", "--out", "nb", "--python", path("no-such-python")}) + kQuickBase);
        QCOMPARE(missing.exitCode, 4);
        QVERIFY2(missing.err.contains("cannot be started"), missing.describe());
        QVERIFY(!QFileInfo::exists(path("nb")));
    }

    // method: bayes end to end in a Python with Optuna: run_cap trials, suggested batch by batch into
    // sweep.json, each within its parameter's range and list.
    void bayesSuggestsRunCapTrialsWithinTheSpace() {
        const QString python = optunaPython();
        if (python.isEmpty()) QSKIP("no Python with Optuna: set MLPWB_TEST_OPTUNA_PYTHON (scripts/ci-venv.sh has one)");
        writeText(path("bayes.yaml"), kBayesSpec);
        RUN_MLPWB(r, QStringList({"sweep", "bayes.yaml", "--out", "by", "--python", python}) + kQuickBase);
        QVERIFY2(r.exitCode == 0, r.describe());
        QVERIFY2(r.err.contains("TPESampler) suggests trials 0-1 of 6"), r.describe());
        const auto plan = readJson(path("by/sweep.json"));
        QCOMPARE(plan.at("method").get<std::string>(), std::string("bayes"));
        QCOMPARE(plan.at("trials").size(), std::size_t(6));
        for (const auto& t : plan.at("trials")) {
            const double lr = t.at("parameters").at("lr").get<double>();
            QVERIFY2(lr >= 1e-4 && lr <= 1e-1, qPrintable(QString::number(lr)));
            const int batch = t.at("parameters").at("batch_size").get<int>();
            QVERIFY(batch == 256 || batch == 1024);
            QVERIFY(t.at("suggestion").at("lr").is_number());
        }
        QCOMPARE(statesOf(statusOf(path("by"))), QStringList(6, "completed"));

        // A folder from elsewhere that names its own Python: resume never runs it unless the user
        // names it. Here it asks for one more trial, and its --python would leave a marker.
        const QString marker = path("ran-the-folders-python");
        const QString evil = path("folders-python");
        writeText(evil, ("#!/bin/sh\ntouch '" + marker + "'\nexit 1\n").toUtf8());
        QFile::setPermissions(evil, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        auto edited = plan;
        edited["spec"] = str(plan.at("spec")).replace("run_cap: 6", "run_cap: 7").toStdString();
        edited["run_cap"] = 7;
        for (auto& a : edited["base_args"])
            if (str(a).startsWith("--python=")) a = "--python=" + evil.toStdString();
        writeText(path("by/sweep.json"), QByteArray::fromStdString(edited.dump(1)));
        RUN_MLPWB(resumed, QStringList({"sweep", "resume", "by", "--python", python}));
        QVERIFY2(resumed.exitCode == 0, resumed.describe());
        QVERIFY2(resumed.err.contains("the sweep was started with " + evil.toUtf8()), resumed.describe());
        QCOMPARE(statesOf(statusOf(path("by"))), QStringList(7, "completed"));
        QVERIFY(!QFileInfo::exists(marker));
    }

    // A kill -9 of a bayes driver (and of the trial it ran): resume rebuilds the study from the folder,
    // runs the interrupted trial again and asks for the rest, repeating no completed trial and
    // stopping at run_cap.
    void bayesResumesAfterKill9WithoutRepeatingATrial() {
        const QString python = optunaPython();
        if (python.isEmpty()) QSKIP("no Python with Optuna: set MLPWB_TEST_OPTUNA_PYTHON (scripts/ci-venv.sh has one)");
        writeText(path("bayes.yaml"), kBayesSpec);
        QProcess driver;
        startSweep(driver, "bayes.yaml", "bk", QStringList({"--jobs", "1", "--python", python}) + kSlowBase);
        const QString dir = path("bk");
        killDriverAndTrial(driver, dir, 1, 180);
        if (QTest::currentTestFailed()) return;
        const auto before = readJson(path("bk/sweep.json")).at("trials");
        // The folder's own --python is not run by resume unless named again.
        RUN_MLPWB(resumed, QStringList({"sweep", "resume", "bk", "--python", python}));
        QVERIFY2(resumed.exitCode == 0, resumed.describe());
        const auto after = readJson(path("bk/sweep.json")).at("trials");
        QCOMPARE(after.size(), std::size_t(6));
        for (std::size_t i = 0; i < before.size(); ++i)
            QCOMPARE(after.at(i).at("suggestion"), before.at(i).at("suggestion"));  // the folder's trials stand
        const auto status = statusOf(dir);
        QCOMPARE(statesOf(status), QStringList(6, "completed"));
        QCOMPARE(status.at("trials").at(0).at("attempt").get<int>(), 1);  // completed work is kept
        QCOMPARE(status.at("trials").at(1).at("attempt").get<int>(), 2);  // the killed one ran again
    }

    void reportNamesTheBestTrial() {
        RUN_MLPWB(r, QStringList({"sweep", "grid.yaml", "--out", "rp"}) + kQuickBase);
        QCOMPARE(r.exitCode, 0);
        const auto status = statusOf(path("rp"));
        int best = -1;
        double bestLoss = 1e300;
        for (const auto& t : status.at("trials"))
            if (t.at("val_loss").get<double>() < bestLoss) {
                bestLoss = t.at("val_loss").get<double>();
                best = t.at("id").get<int>();
            }
        RUN_MLPWB(json, QStringList({"sweep", "report", "rp", "--format", "json"}));
        QCOMPARE(nlohmann::json::parse(json.out.toStdString()).at("best").at("id").get<int>(), best);
        RUN_MLPWB(csv, QStringList({"sweep", "report", "rp", "--format", "csv", "--out", "effects.csv"}));
        QCOMPARE(csv.exitCode, 0);
        QFile f(path("effects.csv"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 6);  // header + 2 batch sizes + 3 learning rates
        QVERIFY(lines.at(1).startsWith("batch_size,256,3,3,"));
        RUN_MLPWB(text, QStringList({"sweep", "report", "rp"}));
        QVERIFY2(text.out.contains(QStringLiteral("Best: trial %1").arg(best).toUtf8()), text.describe());
    }

    void dryRunPrintsTheSlurmScriptAndWritesNothing() {
        RUN_MLPWB(r, QStringList({"sweep", "grid.yaml", "--out", "dry", "--engine", "slurm", "--max-parallel", "2",
                                  "--slurm-arg=--partition=gpu", "--slurm-arg=--gres=gpu:1", "--dry-run"}) +
                         kQuickBase);
        QVERIFY2(r.exitCode == 0, r.describe());
        QVERIFY2(r.out.contains("#SBATCH --array=0-5%2\n"), r.describe());
        QVERIFY(r.out.contains("#SBATCH --partition=gpu\n"));
        QVERIFY(r.out.contains("#SBATCH --gres=gpu:1\n"));
        QVERIFY(r.out.contains("sweep run-trial"));
        QVERIFY(!QFileInfo::exists(path("dry")));
    }
};

QTEST_GUILESS_MAIN(TestCliSweep)
#include "tst_cli_sweep.moc"
