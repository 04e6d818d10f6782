// The local engine's pool with stand-in trial commands (shell lines instead of `mlpwb sweep
// run-trial`): a trial that ends without writing its end gets its last word as its error (a full
// disk's "No space left on device"), a trial another process holds is left to it and never waited
// for, a trial that ignores SIGTERM is killed once asked to stop, and a link where a log belongs
// is refused without starting anything.
#include <QtTest>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "sweep/local_engine.h"
#include "sweep/sweep_folder.h"
#include "tests/lock_holder.h"
#include "tests/sweep_plan_fixture.h"
#include "tests/test_support.h"

using namespace wb::sweep;

namespace {

// A pool whose trial command is `sh -c LINE sh ID`.
LocalEngineOptions shellPool(const std::string& line, std::vector<std::string>* problems) {
    LocalEngineOptions o;
    o.trialCommand = {"/bin/sh", "-c", line, "sh"};
    o.jobs = 2;
    o.cores = 2;
    o.onProblem = [problems](int id, const std::string& text) {
        problems->push_back(std::to_string(id) + ": " + text);
    };
    return o;
}
}  // namespace

class TestLocalEngine : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::string path(const char* name) { return (tmp_.path() + "/" + name).toStdString(); }

private slots:
    void aTrialThatCannotWriteItsEndGetsItsLastWord() {
        const auto f = SweepFolder::create(path("full"), planOf(2, {{"threads", 1}}));
        std::vector<std::string> problems;
        const std::atomic<bool> cancel{false};
        const auto end = runLocal(
            f, {0, 1},
            // (with an escape sequence at its end: the driver must not pass it to a terminal)
            shellPool("echo training; printf 'mlpwb: cannot write trial state: No space left on device\\033[2J\\n' >&2;"
                      " exit 6",
                      &problems),
            cancel);
        QCOMPARE(end.finished, 2);
        QCOMPARE(end.failed, 2);
        for (int id : {0, 1}) {
            const TrialStatus s = f.readStatus(id);
            QCOMPARE(toString(s.state), std::string("failed"));
            QVERIFY2(s.error.find("No space left on device\\x1b[2J") != std::string::npos, s.error.c_str());
            QVERIFY(s.error.find('\033') == std::string::npos);
        }
        QCOMPARE(problems.size(), std::size_t(2));
        QVERIFY2(problems[0].find("No space left on device") != std::string::npos, problems[0].c_str());
    }

    void aTrialHeldByAnotherProcessIsLeftToIt() {
        const auto f = SweepFolder::create(path("held"), planOf(2, {{"threads", 1}}));
        TrialStatus running;
        running.state = TrialState::Running;
        running.host = shortHostName();
        running.pid = 1;
        f.writeStatus(0, running);
        LockHolder holder(f.trialLockPath(0));
        QVERIFY(holder.held());
        std::vector<std::string> problems;
        const std::atomic<bool> cancel{false};
        // Trial 1 completes as run-trial would: by writing its state.
        const std::string complete = "printf '{\"state\": \"completed\"}' > " + f.statePath(1);
        const auto end = runLocal(f, {0, 1}, shellPool(complete, &problems), cancel);  // returns: nothing waited on
        holder.release();
        QCOMPARE(end.finished, 2);
        QCOMPARE(end.failed, 1);
        QCOMPARE(toString(f.readStatus(1).state), std::string("completed"));
        QCOMPARE(toString(f.readStatus(0).state), std::string("running"));  // not ours: left as it was
        QCOMPARE(problems.size(), std::size_t(1));
        QVERIFY2(problems[0].find("0: is being run by another process") == 0, problems[0].c_str());
    }

    // Stop is answered even by a trial that ignores SIGTERM: it is killed, and reads cancelled.
    void aTrialThatIgnoresStopIsKilled() {
        const auto f = SweepFolder::create(path("stubborn"), planOf(1, {{"threads", 1}}));
        std::vector<std::string> problems;
        std::atomic<bool> cancel{false};
        auto options = shellPool("trap '' TERM; echo started; while :; do sleep 1; done", &problems);
        options.secondsToStop = 1;
        options.onProgress = [&](const LocalProgress& p) {
            if (p.running == 1) cancel.store(true);  // as Ctrl+C would, once it runs
        };
        const auto end = runLocal(f, {0}, options, cancel);
        QCOMPARE(end.running, 0);
        QCOMPARE(toString(f.readStatus(0).state), std::string("cancelled"));
        QVERIFY2(f.readStatus(0).error.find("started") != std::string::npos, f.readStatus(0).error.c_str());
    }

    void aLinkWhereTheLogBelongsStartsNothing() {
        const auto f = SweepFolder::create(path("log-link"), planOf(1, {{"threads", 1}}));
        const std::string victim = path("log-victim");
        std::ofstream(victim) << "precious\n";
        std::filesystem::create_symlink(victim, f.logPath(0));
        std::vector<std::string> problems;
        const std::atomic<bool> cancel{false};
        const std::string marker = path("log-marker");
        const auto end = runLocal(f, {0}, shellPool("touch " + marker, &problems), cancel);
        QCOMPARE(end.failed, 1);
        QVERIFY(!std::filesystem::exists(marker));
        QCOMPARE(readAll(QString::fromStdString(victim)), QString("precious\n"));
        QCOMPARE(problems.size(), std::size_t(1));
        QVERIFY2(problems[0].find("symbolic link") != std::string::npos, problems[0].c_str());
    }
};

QTEST_APPLESS_MAIN(TestLocalEngine)
#include "tst_local_engine.moc"
