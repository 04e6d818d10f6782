// A sweep folder from someone else, tried as an attacker would, through the built mlpwb: links
// planted where a sweep writes (state, trial folder, log, record, locks) never lead a write out of
// the folder (the files they point to keep every byte); a damaged state.json blocks no other trial
// and never crashes status, report or resume; a corrupted trial configuration is refused, never
// trained with defaults; a stale `running` state whose pid belongs to a live process does not keep
// resume waiting; and of two drivers racing for one new folder exactly one goes on.
#include <QtTest>

#include <unistd.h>

#include <filesystem>

#include "tests/cli_runner.h"
#include "tests/sweep_support.h"
#include "tests/test_support.h"

namespace {
constexpr int kTimeoutMs = 240000;
const QStringList kQuickBase = {"--builtin", "--rows", "2000", "--epochs", "4", "--val-split", "0.2"};
const QByteArray kPrecious = "precious: not yours to write\n";

QString trialFile(const QString& dir, int id, const QString& name) {
    return dir + QStringLiteral("/trials/%1/").arg(id, 4, 10, QChar('0')) + name;
}
}  // namespace

class TestCliSweepHostile : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString path(const QString& name) const { return dir_.path() + "/" + name; }

    // A completed 2 x 3 grid in DIR, then trial `pending` set back to pending (its state removed).
    void completedSweep(const QString& name) {
        RUN_MLPWB(r, QStringList({"sweep", "grid.yaml", "--out", name}) + kQuickBase);
        QVERIFY2(r.exitCode == 0, r.describe());
    }
    void makePending(const QString& dir, int id) {
        QFile::remove(trialFile(dir, id, "state.json"));
        QFile::remove(trialFile(dir, id, "run.json"));
    }
    // A file outside every sweep folder that nothing may write.
    QString victim(const QString& name) {
        const QString p = path("outside/" + name);
        QDir().mkpath(path("outside"));
        writeText(p, kPrecious);
        return p;
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        writeText(path("grid.yaml"), kGridSpec);
    }

    // Each planted link: resume runs the other trials, and the file the link points to is untouched.
    void plantedLinksAreNeverWrittenThrough_data() {
        QTest::addColumn<QString>("planted");   // in trial 1's folder, or the folder itself
        QTest::addColumn<QString>("expected");  // in resume's output
        QTest::newRow("state.json") << "state.json"
                                    << "not resumed";
        QTest::newRow("log.txt") << "log.txt"
                                 << "symbolic link";
        QTest::newRow("run.json") << "run.json"
                                  << "";
        QTest::newRow("run.json.epochs.jsonl") << "run.json.epochs.jsonl"
                                               << "";
        QTest::newRow("trial.lock") << "trial.lock"
                                    << "symbolic link";
        QTest::newRow("the trial folder") << ""
                                          << "symbolic link";
    }
    void plantedLinksAreNeverWrittenThrough() {
        QFETCH(QString, planted);
        QFETCH(QString, expected);
        const QString name = "links-" + QString(QTest::currentDataTag()).replace(' ', '-');
        completedSweep(name);
        const QString dir = path(name);
        makePending(dir, 1);
        const QString target = victim(name + ".victim");
        const QString at = planted.isEmpty() ? trialFile(dir, 1, "").chopped(1) : trialFile(dir, 1, planted);
        if (planted.isEmpty()) {
            QVERIFY(QDir(at).removeRecursively());
            QDir().mkpath(path("outside/" + name + "-folder"));
            QVERIFY(QFile::link(path("outside/" + name + "-folder"), at));
        } else {
            QFile::remove(at);
            QVERIFY(QFile::link(target, at));
        }
        RUN_MLPWB(resumed, QStringList({"sweep", "resume", name}));
        QVERIFY2(expected.isEmpty() || resumed.err.contains(expected.toUtf8()), resumed.describe());
        QCOMPARE(readAll(target).toUtf8(), kPrecious);
        if (planted.isEmpty()) QVERIFY(QDir(path("outside/" + name + "-folder")).isEmpty());
        const QStringList states = statesOf(readJsonStatus(name));
        QCOMPARE(states.size(), 6);
        for (int id : {0, 2, 3, 4, 5}) QCOMPARE(states.at(id), QString("completed"));
        if (planted.startsWith("run.json")) {  // the link removed, a record of its own written
            QCOMPARE(states.at(1), QString("completed"));
            QVERIFY(!QFileInfo(trialFile(dir, 1, "run.json")).isSymLink());
        } else {
            QVERIFY2(states.at(1) != "completed", qPrintable(states.join(' ')));
        }
    }

    // A lock of the driver planted as a link: refused, the file untouched.
    void aPlantedDriverLockIsRefused() {
        completedSweep("driver-link");
        const QString target = victim("driver.victim");
        QFile::remove(path("driver-link/driver.lock"));
        QVERIFY(QFile::link(target, path("driver-link/driver.lock")));
        RUN_MLPWB(resumed, QStringList({"sweep", "resume", "driver-link"}));
        QCOMPARE(resumed.exitCode, 6);
        QVERIFY2(resumed.errLines().size() == 1 && resumed.err.contains("symbolic link"), resumed.describe());
        QCOMPARE(readAll(target).toUtf8(), kPrecious);
    }

    void aDamagedStateBlocksNothing() {
        completedSweep("damaged");
        writeText(trialFile(path("damaged"), 2, "state.json"), "{\"state\": 5}");
        makePending(path("damaged"), 4);
        RUN_MLPWB(status, QStringList({"sweep", "status", "damaged"}));
        QCOMPARE(status.exitCode, 0);
        QVERIFY2(status.out.contains("damaged") && status.out.contains("state: expected a string"), status.describe());
        RUN_MLPWB(report, QStringList({"sweep", "report", "damaged"}));
        QCOMPARE(report.exitCode, 0);
        QVERIFY2(report.out.contains("1 damaged"), report.describe());
        RUN_MLPWB(resumed, QStringList({"sweep", "resume", "damaged"}));
        QCOMPARE(resumed.exitCode, 0);
        QVERIFY2(resumed.err.contains("trial 2 not resumed") && resumed.err.contains("resuming 1 of 6"),
                 resumed.describe());
        const QStringList states = statesOf(readJsonStatus("damaged"));
        QCOMPARE(states.at(4), QString("completed"));
        QCOMPARE(states.at(2), QString("damaged"));
        QCOMPARE(readAll(trialFile(path("damaged"), 2, "state.json")), QString("{\"state\": 5}"));  // kept
        // An error from the file goes to the terminal written out, never as an escape sequence.
        writeText(trialFile(path("damaged"), 5, "state.json"),
                  "{\"state\": \"failed\", \"error\": \"\\u001b[2J boom\"}");
        RUN_MLPWB(table, QStringList({"sweep", "status", "damaged"}));
        QVERIFY2(table.out.contains("\\x1b[2J boom") && !table.out.contains('\x1b'), table.describe());
        RUN_MLPWB(trial, QStringList({"sweep", "run-trial", "damaged", "2"}));
        QCOMPARE(trial.exitCode, 3);
        QVERIFY2(trial.errLines().size() == 1 && trial.err.contains("repair or remove it"), trial.describe());
    }

    void aCorruptedTrialConfigurationIsRefused_data() {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<QString>("expected");
        QTest::newRow("a string") << QByteArray("\"x\"") << "expected a run configuration";
        QTest::newRow("a part") << QByteArray("{\"epochs\": -5}") << "not a whole run configuration";
        QTest::newRow("a wrong kind") << QByteArray() << "train.epochs: expected a number";
        QTest::newRow("a refused value") << QByteArray("-5") << "epochs";
    }
    void aCorruptedTrialConfigurationIsRefused() {
        QFETCH(QByteArray, config);
        QFETCH(QString, expected);
        const QString name = "config-" + QString(QTest::currentDataTag()).replace(' ', '-');
        completedSweep(name);
        makePending(path(name), 3);
        auto plan = readJson(path(name + "/sweep.json"));
        auto& trial = plan["trials"][3]["config"];
        if (config.isEmpty())
            trial["train"]["epochs"] = "four";
        else if (config == "-5")
            trial["train"]["epochs"] = -5;
        else
            trial = nlohmann::json::parse(config.toStdString());
        writeText(path(name + "/sweep.json"), QByteArray::fromStdString(plan.dump(1)));
        RUN_MLPWB(resumed, QStringList({"sweep", "resume", name}));
        QCOMPARE(resumed.exitCode, 8);
        const auto status = readJsonStatus(name);
        QCOMPARE(statesOf(status).at(3), QString("failed"));
        const QString error = str(status.at("trials").at(3).at("error"));
        QVERIFY2(error.contains("trials[3].config") && error.contains(expected), qPrintable(error));
        QVERIFY(!QFileInfo::exists(trialFile(path(name), 3, "run.json")));  // nothing was trained
    }

    // A state that says running, on this host, with the pid of a live process that is no trial
    // (this test): its lock is free, so it reads interrupted and resume runs it, without waiting.
    void aStalePidOfALiveProcessDoesNotHoldResume() {
        completedSweep("stale");
        auto state = readJson(trialFile(path("stale"), 0, "state.json"));
        state["state"] = "running";
        state["pid"] = static_cast<long>(::getpid());
        writeText(trialFile(path("stale"), 0, "state.json"), QByteArray::fromStdString(state.dump()));
        QFile::remove(trialFile(path("stale"), 0, "run.json"));
        RUN_MLPWB(resumed, QStringList({"sweep", "resume", "stale"}));
        QVERIFY2(resumed.exitCode == 0, resumed.describe());
        QVERIFY2(resumed.err.contains("resuming 1 of 6"), resumed.describe());
        QCOMPARE(statesOf(readJsonStatus("stale")), QStringList(6, "completed"));
    }

    // Two drivers on one new folder, each with its own spec: one trains its sweep, the other is
    // refused (busy, or the folder already holds a sweep), and every record is the winner's.
    void racingDriversOneGoesOn() {
        writeText(path("a.yaml"), "method: grid\nparameters:\n  lr: {values: [0.001, 0.002]}\n");
        writeText(path("b.yaml"), "method: grid\nparameters:\n  lr: {values: [0.05, 0.06]}\n");
        for (int round = 0; round < 5; ++round) {
            const QString out = QStringLiteral("race%1").arg(round);
            QProcess a, b;
            for (auto* p : {&a, &b}) p->setWorkingDirectory(dir_.path());
            a.start(QStringLiteral(WB_MLPWB_PATH), QStringList({"sweep", "a.yaml", "--out", out}) + kQuickBase);
            b.start(QStringLiteral(WB_MLPWB_PATH), QStringList({"sweep", "b.yaml", "--out", out}) + kQuickBase);
            QVERIFY(a.waitForFinished(kTimeoutMs) && b.waitForFinished(kTimeoutMs));
            const int codes[2] = {a.exitCode(), b.exitCode()};
            QVERIFY2((codes[0] == 0) != (codes[1] == 0),
                     qPrintable(QStringLiteral("exit codes %1 and %2").arg(codes[0]).arg(codes[1])));
            const int loser = codes[0] == 0 ? codes[1] : codes[0];
            QVERIFY2(loser == 10 || loser == 4, qPrintable(QString::number(loser)));
            const auto plan = readJson(path(out + "/sweep.json"));
            const bool aWon = codes[0] == 0;
            QCOMPARE(str(plan.at("spec_file")), aWon ? QString("a.yaml") : QString("b.yaml"));
            for (int id : {0, 1}) {
                const double lr =
                    readJson(trialFile(path(out), id, "run.json")).at("config").at("optimizer").at("lr").get<double>();
                QVERIFY2(aWon ? lr < 0.01 : lr > 0.01, qPrintable(QString::number(lr)));
            }
        }
    }

    // The dry run's lines are for pasting: run under bash with a stand-in mlpwb, each argument
    // arrives whole, and what a value says (quotes, ;, $( ), a newline) runs nothing.
    void dryRunLinesArePastedSafely() {
        const QString marker = path("pasted-marker");
        // A data file's name from elsewhere: a quote, a command, a line break.
        const QString name = "x'; touch pasted-marker; '$(touch pasted-marker)`touch pasted-marker`\nls.csv";
        QByteArray rows = "a,b,y\n";
        for (int i = 0; i < 40; ++i)
            rows += QByteArray::number(i) + "," + QByteArray::number(i % 7) + "," + (i % 2 ? "1\n" : "0\n");
        writeText(path(name), rows);
        RUN_MLPWB(r, QStringList({"sweep", "grid.yaml", "--out", "never", "--dry-run", "--data", name, "--epochs", "2",
                                  "--val-split", "0.2"}));
        QVERIFY2(r.exitCode == 0, r.describe());
        QDir().mkpath(path("stub"));
        writeText(path("stub/mlpwb"), "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done\n");
        QFile::setPermissions(path("stub/mlpwb"), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        // Trial 0's command: a quoted newline stays inside its quotes, so it ends where trial 1's begins.
        QVERIFY2(r.out.startsWith("0: ") && r.out.contains("\n1: "), r.describe());
        const QByteArray first = r.out.mid(3, r.out.indexOf("\n1: ") - 3);
        QProcess bash;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("PATH", path("stub") + ":" + env.value("PATH"));
        bash.setProcessEnvironment(env);
        bash.setWorkingDirectory(dir_.path());
        bash.start("/bin/bash", {"-c", QString::fromUtf8(first)});
        QVERIFY(bash.waitForFinished(30000));
        const QList<QByteArray> args = bash.readAllStandardOutput().split('\0');
        QVERIFY2(args.contains(("--data=" + name).toUtf8()), qPrintable(QString::fromUtf8(first)));
        QVERIFY(!QFileInfo::exists(marker));
    }

private:
    nlohmann::json readJsonStatus(const QString& name) {
        const MlpwbResult r = runMlpwb({"sweep", "status", name, "--json"}, dir_.path(), kTimeoutMs);
        if (r.exitCode != 0) return nullptr;
        return nlohmann::json::parse(r.out.toStdString(), nullptr, false);
    }
};

QTEST_GUILESS_MAIN(TestCliSweepHostile)
#include "tst_cli_sweep_hostile.moc"
