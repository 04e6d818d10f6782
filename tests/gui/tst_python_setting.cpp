// The interpreter setting: what the user chooses (typed, or set) is kept in QSettings, becomes the
// process's preferred interpreter, is asked whether it can run PyTorch (torch unavailable, with the
// reason, for an interpreter that is not Python), and goes into the RunConfig of the runs queued.
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "frameworks/framework_backend.h"
#include "frameworks/python_interpreter.h"
#include "gui/panels/execution_panel.h"
#include "gui/window/main_window.h"

using namespace wb;
using namespace wb::gui;

namespace {

bool backendsKnown(const ExecutionPanel& panel) {
    return QTest::qWaitFor([&] { return !panel.checkingBackends(); }, 60000);
}

QStandardItem* comboItem(QComboBox* combo, const QString& data) {
    return qobject_cast<QStandardItemModel*>(combo->model())->item(combo->findData(data));
}

// An executable that is not Python: it complains and exits, whatever it is asked.
QString fakeInterpreter(const QTemporaryDir& dir) {
    const QString path = dir.filePath("not-python");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return {};
    file.write("#!/bin/sh\necho 'this is not Python' >&2\nexit 3\n");
    file.close();
    file.setPermissions(file.permissions() | QFile::ExeOwner | QFile::ExeUser);
    return path;
}

}  // namespace

class TestPythonSetting : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString fake_;

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("MLP Workbench tests");
        QCoreApplication::setApplicationName("tst_python_setting");
        QSettings().clear();
        registerFrameworkBackends();  // the real torch backend: its probe asks the chosen interpreter
        fake_ = fakeInterpreter(dir_);
        QVERIFY(!fake_.isEmpty());
    }

    void init() { QSettings().remove(ExecutionPanel::kPythonSetting); }

    void aFakeInterpreterMakesTorchUnavailableWithTheReason_data() {
        QTest::addColumn<bool>("typed");  // typed in the field and Enter, or through the setter
        QTest::newRow("typed") << true;
        QTest::newRow("set") << false;
    }

    void aFakeInterpreterMakesTorchUnavailableWithTheReason() {
        QFETCH(bool, typed);
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        if (typed) {
            auto* edit = panel.findChild<QLineEdit*>("python");
            edit->setFocus();
            edit->selectAll();
            QTest::keyClicks(edit, fake_);
            QTest::keyClick(edit, Qt::Key_Return);
        } else {
            panel.setPython(fake_);
        }
        QCOMPARE(panel.python(), fake_);
        QCOMPARE(QString::fromStdString(preferredPython()), fake_);  // what the registry's probes ask
        QCOMPARE(QSettings().value(ExecutionPanel::kPythonSetting).toString(), fake_);
        QVERIFY(backendsKnown(panel));

        auto* combo = panel.findChild<QComboBox*>("backend");
        QStandardItem* torch = comboItem(combo, "torch");
        QVERIFY2(torch, "the torch backend is listed, available or not");
        QVERIFY(!torch->isEnabled());
        QVERIFY2(torch->toolTip().contains(fake_), qPrintable(torch->toolTip()));
        QVERIFY2(torch->toolTip().contains("not Python"), qPrintable(torch->toolTip()));  // the interpreter's own words
        auto* status = panel.findChild<QLabel*>("pythonStatus");
        QVERIFY(status->isVisibleTo(&panel));
        QVERIFY2(status->text().startsWith("PyTorch unavailable: "), qPrintable(status->text()));
        panel.setBackend("torch");
        QCOMPARE(panel.backend(), QString("cpu"));  // an unavailable backend is not taken
        QCOMPARE(QString::fromStdString(panel.frameworkOptions().python), fake_);
    }

    void emptyMeansTheDefault() {
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        panel.setPython(fake_);
        panel.setPython("  ");
        QCOMPARE(panel.python(), QString());
        QCOMPARE(QSettings().value(ExecutionPanel::kPythonSetting).toString(), QString());
        QCOMPARE(preferredPython(), std::string());
        const QString resolved = QString::fromStdString(resolvePython());  // $MLPWB_PYTHON, else python3
        QCOMPARE(QString::fromStdString(panel.frameworkOptions().python), resolved);
        QVERIFY2(panel.findChild<QLineEdit*>("python")->placeholderText().startsWith(resolved),
                 qPrintable(panel.findChild<QLineEdit*>("python")->placeholderText()));
        QVERIFY(backendsKnown(panel));
    }

    void theSavedChoiceIsUsedAtStartUp() {
        QSettings().setValue(ExecutionPanel::kPythonSetting, fake_);
        setPreferredPython({});
        ExecutionPanel panel;
        QCOMPARE(panel.python(), fake_);
        QCOMPARE(QString::fromStdString(preferredPython()), fake_);
        QVERIFY(backendsKnown(panel));
        QVERIFY(!comboItem(panel.findChild<QComboBox*>("backend"), "torch")->isEnabled());
    }

    void theChoiceReachesTheRunConfig() {
        MainWindow window;
        auto* panel = window.findChild<ExecutionPanel*>();
        panel->setPython(fake_);
        QCOMPARE(QString::fromStdString(window.currentConfig().framework.python), fake_);
        QVERIFY(backendsKnown(*panel));
    }
};

QTEST_MAIN(TestPythonSetting)
#include "tst_python_setting.moc"
