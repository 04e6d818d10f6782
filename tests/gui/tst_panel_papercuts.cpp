// The configuration panels' papercuts: the mouse wheel edits a field (or scrolls the data preview)
// only after the user clicked into it (scrolling the dock must not change what it passes over), the
// preview starts at its top-left with each new data set, a number outside a field's range
// is refused with the range instead of snapping back, and a long load error (a CSV row quoted whole)
// wraps and is cut instead of widening the dock, with the whole text in its tooltip.
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <QtTest>
#include <memory>

#include "gui/panels/data_panel.h"
#include "gui/panels/execution_panel.h"
#include "gui/panels/model_panel.h"
#include "gui/training/metatypes.h"

using namespace wb;
using namespace wb::gui;

namespace {

// The state of a spin box or combo box, as text.
QString stateOf(QWidget* field) {
    if (auto* spin = qobject_cast<QAbstractSpinBox*>(field)) return spin->text();
    if (auto* combo = qobject_cast<QComboBox*>(field)) return QString::number(combo->currentIndex());
    return {};
}

void wheel(QWidget* field, int steps) {
    const QPointF at(field->width() / 2.0, field->height() / 2.0);
    QWheelEvent event(at, field->mapToGlobal(at), QPoint(), QPoint(0, 120 * steps), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(field, &event);
}

std::unique_ptr<QWidget> makePanel(const QString& kind) {
    if (kind == "model") return std::make_unique<ModelPanel>();
    if (kind == "data") return std::make_unique<DataPanel>();
    return std::make_unique<ExecutionPanel>();
}

}  // namespace

class TestPanelPapercuts : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void wheelLeavesUnfocusedFieldsAlone_data();
    void wheelLeavesUnfocusedFieldsAlone();
    void outOfRangeValueIsRefusedWithItsRange_data();
    void outOfRangeValueIsRefusedWithItsRange();
    void longLoadErrorIsWrappedAndCut_data();
    void longLoadErrorIsWrappedAndCut();
    void previewStartsAtTopLeftForANewDataSet();
    void previewPassesTheWheelUntilClickedInto();
};

void TestPanelPapercuts::initTestCase() {
    registerMetaTypes();
}

void TestPanelPapercuts::wheelLeavesUnfocusedFieldsAlone_data() {
    QTest::addColumn<QString>("panel");
    QTest::addColumn<QString>("field");
    QTest::newRow("epochs spin box") << "model"
                                     << "epochs";
    QTest::newRow("learning rate") << "model"
                                   << "lr";
    QTest::newRow("activation combo") << "model"
                                      << "activation";
    QTest::newRow("built-in rows") << "data"
                                   << "builtinRows";
    QTest::newRow("validation split") << "data"
                                      << "valSplit";
    QTest::newRow("delimiter combo") << "data"
                                     << "delimiter";
    QTest::newRow("zero_grad switch") << "execution"
                                      << "zero_grad";
    QTest::newRow("compare repeats") << "execution"
                                     << "compareRepeats";
}

// In a scroll area, as in the configuration dock: the wheel over an unfocused field changes nothing
// (it scrolls the area); once the user has clicked into the field, the wheel edits it.
void TestPanelPapercuts::wheelLeavesUnfocusedFieldsAlone() {
    QFETCH(QString, panel);
    QFETCH(QString, field);
    QScrollArea area;
    auto content = makePanel(panel);
    QWidget* widget = content.get();
    area.setWidget(content.release());
    area.resize(360, 300);  // shorter than the panel: there is something to scroll
    area.show();
    QVERIFY(QTest::qWaitForWindowExposed(&area));
    auto* target = widget->findChild<QWidget*>(field);
    QVERIFY(target);
    area.ensureWidgetVisible(target);
    QVERIFY(!target->hasFocus());
    QCOMPARE(target->focusPolicy(), Qt::StrongFocus);  // no focus by the wheel either

    const QString before = stateOf(target);
    wheel(target, -1);  // down: every field here can go down from its default
    QCOMPARE(stateOf(target), before);

    area.activateWindow();
    target->setFocus();
    QVERIFY(QTest::qWaitForWindowActive(&area));
    QTRY_VERIFY(target->hasFocus());
    wheel(target, -1);
    QVERIFY2(stateOf(target) != before, "a focused field still answers the wheel");
}

void TestPanelPapercuts::outOfRangeValueIsRefusedWithItsRange_data() {
    QTest::addColumn<QString>("optimizer");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QString>("reason");  // empty: accepted
    QTest::newRow("lr 100") << "adam"
                            << "lr"
                            << "100" << QString::fromUtf8("learning rate 100 is outside 1e-12 … 10");
    QTest::newRow("lr 0.5") << "adam"
                            << "lr"
                            << "0.5" << QString();
    QTest::newRow("momentum 2") << "sgd"
                                << "momentum"
                                << "2" << QString::fromUtf8("momentum 2 is outside 0 … 1");
    QTest::newRow("eps 3 (rmsprop)") << "rmsprop"
                                     << "eps"
                                     << "3" << QString::fromUtf8("epsilon 3 is outside 0 … 1");
}

// Typed and confirmed with Enter: the value stays as typed (not snapped to the limit or back to the
// old value), the field is marked, and the panel says why a run is refused, with the range.
void TestPanelPapercuts::outOfRangeValueIsRefusedWithItsRange() {
    QFETCH(QString, optimizer);
    QFETCH(QString, field);
    QFETCH(QString, typed);
    QFETCH(QString, reason);
    ModelPanel panel;
    auto* type = panel.findChild<QComboBox*>("optimizerType");
    type->setCurrentIndex(type->findData(optimizer));
    auto* spin = panel.findChild<QDoubleSpinBox*>(field);
    QVERIFY(spin);
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, typed);
    QTest::keyClick(spin, Qt::Key_Return);
    QCOMPARE(spin->value(), typed.toDouble());
    QCOMPARE(panel.invalidReason(), reason);
    QCOMPARE(spin->property("outOfRange").toBool(), !reason.isEmpty());
    if (!reason.isEmpty()) {
        auto* warning = panel.findChild<QLabel*>("optimizerWarning");
        QVERIFY(warning && !warning->isHidden());
        QVERIFY2(warning->text().contains(reason), qPrintable(warning->text()));
    }
}

void TestPanelPapercuts::longLoadErrorIsWrappedAndCut_data() {
    QTest::addColumn<bool>("ragged");  // else: a label column not in the file, whose 40 columns the error lists
    QTest::addColumn<bool>("cut");
    QTest::newRow("ragged row quoted") << true << false;
    QTest::newRow("unknown label column") << false << true;
}

// A load error: the quoted CSV row has no space to wrap at, a path neither; yet the message wraps,
// the panel stays narrow, a long one is cut with "…", and the tooltip holds all of it.
void TestPanelPapercuts::longLoadErrorIsWrappedAndCut() {
    QFETCH(bool, ragged);
    QFETCH(bool, cut);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString path = dir.filePath("ragged.csv");
    if (ragged) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QByteArray row;
        for (int i = 0; i < 600; ++i) row += "12345,";
        file.write("a,b,label\n1,2,0\n" + row + "1\n3,4,1\n");
    } else {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QStringList names;
        for (int i = 0; i < 40; ++i) names << QString("feature_with_a_long_name_%1").arg(i);
        file.write(names.join(',').toUtf8() + "\n" + QByteArray("1,").repeated(39) + "0\n");
    }
    DataPanel panel;
    panel.resize(360, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy failed(&panel, &DataPanel::loadFailed);
    QSignalSpy fileFailed(&panel, &DataPanel::fileOpenFailed);
    if (!ragged) {
        DataSpec spec = panel.editedSpec();
        spec.csv.label = "nope";
        panel.setDataSpec(spec);
    }
    panel.openFile(path);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
    const QString message = failed.at(0).at(0).toString();
    QCOMPARE(fileFailed.count(), 1);  // a file the user opened: the window shows a dialog too
    QCOMPARE(fileFailed.at(0).at(0).toString(), path);

    auto* error = panel.findChild<QLabel*>("errorLabel");
    QVERIFY(error && !error->isHidden());
    QVERIFY(error->wordWrap());
    QCOMPARE(error->toolTip(), message);
    QCOMPARE(error->text().contains(QChar(0x2026)), cut);
    QVERIFY2(error->text().size() < 300, qPrintable(error->text()));
    // The longest piece that cannot be broken is short: it wraps in a narrow dock ...
    QVERIFY2(error->minimumSizeHint().width() < 300, qPrintable(QString::number(error->minimumSizeHint().width())));
    // ... and the panel asks for no more width because of it.
    QVERIFY2(panel.minimumSizeHint().width() < 500, qPrintable(QString::number(panel.minimumSizeHint().width())));
}

namespace {
// Loads `rows` built-in rows into `panel` and waits until they are shown.
bool loadBuiltin(DataPanel& panel, int rows) {
    DataSpec spec;
    spec.rows = static_cast<std::size_t>(rows);
    panel.setDataSpec(spec);
    panel.loadBuiltin();
    return QTest::qWaitFor([&] { return panel.dataset() && panel.dataset()->rows == spec.rows; }, 30000);
}
}  // namespace

// Scrolled to its last row and column, the preview of the next data set starts at row 1, column 1.
void TestPanelPapercuts::previewStartsAtTopLeftForANewDataSet() {
    DataPanel panel;
    panel.resize(360, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(loadBuiltin(panel, 500));
    auto* table = panel.findChild<QTableView*>("previewTable");
    QVERIFY(table);
    table->verticalScrollBar()->setValue(table->verticalScrollBar()->maximum());
    table->horizontalScrollBar()->setValue(table->horizontalScrollBar()->maximum());
    QVERIFY(table->verticalScrollBar()->value() > 0);
    QVERIFY(table->horizontalScrollBar()->value() > 0);

    QVERIFY(loadBuiltin(panel, 400));
    QCOMPARE(table->verticalScrollBar()->value(), 0);
    QCOMPARE(table->horizontalScrollBar()->value(), 0);
}

// In the configuration dock's scroll area: the wheel over the preview scrolls the dock, not the
// preview; once the user has clicked into the preview, the wheel scrolls its rows.
void TestPanelPapercuts::previewPassesTheWheelUntilClickedInto() {
    QScrollArea area;
    auto* panel = new DataPanel;
    area.setWidget(panel);
    area.setWidgetResizable(true);
    area.resize(380, 420);
    area.show();
    QVERIFY(QTest::qWaitForWindowExposed(&area));
    QVERIFY(loadBuiltin(*panel, 500));
    auto* table = panel->findChild<QTableView*>("previewTable");
    area.ensureWidgetVisible(table);
    QCOMPARE(table->focusPolicy(), Qt::StrongFocus);  // the wheel does not give it focus
    QScrollBar* dock = area.verticalScrollBar();
    QScrollBar* rows = table->verticalScrollBar();
    QVERIFY(dock->value() > 0);  // the preview sits low in the panel: the dock scrolled to it
    const int dockBefore = dock->value();

    wheel(table->viewport(), 1);  // up
    QVERIFY2(dock->value() < dockBefore, "the dock scrolls");
    QCOMPARE(rows->value(), 0);

    area.ensureWidgetVisible(table);
    area.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&area));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::NoModifier, QPoint(20, 20));
    QTRY_VERIFY(table->hasFocus());
    const int dockNow = dock->value();
    wheel(table->viewport(), -1);  // down
    QVERIFY2(rows->value() > 0, "a clicked preview scrolls its rows");
    QCOMPARE(dock->value(), dockNow);
}

QTEST_MAIN(TestPanelPapercuts)
#include "tst_panel_papercuts.moc"
