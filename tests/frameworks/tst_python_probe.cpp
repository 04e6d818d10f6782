// Asking an interpreter what it offers, when the "interpreter" is a program that never answers: the
// probe ends at its timeout ($MLPWB_PROBE_TIMEOUT, a second here) with a clear reason, or at once on
// Stop or Ctrl+C, and no process of that program is left behind (its children included). The
// programs are shell scripts that write their pids to a file, so that the test can look for them.
// Nothing here asserts a duration.
#include <signal.h>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <thread>

#include "frameworks/python_interpreter.h"
#include "tests/cli_runner.h"
#include "tests/test_support.h"

using namespace wb;

namespace {
constexpr int kTimeoutMs = 120000;

// Whether `pid` is a live process: a zombie (killed, not yet reaped by init) is not.
bool alive(qint64 pid) {
    QFile stat(QString("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly)) return false;
    const QByteArray text = stat.readAll();
    const qsizetype paren = text.lastIndexOf(')');  // "pid (name) S ...": the state after the name
    return paren < 0 || paren + 2 >= text.size() || text.at(paren + 2) != 'Z';
}

// The pids a script wrote, one a line.
QList<qint64> pidsIn(const QString& path) {
    QList<qint64> pids;
    for (const QByteArray& line : readAll(path).toUtf8().split('\n'))
        if (bool ok = false; !line.trimmed().isEmpty()) {
            const qint64 pid = line.trimmed().toLongLong(&ok);
            if (ok && pid > 0) pids << pid;
        }
    return pids;
}
}  // namespace

class PythonProbeTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    // A script at `name` that writes its pid to name.pids, then runs `body`.
    QString script(const QString& name, const QByteArray& body) {
        const QString path = dir_.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly)) return {};
        f.write("#!/bin/sh\necho $$ >> '" + pidFile(name).toUtf8() + "'\n" + body + "\n");
        f.close();
        f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
        return path;
    }
    QString pidFile(const QString& name) const { return dir_.filePath(name + ".pids"); }

    // Every pid the script wrote is gone (killed processes disappear once reaped, so this waits).
    void checkNothingLeft(const QString& name) {
        const QList<qint64> pids = pidsIn(pidFile(name));
        QVERIFY2(!pids.isEmpty(), "the script never started");
        for (const qint64 pid : pids) QTRY_VERIFY2_WITH_TIMEOUT(!alive(pid), qPrintable(QString::number(pid)), 30000);
    }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }
    void init() { forgetFrameworkProbes(); }

    void theTimeoutComesFromTheEnvironment_data() {
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<qint64>("ms");
        QTest::newRow("unset") << QByteArray() << qint64{20000};
        QTest::newRow("seconds") << QByteArray("3") << qint64{3000};
        QTest::newRow("a fraction") << QByteArray("1.5") << qint64{1500};
        QTest::newRow("zero") << QByteArray("0") << qint64{20000};
        QTest::newRow("negative") << QByteArray("-4") << qint64{20000};
        QTest::newRow("not a number") << QByteArray("soon") << qint64{20000};
        QTest::newRow("trailing text") << QByteArray("5s") << qint64{20000};
    }
    void theTimeoutComesFromTheEnvironment() {
        QFETCH(QByteArray, value);
        QFETCH(qint64, ms);
        const ScopedEnv env("MLPWB_PROBE_TIMEOUT", value);
        QCOMPARE(static_cast<qint64>(probeTimeout().count()), ms);
    }

    // A program that never answers: ended at the timeout with its whole process group.
    void aSilentProgramEndsAtTheTimeout_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("sleeps") << QByteArray("exec sleep 1000");
        QTest::newRow("leaves a child sleeping") << QByteArray("sleep 1000 &\necho $! >> \"$0.pids\"\nwait");
        QTest::newRow("ignores SIGTERM") << QByteArray("trap '' TERM\nsleep 1000 &\necho $! >> \"$0.pids\"\nwait");
        QTest::newRow("closes its output, then sleeps") << QByteArray("exec >&- 2>&-\nexec sleep 1000");
        QTest::newRow("talks without a newline") << QByteArray("while :; do printf 'no answer '; sleep 0.01; done");
    }
    void aSilentProgramEndsAtTheTimeout() {
        QFETCH(QByteArray, body);
        const QString name = QString("silent-%1").arg(QTest::currentDataTag()).replace(' ', '-');
        const QString python = script(name, body);
        const ScopedEnv env("MLPWB_PROBE_TIMEOUT", "1");
        const FrameworkFacts f = probeFramework("torch", python.toStdString());
        QVERIFY(!f.available);
        QVERIFY(!f.stopped);
        QCOMPARE(QString::fromStdString(f.reason), python + " did not answer within 1 s: is it a Python interpreter?");
        checkNothingLeft(name);
    }

    // A program that answers, but not as the probe's Python would: the reason says so in words
    // (never a parser's message), and nothing of the program is left.
    void aWrongAnswerIsNamed_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("says");
        QTest::newRow("not JSON") << QByteArray("echo '{not json'")
                                  << "answered something other than the probe's facts: '{not json'";
        QTest::newRow("a JSON array") << QByteArray("echo '[1, 2]'")
                                      << "answered something other than the probe's facts: '[1, 2]'";
        QTest::newRow("facts of the wrong kinds") << QByteArray("echo '{\"version\": 5, \"python_version\": [3]}'")
                                                  << "answered something other than the probe's facts";
        QTest::newRow("an endless line") << QByteArray("yes | tr -d '\\n'") << "a line longer than 16 MiB";
        QTest::newRow("an exit") << QByteArray("echo 'no python here' >&2\nexit 3")
                                 << "exited with status 3: no python here";
    }
    void aWrongAnswerIsNamed() {
        QFETCH(QByteArray, body);
        QFETCH(QString, says);
        const QString name = QString("wrong-%1").arg(QTest::currentDataTag()).replace(' ', '-');
        const ScopedEnv env("MLPWB_PROBE_TIMEOUT", "60");
        const FrameworkFacts f = probeFramework("torch", script(name, body).toStdString());
        QVERIFY(!f.available);
        QVERIFY2(QString::fromStdString(f.reason).contains(says), f.reason.c_str());
        QVERIFY2(!QString::fromStdString(f.reason).contains("json.exception"), f.reason.c_str());
        checkNothingLeft(name);
    }

    // Stop (the run's cancel flag) ends the probe at once; the answer is not kept, so the next probe
    // asks again.
    void stopEndsTheProbe() {
        const QString name = "stopped";
        const QString python = script(name, "exec sleep 1000");
        CancelFlag stop{false};
        // Stop once the program has written its pid (bounded: never a hung suite). The file exists
        // as soon as the shell opens it, before the pid is in it: waiting for the file alone let
        // Stop kill the shell between the two, and the test found no pid to look for.
        std::thread stopper([&] {
            for (int i = 0; i < 6000 && pidsIn(pidFile(name)).isEmpty(); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            stop.store(true);
        });
        FrameworkFacts f;
        {
            const ScopedEnv env("MLPWB_PROBE_TIMEOUT", "600");
            f = probeFramework("torch", python.toStdString(), &stop);
        }
        stopper.join();
        QVERIFY(f.stopped);
        QVERIFY(!f.available);
        QCOMPARE(QString::fromStdString(f.reason), "stopped while asking " + python);
        checkNothingLeft(name);

        const ScopedEnv env("MLPWB_PROBE_TIMEOUT", "1");
        const FrameworkFacts again = probeFramework("torch", python.toStdString());
        QVERIFY2(QString::fromStdString(again.reason).contains("did not answer within 1 s"), again.reason.c_str());
    }

    // `mlpwb answer --python PROGRAM`: the reason on the engines' list, and nothing left running.
    void theCliSaysWhyAndLeavesNothing() {
        const QString name = "cli-silent";
        const QString python = script(name, "sleep 1000 &\necho $! >> \"$0.pids\"\nwait");
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("MLPWB_PROBE_TIMEOUT", "1");
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(dir_.path());
        p.start(QStringLiteral(WB_MLPWB_PATH), {"answer", "--builtin", "--rows", "400", "--epochs", "2", "--repeats",
                                                "1", "--engines", "torch", "--no-estimate", "--python", python});
        QVERIFY(p.waitForFinished(kTimeoutMs));
        const QString out = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
        QVERIFY2(out.contains(python + " did not answer within 1 s: is it a Python interpreter?"), qPrintable(out));
        checkNothingLeft(name);
    }

    // Ctrl+C while mlpwb asks the program: mlpwb ends as Ctrl+C ends it, and so does the program's
    // whole group (it runs in a group of its own, which the terminal's Ctrl+C does not reach).
    void ctrlCLeavesNoOrphan() {
        const QString name = "interrupted";
        const QString python = script(name, "sleep 1000 &\necho $! >> \"$0.pids\"\nwait");
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("MLPWB_PROBE_TIMEOUT", "600");
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(dir_.path());
        p.start(QStringLiteral(WB_MLPWB_PATH), {"answer", "--builtin", "--rows", "400", "--epochs", "2", "--repeats",
                                                "1", "--engines", "torch", "--no-estimate", "--python", python});
        QVERIFY(p.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(pidsIn(pidFile(name)).size() == 2, 60000);  // the script and its child run
        QCOMPARE(::kill(static_cast<pid_t>(p.processId()), SIGINT), 0);
        QVERIFY2(p.waitForFinished(kTimeoutMs), "mlpwb went on after Ctrl+C");
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);  // ended by SIGINT, as before any probe
        checkNothingLeft(name);
    }
};

QTEST_GUILESS_MAIN(PythonProbeTest)
#include "tst_python_probe.moc"
