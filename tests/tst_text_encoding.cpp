// Any bytes in, valid JSON out: text from data files that is not UTF-8 is decoded as CP-1252, said so
// in the data set's notes, and reaches the run record as the characters the file meant.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/data/csv_reader.h"
#include "core/data/text_encoding.h"
#include "core/run/run_record.h"

using namespace wb;

Q_DECLARE_METATYPE(std::string)

class TestTextEncoding : public QObject {
    Q_OBJECT

private slots:
    void decodes_data() {
        QTest::addColumn<std::string>("bytes");
        QTest::addColumn<std::string>("utf8");
        QTest::addColumn<bool>("decoded");
        QTest::newRow("ascii") << std::string("kleiner") << std::string("kleiner") << false;
        QTest::newRow("utf-8 stays") << std::string(
                                            "gr\xc3\xb6\xc3\x9f"
                                            "er")
                                     << std::string("größer") << false;
        QTest::newRow("latin-1") << std::string(
                                        "gr\xf6\xdf"
                                        "er")
                                 << std::string("größer") << true;
        QTest::newRow("cp-1252 euro and quotes") << std::string("\x80 \x93x\x94") << std::string("€ “x”") << true;
        QTest::newRow("unassigned cp-1252 byte") << std::string("a\x81") << std::string("a\xc2\x81") << true;
        QTest::newRow("truncated utf-8") << std::string("\xc3") << std::string("Ã") << true;
        QTest::newRow("overlong utf-8") << std::string("\xc0\xaf") << std::string("À¯") << true;
        QTest::newRow("utf-16 surrogate") << std::string("\xed\xa0\x80") << std::string("í\xc2\xa0€") << true;
    }
    void decodes() {
        QFETCH(std::string, bytes);
        QFETCH(std::string, utf8);
        QFETCH(bool, decoded);
        bool wasDecoded = false;
        const std::string out = asUtf8(bytes, wasDecoded);
        QCOMPARE(out, utf8);
        QCOMPARE(wasDecoded, decoded);
        QVERIFY(isValidUtf8(out));
    }

    // `größer`/`kleiner` in Latin-1 trained, then lost the record to "invalid UTF-8 byte".
    void latin1LabelsReachTheRecordAsText() {
        const std::string csv =
            "a,b,gr\xf6\xdf"
            "e\n0.1,0.2,gr\xf6\xdf"
            "er\n0.9,0.8,kleiner\n0.3,0.1,gr\xf6\xdf"
            "er\n";
        const Dataset d = parseCsv(csv, "latin.csv", {});
        QCOMPARE(d.labelName, std::string("größe"));
        QCOMPARE(d.labelMapping.count("größer"), std::size_t{1});
        QCOMPARE(d.labelMapping.count("kleiner"), std::size_t{1});
        QVERIFY(std::find(d.notes.begin(), d.notes.end(), "labels decoded as Latin-1/CP-1252 (not UTF-8)") !=
                d.notes.end());

        RunRecord record;
        record.dataset.label = d.labelName;
        record.dataset.labelMapping = d.labelMapping;
        record.dataset.notes = d.notes;
        const nlohmann::json j = nlohmann::json::parse(record.toJson().dump());  // throws on invalid UTF-8
        QCOMPARE(j["dataset"]["label_mapping"].contains("größer"), true);
        QCOMPARE(RunRecord::fromJson(j).dataset.notes, d.notes);
    }

    void utf8FilesHaveNoNote() {
        const Dataset d = parseCsv(
            "a,b,y\n0.1,0.2,gr\xc3\xb6\xc3\x9f"
            "er\n0.9,0.8,kleiner\n",
            "utf8.csv", {});
        QVERIFY(d.notes.empty());
        QCOMPARE(d.labelMapping.count("größer"), std::size_t{1});
    }
};

QTEST_GUILESS_MAIN(TestTextEncoding)
#include "tst_text_encoding.moc"
