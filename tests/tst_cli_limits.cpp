// mlpwb at the limits of the machine and of the user's patience: a run that cannot fit is refused
// with both figures (exit 9), a batch larger than the data costs no more than the data, unbounded
// inputs stop at a cap, Latin-1 labels reach the record, and Ctrl+C while the data loads is honoured.
#include <QtTest>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <string>

#include "tests/cli_runner.h"
#include "tests/test_support.h"

// Whether this build runs under AddressSanitizer: GCC says so with __SANITIZE_ADDRESS__, clang with
// __has_feature(address_sanitizer).
#if defined(__SANITIZE_ADDRESS__)
#define WB_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WB_UNDER_ASAN 1
#endif
#endif

namespace {
constexpr int kTimeoutMs = 60000;
}  // namespace

class TestCliLimits : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    QString path(const QString& name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        std::signal(SIGPIPE, SIG_IGN);  // a write into the FIFO of an mlpwb that died is EPIPE, not death
    }

    void aRunThatCannotFitIsRefusedBeforeAnything() {
        const ScopedEnv env("MLPWB_AVAILABLE_MEMORY", "1000000");
        RUN_MLPWB(r, (QStringList{"train", "--builtin", "--rows", "100000", "--epochs", "1", "--out", "big.json"}));
        QCOMPARE(r.exitCode, 9);
        QCOMPARE(r.errLines().size(), 1);
        QVERIFY2(r.errLines()[0].contains(QRegularExpression("needs [0-9.]+ MiB, 976.6 KiB available")), r.describe());
        QVERIFY(!QFile::exists(path("big.json")));
    }

    // `--rows 1000 --batch-size 10000000` took 4.6 GB: under a 1.5 GB address-space limit it failed.
    void aBatchLargerThanTheDataCostsTheData() {
#ifdef WB_UNDER_ASAN
        QSKIP("AddressSanitizer reserves terabytes of address space for its shadow: no address-space limit here");
#endif
        QProcess p;
        p.setWorkingDirectory(dir_.path());
        p.start("/bin/sh", {"-c", "ulimit -v 1500000 && exec \"$0\" \"$@\"", QStringLiteral(WB_MLPWB_PATH), "train",
                            "--builtin", "--rows", "1000", "--batch-size", "10000000", "--epochs", "2", "--quiet"});
        QVERIFY(p.waitForFinished(kTimeoutMs));
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, p.readAllStandardError().constData());
    }

    // --data /dev/zero read until the kernel killed mlpwb.
    void anEndlessInputStopsAtTheCap() {
        const ScopedEnv env("MLPWB_MAX_STREAM_BYTES", "1000000");
        RUN_MLPWB(r, (QStringList{"train", "--data", "/dev/zero", "--epochs", "1"}));
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("/dev/zero: not a regular file, and more than 976.6 KiB read"), r.describe());
    }

    // 25M columns on one line grew to 23 GB with no message.
    void tooManyColumnsAreRefused() {
        std::ofstream(path("wide.csv").toStdString()) << "1,2,3,4,5,0\n1,2,3,4,5,1\n";
        RUN_MLPWB(r, (QStringList{"train", "--data", "wide.csv", "--max-columns", "4", "--epochs", "1"}));
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("wide.csv:1:5: more than 4 columns on one line"), r.describe());
    }

    // Latin-1 größer/kleiner trained, then exited 8 with "invalid UTF-8 byte" and no record.
    void latin1LabelsReachTheRecord() {
        std::ofstream csv(path("latin.csv").toStdString(), std::ios::binary);
        csv << "a,b,Klasse\n";
        for (int i = 0; i < 40; ++i)
            csv << i % 7 << ',' << i % 3 << ','
                << (i % 2 ? "gr\xf6\xdf"
                            "er"
                          : "kleiner")
                << '\n';
        csv.close();
        RUN_MLPWB(r, (QStringList{"train", "--data", "latin.csv", "--epochs", "2", "--out", "latin.json"}));
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("note: labels decoded as Latin-1/CP-1252 (not UTF-8)"), r.describe());
        const nlohmann::json record = readJson(path("latin.json"));
        QVERIFY(record.is_object());
        QVERIFY2(record["dataset"]["label_mapping"].contains("größer"), record["dataset"].dump().c_str());
    }

    // A stop while the data loads (here: mlpwb reading a FIFO the test writes) used to kill mlpwb by
    // the signal's default action; now it finishes loading, writes nothing and exits 128 + signal.
    void aStopDuringStartUpIsHonoured_data() {
        QTest::addColumn<int>("signal");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("SIGTERM") << int(SIGTERM) << 143;
        QTest::newRow("SIGINT") << int(SIGINT) << 130;
    }
    void aStopDuringStartUpIsHonoured() {
        QFETCH(int, signal);
        QFETCH(int, exitCode);
        const QString fifo = path(QString("slow-%1.csv").arg(signal));
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        QProcess p;
        p.setWorkingDirectory(dir_.path());
        p.start(QStringLiteral(WB_MLPWB_PATH), {"train", "--data", fifo, "--epochs", "1", "--out", "stopped.json"});
        QVERIFY(p.waitForStarted(kTimeoutMs));
        const int fd = ::open(fifo.toLocal8Bit().constData(), O_WRONLY);  // returns once mlpwb reads it
        QVERIFY(fd >= 0);
        const std::string head = "a,b,y\n1,2,0\n";
        QCOMPARE(::write(fd, head.data(), head.size()), static_cast<ssize_t>(head.size()));
        QCOMPARE(::kill(static_cast<pid_t>(p.processId()), signal), 0);  // mlpwb is inside its read
        const std::string rest = "3,4,1\n5,6,0\n";
        [[maybe_unused]] const ssize_t written = ::write(fd, rest.data(), rest.size());  // EPIPE if mlpwb died
        ::close(fd);
        QVERIFY(p.waitForFinished(kTimeoutMs));
        QVERIFY2(p.exitStatus() == QProcess::NormalExit, "mlpwb died of the signal");
        QCOMPARE(p.exitCode(), exitCode);
        QVERIFY(p.readAllStandardError().contains("stopped while loading the data; nothing was written"));
        QVERIFY(!QFile::exists(path("stopped.json")));
    }
};

QTEST_GUILESS_MAIN(TestCliLimits)
#include "tst_cli_limits.moc"
