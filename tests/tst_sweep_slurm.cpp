// The SLURM engine against a real one-node cluster (munged, slurmctld, slurmd) that this suite
// starts in a temporary folder and stops at the end: a 2 x 3 grid through sbatch, one array task
// scancel'ed while it waits and one while it runs (both `cancelled`), `resume` finishing them, and
// results equal to a local run of the same spec; early termination through the shared folder; bayes
// in batches of the array's concurrency (where $MLPWB_TEST_OPTUNA_PYTHON has Optuna, as in CI). Skips, saying why, only
// where no cluster can be had (not root, slurm-wlm or munge not installed); with both there, a cluster that does not
// come up fails the suite with the daemons' logs, and a failed check prints their ends and keeps the folder.
#include <QtTest>

#include "tests/cli_runner.h"
#include "tests/sweep_support.h"

namespace {
constexpr int kTimeoutMs = 300000;
const QStringList kBase = {"--builtin", "--rows", "60000", "--epochs", "60", "--val-split", "0.2"};
}  // namespace

class TestSweepSlurm : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QTemporaryDir cluster_{QDir::tempPath() + "/mlpwb-slurm-XXXXXX"};
    bool started_ = false;
    bool failed_ = false;
    QString path(const QString& name) const { return dir_.path() + "/" + name; }

    // The end of each daemon's log, for a failure's message (the cluster's folder is kept too).
    QString daemonLogs() {
        cluster_.setAutoRemove(false);
        QString text = "the cluster's folder is kept: " + cluster_.path();
        for (const char* name : {"munged.log", "slurmctld.log", "slurmd.log"}) {
            QFile log(cluster_.path() + "/" + name);
            const QStringList lines =
                log.open(QIODevice::ReadOnly) ? QString::fromUtf8(log.readAll()).split('\n') : QStringList();
            text += "\n--- " + log.fileName() + " (its last 40 lines)\n" +
                    lines.mid(std::max<qsizetype>(0, lines.size() - 40)).join('\n');
        }
        return text;
    }

    static int run(const QStringList& argv) {
        QProcess p;
        p.start(argv.first(), argv.mid(1));
        if (!p.waitForFinished(60000)) return -1;
        return p.exitCode();
    }

    nlohmann::json statusOf(const QString& sweepDir) {
        const MlpwbResult r = runMlpwb({"sweep", "status", sweepDir, "--json"}, dir_.path(), kTimeoutMs);
        return r.exitCode == 0 ? nlohmann::json::parse(r.out.toStdString(), nullptr, false) : nlohmann::json();
    }

private slots:
    void initTestCase() {
        QProcess start;
        start.start(QStringLiteral(WB_SLURM_CLUSTER_SCRIPT), {"start", cluster_.path()});
        const bool finished = start.waitForFinished(120000);
        const QString err = QString::fromUtf8(start.readAllStandardError()).trimmed();
        if (finished && start.exitStatus() == QProcess::NormalExit && start.exitCode() == 77)
            QSKIP(qPrintable("no SLURM cluster here: " + err));
        // Installed and root, but no cluster: a broken set-up, never a skip. The script printed the
        // daemons' logs (err); the folder stays for a closer look.
        if (!finished || start.exitStatus() != QProcess::NormalExit || start.exitCode() != 0) {
            cluster_.setAutoRemove(false);
            const QString how = finished ? "exit " + QString::number(start.exitCode()) : "still starting after 120 s";
            QFAIL(qPrintable("the one-node cluster did not come up (" + how +
                             "); its folder is kept: " + cluster_.path() + "\n" + err));
        }
        started_ = true;
        // The clients (sbatch, squeue, scancel), mlpwb's included, find the cluster by SLURM_CONF.
        qputenv("SLURM_CONF", (cluster_.path() + "/slurm.conf").toUtf8());
        qputenv("PATH", qgetenv("PATH") + ":/usr/sbin");
        writeText(path("grid.yaml"), kGridSpec);
    }

    void cleanup() { failed_ = failed_ || QTest::currentTestFailed(); }

    void cleanupTestCase() {
        if (!started_) return;
        const int stopped = run({WB_SLURM_CLUSTER_SCRIPT, "stop", cluster_.path()});
        if (failed_) qWarning("%s", qPrintable(daemonLogs()));
        QCOMPARE(stopped, 0);
    }

    void aJobArrayRunsTheGridAndResumeFinishesWhatScancelStopped() {
        const QString dir = path("s");
        QProcess driver;
        driver.setWorkingDirectory(dir_.path());
        driver.start(
            QStringLiteral(WB_MLPWB_PATH),
            QStringList{"sweep", "grid.yaml", "--out", "s", "--engine", "slurm", "--max-parallel", "1"} + kBase);
        QVERIFY(driver.waitForStarted());
        // Trial 5 waits behind --max-parallel 1: cancel its task before it starts.
        QVERIFY2(waitFor([&] { return !str(trialState(dir, 5)["slurm_job"]).isEmpty(); }, 60),
                 driver.readAllStandardError());
        const QString waiting = str(trialState(dir, 5)["slurm_job"]);
        QCOMPARE(run({"scancel", waiting}), 0);
        // Trial 0 runs first: cancel its task once it trains (its record exists).
        QVERIFY(waitFor([&] { return QFileInfo::exists(dir + "/trials/0000/run.json"); }, 120));
        QCOMPARE(run({"scancel", str(trialState(dir, 0)["slurm_job"])}), 0);
        QVERIFY(driver.waitForFinished(kTimeoutMs));
        const QByteArray driverErr = driver.readAllStandardError();
        QVERIFY2(driver.exitCode() == 8, driverErr);  // not every trial completed
        QVERIFY2(driverErr.contains("submitted SLURM job"), driverErr);

        const auto cancelled = statusOf(dir);
        QCOMPARE(statesOf(cancelled),
                 QStringList({"cancelled", "completed", "completed", "completed", "completed", "cancelled"}));
        const QByteArray states = QByteArray::fromStdString(cancelled.dump(1));
        QVERIFY2(str(cancelled.at("trials").at(5).at("error")).contains("left the queue before it started"), states);
        // Trial 0 wrote its own end, though its task stayed in the queue (completing) a while after.
        QVERIFY2(str(cancelled.at("trials").at(0).at("error")).contains("cancelled during epoch"), states);
        QVERIFY(QFile::exists(dir + "/submit-0.sh"));

        RUN_MLPWB(resumed, QStringList({"sweep", "resume", "s"}));
        QVERIFY2(resumed.exitCode == 0, resumed.describe());
        QVERIFY2(resumed.err.contains("resuming 2 of 6 trials"), resumed.describe());
        QVERIFY(QFile::exists(dir + "/submit-1.sh"));
        QVERIFY(QFile(dir + "/submit-1.sh").open(QIODevice::ReadOnly));
        QFile second(dir + "/submit-1.sh");
        QVERIFY(second.open(QIODevice::ReadOnly));
        QVERIFY(second.readAll().contains("#SBATCH --array=0,5%1\n"));  // only the missing ones
        const auto slurm = statusOf(dir);
        QCOMPARE(statesOf(slurm), QStringList(6, "completed"));
        QCOMPARE(slurm.at("trials").at(0).at("attempt").get<int>(), 2);
        QCOMPARE(slurm.at("trials").at(1).at("attempt").get<int>(), 1);
        QVERIFY(str(slurm.at("trials").at(1).at("timing")).startsWith("slurm: 1 cpus of "));

        // The same spec on the local engine: the same results, trial by trial.
        RUN_MLPWB(local, QStringList({"sweep", "grid.yaml", "--out", "local"}) + kBase);
        QVERIFY2(local.exitCode == 0, local.describe());
        const auto here = statusOf(path("local"));
        for (int id = 0; id < 6; ++id) {
            QCOMPARE(here.at("trials").at(id).at("parameters"), slurm.at("trials").at(id).at("parameters"));
            QCOMPARE(here.at("trials").at(id).at("val_loss"), slurm.at("trials").at(id).at("val_loss"));
        }
    }

    // A folder, a sweep name and an sbatch option full of shell syntax, through sbatch itself: every
    // trial completes, nothing they hold runs (no MARKER where the tasks start), and nothing is
    // written beside the folder (sbatch ends an #SBATCH line at #: a folder with one sent the logs
    // to a file next to it, so such a folder is refused).
    // Early termination through the shared folder, as locally: array tasks one at a time, the two
    // learning rates too small to learn stop at the rung (epoch 2) and stay stopped through resume.
    void losingTrialsStopAtTheirRungUnderSlurm() {
        writeText(path("hb.yaml"),
                  "method: grid\nmetric: {name: train_loss}\nearly_terminate: {type: hyperband, min_iter: 2, eta: 3}\n"
                  "parameters:\n  lr: {values: [0.01, 1.0e-6, 1.0e-7]}\n");
        const QStringList base = {"--builtin", "--rows", "2000", "--epochs", "6", "--batch-size", "64"};
        RUN_MLPWB(r,
                  QStringList({"sweep", "hb.yaml", "--out", "hb", "--engine", "slurm", "--max-parallel", "1"}) + base);
        QVERIFY2(r.exitCode == 0, r.describe());
        const auto status = statusOf(path("hb"));
        // As locally (tst_cli_sweep): the learner completes, a small rate after it stops at epoch 2.
        int learner = -1, stopped = 0;
        for (const auto& t : status.at("trials")) {
            if (t.at("parameters").at("lr").get<double>() == 0.01) learner = t.at("id").get<int>();
            if (str(t.at("state")) == "stopped") {
                ++stopped;
                QCOMPARE(t.at("stopped_at_epoch").get<int>(), 2);
            }
        }
        QCOMPARE(str(status.at("trials").at(learner).at("state")), QString("completed"));
        QVERIFY(learner == 0 || stopped > 0);
        QCOMPARE(status.at("early_termination").at("saved_epochs").get<int>(), 4 * stopped);
        RUN_MLPWB(resumed, QStringList({"sweep", "resume", "hb"}));
        QVERIFY2(resumed.exitCode == 0 && resumed.err.contains("resuming 0 of 3 trials"), resumed.describe());
    }

    // method: bayes on SLURM: suggestions come in batches the size of the array's concurrency
    // (--max-parallel 2: two arrays of two), each batch asked after the one before has ended.
    void bayesAsksInBatchesOfTheArraysConcurrency() {
        const QString python = qEnvironmentVariable("MLPWB_TEST_OPTUNA_PYTHON");
        if (python.isEmpty()) QSKIP("no Python with Optuna: set MLPWB_TEST_OPTUNA_PYTHON (scripts/ci-venv.sh has one)");
        writeText(path("bayes.yaml"),
                  "method: bayes\nrun_cap: 4\nmetric: {name: train_loss}\nparameters:\n"
                  "  lr: {distribution: log_uniform_values, min: 1.0e-4, max: 1.0e-1}\n");
        RUN_MLPWB(r, QStringList({"sweep", "bayes.yaml", "--out", "by", "--engine", "slurm", "--max-parallel", "2",
                                  "--python", python, "--builtin", "--rows", "2000", "--epochs", "3"}));
        QVERIFY2(r.exitCode == 0, r.describe());
        QVERIFY2(r.err.contains("suggests trials 0-1 of 4") && r.err.contains("suggests trials 2-3 of 4"),
                 r.describe());
        QCOMPARE(r.err.count("submitted SLURM job"), 2);
        QCOMPARE(statesOf(statusOf(path("by"))), QStringList(4, "completed"));
    }

    void hostileNamesGoThroughSbatchIntact() {
        QTemporaryDir work;  // of its own: everything written in it is seen
        QVERIFY(work.isValid());
        writeText(work.path() + "/h.yaml",
                  "name: \"n'; touch MARKER; '\"\nmethod: grid\nparameters:\n  lr: {values: [0.001, 0.003]}\n");
        const QString hostile = "s$(touch${IFS}MARKER)`touch${IFS}MARKER`;&|*?[x]~!";
        const MlpwbResult r = runMlpwb({"sweep", "h.yaml", "--out", hostile, "--engine", "slurm",
                                        "--slurm-arg=--comment=$(touch${IFS}MARKER)`touch${IFS}MARKER`;|&", "--builtin",
                                        "--rows", "2000", "--epochs", "3"},
                                       work.path(), kTimeoutMs);
        QVERIFY2(r.exitCode == 0, r.describe());
        QCOMPARE(statesOf(statusOf(work.path() + "/" + hostile)), QStringList(2, "completed"));
        QCOMPARE(QDir(work.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 QStringList({"h.yaml", hostile}));
        RUN_MLPWB(refused, QStringList({"sweep", work.path() + "/h.yaml", "--out", "s#x", "--engine", "slurm",
                                        "--builtin", "--rows", "2000", "--epochs", "3"}));
        QCOMPARE(refused.exitCode, 4);
        QVERIFY2(refused.err.contains("the SLURM engine needs a sweep folder path without"), refused.describe());
        QVERIFY(QDir(path("s#x")).entryList({"submit-*.sh"}).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestSweepSlurm)
#include "tst_sweep_slurm.moc"
