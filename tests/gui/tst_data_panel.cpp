// The data panel loads in the background, previews what it loaded, shows a bad file's error where
// the user acted while keeping the data set it had, and opens dropped files.
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/data/npy_io.h"
#include "gui/panels/data_panel.h"
#include "gui/panels/dataset_preview_model.h"
#include "tests/test_support.h"

using namespace wb;
using namespace wb::gui;

namespace {

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& content) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (file.open(QIODevice::WriteOnly)) file.write(content);
    return path;
}

// A label's text as read: without the zero-width spaces that let a long message wrap.
QString shown(const DataPanel& panel, const char* label) {
    return panel.findChild<QLabel*>(label)->text().remove(QChar(0x200B));
}

// Loads the built-in set with few rows and waits for it: the "previous data set" of the error tests.
void loadSmallBuiltin(DataPanel& panel, std::size_t rows) {
    DataSpec spec;
    spec.rows = rows;
    panel.setDataSpec(spec);
    panel.loadBuiltin();
}

}  // namespace

class TestDataPanel : public QObject {
    Q_OBJECT

private slots:
    void builtinLoadsInTheBackground() {
        DataPanel panel;
        QSignalSpy changed(&panel, &DataPanel::datasetChanged);
        loadSmallBuiltin(panel, 500);
        // The result arrives through the event loop, so right after the call the load is still pending.
        QVERIFY(panel.isLoading());
        QVERIFY(panel.findChild<QProgressBar*>("loadProgress")->isVisibleTo(&panel));
        QVERIFY(!panel.dataset());
        QTRY_VERIFY(panel.dataset());
        QVERIFY(!panel.isLoading());
        QVERIFY(!panel.findChild<QProgressBar*>("loadProgress")->isVisibleTo(&panel));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(panel.dataset()->rows, std::size_t{500});
        QCOMPARE(panel.dataset()->cols, std::size_t{61});
        const DatasetPreviewModel& preview = *panel.previewModel();
        QCOMPARE(preview.columnCount(), 61 + 1);
        QCOMPARE(preview.rowCount(), DatasetPreviewModel::kMaxRows);
        QCOMPARE(preview.headerData(0, Qt::Horizontal).toString(), QString("f0"));
        QCOMPARE(preview.headerData(61, Qt::Horizontal).toString(), QString("label"));
        QCOMPARE(shown(panel, "rowsValue"), QLocale().toString(500));
        QCOMPARE(shown(panel, "featuresValue"), QString("61"));
        QVERIFY(panel.dataSpec().kind == DataSpec::Kind::Builtin);
        QCOMPARE(panel.dataSpec().rows, std::size_t{500});
    }

    void prepareSpecComesFromTheFields() {
        DataPanel panel;
        const PrepareSpec defaults = panel.prepareSpec(9);
        QCOMPARE(defaults.valSplit, 0.2);  // the GUI holds out a validation part, so charts show it
        QVERIFY(defaults.standardize);
        QCOMPARE(defaults.seed, std::uint64_t{9});
        panel.setPrepareSpec({0.35, false, 1});
        QCOMPARE(panel.prepareSpec(1).valSplit, 0.35);
        QVERIFY(!panel.prepareSpec(1).standardize);
    }

    void badFileKeepsThePreviousDataSet_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QStringList>("mentions");
        QTest::newRow("ragged row") << QByteArray("a,b,label\n1,2,0\n3,1\n") << QStringList{"bad.csv", "line 3"};
        QTest::newRow("text in a number column")
            << QByteArray("a,b,label\n1,2,0\n4,five,1\n") << QStringList{"bad.csv", "line 3", "column", "five"};
        // Three text values are classes now (auto: multiclass); fractions under auto are refused.
        QTest::newRow("a numeric target under auto")
            << QByteArray("a,label\n1,0.5\n2,1.25\n3,2.75\n") << QStringList{"bad.csv", "label", "regression"};
        QTest::newRow("empty file") << QByteArray() << QStringList{"bad.csv"};
    }

    void badFileKeepsThePreviousDataSet() {
        QFETCH(QByteArray, content);
        QFETCH(QStringList, mentions);
        QTemporaryDir dir;
        DataPanel panel;
        loadSmallBuiltin(panel, 300);
        QTRY_VERIFY(panel.dataset());
        const auto before = panel.dataset();
        const std::string hash = before->hash;
        QSignalSpy changed(&panel, &DataPanel::datasetChanged);
        QSignalSpy failed(&panel, &DataPanel::loadFailed);

        panel.openFile(writeFile(dir, "bad.csv", content));
        QTRY_COMPARE(failed.count(), 1);
        auto* error = panel.findChild<QLabel*>("errorLabel");
        QVERIFY(error->isVisibleTo(&panel));
        for (const QString& word : mentions) QVERIFY2(error->text().contains(word), qPrintable(error->text()));
        QCOMPARE(panel.dataset(), before);  // the same object, still in use
        QCOMPARE(panel.dataset()->hash, hash);
        QCOMPARE(changed.count(), 0);
        QCOMPARE(panel.previewModel()->columnCount(), 62);
        QVERIFY(panel.dataSpec().kind == DataSpec::Kind::Builtin);  // what a run would train on
        // The summary says what is in use and what was refused.
        auto* inUse = panel.findChild<QLabel*>("inUseLine");
        QVERIFY(inUse->isVisibleTo(&panel));
        QVERIFY2(shown(panel, "inUseLine").startsWith("In use: built-in, seed 1 (bad.csv was refused: "),
                 qPrintable(shown(panel, "inUseLine")));

        // The next good load clears the error.
        panel.loadBuiltin();
        QTRY_COMPARE(changed.count(), 1);
        QVERIFY(!error->isVisibleTo(&panel));
        QVERIFY(!inUse->isVisibleTo(&panel));
    }

    // y.csv is in use; x.csv cannot be read. The path field shows x.csv (to be fixed and loaded
    // again), so the error names x.csv and the summary says that y.csv stays in use and x.csv was
    // refused; the summary and preview still show y.csv, which a run trains on.
    void refusedFileIsNamedBesideTheOneInUse_data() {
        QTest::addColumn<bool>("exists");
        QTest::newRow("a file that cannot be parsed") << true;
        QTest::newRow("a file that is not there") << false;
    }

    void refusedFileIsNamedBesideTheOneInUse() {
        QFETCH(bool, exists);
        QTemporaryDir dir;
        DataPanel panel;
        panel.openFile(writeFile(dir, "y.csv", "a,b,label\n1,2,0\n3,4,1\n"));
        QTRY_VERIFY(panel.dataset());
        QSignalSpy failed(&panel, &DataPanel::loadFailed);
        const QString refused = exists ? writeFile(dir, "x.csv", "a,b,label\n1,2,0\n3\n") : dir.filePath("x.csv");
        panel.openFile(refused);
        QTRY_COMPARE(failed.count(), 1);

        QCOMPARE(panel.findChild<QLineEdit*>("filePath")->text(), refused);
        const QString error = shown(panel, "errorLabel");
        QVERIFY2(error.contains("x.csv") && error.contains("(y.csv stays in use.)"), qPrintable(error));
        QVERIFY2(failed.at(0).at(0).toString().contains("x.csv"), qPrintable(failed.at(0).at(0).toString()));
        const QString inUse = shown(panel, "inUseLine");
        QVERIFY2(inUse.startsWith("In use: y.csv (x.csv was refused: "), qPrintable(inUse));
        QCOMPARE(shown(panel, "sourceValue"), QString("y.csv"));
        QCOMPARE(panel.previewModel()->columnCount(), 3);
        QCOMPARE(QFileInfo(QString::fromStdString(panel.dataSpec().path)).fileName(), QString("y.csv"));
    }

    void textLabelsShowTheirMapping() {
        QTemporaryDir dir;
        const QString path = writeFile(dir, "mail.csv", "len,caps,kind\n1,2,spam\n3,4,ham\n5,6,spam\n");
        DataPanel panel;
        panel.openFile(path);
        QTRY_VERIFY(panel.dataset());
        QVERIFY(panel.dataSpec().kind == DataSpec::Kind::Csv);
        QCOMPARE(QString::fromStdString(panel.dataSpec().path), path);
        const QString mapping = shown(panel, "mappingValue");
        QVERIFY2(mapping.contains("ham → 0") && mapping.contains("spam → 1"), qPrintable(mapping));
        QVERIFY2(shown(panel, "balanceValue").contains(QLocale().toString(66.7, 'f', 1)),
                 qPrintable(shown(panel, "balanceValue")));
        const DatasetPreviewModel& preview = *panel.previewModel();
        QCOMPARE(preview.columnCount(), 3);
        QCOMPARE(preview.rowCount(), 3);
        QCOMPARE(preview.headerData(2, Qt::Horizontal).toString(), QString("kind"));  // label last
        QCOMPARE(preview.data(preview.index(1, 2)).toString(), QString("ham (0)"));
        QCOMPARE(preview.data(preview.index(0, 0)).toString(), QString("1"));
        // The header's names become label choices.
        auto* label = panel.findChild<QComboBox*>("labelColumn");
        QVERIFY(label->findText("caps") >= 0);
        QVERIFY(label->findText("kind") >= 0);
    }

    void loaderOptionsReachTheReader() {
        QTemporaryDir dir;
        const QString path = writeFile(dir, "semi.csv", "# exported\nid;y;a;b\n1;1;0.5;2\n2;0;1.5;3\n");
        DataPanel panel;
        auto spec = nlohmann::json::parse(R"({"kind": "csv", "csv": {"label": "y", "delimiter": ";", "ignore": ["id"],
                                                "skip_lines": 1, "header": "yes", "missing": "mean"}})")
                        .get<DataSpec>();
        spec.path = path.toStdString();
        panel.setDataSpec(spec);
        QCOMPARE(panel.editedSpec().csv.ignore, std::vector<std::string>{"id"});
        QCOMPARE(panel.editedSpec().csv.delimiter, ';');
        panel.load();
        QTRY_VERIFY(panel.dataset());
        QCOMPARE(panel.dataset()->cols, std::size_t{2});
        QCOMPARE(panel.dataset()->labelName, std::string("y"));
        QCOMPARE(panel.dataSpec().csv.skipLines, std::size_t{1});
        WB_COMPARE_NAME(panel.dataSpec().csv.missing, "mean");
    }

    void droppedFilesOpen_data() {
        QTest::addColumn<QStringList>("names");
        QTest::addColumn<bool>("accepted");
        QTest::addColumn<int>("cols");
        QTest::newRow("a csv") << QStringList{"table.csv"} << true << 2;
        QTest::newRow("features and labels .npy, labels first") << QStringList{"y_labels.npy", "x.npy"} << true << 3;
        QTest::newRow("one .npy, label last") << QStringList{"xy.npy"} << true << 2;
        QTest::newRow("not data") << QStringList{"picture.png"} << false << 0;
    }

    void droppedFilesOpen() {
        QFETCH(QStringList, names);
        QFETCH(bool, accepted);
        QFETCH(int, cols);
        QTemporaryDir dir;
        writeFile(dir, "table.csv", "a,b,label\n1,2,0\n3,4,1\n");
        writeFile(dir, "picture.png", "not a picture");
        const float x[] = {1, 2, 3, 4, 5, 6}, y[] = {0, 1}, xy[] = {1, 2, 0, 3, 4, 1};
        writeNpy(dir.filePath("x.npy").toStdString(), x, {2, 3});
        writeNpy(dir.filePath("y_labels.npy").toStdString(), y, {2});
        writeNpy(dir.filePath("xy.npy").toStdString(), xy, {2, 3});
        QMimeData mime;
        QList<QUrl> urls;
        for (const QString& name : names) urls << QUrl::fromLocalFile(dir.filePath(name));
        mime.setUrls(urls);

        DataPanel panel;
        QDragEnterEvent enter(QPoint(5, 5), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        enter.setAccepted(false);
        QCoreApplication::sendEvent(&panel, &enter);
        QCOMPARE(enter.isAccepted(), accepted);
        if (!accepted) return;
        QDropEvent drop(QPointF(5, 5), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&panel, &drop);
        QTRY_VERIFY(panel.dataset());
        // The labels-file field is offered next to a .npy only.
        QCOMPARE(panel.findChild<QLineEdit*>("labelsPath")->isVisibleTo(&panel), names.front().endsWith(".npy"));
        QCOMPARE(panel.dataset()->cols, static_cast<std::size_t>(cols));
        QCOMPARE(panel.dataset()->rows, std::size_t{2});
    }
};

QTEST_MAIN(TestDataPanel)
#include "tst_data_panel.moc"
