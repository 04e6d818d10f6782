// Replays every input the fuzzers once crashed on (tests/fuzz/regressions/<reader>/) and every seed
// (tests/fuzz/corpus/<reader>/) through the readers' public API: the path entry points and, exactly as
// the fuzz targets do, the in-memory ones. Each call must load or refuse the input with DataError or
// ConfigError; any other exception, a broken promise of a loaded result, or a crash fails.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringList>
#include <QtTest>
#include <exception>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_feed.h"
#include "tests/fuzz/fuzz_sweep_feed.h"

namespace {

const QString kFuzzDir = QStringLiteral(WB_TEST_DATA_DIR "/../fuzz");
const QStringList kReaders{"csv", "npy", "safetensors", "records", "sweep"};

QFileInfoList filesIn(const QString& set, const QString& reader) {
    return QDir(kFuzzDir + "/" + set + "/" + reader).entryInfoList(QDir::Files, QDir::Name);
}

}  // namespace

class FuzzRegressions : public QObject {
    Q_OBJECT

private slots:
    // Guards the data-driven test below against a wrong path, which would leave it without rows.
    void corporaFound_data() {
        QTest::addColumn<QString>("reader");
        for (const QString& reader : kReaders) QTest::newRow(qPrintable(reader)) << reader;
    }
    void corporaFound() {
        QFETCH(QString, reader);
        QVERIFY2(!filesIn("corpus", reader).isEmpty(), qPrintable("no seeds in " + kFuzzDir + "/corpus/" + reader));
    }

    // Too large to store (the fuzzers' inputs stay small): a shape nested 200,000 arrays deep. Printing
    // it for the error message once overflowed the stack; it must be refused with a DataError.
    void deeplyNestedShape() {
        constexpr std::size_t depth = 200'000;
        std::string header = R"({"layers.0.weight":{"dtype":"F32","data_offsets":[0,4],"shape":[)";
        header.append(depth, '[');
        header.append(depth, ']');
        header += "]}}";
        std::string bytes(8, '\0');
        for (std::size_t b = 0; b < 8; ++b) bytes[b] = static_cast<char>((header.size() >> (8 * b)) & 0xFF);
        bytes += header;
        bytes.append(4, '\0');
        try {
            (void)wb::parseSafetensors(bytes, "deep.safetensors");
            QFAIL("a nested shape was accepted");
        } catch (const wb::DataError& e) {
            QVERIFY2(e.reason().find("not a list of sizes") != std::string::npos, e.what());
        }
    }

    // Also too large to store: a header of 16,384 columns, two million blank lines, two data rows. The
    // reader once reserved room for lines x columns values (128 GB) and failed with std::bad_alloc.
    void wideHeaderThenBlankLines() {
        constexpr std::size_t columns = 16'384;
        std::string text;
        for (std::size_t c = 0; c < columns; ++c) text += c ? ",c" : "c";
        text += '\n';
        text.append(2'000'000, '\n');
        for (const char* label : {"0", "1"}) {  // two label values: a label of one value is refused
            for (std::size_t c = 0; c + 1 < columns; ++c) text += "1,";
            text += label;
            text += '\n';
        }
        try {
            const wb::Dataset d = wb::parseCsv(text, "wide.csv", wb::CsvOptions{});
            QCOMPARE(d.rows, std::size_t{2});
            QCOMPARE(d.cols, columns - 1);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
    }

    void replay_data() {
        QTest::addColumn<QString>("reader");
        QTest::addColumn<QString>("path");
        for (const QString& set : {QStringLiteral("regressions"), QStringLiteral("corpus")}) {
            for (const QString& reader : kReaders) {
                for (const QFileInfo& file : filesIn(set, reader))
                    QTest::newRow(qPrintable(set + "/" + reader + "/" + file.fileName()))
                        << reader << file.absoluteFilePath();
            }
        }
    }

    void replay() {
        QFETCH(QString, reader);
        QFETCH(QString, path);
        QFile file(path);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.errorString()));
        const QByteArray bytes = file.readAll();
        const std::string_view view(bytes.constData(), static_cast<std::size_t>(bytes.size()));
        const std::string p = path.toStdString();
        using wb::fuzz::loadsOrRefuses;
        try {
            if (reader == "csv") {
                loadsOrRefuses([&] { wb::fuzz::checkDataset(wb::readCsv(p, wb::CsvOptions{})); });
                wb::fuzz::feedCsv(view);
            } else if (reader == "npy") {
                loadsOrRefuses([&] { wb::fuzz::checkArray(wb::readNpy(p)); });
                loadsOrRefuses([&] { wb::fuzz::checkDataset(wb::loadNpyDataset(p, "")); });
                wb::fuzz::feedNpy(view);
            } else if (reader == "sweep") {
                wb::fuzz::feedSweepFiles(view);
            } else if (reader == "records") {
                loadsOrRefuses([&] { (void)wb::RunRecord::load(p); });
                wb::fuzz::feedJsonRecords(view);
            } else {
                loadsOrRefuses([&] { (void)wb::loadSafetensors(p); });
                wb::fuzz::feedSafetensors(view);
            }
        } catch (const std::exception& e) {
            QFAIL(qPrintable(QString("neither loaded nor refused with DataError/ConfigError: ") + e.what()));
        }
    }
};

QTEST_GUILESS_MAIN(FuzzRegressions)
#include "tst_fuzz_regressions.moc"
