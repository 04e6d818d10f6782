// .npy files: what writeNpy writes reads back; float64 and format versions 2 and 3 read; every
// malformed file is a DataError that says what is wrong.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "core/data/npy_io.h"
#include "core/platform/errors.h"
#include "tests/test_support.h"

namespace {

// A .npy file made by hand: `dict` is padded so the data starts on a 64-byte boundary, as numpy does.
QByteArray npyFile(const QByteArray& dict, const QByteArray& data, int major = 1) {
    const int lengthBytes = major == 1 ? 2 : 4;
    const int prefix = 8 + lengthBytes;
    QByteArray header = dict;
    while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    QByteArray out("\x93NUMPY", 6);
    out += char(major);
    out += char(0);
    for (int i = 0; i < lengthBytes; ++i) out += char((header.size() >> (8 * i)) & 0xFF);
    return out + header + data;
}

QByteArray dictFor(const QByteArray& descr, const QByteArray& shape, bool fortran = false) {
    return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape +
           ", }";
}

template <typename T>
QByteArray bytesOf(const std::vector<T>& values) {
    return QByteArray(reinterpret_cast<const char*>(values.data()), qsizetype(values.size() * sizeof(T)));
}

}  // namespace

class TestNpyIo : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;

    std::string write(const QByteArray& content, const QString& name) {
        const QString path = dir_.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) qFatal("cannot write %s", qPrintable(path));
        f.write(content);
        return path.toStdString();
    }

    std::string path(const QString& name) const { return dir_.filePath(name).toStdString(); }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void roundTrip_data();
    void roundTrip();
    void writtenHeaderIsAligned();
    void readsFloat64();
    void readsVersions_data();
    void readsVersions();
    void singleFileDataset();
    void pairDataset();
    void malformedFile_data();
    void malformedFile();
    void malformedDataset_data();
    void malformedDataset();
    void writeToMissingFolderIsIoError();
};

void TestNpyIo::roundTrip_data() {
    QTest::addColumn<QList<qsizetype>>("shape");
    QTest::newRow("1-D") << QList<qsizetype>{5};
    QTest::newRow("2-D") << QList<qsizetype>{3, 4};
    QTest::newRow("one row") << QList<qsizetype>{1, 7};
    QTest::newRow("empty") << QList<qsizetype>{0};
}

void TestNpyIo::roundTrip() {
    QFETCH(QList<qsizetype>, shape);
    std::vector<std::size_t> dims(shape.begin(), shape.end());
    std::size_t count = 1;
    for (std::size_t d : dims) count *= d;
    std::vector<float> values(count);
    for (std::size_t i = 0; i < count; ++i) values[i] = float(i) * 0.25f - 1.0f;

    const std::string file = path("round.npy");
    wb::writeNpy(file, values.data(), dims);
    const wb::NpyArray back = wb::readNpy(file);
    QVERIFY(back.shape == dims);
    QVERIFY(back.data == values);
}

void TestNpyIo::writtenHeaderIsAligned() {
    const std::vector<float> values = {1, 2, 3, 4, 5, 6};
    const std::string file = path("aligned.npy");
    wb::writeNpy(file, values.data(), {2, 3});
    QFile f(QString::fromStdString(file));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    QVERIFY(bytes.startsWith(QByteArray("\x93NUMPY\x01\x00", 8)));
    const int headerLength = uchar(bytes[8]) | (uchar(bytes[9]) << 8);
    QCOMPARE((10 + headerLength) % 64, 0);
    QCOMPARE(bytes[10 + headerLength - 1], '\n');
    const QByteArray dict = bytes.mid(10, headerLength);
    QVERIFY2(dict.contains("'descr': '<f4'"), dict.constData());
    QVERIFY2(dict.contains("'shape': (2, 3)"), dict.constData());
    QCOMPARE(bytes.size(), 10 + headerLength + 6 * 4);
    QVERIFY(!QFile::exists(QString::fromStdString(file + ".tmp")));
}

void TestNpyIo::readsFloat64() {
    const std::vector<double> values = {0.5, -1.25, 1e30, 3.0};
    const std::string file = write(npyFile(dictFor("<f8", "(2, 2)"), bytesOf(values)), "f8.npy");
    const wb::NpyArray a = wb::readNpy(file);
    QVERIFY((a.shape == std::vector<std::size_t>{2, 2}));
    QCOMPARE(a.data, (std::vector<float>{0.5f, -1.25f, 1e30f, 3.0f}));
}

void TestNpyIo::readsVersions_data() {
    QTest::addColumn<int>("major");
    QTest::newRow("1.0") << 1;
    QTest::newRow("2.0") << 2;
    QTest::newRow("3.0") << 3;
}

void TestNpyIo::readsVersions() {
    QFETCH(int, major);
    const std::vector<float> values = {1, 2, 3};
    const std::string file = write(npyFile(dictFor("<f4", "(3,)"), bytesOf(values), major), "version.npy");
    const wb::NpyArray a = wb::readNpy(file);
    QVERIFY((a.shape == std::vector<std::size_t>{3}));
    QVERIFY(a.data == values);
}

void TestNpyIo::singleFileDataset() {
    // (3, 3): two features and the label in the last column.
    const std::vector<float> values = {1, 2, 0, 3, 4, 1, 5, 6, 1};
    const std::string file = path("single.npy");
    wb::writeNpy(file, values.data(), {3, 3});
    const wb::Dataset d = wb::loadNpyDataset(file, "");
    QCOMPARE(d.rows, std::size_t(3));
    QCOMPARE(d.cols, std::size_t(2));
    QVERIFY((d.features == std::vector<float>{1, 2, 3, 4, 5, 6}));
    QVERIFY((d.labels == std::vector<float>{0, 1, 1}));
    QVERIFY((d.columnNames == std::vector<std::string>{"x0", "x1"}));
    QCOMPARE(d.labelName, std::string("label"));
    QCOMPARE(d.source, file);
    QVERIFY(d.labelMapping.empty());
    QCOMPARE(d.hash.size(), std::string("sha256:").size() + 64);
}

void TestNpyIo::pairDataset() {
    const std::vector<float> x = {1, 2, 3, 4, 5, 6};
    const std::vector<float> y = {0, 1, 1};
    const std::string xFile = path("x.npy");
    const std::string yFile = path("y.npy");
    const std::string yColumn = path("y_column.npy");
    wb::writeNpy(xFile, x.data(), {3, 2});
    wb::writeNpy(yFile, y.data(), {3});
    wb::writeNpy(yColumn, y.data(), {3, 1});

    const wb::Dataset d = wb::loadNpyDataset(xFile, yFile);
    QCOMPARE(d.rows, std::size_t(3));
    QCOMPARE(d.cols, std::size_t(2));
    QVERIFY(d.features == x);
    QVERIFY(d.labels == y);
    // Same numbers, same hash, whichever form the labels came in; the single-file form too.
    QCOMPARE(wb::loadNpyDataset(xFile, yColumn).hash, d.hash);
    const std::vector<float> joined = {1, 2, 0, 3, 4, 1, 5, 6, 1};
    wb::writeNpy(path("joined.npy"), joined.data(), {3, 3});
    QCOMPARE(wb::loadNpyDataset(path("joined.npy"), "").hash, d.hash);
}

void TestNpyIo::malformedFile_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("reason");

    const QByteArray f4x2 = bytesOf(std::vector<float>{1, 2});
    QTest::newRow("wrong dtype int64") << npyFile(dictFor("<i8", "(2,)"), bytesOf(std::vector<qint64>{1, 2}))
                                       << "'<i8'";
    QTest::newRow("wrong dtype uint8") << npyFile(dictFor("|u1", "(2,)"), QByteArray(2, '\1')) << "'|u1'";
    QTest::newRow("big-endian float") << npyFile(dictFor(">f4", "(2,)"), f4x2) << "'>f4'";
    QTest::newRow("fortran order") << npyFile(dictFor("<f4", "(1, 2)", true), f4x2) << "Fortran";
    QTest::newRow("3-D") << npyFile(dictFor("<f4", "(1, 1, 2)"), f4x2) << "1-D and 2-D";
    QTest::newRow("scalar") << npyFile(dictFor("<f4", "()"), f4x2.left(4)) << "1-D and 2-D";
    QTest::newRow("truncated data") << npyFile(dictFor("<f4", "(4, 2)"), f4x2) << "truncated";
    QTest::newRow("truncated header") << npyFile(dictFor("<f4", "(2,)"), f4x2).left(30) << "truncated";
    QTest::newRow("bad magic") << QByteArray("\x93NUMPZ\x01\x00\x10\x00{}              \n") << "magic";
    QTest::newRow("a csv") << QByteArray("a,b,y\n1,2,0\n") << "magic";
    QTest::newRow("empty") << QByteArray() << "magic";
    QTest::newRow("version 4") << npyFile(dictFor("<f4", "(2,)"), f4x2, 4) << "version 4";
    QTest::newRow("structured") << npyFile("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", f4x2)
                                << "structured";
    QTest::newRow("no shape") << npyFile("{'descr': '<f4', 'fortran_order': False, }", f4x2) << "shape";
}

void TestNpyIo::malformedFile() {
    QFETCH(QByteArray, content);
    QFETCH(QString, reason);
    const std::string file = write(content, "bad.npy");
    const auto error = dataErrorOf([&] { wb::readNpy(file); });
    QVERIFY2(error.has_value(), "no DataError was thrown");
    QVERIFY2(QString::fromStdString(error->reason()).contains(reason), error->what());
    QCOMPARE(error->file(), file);
}

// Files that are valid .npy but not a data set: kind "pair" loads x.npy + y.npy, "single" x.npy alone.
void TestNpyIo::malformedDataset_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QByteArray>("x");
    QTest::addColumn<QByteArray>("y");
    QTest::addColumn<QString>("reason");

    const QByteArray x3x2 = npyFile(dictFor("<f4", "(3, 2)"), bytesOf(std::vector<float>{1, 2, 3, 4, 5, 6}));
    QTest::newRow("mismatched rows") << "pair" << x3x2
                                     << npyFile(dictFor("<f4", "(2,)"), bytesOf(std::vector<float>{0, 1}))
                                     << "has 2 labels but";
    QTest::newRow("label 2") << "pair" << x3x2 << npyFile(dictFor("<f4", "(3,)"), bytesOf(std::vector<float>{0, 1, 2}))
                             << "holds 3 distinct numbers ('0', '1', '2')";
    QTest::newRow("label 0.5 in float64")
        << "pair" << x3x2 << npyFile(dictFor("<f8", "(3,)"), bytesOf(std::vector<double>{0.5, 1, 0}))
        << "holds 3 distinct numbers ('0', '0.5', '1')";
    QTest::newRow("labels of two columns")
        << "pair" << x3x2 << npyFile(dictFor("<f4", "(3, 2)"), bytesOf(std::vector<float>(6)))
        << "(rows,) or (rows, 1)";
    QTest::newRow("single file, one label value")
        << "single" << npyFile(dictFor("<f4", "(2, 2)"), bytesOf(std::vector<float>{1, 3, 2, 3})) << QByteArray()
        << "holds a single value ('3')";
    QTest::newRow("non-finite label") << "pair" << x3x2
                                      << npyFile(dictFor("<f4", "(3,)"), bytesOf(std::vector<float>{0, NAN, 1}))
                                      << "holds nan at row 2; labels must be finite";
    QTest::newRow("single 1-D") << "single" << npyFile(dictFor("<f4", "(2,)"), bytesOf(std::vector<float>{1, 0}))
                                << QByteArray() << "must be 2-D";
    QTest::newRow("single no rows") << "single" << npyFile(dictFor("<f4", "(0, 3)"), QByteArray()) << QByteArray()
                                    << "no rows";
    const float nan = std::numeric_limits<float>::quiet_NaN();
    QTest::newRow("NaN feature") << "single"
                                 << npyFile(dictFor("<f4", "(2, 2)"), bytesOf(std::vector<float>{1, 0, nan, 1}))
                                 << QByteArray() << "row 1, column 0";
    QTest::newRow("float64 beyond float32")
        << "single" << npyFile(dictFor("<f8", "(1, 2)"), bytesOf(std::vector<double>{1e300, 0})) << QByteArray()
        << "out of range for float32";
}

void TestNpyIo::malformedDataset() {
    QFETCH(QString, kind);
    QFETCH(QByteArray, x);
    QFETCH(QByteArray, y);
    QFETCH(QString, reason);
    const std::string xFile = write(x, "x.npy");
    const std::string yFile = kind == "pair" ? write(y, "y.npy") : std::string();
    const auto error = dataErrorOf([&] { wb::loadNpyDataset(xFile, yFile); });
    QVERIFY2(error.has_value(), "no DataError was thrown");
    QVERIFY2(QString::fromStdString(error->reason()).contains(reason), error->what());
}

void TestNpyIo::writeToMissingFolderIsIoError() {
    const std::vector<float> values = {1};
    QVERIFY_THROWS_EXCEPTION(wb::IoError, wb::writeNpy(path("no/such/folder/a.npy"), values.data(), {1}));
    QVERIFY_THROWS_EXCEPTION(wb::DataError, wb::readNpy(path("missing.npy")));
}

QTEST_GUILESS_MAIN(TestNpyIo)
#include "tst_npy_io.moc"
