// The sweep folder: created once (by one of racing drivers), states written and read back, a trial
// whose lock is free read as interrupted, a damaged state file shown as such, links and hard links
// refused and never followed, one lock holder at a time, and the report's figures against
// hand-computed medians.
#include <QtTest>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/platform/errors.h"
#include "core/run/run_record.h"
#include "sweep/folder_lock.h"
#include "sweep/sweep_folder.h"
#include "sweep/sweep_report.h"
#include "sweep/trial_process.h"
#include "tests/lock_holder.h"
#include "tests/sweep_plan_fixture.h"
#include "tests/test_support.h"

using namespace wb::sweep;

namespace {

// A completed RunRecord with one epoch whose validation loss is `valLoss`.
void writeRecord(const SweepFolder& f, int id, double valLoss) {
    wb::RunRecord r;
    r.name = "trial";
    r.status = wb::RunStatus::Completed;
    wb::EpochMetrics m;
    m.epoch = 1;
    m.trainLoss = valLoss + 1;
    m.valLoss = valLoss;
    m.valAccuracy = 0.5;
    m.wallMs = 2;
    r.epochs.push_back(m);
    r.save(f.recordPath(id));
    TrialStatus s;
    s.state = TrialState::Completed;
    f.writeStatus(id, s);
}
}  // namespace

class TestSweepFolder : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::string path(const char* name) { return (tmp_.path() + "/" + name).toStdString(); }

private slots:
    void createWritesThePlanAndRefusesASecondTime() {
        const auto f = SweepFolder::create(path("a"), planOf(3));
        QVERIFY(SweepFolder::isSweepFolder(path("a")));
        QVERIFY(std::filesystem::is_directory(f.trialDir(2)));
        const SweepFolder reopened(path("a"));
        QCOMPARE(reopened.plan().trials.size(), std::size_t(3));
        QCOMPARE(reopened.plan().trials[1].parameters.at("lr").get<double>(), 0.01);
        QCOMPARE(reopened.plan().metric.name, std::string("val_loss"));
        QVERIFY_THROWS_EXCEPTION(wb::ConfigError, SweepFolder::create(path("a"), planOf(3)));
    }

    void createRefusesAFolderWithOtherFiles() {
        std::filesystem::create_directories(path("b"));
        std::ofstream(path("b") + "/notes.txt") << "mine\n";
        QVERIFY_THROWS_EXCEPTION(wb::ConfigError, SweepFolder::create(path("b"), planOf(1)));
        QVERIFY(std::filesystem::exists(path("b") + "/notes.txt"));  // and nothing of it is touched
        QVERIFY(!SweepFolder::isSweepFolder(path("b")));
    }

    void openingANonSweepFolderSaysSo() {
        std::filesystem::create_directories(path("c"));
        QVERIFY_THROWS_EXCEPTION(wb::DataError, SweepFolder(path("c")));
    }

    void statesRoundTripAndPendingIsTheDefault() {
        const auto f = SweepFolder::create(path("d"), planOf(2));
        QCOMPARE(toString(f.readStatus(0).state), toString(TrialState::Pending));
        TrialStatus s;
        s.state = TrialState::Failed;
        s.attempt = 2;
        s.error = "mlpwb: data error";
        s.timing = "exclusive";
        f.writeStatus(0, s);
        const auto back = f.readStatus(0);
        QCOMPARE(toString(back.state), toString(TrialState::Failed));
        QCOMPARE(back.attempt, 2);
        QCOMPARE(back.error, s.error);
        QCOMPARE(back.timing, s.timing);
        QCOMPARE(f.unfinishedIds(), (std::vector<int>{0, 1}));
    }

    // Judged by the trial's lock, never by its pid: a pid that now belongs to a live, unrelated
    // process (after a kill -9 or a reboot) does not keep the trial running for ever.
    void aRunningTrialWhoseLockIsFreeReadsInterrupted() {
        const auto f = SweepFolder::create(path("e"), planOf(3));
        TrialStatus s;
        s.state = TrialState::Running;
        s.host = shortHostName();
        s.pid = getppid();  // alive, and no trial
        f.writeStatus(0, s);
        QCOMPARE(toString(f.effectiveStatus(0).state), toString(TrialState::Failed));
        QVERIFY(f.effectiveStatus(0).error.find("interrupted") != std::string::npos);
        // Its lock held by a process (a child here, as run-trial would): running.
        f.writeStatus(1, s);
        LockHolder holder(f.trialLockPath(1));
        QVERIFY(holder.held());
        QCOMPARE(toString(f.effectiveStatus(1).state), toString(TrialState::Running));
        QVERIFY(FolderLock::tryAcquire(f.trialLockPath(1)).has_value() == false);  // asking took nothing
        holder.release();
        QCOMPARE(toString(f.effectiveStatus(1).state), toString(TrialState::Failed));  // the kernel dropped it
        // Another host's trial is not ours to judge: a filesystem may not carry its lock here.
        s.host = "another-node";
        f.writeStatus(2, s);
        QCOMPARE(toString(f.effectiveStatus(2).state), toString(TrialState::Running));
    }

    // A state file that cannot be read marks its trial damaged, with the reason; the others read as
    // they are, nothing throws, and resume leaves it alone.
    void aDamagedStateFileBlocksNoOtherTrial_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("reason");
        QTest::newRow("state is a number") << QByteArray("{\"state\": 5}") << "state: expected a string";
        QTest::newRow("not an object") << QByteArray("\"x\"") << "expected an object";
        QTest::newRow("a list") << QByteArray("[1,2]") << "expected an object";
        QTest::newRow("truncated") << QByteArray("{\"state\": \"compl") << "invalid trial state";
        QTest::newRow("empty") << QByteArray("") << "invalid trial state";
        QTest::newRow("unknown state") << QByteArray("{\"state\": \"done\"}") << "unknown trial state 'done'";
        QTest::newRow("pid is text") << QByteArray("{\"state\": \"running\", \"pid\": \"1\"}") << "pid: expected";
        QTest::newRow("attempt too large")
            << QByteArray("{\"state\": \"failed\", \"attempt\": 1e300}") << "attempt: expected an integer";
        QTest::newRow("deep") << QByteArray(100, '[') << "nested";
        QTest::newRow("not UTF-8") << QByteArray("{\"state\": \"\xff\xfe\"}") << "invalid trial state";
    }
    void aDamagedStateFileBlocksNoOtherTrial() {
        QFETCH(QByteArray, content);
        QFETCH(QString, reason);
        const std::string dir = path("damaged-") + QTest::currentDataTag();
        const auto f = SweepFolder::create(dir, planOf(3));
        writeRecord(f, 0, 0.5);
        std::ofstream(f.statePath(1), std::ios::binary) << content.toStdString();
        const TrialStatus read = f.readStatus(1);
        QCOMPARE(toString(read.state), std::string("damaged"));
        QVERIFY2(QString::fromStdString(read.error).contains(reason), read.error.c_str());
        QVERIFY2(read.error.find(f.statePath(1)) != std::string::npos, read.error.c_str());  // names the file
        QCOMPARE(toString(f.effectiveStatus(1).state), std::string("damaged"));
        QCOMPARE(f.unfinishedIds(), std::vector<int>{2});
        QCOMPARE(f.damagedIds(), std::vector<int>{1});
        const auto views = f.views();
        QCOMPARE(toString(views[0].status.state), std::string("completed"));
        const auto report = makeReport(f.plan(), views);
        QCOMPARE(report.damaged, 1);
        QCOMPARE(report.completed, 1);
        QVERIFY(reportText(report).find("1 damaged") != std::string::npos);
    }

    // Nothing of a sweep folder is written through a link, whichever file or folder it stands for:
    // the file it points to, outside the folder, keeps every byte.
    void linksInTheFolderAreRefusedNeverFollowed_data() {
        QTest::addColumn<QString>("link");  // relative to the sweep folder
        QTest::addColumn<QString>("write");
        QTest::newRow("state.json") << "trials/0000/state.json"
                                    << "state";
        QTest::newRow("trial folder") << "trials/0000"
                                      << "state";
        QTest::newRow("trials folder") << "trials"
                                       << "state";
        QTest::newRow("trial.lock") << "trials/0000/trial.lock"
                                    << "trial lock";
        QTest::newRow("driver.lock") << "driver.lock"
                                     << "driver lock";
        QTest::newRow("log.txt") << "trials/0000/log.txt"
                                 << "log";
        QTest::newRow("log through the trial folder") << "trials/0000"
                                                      << "log";
    }
    void linksInTheFolderAreRefusedNeverFollowed() {
        QFETCH(QString, link);
        QFETCH(QString, write);
        namespace fs = std::filesystem;
        const std::string dir = path("links-") + QTest::currentDataTag();
        const auto f = SweepFolder::create(dir, planOf(1));
        // The victim: a file (or a folder holding one) outside the sweep folder.
        const std::string outside = dir + "-victim";
        fs::create_directories(outside + "/0000");
        const std::string victimText = "precious\n";
        for (const char* name : {"/victim", "/0000/state.json", "/0000/log.txt", "/0000/trial.lock"})
            std::ofstream(outside + name) << victimText;
        const std::string at = dir + "/" + link.toStdString();
        fs::remove_all(at);
        const bool isFolder = link == "trials/0000" || link == "trials";
        fs::create_symlink(isFolder ? (link == "trials" ? outside : outside + "/0000") : outside + "/victim", at);
        const auto attempt = [&] {
            if (write == "state") f.writeStatus(0, TrialStatus{});
            if (write == "trial lock") FolderLock::tryAcquire(f.trialLockPath(0));
            if (write == "driver lock") FolderLock::tryAcquire(f.driverLockPath());
            if (write == "log") {
                f.ownTrialDir(0);
                TrialProcess p({"/bin/true"}, f.logPath(0));
            }
        };
        QVERIFY_THROWS_EXCEPTION(wb::IoError, attempt());
        for (const char* name : {"/victim", "/0000/state.json", "/0000/log.txt", "/0000/trial.lock"})
            QCOMPARE(readAll(QString::fromStdString(outside + name)).toStdString(), victimText);
        std::size_t entries = 0;
        for ([[maybe_unused]] const auto& e : fs::directory_iterator(outside + "/0000")) ++entries;
        QCOMPARE(entries, std::size_t(3));  // nothing new beside the victims (no state, no temporary file)
        // Read back, the link is shown as a damaged state where it stands for one, never followed.
        if (write == "state" && link != "trials") QCOMPARE(toString(f.readStatus(0).state), std::string("damaged"));
    }

    // A second hard link would let a write in place (a lock's note, a log) reach a file elsewhere.
    void aHardLinkedLockIsRefused() {
        const auto f = SweepFolder::create(path("hard"), planOf(1));
        const std::string victim = path("hard-victim");
        std::ofstream(victim) << "precious\n";
        f.ownTrialDir(0);
        std::filesystem::create_hard_link(victim, f.trialLockPath(0));
        QVERIFY_THROWS_EXCEPTION(wb::IoError, FolderLock::tryAcquire(f.trialLockPath(0)));
        QCOMPARE(readAll(QString::fromStdString(victim)), QString("precious\n"));
    }

    // Of drivers racing to create one new folder, exactly one goes on; sweep.json is its plan.
    void racingCreatorsOneWins() {
        for (int round = 0; round < 25; ++round) {
            const std::string dir = path("race") + std::to_string(round);
            constexpr int kRacers = 4;
            pid_t racers[kRacers];
            for (int i = 0; i < kRacers; ++i) {
                racers[i] = fork();
                if (racers[i] == 0) {
                    try {
                        const auto created = SweepFolder::create(dir, planOf(i + 1));
                        usleep(20000);  // holds the lock a while, as a driver does
                        _exit(0);
                    } catch (const FolderBusy&) {
                        _exit(10);
                    } catch (const wb::ConfigError&) {
                        _exit(4);
                    } catch (...) {
                        _exit(1);
                    }
                }
            }
            int winners = 0, winner = -1;
            for (int i = 0; i < kRacers; ++i) {
                int status = 0;
                waitpid(racers[i], &status, 0);
                QVERIFY(WIFEXITED(status));
                const int code = WEXITSTATUS(status);
                QVERIFY2(code == 0 || code == 10 || code == 4, qPrintable(QString::number(code)));
                if (code == 0) {
                    ++winners;
                    winner = i;
                }
            }
            QCOMPARE(winners, 1);
            QCOMPARE(SweepFolder(dir).plan().trials.size(), std::size_t(winner + 1));
        }
    }

    void createRefusesWhatIsNoFolder() {
        std::ofstream(path("a-file")) << "x";
        for (const std::string& notAFolder : {path("a-file"), std::string("/dev/null")}) {
            try {
                SweepFolder::create(notAFolder, planOf(1));
                QFAIL("accepted");
            } catch (const wb::ConfigError& e) {
                QVERIFY2(std::string(e.what()).find("is not a folder") != std::string::npos, e.what());
            }
        }
        QCOMPARE(readAll(QString::fromStdString(path("a-file"))), QString("x"));
    }

    void oneLockHolderAtATime() {
        const std::string lockPath = path("lock");
        auto first = FolderLock::tryAcquire(lockPath);
        QVERIFY(first.has_value());
        // flock is per open file: a second process (a child here) is refused and told who holds it.
        const pid_t child = fork();
        if (child == 0) {
            std::string holder;
            const bool refused = !FolderLock::tryAcquire(lockPath, &holder).has_value();
            _exit(refused && holder.find("pid " + std::to_string(getppid())) == 0 ? 0 : 1);
        }
        int status = 0;
        waitpid(child, &status, 0);
        QCOMPARE(WEXITSTATUS(status), 0);
        first.reset();  // released: the next one gets it
        QVERIFY(FolderLock::tryAcquire(lockPath).has_value());
    }

    void reportFindsTheBestAndEachParametersEffect() {
        const auto f = SweepFolder::create(path("r"), planOf(4));
        // lr 0.1: trials 0 and 2; lr 0.01: trials 1 and 3; opt adam: 0, 1; sgd: 2, 3 (3 failed).
        writeRecord(f, 0, 0.5);
        writeRecord(f, 1, 0.2);
        writeRecord(f, 2, 0.7);
        TrialStatus failed;
        failed.state = TrialState::Failed;
        failed.error = "boom";
        f.writeStatus(3, failed);
        const auto r = makeReport(f.plan(), f.views());
        QCOMPARE(r.total, 4);
        QCOMPARE(r.completed, 3);
        QCOMPARE(r.failed, 1);
        QCOMPARE(*r.bestId, 1);
        QCOMPARE(*r.bestMetric, 0.2);
        QCOMPARE(r.effects.size(), std::size_t(2));
        const auto& lr = r.effects[0];
        QCOMPARE(lr.values.size(), std::size_t(2));
        QCOMPARE(lr.values[0].value.get<double>(), 0.01);  // numbers ascending
        QCOMPARE(lr.values[0].trials, 2);
        QCOMPARE(lr.values[0].completed, 1);
        QCOMPARE(*lr.values[0].median, 0.2);
        QCOMPARE(*lr.values[1].median, 0.6);  // (0.5 + 0.7) / 2
        QCOMPARE(*lr.values[1].min, 0.5);
        QCOMPARE(*lr.values[1].max, 0.7);
        QVERIFY(std::abs(*lr.medianRange - 0.4) < 1e-12);
        const auto& opt = r.effects[1];
        QCOMPARE(opt.values[0].value.get<std::string>(), std::string("adam"));  // text: in order of appearance
        QCOMPARE(*opt.values[0].median, 0.35);
        const std::string csv = reportCsv(r);
        QVERIFY(csv.rfind("parameter,value,trials,completed,median_val_loss,min_val_loss,max_val_loss\n", 0) == 0);
        QVERIFY(csv.find("\nlr,0.1,2,2,0.59999999999999998,0.5,0.69999999999999996\n") != std::string::npos);
        const auto json = reportJson(r);
        QCOMPARE(json.at("best").at("id").get<int>(), 1);
        QCOMPARE(json.at("effects").at(1).at("values").at(1).at("completed").get<int>(), 1);
        QVERIFY(reportText(r).find("Best: trial 1 (trial 1): val_loss 0.2") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestSweepFolder)
#include "tst_sweep_folder.moc"
