// The memory a run will need, estimated before it is spent: the figures, the refusal naming both,
// batch buffers sized by the rows there are, and the readers' caps on unbounded inputs.
#include <QtTest>

#include <atomic>

#include "core/cpu/cpu_backend.h"
#include "core/data/builtin_data.h"
#include "core/data/csv_reader.h"
#include "core/data/file_bytes.h"
#include "core/data/prepare.h"
#include "core/run/memory_budget.h"
#include "core/train/trainer.h"
#include "tests/test_support.h"

using namespace wb;

namespace {
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
}  // namespace

class TestMemoryBudget : public QObject {
    Q_OBJECT

private slots:
    void formatsBytes_data() {
        QTest::addColumn<qulonglong>("bytes");
        QTest::addColumn<QString>("text");
        QTest::newRow("bytes") << qulonglong(900) << "900 B";
        QTest::newRow("KiB") << qulonglong(1536) << "1.5 KiB";
        QTest::newRow("MiB") << qulonglong(512ull << 20) << "512.0 MiB";
        QTest::newRow("GiB") << qulonglong(41.2 * kGiB) << "41.2 GiB";
    }
    void formatsBytes() {
        QFETCH(qulonglong, bytes);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(formatBytes(bytes)), text);
    }

    void refusalNamesBothFigures() {
        MemoryEstimate need;
        need.add("the data set", static_cast<std::uint64_t>(41.2 * kGiB));
        try {
            checkMemory(need, static_cast<std::uint64_t>(22.8 * kGiB), "this run");
            QFAIL("no MemoryError");
        } catch (const MemoryError& e) {
            QVERIFY2(QString(e.what()).startsWith("this run needs 41.2 GiB, 22.8 GiB available (the data set"),
                     e.what());
            QCOMPARE(e.availableBytes(), static_cast<std::uint64_t>(22.8 * kGiB));
        }
        checkMemory(need, std::nullopt, "unknown room: no check");
        checkMemory(need, need.total(), "exactly enough");
    }

    // `--rows 1000 --batch-size 10000000` took 4.6 GB: the buffers were sized by the batch.
    void batchBuffersAreSizedByTheRows() {
        RunConfig config;
        config.train.batchSize = 10000000;
        const MemoryShape shape = shapeOf(config, 1000, kSeedFeatures);
        QCOMPARE(batchCapacity(config.train.batchSize, shape), std::size_t{1000});
        const MemoryEstimate e = estimateRunMemory(config, shape, MemoryStage::BeforeLoad);
        QVERIFY2(e.total() < (std::uint64_t{4} << 20), formatBytes(e.total()).c_str());
    }

    void theEstimateGrowsWithTheData() {
        RunConfig config;
        const MemoryEstimate small = estimateRunMemory(config, shapeOf(config, 1000, 61), MemoryStage::BeforeLoad);
        const MemoryEstimate large = estimateRunMemory(config, shapeOf(config, 100000000, 61), MemoryStage::BeforeLoad);
        // 10^8 rows x 62 floats: the data set, its prepared copy, the backend's copy: over 60 GiB.
        QVERIFY2(large.total() > 60 * kGiB, formatBytes(large.total()).c_str());
        QVERIFY(small.total() < large.total() / 10000);
        const MemoryEstimate setupOnly =
            estimateRunMemory(config, shapeOf(config, 100000000, 61), MemoryStage::BeforeSetup);
        QVERIFY(setupOnly.total() < large.total());
    }

    // The Trainer checks before the backend allocates: nothing trained, nothing written.
    void theTrainerRefusesARunThatCannotFit() {
        const Dataset ds = generateSeedLike(2000, 1);
        const PreparedData data = prepare(ds, {});
        RunConfig config;
        config.train.epochs = 1;
        auto backend = makeCpuBackend();
        const QTemporaryDir dir;
        const std::string out = dir.filePath("r.json").toStdString();
        Trainer trainer(config, ds, data, *backend, out);
        const ScopedEnv env("MLPWB_AVAILABLE_MEMORY", "100000");
        const CancelFlag cancel{false};
        QVERIFY_THROWS_EXCEPTION(MemoryError, trainer.run(cancel));
        QVERIFY(!QFile::exists(dir.filePath("r.json")));
    }

    // /dev/zero read until the kernel killed the process.
    void anInputThatIsNotAFileStopsAtTheCap() {
        const ScopedEnv env("MLPWB_MAX_STREAM_BYTES", "100000");
        const auto error = dataErrorOf([] { readFileBytes("/dev/zero"); });
        QVERIFY(error);
        QVERIFY2(error->reason().find("not a regular file") != std::string::npos, error->what());
    }

    // 25M columns on one line grew to 23 GB before any check.
    void tooManyColumnsAreRefusedAsTheyAreRead() {
        CsvOptions options;
        options.maxColumns = 4;
        const auto error = dataErrorOf([&] { parseCsv("1,2,3,4,5,0\n1,2,3,4,5,1\n", "wide.csv", options); });
        QVERIFY(error);
        QCOMPARE(error->line(), 1L);
        QVERIFY2(error->reason().find("more than 4 columns") != std::string::npos, error->what());
        options.maxColumns = 6;
        QCOMPARE(parseCsv("1,2,3,4,5,0\n1,2,3,4,5,1\n", "wide.csv", options).cols, std::size_t{5});
    }
};

QTEST_GUILESS_MAIN(TestMemoryBudget)
#include "tst_memory_budget.moc"
