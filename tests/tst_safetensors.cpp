// Safetensors: a round trip, a file laid out the way PyTorch's safetensors writes it (keys and data
// in alphabetical order), malformed files each refused with a DataError, and checkParamsMatch.
#include <QtTest>
#include <limits>

#include <QFile>
#include <QTemporaryDir>

#include <cmath>
#include <filesystem>

#include "core/model/model.h"
#include "core/model/safetensors.h"
#include "core/platform/errors.h"
#include "tests/test_support.h"

namespace {

// A safetensors file: 8-byte little-endian header length, the header, then the data.
QByteArray fileBytes(const QByteArray& header, const QByteArray& data, quint64 lengthField) {
    QByteArray out;
    for (int b = 0; b < 8; ++b) out.append(static_cast<char>((lengthField >> (8 * b)) & 0xff));
    return out + header + data;
}

QByteArray fileBytes(const QByteArray& header, const QByteArray& data) {
    return fileBytes(header, data, static_cast<quint64>(header.size()));
}

QByteArray floats(std::initializer_list<float> values) {
    QByteArray out;
    for (float v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
    return out;
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(bytes), bytes.size());
}

// A valid one-layer 2 -> 1 entry set, to be broken one piece at a time.
const char* kWeight = R"("layers.0.weight":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]})";
const char* kBias = R"("layers.0.bias":{"dtype":"F32","shape":[1],"data_offsets":[8,12]})";

QByteArray header(const QByteArray& entries) {
    return "{" + entries + "}";
}

}  // namespace

class TestSafetensors : public QObject {
    Q_OBJECT

private slots:
    void roundTrip();
    void savedFileLayout();
    void loadsAlphabeticalPytorchLayout();
    void malformed_data();
    void malformed();
    void missingFile();
    void nonFiniteWeightsAreRefused_data();
    void nonFiniteWeightsAreRefused();
    void saveIntoMissingFolderIsIoError();
    void checkParamsMatch();

private:
    QTemporaryDir dir_;
};

void TestSafetensors::roundTrip() {
    wb::MlpParams params = wb::MlpParams::zeros({61, 20, 10, 1});
    for (std::size_t i = 0; i < params.values.size(); ++i)
        params.values[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i))) * 0.5f;
    const std::string path = dir_.filePath("round.safetensors").toStdString();
    wb::saveSafetensors(path, params);
    wb::saveSafetensors(path, params);  // replacing an existing file works too
    QVERIFY(!std::filesystem::exists(path + ".tmp"));

    const wb::MlpParams loaded = wb::loadSafetensors(path);
    QVERIFY(loaded.widths() == std::vector<int>({61, 20, 10, 1}));
    QCOMPARE(loaded.layers.size(), params.layers.size());
    for (std::size_t i = 0; i < params.layers.size(); ++i) {
        QCOMPARE(loaded.layers[i].in, params.layers[i].in);
        QCOMPARE(loaded.layers[i].out, params.layers[i].out);
        QCOMPARE(loaded.layers[i].weightOffset, params.layers[i].weightOffset);
        QCOMPARE(loaded.layers[i].biasOffset, params.layers[i].biasOffset);
    }
    QVERIFY(loaded.values == params.values);
}

void TestSafetensors::savedFileLayout() {
    const wb::MlpParams params = wb::MlpParams::zeros({3, 2, 1});
    const QString path = dir_.filePath("layout.safetensors");
    wb::saveSafetensors(path.toStdString(), params);
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    quint64 n = 0;
    for (int b = 7; b >= 0; --b) n = (n << 8) | static_cast<unsigned char>(bytes[b]);
    QCOMPARE(n % 8, quint64(0));  // the data starts 8-byte aligned
    QCOMPARE(static_cast<quint64>(bytes.size()), 8 + n + 4 * params.count());
    const QByteArray head = bytes.mid(8, static_cast<qsizetype>(n));
    QVERIFY(head.contains(R"("layers.0.weight":{"dtype":"F32","shape":[2,3])"));
    QVERIFY(head.contains(R"("layers.1.bias":{"dtype":"F32","shape":[1])"));
    QVERIFY(head.contains(R"("__metadata__":{"format":"pt"})"));
}

void TestSafetensors::loadsAlphabeticalPytorchLayout() {
    // 2 -> 2 -> 1, keys and data in alphabetical order (bias before weight), extra metadata.
    const QByteArray head = header(R"("__metadata__":{"format":"pt","producer":"hand"},)"
                                   R"("layers.0.bias":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                   R"("layers.0.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[8,24]},)"
                                   R"("layers.1.bias":{"dtype":"F32","shape":[1],"data_offsets":[24,28]},)"
                                   R"("layers.1.weight":{"dtype":"F32","shape":[1,2],"data_offsets":[28,36]})");
    const QByteArray data = floats({0.5f, -0.5f, 1, 2, 3, 4, 9, -1, -2});
    const QString path = dir_.filePath("alphabetical.safetensors");
    writeFile(path, fileBytes(head + QByteArray(static_cast<qsizetype>((8 - head.size() % 8) % 8), ' '), data));

    const wb::MlpParams p = wb::loadSafetensors(path.toStdString());
    QVERIFY(p.widths() == std::vector<int>({2, 2, 1}));
    QVERIFY(std::vector<float>(p.weight(0), p.weight(0) + 4) == std::vector<float>({1, 2, 3, 4}));
    QVERIFY(std::vector<float>(p.bias(0), p.bias(0) + 2) == std::vector<float>({0.5f, -0.5f}));
    QVERIFY(std::vector<float>(p.weight(1), p.weight(1) + 2) == std::vector<float>({-1, -2}));
    QCOMPARE(*p.bias(1), 9.0f);
}

void TestSafetensors::malformed_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("reason");  // a piece of the expected reason
    const QByteArray w = kWeight, b = kBias, data = floats({1, 2, 3});
    auto file = [&](const QByteArray& entries) { return fileBytes(header(entries), data); };

    QTest::newRow("empty file") << QByteArray() << "too short";
    QTest::newRow("five bytes") << QByteArray("abcde") << "too short";
    QTest::newRow("header length beyond the file") << fileBytes("{}", data, 1000) << "larger than the file";
    QTest::newRow("invalid JSON") << fileBytes(R"({"layers.0.weight": )", data) << "not valid JSON";
    QTest::newRow("header not an object") << fileBytes("[1,2,3]", data) << "not a JSON object";
    QTest::newRow("metadata not an object") << file(R"("__metadata__":"pt",)" + w + "," + b) << "__metadata__";
    QTest::newRow("F64 dtype") << file(R"("layers.0.weight":{"dtype":"F64","shape":[1,2],"data_offsets":[0,8]},)" + b)
                               << "F64";
    QTest::newRow("offsets beyond the data")
        << file(R"("layers.0.weight":{"dtype":"F32","shape":[1,2],"data_offsets":[0,800]},)" + b)
        << "not a range inside";
    QTest::newRow("offsets reversed")
        << file(R"("layers.0.weight":{"dtype":"F32","shape":[1,2],"data_offsets":[8,0]},)" + b) << "not a range inside";
    QTest::newRow("negative offset")
        << file(R"("layers.0.weight":{"dtype":"F32","shape":[1,2],"data_offsets":[-4,4]},)" + b) << "data_offsets";
    QTest::newRow("offsets not matching the shape")
        << file(R"("layers.0.weight":{"dtype":"F32","shape":[1,2],"data_offsets":[0,4]},)" + b) << "needs 8";
    QTest::newRow("zero in the shape")
        << file(R"("layers.0.weight":{"dtype":"F32","shape":[0,2],"data_offsets":[0,0]},)" + b) << "zero";
    QTest::newRow("huge shape")
        << file(R"("layers.0.weight":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]},)" + b)
        << "larger than the data";
    QTest::newRow("no shape") << file(R"("layers.0.weight":{"dtype":"F32","data_offsets":[0,8]},)" + b) << "shape";
    QTest::newRow("missing bias") << file(w) << "layers.0.bias is missing";
    QTest::newRow("missing weight") << file(b) << "layers.0.weight is missing";
    QTest::newRow("weight not 2-D") << file(R"("layers.0.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)" +
                                            b)
                                    << "2-D";
    QTest::newRow("bias of the wrong size")
        << file(w + R"(,"layers.0.bias":{"dtype":"F32","shape":[1,1],"data_offsets":[8,12]})") << "layers.0.bias";
    QTest::newRow("PyTorch Sequential names")
        << file(R"("0.weight":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]},)"
                R"("0.bias":{"dtype":"F32","shape":[1],"data_offsets":[8,12]})")
        << "no tensor named layers.0.weight";
    QTest::newRow("indices not contiguous")
        << fileBytes(header(R"("layers.0.weight":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]},)"
                            R"("layers.0.bias":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},)"
                            R"("layers.2.weight":{"dtype":"F32","shape":[1,1],"data_offsets":[8,12]},)"
                            R"("layers.2.bias":{"dtype":"F32","shape":[1],"data_offsets":[12,16]})"),
                     floats({1, 2, 3, 4}))
        << "layers.1 is missing";
    QTest::newRow("shapes do not chain")
        << fileBytes(header(R"("layers.0.weight":{"dtype":"F32","shape":[2,1],"data_offsets":[0,8]},)"
                            R"("layers.0.bias":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
                            R"("layers.1.weight":{"dtype":"F32","shape":[1,3],"data_offsets":[16,28]},)"
                            R"("layers.1.bias":{"dtype":"F32","shape":[1],"data_offsets":[28,32]})"),
                     floats({1, 2, 3, 4, 5, 6, 7, 8}))
        << "takes 3 inputs";
    QTest::newRow("last layer wider than 1000 classes")
        << fileBytes(header(R"("layers.0.weight":{"dtype":"F32","shape":[1001,1],"data_offsets":[0,4004]},)"
                            R"("layers.0.bias":{"dtype":"F32","shape":[1001],"data_offsets":[4004,8008]})"),
                     QByteArray(8008, 0))
        << "1001 outputs; a model has 1";
}

void TestSafetensors::malformed() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, reason);
    const QString path = dir_.filePath(QString("bad_%1.safetensors").arg(QTest::currentDataTag()).replace(' ', '_'));
    writeFile(path, bytes);
    try {
        wb::loadSafetensors(path.toStdString());
        QFAIL("expected a DataError");
    } catch (const wb::DataError& e) {
        QCOMPARE(QString::fromStdString(e.file()), path);
        QVERIFY2(QString::fromStdString(e.reason()).contains(reason), e.what());
    }
}

void TestSafetensors::missingFile() {
    const std::string path = dir_.filePath("nowhere.safetensors").toStdString();
    QVERIFY_THROWS_EXCEPTION(wb::DataError, wb::loadSafetensors(path));
    QVERIFY_THROWS_EXCEPTION(wb::DataError, wb::loadSafetensors(dir_.path().toStdString()));  // a folder
}

// inf in --init-weights trained and was saved as inf: such a file is refused when it is read.
void TestSafetensors::nonFiniteWeightsAreRefused_data() {
    QTest::addColumn<float>("value");
    QTest::newRow("inf") << std::numeric_limits<float>::infinity();
    QTest::newRow("-inf") << -std::numeric_limits<float>::infinity();
    QTest::newRow("nan") << std::numeric_limits<float>::quiet_NaN();
}

void TestSafetensors::nonFiniteWeightsAreRefused() {
    QFETCH(float, value);
    wb::MlpParams params = wb::MlpParams::zeros({3, 2, 1});
    params.values[4] = value;
    const std::string path = dir_.filePath("inf.safetensors").toStdString();
    wb::saveSafetensors(path, params);
    const auto error = dataErrorOf([&] { wb::loadSafetensors(path); });
    QVERIFY(error.has_value());
    QVERIFY2(error->reason().find("non-finite weight") != std::string::npos, error->what());
}

void TestSafetensors::saveIntoMissingFolderIsIoError() {
    const std::string path = dir_.filePath("no/such/folder/w.safetensors").toStdString();
    QVERIFY_THROWS_EXCEPTION(wb::IoError, wb::saveSafetensors(path, wb::MlpParams::zeros({2, 1})));
}

void TestSafetensors::checkParamsMatch() {
    const wb::MlpParams params = wb::MlpParams::zeros({61, 20, 10, 1});
    wb::ModelSpec spec;  // hidden {20, 10}
    QVERIFY_THROWS_NO_EXCEPTION(wb::checkParamsMatch(params, spec, 61));
    QVERIFY_THROWS_EXCEPTION(wb::ConfigError, wb::checkParamsMatch(params, spec, 60));
    spec.hidden = {16};
    try {
        wb::checkParamsMatch(params, spec, 61);
        QFAIL("expected a ConfigError");
    } catch (const wb::ConfigError& e) {
        const QString message = e.what();
        QVERIFY2(message.contains("61-20-10-1") && message.contains("61-16-1"), e.what());
    }
}

QTEST_GUILESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"
