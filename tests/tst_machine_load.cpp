// What the machine-load meter counts as the measurement's own CPU time: a child still running (an
// interpreter kept between runs) is ours, not "other programs". CPU time, never the clock.
#include <QProcess>
#include <QtTest>

#include "core/platform/machine_load.h"

using namespace wb;

class MachineLoadTest : public QObject {
    Q_OBJECT

private slots:
    // A child that burns half a second of CPU and then waits, alive: its CPU time is in ours before
    // it ends.
    void liveChildCountsAsOurs() {
        const double before = processTreeCpuSeconds();
        QProcess child;
        child.start("python3", {"-c",
                                "import sys, time\n"
                                "while time.process_time() < 0.5: pass\n"
                                "print('burnt', flush=True)\n"
                                "sys.stdin.read()\n"});
        QVERIFY2(child.waitForStarted(), qPrintable(child.errorString()));
        QVERIFY(child.waitForReadyRead(60000));
        QCOMPARE(child.readAllStandardOutput().trimmed(), QByteArray("burnt"));
        const double during = processTreeCpuSeconds();
        child.closeWriteChannel();
        QVERIFY(child.waitForFinished(60000));
        QVERIFY2(during - before >= 0.45, qPrintable(QString::number(during - before)));
        // Once it ended, getrusage has it: nothing counted twice, nothing lost.
        const double after = processTreeCpuSeconds();
        QVERIFY2(after >= during - 0.05, qPrintable(QString("%1 then %2").arg(during).arg(after)));
    }
};

QTEST_GUILESS_MAIN(MachineLoadTest)
#include "tst_machine_load.moc"
