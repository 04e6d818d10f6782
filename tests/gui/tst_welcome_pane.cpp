// The first five minutes: on first start the window shows the welcome pane with its three steps;
// each step does what it says (here: Answer the question starts the answer on the built-in data);
// once dismissed it stays away in later windows.
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QToolButton>
#include <QtTest>

#include "gui/answer/answer_view.h"
#include "gui/panels/data_panel.h"
#include "gui/training/metatypes.h"
#include "gui/window/main_window.h"
#include "gui/window/welcome_pane.h"

using namespace wb::gui;

class TestWelcomePane : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("MLP Workbench tests");
        QCoreApplication::setApplicationName("tst_welcome_pane");
        QSettings().clear();
        registerMetaTypes();
    }

    void theThreeStepsOnFirstStart() {
        QVERIFY(WelcomePane::wanted());
        MainWindow window;
        auto* pane = window.findChild<WelcomePane*>();
        QVERIFY(pane);
        QStringList buttons;
        for (auto* b : pane->findChildren<QPushButton*>()) buttons << b->text();
        QCOMPARE(buttons, QStringList({"1. Load data…", "2. Answer the question", "3. Open runs…"}));
        QTRY_VERIFY_WITH_TIMEOUT(window.findChild<DataPanel*>()->dataset() != nullptr, 60000);
        window.answerView().setPlan(1, 2);
        pane->findChildren<QPushButton*>()[1]->click();
        QVERIFY(pane->isHidden());
        QVERIFY(window.answerView().running());
        QCOMPARE(window.findChild<QTabWidget*>()->currentWidget(), &window.answerView());
        window.answerView().stop();
        QTRY_VERIFY_WITH_TIMEOUT(!window.answerView().running(), 60000);
        QVERIFY(!WelcomePane::wanted());
    }

    void dismissedItStaysAway() {
        QSettings().clear();
        {
            MainWindow first;
            auto* pane = first.findChild<WelcomePane*>();
            QVERIFY(pane);
            pane->findChild<QToolButton*>()->click();  // the close button
            QVERIFY(pane->isHidden());
        }
        MainWindow later;
        QVERIFY(!later.findChild<WelcomePane*>());
    }
};

QTEST_MAIN(TestWelcomePane)
#include "tst_welcome_pane.moc"
