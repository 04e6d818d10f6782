// The window survives its users: 1,000 random actions from a fixed seed (clicks on enabled buttons
// and menu actions, valid and hostile text in fields, spin boxes and combo boxes, tab switches,
// resizes, runs started, stopped, opened and deleted), and after each one the window still answers,
// no finished run was lost (unless the action deleted runs) or changed, and every message box the
// window showed said something. On a failure the message lists the actions that led to it, to be
// replayed as a regression test.
#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QFileDialog>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <random>

#include "core/run/run_record.h"
#include "gui/panels/data_panel.h"
#include "gui/panels/execution_panel.h"
#include "gui/panels/model_panel.h"
#include "gui/runs/run_folder.h"
#include "gui/runs/run_store.h"
#include "gui/runs/runs_table_view.h"
#include "gui/training/metatypes.h"
#include "gui/training/training_controller.h"
#include "gui/window/main_window.h"
#include "tests/test_support.h"

using namespace wb;
using namespace wb::gui;

namespace {
// The fixed seed and count CI runs; WB_MONKEY_SEED and WB_MONKEY_ACTIONS explore others by hand.
const std::uint32_t kSeed = static_cast<std::uint32_t>(qEnvironmentVariableIntValue("WB_MONKEY_SEED"))
                                ? static_cast<std::uint32_t>(qEnvironmentVariableIntValue("WB_MONKEY_SEED"))
                                : 20261206u;
const int kActions = qEnvironmentVariableIntValue("WB_MONKEY_ACTIONS") > 0
                         ? qEnvironmentVariableIntValue("WB_MONKEY_ACTIONS")
                         : 1000;

// Text a user might type, or paste by mistake, into any field.
const QStringList kTexts = {"0.001",
                            "20,10",
                            "64",
                            "3",
                            "tanh",
                            "0.2",
                            "1e-3",
                            "",
                            "-1",
                            "0",
                            "1e309",
                            "nan",
                            "inf",
                            "20,,10",
                            "0x10",
                            "%s%n%s",
                            "../../etc/passwd",
                            "\u00e4\u00df\u4e2d\u6587",
                            QString(5000, 'x'),
                            "  12  ",
                            "1,2,3,4,5,6,7,8,9,10",
                            "-0",
                            "2147483648"};

// What one finished run looked like: it must stay so.
struct RunSnapshot {
    RunStatus status;
    std::size_t epochs;
};

// Answers every dialog the window opens (modal ones block the action that opened them), keeping
// what each message box said.
class DialogAnswerer : public QObject {
public:
    explicit DialogAnswerer(std::mt19937& rng) : rng_(rng) {
        timer_.setInterval(15);
        connect(&timer_, &QTimer::timeout, this, &DialogAnswerer::answer);
        timer_.start();
    }
    QStringList unexplained;  // message boxes with nothing to say
    int answered = 0;

    void answer() {
        for (QWidget* top : QApplication::topLevelWidgets()) {
            if (!top->isVisible()) continue;
            if (auto* menu = qobject_cast<QMenu*>(top)) {
                menu->close();
            } else if (auto* box = qobject_cast<QMessageBox*>(top)) {
                if (box->text().trimmed().size() < 8) unexplained << box->windowTitle() + ": '" + box->text() + "'";
                const auto buttons = box->buttons();
                ++answered;
                if (buttons.isEmpty())
                    box->close();
                else
                    buttons[static_cast<qsizetype>(rng_() % static_cast<std::uint32_t>(buttons.size()))]->click();
            } else if (auto* dialog = qobject_cast<QDialog*>(top)) {
                ++answered;
                dialog->reject();  // file dialogs, New sweep, About, Compare configs…
            }
        }
    }

private:
    std::mt19937& rng_;
    QTimer timer_;
};

// Types `text` into the focused widget `w` key by key, as a keyboard would (QTest::keyClicks knows
// only ASCII keys: the others arrive as a key event carrying their text).
void typeText(QWidget* w, const QString& text) {
    for (const QChar c : text) {
        if (c.unicode() >= 0x20 && c.unicode() < 0x7f) {
            QTest::keyClick(w, static_cast<char>(c.unicode()));
        } else {
            QKeyEvent press(QEvent::KeyPress, Qt::Key_unknown, Qt::NoModifier, QString(c));
            QKeyEvent release(QEvent::KeyRelease, Qt::Key_unknown, Qt::NoModifier, QString(c));
            QApplication::sendEvent(w, &press);
            QApplication::sendEvent(w, &release);
        }
    }
}

// A random number below n, from the monkey's generator.
std::size_t pick(std::mt19937& rng, std::size_t n) {
    return static_cast<std::size_t>(rng() % n);
}

// One of kTexts, at random.
QString randomText(std::mt19937& rng) {
    return kTexts[static_cast<qsizetype>(pick(rng, static_cast<std::size_t>(kTexts.size())))];
}

template <typename T>
std::vector<T*> usable(QWidget& root) {
    std::vector<T*> found;
    for (T* w : root.findChildren<T*>())
        if (w->isVisibleTo(&root) && w->isEnabled()) found.push_back(w);
    return found;
}
}  // namespace

class TestMonkey : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("MLP Workbench tests");
        QCoreApplication::setApplicationName("tst_monkey");
        QSettings().clear();
        registerMetaTypes();
        QVERIFY(dir_.isValid());
        setRunFolder(dir_.filePath("runs"));
    }

    void thousandRandomActions() {
        std::mt19937 rng(kSeed);
        MainWindow window;
        window.resize(1300, 850);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* data = window.findChild<DataPanel*>();
        QTRY_VERIFY_WITH_TIMEOUT(data->dataset() != nullptr, 60000);
        // Small runs, so that many finish between the actions (the monkey may make them large).
        DataSpec spec = data->dataSpec();
        spec.rows = 3000;
        data->setDataSpec(spec);
        auto* model = window.findChild<ModelPanel*>();
        TrainSpec train = model->trainSpec();
        train.epochs = 4;
        model->setTrainSpec(train);
        window.findChild<ExecutionPanel*>()->setRepeats(1, 1);
        writeRunFiles();

        DialogAnswerer answerer(rng);
        const bool trace = qEnvironmentVariableIsSet("WB_MONKEY_TRACE");  // each action on stderr as it is done
        QStringList done;                                                 // the actions so far, for the failure message
        std::map<int, RunSnapshot> finished;
        for (int i = 0; i < kActions; ++i) {
            const QString action = act(window, rng);
            done << QString::number(i) + ": " + action;
            if (trace) std::fprintf(stderr, "%s\n", qPrintable(done.last()));
            const bool deletes = action.contains("Delete") || action.contains("delete");
            const QString why = check(window, finished, deletes);
            QVERIFY2(why.isEmpty(), qPrintable(why + "\nafter:\n" + done.mid(std::max(0, i - 40)).join('\n')));
            QVERIFY2(answerer.unexplained.isEmpty(),
                     qPrintable("a message box that says nothing: " + answerer.unexplained.join("; ") + "\nafter:\n" +
                                done.mid(std::max(0, i - 40)).join('\n')));
        }
        stopEverything(window);
        QVERIFY2(check(window, finished, false).isEmpty(), "after stopping");
        qInfo("seed %u: %d actions, %d dialogs answered, %zu finished runs kept, %zu runs in the store", kSeed,
              kActions, answerer.answered, finished.size(), window.store().runs().size());
    }

private:
    // Run files to open: one good, one malformed, one that is not there.
    void writeRunFiles() {
        QFile bad(dir_.filePath("malformed.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"schema\": \"mlpwb.run/1\", \"epochs\": [");
    }

    // One random action; returns what it did.
    QString act(MainWindow& window, std::mt19937& rng) {
        const std::size_t kind = pick(rng, 100);
        if (kind < 25) return clickButton(window, rng);
        if (kind < 40) return triggerAction(window, rng);
        if (kind < 55) return typeIntoField(window, rng);
        if (kind < 65) return typeIntoSpinBox(window, rng);
        if (kind < 73) return chooseInCombo(window, rng);
        if (kind < 80) return switchTab(window, rng);
        if (kind < 84) return resizeWindow(window, rng);
        if (kind < 89) {
            window.runCurrent();
            return "run";
        }
        if (kind < 92) {
            window.stop();
            return "stop";
        }
        if (kind < 95) return openRunFile(window, rng);
        if (kind < 97) return deleteARun(window, rng);
        const int ms = static_cast<int>(pick(rng, 200));
        QTest::qWait(ms);
        return QString("wait %1 ms").arg(ms);
    }

    // A button.
    static QString clickButton(MainWindow& window, std::mt19937& rng) {
        auto buttons = usable<QAbstractButton>(window);
        if (buttons.empty()) return "no button";
        QAbstractButton* b = buttons[pick(rng, buttons.size())];
        const QString what = "click " + name(b);
        b->click();
        return what;
    }

    // A toolbar or menu action (never Quit).
    static QString triggerAction(MainWindow& window, std::mt19937& rng) {
        std::vector<QAction*> actions;
        for (QAction* a : window.findChildren<QAction*>())
            if (a->isEnabled() && !a->isSeparator() && !a->menu() && a->shortcut() != QKeySequence::Quit &&
                !a->text().isEmpty())
                actions.push_back(a);
        if (actions.empty()) return "no action";
        QAction* a = actions[pick(rng, actions.size())];
        const QString what = "trigger " + a->text();
        a->trigger();
        return what;
    }

    // A text field: one of kTexts typed into it, then Return.
    static QString typeIntoField(MainWindow& window, std::mt19937& rng) {
        auto edits = usable<QLineEdit>(window);
        std::erase_if(edits, [](QLineEdit* e) { return e->isReadOnly(); });
        if (edits.empty()) return "no field";
        QLineEdit* e = edits[pick(rng, edits.size())];
        const QString text = randomText(rng);
        e->setFocus();
        e->selectAll();
        typeText(e, text.left(200));
        if (text.size() > 200) e->insert(text.mid(200));
        QTest::keyClick(e, Qt::Key_Return);
        return "type '" + text.left(30) + "' into " + name(e);
    }

    // A spin box, typed into like a field, and sometimes stepped.
    static QString typeIntoSpinBox(MainWindow& window, std::mt19937& rng) {
        auto spins = usable<QAbstractSpinBox>(window);
        if (spins.empty()) return "no spin box";
        QAbstractSpinBox* s = spins[pick(rng, spins.size())];
        const QString text = randomText(rng);
        s->setFocus();
        s->selectAll();
        typeText(s, text.left(40));
        QTest::keyClick(s, Qt::Key_Return);
        if (pick(rng, 2)) s->stepBy(static_cast<int>(pick(rng, 7)) - 3);
        return "type '" + text.left(30) + "' into spin box " + name(s);
    }

    // A combo box with items: one of them chosen.
    static QString chooseInCombo(MainWindow& window, std::mt19937& rng) {
        auto combos = usable<QComboBox>(window);
        std::erase_if(combos, [](QComboBox* c) { return c->count() == 0; });
        if (combos.empty()) return "no combo box";
        QComboBox* c = combos[pick(rng, combos.size())];
        const int index = static_cast<int>(pick(rng, static_cast<std::size_t>(c->count())));
        c->setCurrentIndex(index);
        return "choose '" + c->itemText(index) + "' in " + name(c);
    }

    // A tab.
    static QString switchTab(MainWindow& window, std::mt19937& rng) {
        auto tabs = usable<QTabWidget>(window);
        if (tabs.empty()) return "no tabs";
        QTabWidget* t = tabs[pick(rng, tabs.size())];
        const int index = static_cast<int>(pick(rng, static_cast<std::size_t>(t->count())));
        t->setCurrentIndex(index);
        return "tab '" + t->tabText(index) + "'";
    }

    static QString resizeWindow(MainWindow& window, std::mt19937& rng) {
        const int w = 300 + static_cast<int>(pick(rng, 1500)), h = 200 + static_cast<int>(pick(rng, 1000));
        window.resize(w, h);
        return QString("resize %1x%2").arg(w).arg(h);
    }

    // A run file to open: the malformed one, a missing one, or the run folder.
    QString openRunFile(MainWindow& window, std::mt19937& rng) {
        const QStringList files = {dir_.filePath("malformed.json"), dir_.filePath("missing.json"),
                                   dir_.filePath("runs")};
        const QString file = files[static_cast<qsizetype>(pick(rng, static_cast<std::size_t>(files.size())))];
        window.openRunFiles({file});
        return "open runs " + QFileInfo(file).fileName();
    }

    // Select some runs and delete them.
    static QString deleteARun(MainWindow& window, std::mt19937& rng) {
        RunsTableView& runs = window.runsView();
        const int rows = runs.table()->model()->rowCount();
        if (rows == 0) return "no run to delete";
        runs.table()->selectRow(static_cast<int>(pick(rng, static_cast<std::size_t>(rows))));
        for (QAction* a : runs.findChildren<QAction*>())
            if (a->text().startsWith("Delete") && a->isEnabled()) a->trigger();
        return "delete a run";
    }

    static QString name(const QWidget* w) {
        QString text;
        if (const auto* b = qobject_cast<const QAbstractButton*>(w)) text = b->text();
        return QString("%1 '%2' (%3)").arg(w->metaObject()->className(), text, w->objectName());
    }

    // The window answers, and no finished run was lost or changed; "" when all is well.
    static QString check(MainWindow& window, std::map<int, RunSnapshot>& finished, bool deletes) {
        bool answered = false;
        QTimer::singleShot(0, &window, [&answered] { answered = true; });
        QElapsedTimer clock;
        clock.start();
        while (!answered && clock.elapsed() < 5000) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        if (!answered) return "the window's event loop did not answer within 5 s";
        if (!window.isVisible()) return "the window is gone";
        std::map<int, const RunEntry*> now;
        for (const RunEntry& run : window.store().runs()) now[run.id] = &run;
        for (auto it = finished.begin(); it != finished.end();) {
            const auto found = now.find(it->first);
            if (found == now.end()) {
                if (!deletes) return QString("finished run %1 vanished").arg(it->first);
                it = finished.erase(it);
                continue;
            }
            const RunRecord& r = found->second->record;
            if (r.status != it->second.status || r.epochs.size() != it->second.epochs)
                return QString("finished run %1 changed: %2 with %3 epochs, was %4 with %5")
                    .arg(it->first)
                    .arg(QString::fromStdString(toString(r.status)))
                    .arg(r.epochs.size())
                    .arg(QString::fromStdString(toString(it->second.status)))
                    .arg(it->second.epochs);
            ++it;
        }
        for (const auto& [id, run] : now)
            if (run->record.status != RunStatus::Running && !run->queued && !finished.count(id))
                finished[id] = {run->record.status, run->record.epochs.size()};
        return {};
    }

    static void stopEverything(MainWindow& window) {
        for (int tries = 0; tries < 200 && window.controller().busy(); ++tries) {
            window.controller().clearQueue();
            window.controller().stopCurrent();
            QTest::qWait(50);
        }
        QVERIFY2(!window.controller().busy(), "a run did not stop within 10 s");
    }
};

QTEST_MAIN(TestMonkey)
#include "tst_monkey.moc"
