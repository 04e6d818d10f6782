// The CSV reader: every malformed input is a DataError with its place; every quirk that real files
// have (BOM, CRLF, ';', tabs, quotes, string labels, ...) loads; missing values follow the policy.
#include <QtTest>

#include <optional>

#include <nlohmann/json.hpp>

#include "core/data/csv_reader.h"
#include "core/data/data_source.h"
#include "core/platform/errors.h"
#include "tests/test_support.h"

namespace {

wb::CsvOptions makeOptions(const QString& label, const QStringList& ignore, const QString& header, int skip) {
    wb::CsvOptions o;
    o.label = label.toStdString();
    for (const QString& column : ignore) o.ignore.push_back(column.toStdString());
    o.header = wb::headerModeFromString(header.toStdString());
    o.skipLines = static_cast<std::size_t>(skip);
    return o;
}

QList<float> toList(const std::vector<float>& v) {
    return QList<float>(v.begin(), v.end());
}

QStringList toList(const std::vector<std::string>& v) {
    QStringList out;
    for (const auto& s : v) out << QString::fromStdString(s);
    return out;
}

QStringList mappingList(const std::map<std::string, int>& m) {
    QStringList out;
    for (const auto& [name, code] : m) out << QString::fromStdString(name) + "=" + QString::number(code);
    return out;
}

}  // namespace

class TestCsvReader : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;

    QString write(const QByteArray& content, const QString& name = QStringLiteral("data.csv")) {
        const QString path = dir_.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) qFatal("cannot write %s", qPrintable(path));
        f.write(content);
        return path;
    }

    wb::Dataset load(const QByteArray& content, const wb::CsvOptions& options = {}) {
        return wb::readCsv(write(content).toStdString(), options);
    }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void malformed_data();
    void malformed();
    void quirks_data();
    void quirks();
    void missingPolicies_data();
    void missingPolicies();
    void missingPolicyErrors_data();
    void missingPolicyErrors();
    void errorMessageNamesThePlace();
    void hashIgnoresFormatting();
    void positiveFraction();
    void largeFileRoundTrip();
    void stringConversions();
    void dataSpecJsonRoundTrip();
    void loadDatasetReadsCsv();
};

// kind: "file" (write content), "missing" (no such file), "dir" (a directory).
// line/column 0 = not checked; text is checked when not null.
void TestCsvReader::malformed_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("label");
    QTest::addColumn<QStringList>("ignore");
    QTest::addColumn<QString>("header");
    QTest::addColumn<int>("skip");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("reason");

    const QStringList none;
    const QString noText;
    auto row = [&](const char* tag, const QByteArray& content, const QString& reason, int line = 0, int column = 0,
                   const QString& text = QString()) {
        QTest::newRow(tag) << "file" << content << "" << none << "auto" << 0 << line << column << text << reason;
    };
    QTest::newRow("missing file") << "missing" << QByteArray() << "" << none << "auto" << 0 << 0 << 0 << noText
                                  << "no such file";
    QTest::newRow("directory") << "dir" << QByteArray() << "" << none << "auto" << 0 << 0 << 0 << noText << "directory";
    row("empty", "", "empty");
    row("blank lines only", "\n\n   \r\n", "empty");
    row("bom only", "\xEF\xBB\xBF", "empty");
    row("header only", "a,b,y\n", "no data rows");
    row("ragged long", "a,b,y\n1,2,0\n3,4,1,5\n", "expected 3 fields, found 4", 3, 4, "3,4,1,5");
    row("ragged short", "a,b,y\n1,2,0\n3,4\n", "expected 3 fields, found 2", 3, 3, "3,4");
    row("ragged late", QByteArray("a,b,y\n") + QByteArray("1,2,0\n").repeated(50) + "1,2\n", "expected 3 fields", 52, 3,
        "1,2");
    row("non-numeric cell", "a,b,y\n1,2,0\n3,abc,1\n", "not a number", 3, 2, "abc");
    row("non-numeric in headerless", "1,2,0\n3,x1,1\n", "not a number", 2, 2, "x1");
    row("escaped quote in number", "a,y\n\"1\"\"\",0\n", "not a number", 2, 1, "1\"");
    row("partly numeric", "a,y\n1.5e,0\n", "not a number", 2, 1, "1.5e");
    row("single string label", "a,y\n1,spam\n2,spam\n", "single value");
    row("single number label", "a,y\n1,0.5\n", "single value");
    row("fractional labels", "a,y\n1,0.5\n2,1.5\n3,2.5\n", "--task regression");
    row("text label after numbers", "a,y\n1,0\n2,spam\n", "not a number", 3, 2, "spam");
    row("overflow", "a,y\n1e999,0\n", "out of range", 2, 1, "1e999");
    row("float32 overflow", "a,y\n3.5e38,0\n", "out of range", 2, 1, "3.5e38");
    row("inf", "a,y\ninf,0\n", "finite", 2, 1, "inf");
    row("-Infinity", "a,y\n1,1\n-Infinity,0\n", "finite", 3, 1, "-Infinity");
    row("missing cell", "a,b,y\n1,,0\n", "missing value", 2, 2, "");
    row("NA cell", "a,b,y\n1,NA,0\n", "missing value", 2, 2, "NA");
    row("n/a cell", "a,b,y\n1,2,0\nn/a,2,0\n", "missing value", 3, 1, "n/a");
    row("missing label", "a,b,y\n1,2,\n", "missing label", 2, 3, "");
    row("NUL byte", QByteArray("a,b,y\n1,2,0\n3,\0,1\n", 18), "binary");
    row("control byte", "a,b,y\n\x01\x02\x03,2,0\n", "binary");
    row("unterminated quote", "a,b,y\n1,\"2,0\n3,4,1\n", "unterminated", 2, 2);
    row("text after quote", "a,b,y\n1,\"2\"x,0\n", "after a closing quote", 2, 2);
    row("one column", "y\n0\n1\n", "no feature columns");

    QTest::newRow("unknown label name") << "file" << QByteArray("a,b,y\n1,2,0\n") << "class" << none << "auto" << 0 << 0
                                        << 0 << noText << "label column 'class' not found";
    QTest::newRow("label name without header")
        << "file" << QByteArray("1,2,0\n") << "y" << none << "auto" << 0 << 0 << 0 << noText << "no header";
    QTest::newRow("label index out of range")
        << "file" << QByteArray("a,b,y\n1,2,0\n") << "3" << none << "auto" << 0 << 0 << 0 << noText << "out of range";
    QTest::newRow("unknown ignore name") << "file" << QByteArray("a,b,y\n1,2,0\n") << "" << QStringList{"zzz"} << "auto"
                                         << 0 << 0 << 0 << noText << "ignored column 'zzz' not found";
    QTest::newRow("ignore index out of range") << "file" << QByteArray("a,b,y\n1,2,0\n") << "" << QStringList{"9"}
                                               << "auto" << 0 << 0 << 0 << noText << "out of range";
    QTest::newRow("ignore the label") << "file" << QByteArray("a,b,y\n1,2,0\n") << "" << QStringList{"y"} << "auto" << 0
                                      << 0 << 0 << noText << "is the label";
    QTest::newRow("everything ignored") << "file" << QByteArray("a,b,y\n1,2,0\n") << "" << QStringList{"a", "1"}
                                        << "auto" << 0 << 0 << 0 << noText << "no feature columns";
    QTest::newRow("header forced no") << "file" << QByteArray("a,b,y\n1,2,0\n") << "" << none << "no" << 0 << 1 << 1
                                      << "a"
                                      << "not a number";
    QTest::newRow("skipped everything") << "file" << QByteArray("a,y\n1,0\n") << "" << none << "auto" << 5 << 0 << 0
                                        << noText << "nothing left";
    QTest::newRow("bad cell after skip") << "file" << QByteArray("junk\njunk\na,y\n1,0\nz,1\n") << "" << none << "auto"
                                         << 2 << 5 << 1 << "z"
                                         << "not a number";
}

void TestCsvReader::malformed() {
    QFETCH(QString, kind);
    QFETCH(QByteArray, content);
    QFETCH(QString, label);
    QFETCH(QStringList, ignore);
    QFETCH(QString, header);
    QFETCH(int, skip);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, text);
    QFETCH(QString, reason);

    QString path;
    if (kind == "file")
        path = write(content);
    else if (kind == "missing")
        path = dir_.filePath("does-not-exist.csv");
    else
        QVERIFY(QDir(dir_.path()).mkpath(path = dir_.filePath("a-directory.csv")));

    const wb::CsvOptions options = makeOptions(label, ignore, header, skip);
    const auto error = dataErrorOf([&] { wb::readCsv(path.toStdString(), options); });
    QVERIFY2(error.has_value(), "no DataError was thrown");
    QVERIFY2(QString::fromStdString(error->reason()).contains(reason), error->what());
    QCOMPARE(QString::fromStdString(error->file()), path);
    if (line > 0) QCOMPARE(error->line(), long(line));
    if (column > 0) QCOMPARE(error->column(), long(column));
    if (!text.isNull()) QCOMPARE(QString::fromStdString(error->text()), text);
}

void TestCsvReader::quirks_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("label");
    QTest::addColumn<QStringList>("ignore");
    QTest::addColumn<QString>("header");
    QTest::addColumn<int>("skip");
    QTest::addColumn<QList<float>>("features");
    QTest::addColumn<QList<float>>("labels");
    QTest::addColumn<QStringList>("names");
    QTest::addColumn<QString>("labelName");
    QTest::addColumn<QStringList>("mapping");

    const QStringList none;
    const QList<float> f1234 = {1, 2, 3, 4};
    const QList<float> y01 = {0, 1};
    const QStringList ab = {"a", "b"};
    auto row = [&](const char* tag, const QByteArray& content, const QList<float>& features, const QList<float>& labels,
                   const QStringList& names, const QString& labelName = "y", const QStringList& mapping = {}) {
        QTest::newRow(tag) << content << "" << none << "auto" << 0 << features << labels << names << labelName
                           << mapping;
    };
    row("plain", "a,b,y\n1,2,0\n3,4,1\n", f1234, y01, ab);
    row("utf-8 bom",
        "\xEF\xBB\xBF"
        "a,b,y\n1,2,0\n3,4,1\n",
        f1234, y01, ab);
    row("crlf", "a,b,y\r\n1,2,0\r\n3,4,1\r\n", f1234, y01, ab);
    row("semicolon", "a;b;y\n1;2;0\n3;4;1\n", f1234, y01, ab);
    row("semicolon, comma in quotes", "\"a,x\";b;y\n1;2;0\n3;4;1\n", f1234, y01, {"a,x", "b"});
    row("tab", "a\tb\ty\n1\t2\t0\n3\t4\t1\n", f1234, y01, ab);
    row("quoted numbers", "\"a\",\"b\",\"y\"\n\"1\",\"2\",\"0\"\n\"3\", \"4\" ,\"1\"\n", f1234, y01, ab);
    row("quoted names", "\"a,1\",\"b \"\"q\"\"\",y\n1,2,0\n3,4,1\n", f1234, y01, {"a,1", "b \"q\""});
    row("newline in quoted name", "\"a\nb\",c,y\n1,2,0\n3,4,1\n", f1234, y01, {"a\nb", "c"});
    row("string labels", "a,y\n1,spam\n2,nonspam\n3,spam\n", {1, 2, 3}, {1, 0, 1}, {"a"}, "y", {"nonspam=0", "spam=1"});
    row("string labels headerless", "1,R\n2,M\n", {1, 2}, {1, 0}, {"x0"}, "label", {"M=0", "R=1"});
    row("quoted string labels", "a,y\n1,\"yes\"\n2,\"no\"\n", {1, 2}, {1, 0}, {"a"}, "y", {"no=0", "yes=1"});
    row("headerless", "1,2,0\n3,4,1\n", f1234, y01, {"x0", "x1"}, "label");
    row("label 1.0", "a,y\n1,1.0\n2,0.0\n", {1, 2}, {1, 0}, {"a"});
    row("labels 0 and 2", "a,y\n1,0\n2,2\n", {1, 2}, {0, 1}, {"a"}, "y", {"0=0", "2=1"});
    row("labels -1 and 1", "a,y\n1,1\n2,-1\n", {1, 2}, {1, 0}, {"a"}, "y", {"-1=0", "1=1"});
    row("number forms", "a,b,y\n+1.5,-.5,0\n 2e3 ,1e-50,1\n", {1.5f, -0.5f, 2000, 0}, y01, ab);
    row("trailing blank lines", "a,b,y\n1,2,0\n3,4,1\n\n\r\n  \n", f1234, y01, ab);
    row("no final newline", "a,b,y\n1,2,0\n3,4,1", f1234, y01, ab);
    row("long fields, no final newline", "a,y\n1.00000000000000000001,0\n2.50000000000000000000,1", {1, 2.5f}, y01,
        {"a"});
    row("blank line inside", "a,b,y\n1,2,0\n\n3,4,1\n", f1234, y01, ab);
    row("empty header name", ",b,y\n1,2,0\n3,4,1\n", f1234, y01, {"x0", "b"});

    QTest::newRow("header forced yes") << QByteArray("10,20,30\n1,2,0\n3,4,1\n") << "" << none << "yes" << 0 << f1234
                                       << y01 << QStringList{"10", "20"} << "30" << QStringList{};
    QTest::newRow("header forced no") << QByteArray("1,2,0\n3,4,1\n") << "" << none << "no" << 0 << f1234 << y01
                                      << QStringList{"x0", "x1"} << "label" << QStringList{};
    QTest::newRow("skip lines") << QByteArray("# made by hand\n# two lines\na,b,y\n1,2,0\n3,4,1\n") << "" << none
                                << "auto" << 2 << f1234 << y01 << ab << "y" << QStringList{};
    QTest::newRow("ignore by name") << QByteArray("id,a,b,y\nr1,1,2,0\nr2,3,4,1\n") << "" << QStringList{"id"} << "auto"
                                    << 0 << f1234 << y01 << ab << "y" << QStringList{};
    QTest::newRow("ignore by index") << QByteArray("a,id,b,y\n1,9,2,0\n3,9,4,1\n") << "" << QStringList{"1"} << "auto"
                                     << 0 << f1234 << y01 << ab << "y" << QStringList{};
    QTest::newRow("ignore text column headerless")
        << QByteArray("r1,1,2,0\nr2,3,4,1\n") << "" << QStringList{"0"} << "auto" << 0 << f1234 << y01
        << QStringList{"x0", "x1"} << "label" << QStringList{};
    QTest::newRow("label by name") << QByteArray("y,a,b\n0,1,2\n1,3,4\n") << "y" << none << "auto" << 0 << f1234 << y01
                                   << ab << "y" << QStringList{};
    QTest::newRow("label by index") << QByteArray("0,1,2\n1,3,4\n") << "0" << none << "auto" << 0 << f1234 << y01
                                    << QStringList{"x0", "x1"} << "label" << QStringList{};
    QTest::newRow("text label by index") << QByteArray("M,1,2\nR,3,4\n") << "0" << none << "auto" << 0 << f1234 << y01
                                         << QStringList{"x0", "x1"} << "label" << QStringList{"M=0", "R=1"};
}

void TestCsvReader::quirks() {
    QFETCH(QByteArray, content);
    QFETCH(QString, label);
    QFETCH(QStringList, ignore);
    QFETCH(QString, header);
    QFETCH(int, skip);
    QFETCH(QList<float>, features);
    QFETCH(QList<float>, labels);
    QFETCH(QStringList, names);
    QFETCH(QString, labelName);
    QFETCH(QStringList, mapping);

    const QString path = write(content);
    const wb::Dataset d = wb::readCsv(path.toStdString(), makeOptions(label, ignore, header, skip));
    QCOMPARE(d.rows, std::size_t(labels.size()));
    QCOMPARE(d.cols, std::size_t(names.size()));
    QCOMPARE(toList(d.features), features);
    QCOMPARE(toList(d.labels), labels);
    QCOMPARE(toList(d.columnNames), names);
    QCOMPARE(QString::fromStdString(d.labelName), labelName);
    QCOMPARE(mappingList(d.labelMapping), mapping);
    QCOMPARE(QString::fromStdString(d.source), path);
    QVERIFY(QString::fromStdString(d.hash).startsWith("sha256:"));
}

// One file, two policies: the row with an empty cell and the row with NA either go or get means.
void TestCsvReader::missingPolicies_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("policy");
    QTest::addColumn<QList<float>>("features");
    QTest::addColumn<QList<float>>("labels");
    QTest::addColumn<QString>("note");

    const QByteArray file = "a,b,y\n1,2,0\n,4,1\n4,NA,0\n7,8,1\n";
    QTest::newRow("drop") << file << "drop" << QList<float>{1, 2, 7, 8} << QList<float>{0, 1} << "dropped 2 row(s)";
    // a: mean of 1, 4, 7 = 4; b: mean of 2, 4, 8 = 14/3.
    QTest::newRow("mean") << file << "mean" << QList<float>{1, 2, 4, 4, 4, float(14.0 / 3.0), 7, 8}
                          << QList<float>{0, 1, 0, 1} << "imputed 2 missing cell(s)";
    QTest::newRow("drop missing label") << QByteArray("a,y\n1,0\n2,\n3,NaN\n4,1\n") << "drop" << QList<float>{1, 4}
                                        << QList<float>{0, 1} << "dropped 2 row(s)";
    QTest::newRow("mean of two cells") << QByteArray("a,b,y\nnan,1,0\n2,N/A,1\n4,3,0\n") << "mean"
                                       << QList<float>{3, 1, 2, 2, 4, 3} << QList<float>{0, 1, 0}
                                       << "imputed 2 missing cell(s)";
}

void TestCsvReader::missingPolicies() {
    QFETCH(QByteArray, content);
    QFETCH(QString, policy);
    QFETCH(QList<float>, features);
    QFETCH(QList<float>, labels);
    QFETCH(QString, note);

    wb::CsvOptions options;
    options.missing = wb::missingPolicyFromString(policy.toStdString());
    const wb::Dataset d = load(content, options);
    QCOMPARE(toList(d.features), features);
    QCOMPARE(toList(d.labels), labels);
    QCOMPARE(d.rows, std::size_t(labels.size()));
    QCOMPARE(d.notes.size(), std::size_t(1));
    QVERIFY2(QString::fromStdString(d.notes.front()).contains(note), d.notes.front().c_str());
}

void TestCsvReader::missingPolicyErrors_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("policy");
    QTest::addColumn<QString>("reason");

    QTest::newRow("mean of an empty column") << QByteArray("a,b,y\n1,,0\n2,NA,1\n") << "mean"
                                             << "no values";
    QTest::newRow("mean cannot impute a label") << QByteArray("a,y\n1,0\n2,\n") << "mean"
                                                << "missing label";
    QTest::newRow("drop everything") << QByteArray("a,y\n,0\nNA,1\n") << "drop"
                                     << "no rows left";
    QTest::newRow("drop still refuses text") << QByteArray("a,y\n,0\nabc,1\n") << "drop"
                                             << "not a number";
}

void TestCsvReader::missingPolicyErrors() {
    QFETCH(QByteArray, content);
    QFETCH(QString, policy);
    QFETCH(QString, reason);

    wb::CsvOptions options;
    options.missing = wb::missingPolicyFromString(policy.toStdString());
    const auto error = dataErrorOf([&] { load(content, options); });
    QVERIFY(error.has_value());
    QVERIFY2(QString::fromStdString(error->reason()).contains(reason), error->what());
}

void TestCsvReader::errorMessageNamesThePlace() {
    const QString path = write("a,b,y\n1,2,0\n3,oops,1\n");
    const auto error = dataErrorOf([&] { wb::readCsv(path.toStdString(), {}); });
    QVERIFY(error.has_value());
    const QString message = QString::fromUtf8(error->what());
    QVERIFY2(message.contains(path + ":3:2"), qPrintable(message));
    QVERIFY2(message.contains("oops"), qPrintable(message));
}

void TestCsvReader::hashIgnoresFormatting() {
    const wb::Dataset plain = load("a,b,y\n1,2,0\n3,4,1\n");
    const wb::Dataset styled = load("\xEF\xBB\xBF\"a\";\"b\";\"y\"\r\n1.0;2;0\r\n3;4e0;1\r\n");
    const wb::Dataset other = load("a,b,y\n1,2,0\n3,5,1\n");
    QCOMPARE(plain.hash.size(), std::string("sha256:").size() + 64);
    QCOMPARE(plain.hash, styled.hash);
    QVERIFY(plain.hash != other.hash);
}

void TestCsvReader::positiveFraction() {
    QCOMPARE(load("a,y\n1,0\n2,1\n3,1\n4,1\n").positiveFraction(), 0.75);
    QCOMPARE(wb::Dataset{}.positiveFraction(), 0.0);
}

// Enough rows to cross the sniffing window and the buffer estimates; values must survive exactly.
void TestCsvReader::largeFileRoundTrip() {
    constexpr int rows = 20000;
    constexpr int cols = 7;
    QByteArray content = "f0,f1,f2,f3,f4,f5,f6,target\n";
    std::vector<float> expected;
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            const float v = float(r * cols + c) / 7.0f - 1000.0f;
            expected.push_back(v);
            content += QByteArray::number(double(v), 'g', 9) + ',';
        }
        content += (r % 3 == 0 ? "1\n" : "0\n");
    }
    const wb::Dataset d = load(content);
    QCOMPARE(d.rows, std::size_t(rows));
    QCOMPARE(d.cols, std::size_t(cols));
    QVERIFY(d.features == expected);
    QCOMPARE(d.labels[0], 1.0f);
    QCOMPARE(d.labels[1], 0.0f);
    QCOMPARE(QString::fromStdString(d.labelName), QString("target"));
}

void TestCsvReader::stringConversions() {
    QVERIFY(wb::headerModeFromString("yes") == wb::HeaderMode::Yes);
    QCOMPARE(wb::toString(wb::HeaderMode::Auto), std::string("auto"));
    QVERIFY(wb::missingPolicyFromString("mean") == wb::MissingPolicy::Mean);
    QCOMPARE(wb::toString(wb::MissingPolicy::Drop), std::string("drop"));
    QCOMPARE(wb::delimiterFromString("tab"), '\t');
    QCOMPARE(wb::delimiterFromString(";"), ';');
    QCOMPARE(wb::delimiterFromString("auto"), '\0');
    QVERIFY_THROWS_EXCEPTION(wb::ConfigError, wb::headerModeFromString("maybe"));
    QVERIFY_THROWS_EXCEPTION(wb::ConfigError, wb::missingPolicyFromString("ignore"));
    QVERIFY_THROWS_EXCEPTION(wb::ConfigError, wb::delimiterFromString("|"));
    try {
        wb::missingPolicyFromString("zero");
    } catch (const wb::ConfigError& e) {
        QVERIFY2(QString(e.what()).contains("'error', 'drop', 'mean'"), e.what());
    }
}

void TestCsvReader::dataSpecJsonRoundTrip() {
    wb::DataSpec spec;
    spec.kind = wb::DataSpec::Kind::Csv;
    spec.path = "spambase.csv";
    spec.csv.label = "type";
    spec.csv.header = wb::HeaderMode::Yes;
    spec.csv.delimiter = '\t';
    spec.csv.ignore = {"id", "3"};
    spec.csv.skipLines = 2;
    spec.csv.missing = wb::MissingPolicy::Mean;
    const nlohmann::json j = spec;
    QCOMPARE(j.at("kind").get<std::string>(), std::string("csv"));
    QCOMPARE(j.at("csv").at("delimiter").get<std::string>(), std::string("tab"));
    QCOMPARE(j.at("csv").at("missing").get<std::string>(), std::string("mean"));

    const auto back = j.get<wb::DataSpec>();
    QVERIFY(back.kind == spec.kind);
    QCOMPARE(back.path, spec.path);
    QCOMPARE(back.csv.label, spec.csv.label);
    QVERIFY(back.csv.header == spec.csv.header);
    QCOMPARE(back.csv.delimiter, spec.csv.delimiter);
    QVERIFY(back.csv.ignore == spec.csv.ignore);
    QCOMPARE(back.csv.skipLines, spec.csv.skipLines);
    QVERIFY(back.csv.missing == spec.csv.missing);

    const auto defaults = nlohmann::json::object().get<wb::DataSpec>();
    QVERIFY(defaults.kind == wb::DataSpec::Kind::Builtin);
    QCOMPARE(defaults.rows, std::size_t(100000));
    QVERIFY_THROWS_EXCEPTION(wb::ConfigError, (nlohmann::json{{"kind", "parquet"}}.get<wb::DataSpec>()));
    QVERIFY_THROWS_EXCEPTION(wb::ConfigError, (nlohmann::json{{"rows", "many"}}.get<wb::DataSpec>()));
}

void TestCsvReader::loadDatasetReadsCsv() {
    wb::DataSpec spec;
    spec.kind = wb::DataSpec::Kind::Csv;
    spec.path = write("a;b;class\n1;2;M\n3;4;R\n").toStdString();
    const wb::Dataset d = wb::loadDataset(spec);
    QCOMPARE(d.rows, std::size_t(2));
    QCOMPARE(d.labelMapping.at("R"), 1);
    spec.path.clear();
    QVERIFY_THROWS_EXCEPTION(wb::ConfigError, wb::loadDataset(spec));
}

QTEST_GUILESS_MAIN(TestCsvReader)
#include "tst_csv_reader.moc"
