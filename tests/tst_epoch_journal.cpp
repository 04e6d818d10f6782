// The epoch journal's lines, formatted by hand for speed, say exactly what to_json(EpochMetrics)
// says: every key, shortest round-trip numbers, null for what is not finite or not measured.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/platform/errors.h"
#include "core/run/epoch_journal.h"

using namespace wb;

Q_DECLARE_METATYPE(wb::EpochMetrics)

class TestEpochJournal : public QObject {
    Q_OBJECT

private slots:
    // The journal's name is ours: a link or a second hard link planted there is refused before
    // anything is truncated, and the file it leads to keeps its bytes.
    void aPlantedJournalIsRefused_data() {
        QTest::addColumn<bool>("hard");
        QTest::newRow("symbolic link") << false;
        QTest::newRow("hard link") << true;
    }
    void aPlantedJournalIsRefused() {
        QFETCH(bool, hard);
        QTemporaryDir dir;
        const std::string record = dir.filePath("run.json").toStdString();
        const std::string victim = dir.filePath("victim").toStdString();
        std::ofstream(victim) << "precious";
        if (hard)
            std::filesystem::create_hard_link(victim, EpochJournal::pathFor(record));
        else
            std::filesystem::create_symlink(victim, EpochJournal::pathFor(record));
        QVERIFY_THROWS_EXCEPTION(IoError, EpochJournal{record});
        std::ifstream in(victim);
        const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        QCOMPARE(text, std::string("precious"));
    }

    void linesMatchTheRecordsJson_data() {
        QTest::addColumn<EpochMetrics>("metrics");
        EpochMetrics all;
        all.epoch = 4000;
        all.warmup = false;
        all.trainLoss = 0.1 + 0.2;  // 0.30000000000000004: shortest round-trip, not rounded
        all.trainAccuracy = 0.9;
        all.valLoss = 1e-300;
        all.valAccuracy = 1.0;
        all.wallMs = 21.3;
        all.deviceMs = 19.75;
        all.samplesPerSecond = 4.7e6;
        all.phases = PhaseTimes{0.4, 6.1, 9.8, 0.3, 4.7};
        all.elapsedMs = 123456.789;
        QTest::newRow("every field") << all;
        EpochMetrics bare;
        bare.epoch = 1;
        bare.warmup = true;
        bare.trainLoss = 0.69;
        QTest::newRow("no validation, no phases, no device") << bare;
        EpochMetrics diverged = bare;
        diverged.trainLoss = std::numeric_limits<double>::quiet_NaN();
        diverged.valLoss = std::numeric_limits<double>::infinity();
        diverged.samplesPerSecond = -std::numeric_limits<double>::infinity();
        QTest::newRow("not finite") << diverged;
    }
    void linesMatchTheRecordsJson() {
        QFETCH(EpochMetrics, metrics);
        const QTemporaryDir dir;
        const std::string record = dir.filePath("run.json").toStdString();
        {
            EpochJournal journal(record);
            journal.append(metrics);
            journal.append(metrics);  // the reused line buffer starts afresh
        }
        std::ifstream in(EpochJournal::pathFor(record));
        const nlohmann::json expected = nlohmann::json::parse(nlohmann::json(metrics).dump());
        for (int i = 0; i < 2; ++i) {
            std::string line;
            QVERIFY(std::getline(in, line));
            const nlohmann::json written = nlohmann::json::parse(line);
            QVERIFY2(written == expected, (line + "\nexpected " + expected.dump()).c_str());
        }
        QCOMPARE(EpochJournal::read(record).size(), std::size_t{2});
    }
};

QTEST_GUILESS_MAIN(TestEpochJournal)
#include "tst_epoch_journal.moc"
