// Outputs never destroy inputs, and never leave half a file: writeFileAtomically (every writer's one
// path) and checkOutputs (the CLI's check before any work), on real files, links, folders and devices.
#include <unistd.h>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/platform/atomic_file.h"
#include "core/platform/errors.h"
#include "core/platform/output_paths.h"
#include "core/run/epoch_journal.h"
#include "core/run/run_record.h"

using namespace wb;

namespace {
std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The IoError's text, or empty when the check passes.
QString outputError(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
    try {
        checkOutputs(outputs, inputs);
    } catch (const IoError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}
}  // namespace

class AtomicFileTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string path(const QString& name) const { return dir_.filePath(name).toStdString(); }
    QStringList hiddenTemps() const { return QDir(dir_.path()).entryList({".*.*.*"}, QDir::Hidden | QDir::Files); }

private slots:
    void init() {
        QVERIFY(dir_.isValid());
        for (const QString& f : QDir(dir_.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot))
            QFileInfo(dir_.filePath(f)).isDir() ? (void)QDir(dir_.filePath(f)).removeRecursively()
                                                : (void)QFile::remove(dir_.filePath(f));
        std::ofstream(path("data.csv")) << "a,b,y\n1,2,0\n";
    }

    void writesWholeAndLeavesNoTemporaryFile() {
        writeFileAtomically(path("out.txt"), "first", "test file");
        writeFileAtomically(path("out.txt"), "second, longer", "test file");
        QCOMPARE(QString::fromStdString(readText(path("out.txt"))), QString("second, longer"));
        QCOMPARE(hiddenTemps(), QStringList());
    }

    // A symlink keeps pointing where it did; the file it points to is replaced.
    void followsASymlink() {
        std::ofstream(path("target.json")) << "old";
        QVERIFY(QFile::link(dir_.filePath("target.json"), dir_.filePath("link.json")));
        writeFileAtomically(path("link.json"), "new", "test file");
        QVERIFY(QFileInfo(dir_.filePath("link.json")).isSymLink());
        QCOMPARE(QString::fromStdString(readText(path("target.json"))), QString("new"));
    }

    // Inside a folder from elsewhere a symlink is refused, and the file it points to keeps its bytes;
    // a second hard link is no danger to a rename (the other name keeps the old file).
    void refusesASymlinkWhereTold() {
        std::ofstream(path("victim")) << "precious";
        QVERIFY(QFile::link(dir_.filePath("victim"), dir_.filePath("state.json")));
        QVERIFY_THROWS_EXCEPTION(IoError,
                                 writeFileAtomically(path("state.json"), "new", "trial state", Symlink::Refuse));
        QCOMPARE(QString::fromStdString(readText(path("victim"))), QString("precious"));
        QVERIFY(QFileInfo(dir_.filePath("state.json")).isSymLink());
        QCOMPARE(hiddenTemps(), QStringList());
        std::filesystem::create_hard_link(path("victim"), path("hard.json"));
        writeFileAtomically(path("hard.json"), "new", "trial state", Symlink::Refuse);
        QCOMPARE(QString::fromStdString(readText(path("hard.json"))), QString("new"));
        QCOMPARE(QString::fromStdString(readText(path("victim"))), QString("precious"));
    }

    void refusesDevicesAndFolders_data() {
        QTest::addColumn<QString>("target");
        QTest::newRow("device") << "/dev/null";
        QTest::newRow("folder") << "";
    }
    void refusesDevicesAndFolders() {
        QFETCH(QString, target);
        const std::string p = target.isEmpty() ? dir_.path().toStdString() : target.toStdString();
        QVERIFY_THROWS_EXCEPTION(IoError, writeFileAtomically(p, "x", "test file"));
        QVERIFY(QFileInfo(QString::fromStdString(p)).exists());
    }

    // A temporary file whose writer was killed (its process is gone) is removed by the next write;
    // one of a live writer (this process) is left alone.
    void removesStaleTemporaryFiles() {
        const QString stale = ".out.txt.999999999.AbCdEf", live = QString(".out.txt.%1.XyZxYz").arg(::getpid());
        for (const QString& name : {stale, live}) std::ofstream(path(name)) << "half a file";
        writeFileAtomically(path("out.txt"), "whole", "test file");
        QVERIFY(!QFileInfo::exists(dir_.filePath(stale)));
        QVERIFY(QFileInfo::exists(dir_.filePath(live)));
    }

    void outputChecks_data() {
        QTest::addColumn<QString>("out");
        QTest::addColumn<QString>("csv");
        QTest::addColumn<QString>("expected");  // a part of the message; empty: accepted
        QTest::newRow("new files") << "run.json"
                                   << "run.csv"
                                   << "";
        QTest::newRow("output is the data") << "data.csv"
                                            << ""
                                            << "--out " + dir_.filePath("data.csv") + ": is the same file as --data";
        QTest::newRow("csv is the data") << ""
                                         << "data.csv"
                                         << "--csv " + dir_.filePath("data.csv") + ": is the same file as --data";
        QTest::newRow("through a symlink") << "link-to-data"
                                           << ""
                                           << "is the same file as --data";
        QTest::newRow("two outputs, one file") << "same.json"
                                               << "same.json"
                                               << "give each output its own";
        QTest::newRow("a device") << "/dev/null"
                                  << ""
                                  << "is not a regular file";
        QTest::newRow("a folder") << "."
                                  << ""
                                  << "is a folder";
        QTest::newRow("a missing folder") << "no/such/run.json"
                                          << ""
                                          << "does not exist";
    }
    void outputChecks() {
        QFETCH(QString, out);
        QFETCH(QString, csv);
        QFETCH(QString, expected);
        QFile::link(dir_.filePath("data.csv"), dir_.filePath("link-to-data"));
        auto full = [this](const QString& p) {
            return p.isEmpty() || p.startsWith('/') ? p.toStdString() : dir_.filePath(p).toStdString();
        };
        const QString error = outputError({{"--out", full(out)}, {"--csv", full(csv)}}, {{"--data", path("data.csv")}});
        if (expected.isEmpty())
            QCOMPARE(error, QString());
        else
            QVERIFY2(error.contains(expected), qPrintable(error));
        QCOMPARE(QString::fromStdString(readText(path("data.csv"))), QString("a,b,y\n1,2,0\n"));
    }

    // A run killed mid-way left its record "running" and its epochs in the journal, the last line torn:
    // the record loads with every finished epoch.
    void killedRunLoadsWithItsFinishedEpochs() {
        RunRecord r;
        r.name = "killed";
        r.save(path("run.json"));
        {
            EpochJournal journal(path("run.json"));
            for (int e = 1; e <= 3; ++e) {
                EpochMetrics m;
                m.epoch = e;
                m.trainLoss = 1.0 / e;
                journal.append(m);
            }
        }
        std::ofstream(EpochJournal::pathFor(path("run.json")), std::ios::app) << "{\"epoch\": 4, \"train_lo";
        const RunRecord loaded = RunRecord::load(path("run.json"));
        QCOMPARE(loaded.epochs.size(), std::size_t{3});
        QCOMPARE(loaded.epochs[2].trainLoss, 1.0 / 3);
        QVERIFY(loaded.status == RunStatus::Running);
    }
};

QTEST_GUILESS_MAIN(AtomicFileTest)
#include "tst_atomic_file.moc"
