// saveJsonAtomically, behind RunRecord::save and AblationResult::save: writes the document whole,
// replaces an older file, and on failure throws an IoError naming the document and leaves no .tmp.
#include <sys/stat.h>
#include <QtTest>

#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "core/platform/errors.h"
#include "core/platform/json_file.h"

namespace {

std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The IoError's text, or an empty string when saving succeeds.
std::string saveError(const nlohmann::json& document, const std::string& path) {
    try {
        wb::saveJsonAtomically(document, path, "test document");
    } catch (const wb::IoError& e) {
        return e.what();
    }
    return {};
}

}  // namespace

class TestJsonFile : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    std::string path(const char* name) const { return dir_.filePath(name).toStdString(); }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void writesIndentedJsonWithFinalNewline() {
        const nlohmann::json doc = {{"schema", "test/1"}, {"values", {1, 2.5, nullptr}}};
        QCOMPARE(QString::fromStdString(saveError(doc, path("a.json"))), QString());
        const std::string text = readText(path("a.json"));
        QCOMPARE(QString::fromStdString(text), QString::fromStdString(doc.dump(1) + "\n"));
        QVERIFY(!QFileInfo::exists(dir_.filePath("a.json.tmp")));
    }

    void replacesAnOlderFile() {
        std::ofstream(path("b.json")) << "an older, longer file that is not JSON at all";
        const nlohmann::json doc = {{"n", 7}};
        QCOMPARE(QString::fromStdString(saveError(doc, path("b.json"))), QString());
        QCOMPARE(nlohmann::json::parse(readText(path("b.json"))), doc);
    }

    void missingFolderThrowsIoError() {
        const std::string message = saveError({{"n", 1}}, path("no-such-folder/c.json"));
        QVERIFY2(message.find("cannot write test document") != std::string::npos, message.c_str());
        QVERIFY(!QFileInfo::exists(dir_.filePath("no-such-folder")));
    }

    void folderInTheWayThrowsAndLeavesNoTemporaryFile() {
        QVERIFY(QDir(dir_.path()).mkpath("d.json/inside"));
        const std::string message = saveError({{"n", 1}}, path("d.json"));
        QVERIFY2(message.find("cannot write test document") != std::string::npos, message.c_str());
        QCOMPARE(QDir(dir_.path()).entryList({".d.json.*"}, QDir::Hidden | QDir::Files), QStringList());
        QVERIFY(QFileInfo(dir_.filePath("d.json/inside")).isDir());
    }

    // 70,000 levels of nesting crashed the GUI's loaders; a FIFO with no writer hung them.
    void loaderRefusesWhatCouldCrashOrHang_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("deep nesting") << "deep"
                                      << "nested 70000 levels deep";
        QTest::newRow("a folder") << "folder"
                                  << "is not a regular file";
        QTest::newRow("a FIFO") << "fifo"
                                << "is not a regular file";
    }
    void loaderRefusesWhatCouldCrashOrHang() {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        std::string p = path("in.json");
        if (kind == "deep") std::ofstream(p) << std::string(70000, '[') << std::string(70000, ']');
        if (kind == "folder") p = dir_.path().toStdString();
        if (kind == "fifo") {
            p = path("fifo.json");
            QVERIFY(::mkfifo(p.c_str(), 0600) == 0);
        }
        try {
            wb::loadJsonFile(p, "run record");
            QFAIL("no error");
        } catch (const wb::DataError& e) {
            QVERIFY2(QString(e.what()).contains(expected), e.what());
        }
    }

    // Text that is not UTF-8 (a Latin-1 label from a CSV) must not lose the record.
    void invalidUtf8IsReplacedNotFatal() {
        const nlohmann::json doc = {{"label", std::string("gr\xf6\xdf"
                                                          "er")}};
        QCOMPARE(QString::fromStdString(saveError(doc, path("e.json"))), QString());
        QCOMPARE(nlohmann::json::parse(readText(path("e.json")))["label"].get<std::string>(),
                 std::string("gr\xef\xbf\xbd\xef\xbf\xbd"
                             "er"));
    }
};

QTEST_GUILESS_MAIN(TestJsonFile)
#include "tst_json_file.moc"
