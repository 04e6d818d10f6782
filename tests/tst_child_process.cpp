// ChildProcess, the one way the workbench starts a program: its stdout line by line and the tail of
// its stderr, or both sent to a file of the caller's (a sweep trial's log); a wait that never blocks
// (the sweep's pool, mlpwb report); a stop that asks first and a kill that does not; and a
// ProcessError naming a program that cannot be started.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <QTemporaryDir>
#include <QtTest>

#include "core/platform/child_process.h"
#include "core/platform/errors.h"
#include "tests/test_support.h"

using namespace wb;
using namespace std::chrono_literals;

namespace {
// Polls tryWait() until the child ends or `limit` passes; nullopt when it did not end.
std::optional<int> endWithin(ChildProcess& child, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (const auto code = child.tryWait()) return code;
        std::this_thread::sleep_for(10ms);
    }
    return std::nullopt;
}

std::vector<std::string> shell(const char* script) {
    return {"/bin/sh", "-c", script};
}
}  // namespace

class ChildProcessTest : public QObject {
    Q_OBJECT

private slots:
    void readsLinesStderrAndTheExitStatus() {
        ChildProcess child(shell("echo one; echo two; echo oops >&2; exit 3"));
        std::string line;
        QCOMPARE(child.readLine(line, nullptr), ChildProcess::Read::Line);
        QCOMPARE(line, std::string("one"));
        QCOMPARE(child.readLine(line, nullptr), ChildProcess::Read::Line);
        QCOMPARE(line, std::string("two"));
        QCOMPARE(child.readLine(line, nullptr), ChildProcess::Read::EndOfOutput);
        QCOMPARE(child.wait(), 3);
        QCOMPARE(child.stderrTail(), std::string("oops"));
        QCOMPARE(child.describeExit(), std::string("exited with status 3"));
    }

    // A sweep trial's output: stdout and stderr appended to one file the caller opened; nothing is
    // left to read through the object.
    void outputGoesToTheCallersFile() {
        QTemporaryDir dir;
        const std::string log = dir.filePath("log.txt").toStdString();
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        QVERIFY(fd >= 0);
        QVERIFY(::write(fd, "before\n", 7) == 7);
        ChildProcess::Options options;
        options.stdoutFd = fd;
        options.stderrFd = fd;
        {
            ChildProcess child(shell("echo out; echo err >&2"), options);
            ::close(fd);  // the child has its own copy
            std::string line;
            QCOMPARE(child.readLine(line, nullptr), ChildProcess::Read::EndOfOutput);
            QCOMPARE(child.wait(), 0);
            QCOMPARE(child.stderrTail(), std::string());
        }
        QCOMPARE(readAll(QString::fromStdString(log)), QString("before\nout\nerr\n"));
    }

    // tryWait() answers at once while the child runs, and its status once it has ended.
    void tryWaitNeverBlocks() {
        ChildProcess child(shell("sleep 0.3; exit 4"));
        const auto asked = std::chrono::steady_clock::now();
        QCOMPARE(child.tryWait(), std::optional<int>());
        QVERIFY(std::chrono::steady_clock::now() - asked < 200ms);
        QCOMPARE(endWithin(child, 10s), std::optional<int>(4));
        QCOMPARE(child.tryWait(), std::optional<int>(4));  // and again, once reaped
    }

    // A child that writes much more than a pipe holds ends while the caller only polls tryWait().
    void tryWaitReadsWhatThePipesHold() {
        ChildProcess child(shell("head -c 2000000 /dev/zero; head -c 2000000 /dev/zero >&2"));
        QCOMPARE(endWithin(child, 20s), std::optional<int>(0));
    }

    // askToStop(): SIGTERM to the group, without waiting; kill(): SIGKILL, for one that ignores it
    // (the shell and its sleep both inherit the ignored SIGTERM).
    void askToStopThenKill() {
        ChildProcess polite(shell("sleep 30"));
        polite.askToStop();
        QCOMPARE(endWithin(polite, 10s), std::optional<int>(128 + SIGTERM));

        ChildProcess stubborn(shell("trap '' TERM; echo ready; sleep 30"));
        std::string line;
        QCOMPARE(stubborn.readLine(line, nullptr, 10s), ChildProcess::Read::Line);  // the trap is set
        stubborn.askToStop();
        QCOMPARE(endWithin(stubborn, 300ms), std::optional<int>());
        stubborn.kill();
        QCOMPARE(endWithin(stubborn, 10s), std::optional<int>(128 + SIGKILL));
    }

    void cancelStopsTheWaitForALine() {
        ChildProcess child(shell("sleep 30"));
        CancelFlag cancel{true};
        std::string line;
        QCOMPARE(child.readLine(line, &cancel), ChildProcess::Read::Cancelled);
        QCOMPARE(child.readLine(line, nullptr, 50ms), ChildProcess::Read::TimedOut);
    }

    // A program that cannot be started: a ProcessError (a wb::Error) that names it, found on PATH
    // or given as a path.
    void aMissingProgramIsAProcessError() {
        for (const std::string program : {"mlpwb-no-such-program", "/nonexistent/mlpwb-no-such-program"}) {
            try {
                ChildProcess child({program, "--version"});
                QFAIL("a missing program started");
            } catch (const ProcessError& e) {
                QCOMPARE(e.program(), program);
                QVERIFY2(std::string(e.what()).find("cannot start " + program) != std::string::npos, e.what());
            }
        }
        QVERIFY_THROWS_EXCEPTION(ProcessError, ChildProcess(std::vector<std::string>{}));
        QVERIFY_THROWS_EXCEPTION(Error, ChildProcess({"/nonexistent/program"}));
    }

    // Every ProcessError names its program, even where its message did not.
    void aProcessErrorNamesItsProgram() {
        QCOMPARE(std::string(ProcessError("sbatch", "cannot start sbatch: denied").what()),
                 std::string("cannot start sbatch: denied"));
        QCOMPARE(std::string(ProcessError("sbatch", "the pipe broke").what()), std::string("the pipe broke (sbatch)"));
    }

    void writingToAChildWithoutAChannelIsAProcessError() {
        ChildProcess child(shell("true"));
        QVERIFY_THROWS_EXCEPTION(ProcessError, child.writeLine("hello"));
    }
};

QTEST_GUILESS_MAIN(ChildProcessTest)
#include "tst_child_process.moc"
