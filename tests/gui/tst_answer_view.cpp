// The Answer tab: a tiny real answer through the training worker (the engines first, the estimate,
// progress to the end, the engine chart, the waterfall of each engine, the conclusion in words);
// Stop cancels it; nothing to answer on says so; an answer saves and opens again, and a bad file
// is refused. Nothing here asserts a timing.
#include <QComboBox>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTextDocumentFragment>
#include <QToolButton>
#include <QtTest>
#include <memory>

#include "core/data/builtin_data.h"
#include "core/platform/errors.h"
#include "gui/answer/answer_chart.h"
#include "gui/answer/answer_view.h"
#include "gui/answer/shares_chart.h"
#include "gui/charts/waterfall_chart.h"
#include "gui/training/training_controller.h"
#include "tests/gui/text_layout_probe.h"

using namespace wb;
using namespace wb::gui;

namespace {
constexpr int kTimeoutMs = 120000;  // generous: the build machine is shared; nothing here is timed

struct Setup {
    std::shared_ptr<const Dataset> dataset = std::make_shared<const Dataset>(generateSeedLike(400, 1));
    RunConfig config = [] {
        RunConfig c;
        c.data.rows = 400;
        c.train.batchSize = 64;
        return c;
    }();
};

// A run of 3 epochs of `ms` after a warm-up, on 2,000 rows, in an environment of 2 threads.
RunRecord runOf(double ms) {
    RunRecord r;
    r.status = RunStatus::Completed;
    r.dataset.rows = r.dataset.trainRows = 2000;
    r.dataset.features = 61;
    r.environment = {{"threads", "2"}, {"hardware_threads", "2"}, {"device", "Test CPU"}};
    for (int e = 1; e <= 4; ++e) {
        EpochMetrics m;
        m.epoch = e;
        m.warmup = e == 1;
        m.wallMs = ms;
        r.epochs.push_back(m);
    }
    return r;
}

// The cpu engine's ablation of three rounds: 10 ms, then two fixes down to 4 ms and 2 ms.
Answer answerOf(AnswerStatus status) {
    AblationResult a;
    a.backend = "cpu";
    a.status = status == AnswerStatus::Running ? AblationStatus::Running : AblationStatus::Completed;
    a.rounds = 3;
    a.precision = "every median known to \u00b15 % or better after 3 rounds";
    for (const auto& [name, ms] : {std::pair{"baseline", 10.0}, std::pair{"data_path=device_resident", 4.0},
                                   std::pair{"loss=bce_with_logits", 2.0}}) {
        AblationStep s;
        s.name = name;
        for (double f : {0.99, 1.0, 1.01}) s.runs.push_back(runOf(ms * f));
        s.medianEpochMs = ms;
        s.minEpochMs = ms * 0.99;
        s.maxEpochMs = ms * 1.01;
        a.steps.push_back(s);
    }
    a.updateSavings();
    Answer answer;
    answer.status = status;
    AnswerEngine cpu;
    cpu.engine = "cpu";
    cpu.available = true;
    cpu.ablation = a;
    answer.engines = {cpu};
    return answer;
}
}  // namespace

class TestAnswerView : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void aTinyAnswerFromStartToEnd() {
        TrainingController controller;
        AnswerView view(&controller);
        const Setup s;
        view.setSources([&] { return s.config; }, [&] { return s.dataset; });
        view.setPlan(1, 2);
        QVERIFY(view.start());
        QVERIFY(view.running());
        QVERIFY(!view.start());  // one at a time
        QTRY_VERIFY_WITH_TIMEOUT(!view.running(), kTimeoutMs);
        QVERIFY2(view.statusText().startsWith("Answered"), qPrintable(view.statusText()));
        QVERIFY(view.answer().has_value());
        QCOMPARE(toString(view.answer()->status), std::string("completed"));
        QCOMPARE(view.chart().engineCount(), 1);  // the CPU backend: the one engine every machine has
        // Keras cannot run here: the founding question says what to install, then our CPU backend's line.
        QVERIFY2(view.conclusionText().startsWith("The founding question (Keras's fit against the PyTorch loop) "
                                                  "cannot be answered here"),
                 qPrintable(view.conclusionText()));
        QVERIFY2(view.conclusionText().contains("\nOn our CPU backend"), qPrintable(view.conclusionText()));
        auto* progress = view.findChild<QProgressBar*>();
        QCOMPARE(progress->value(), progress->maximum());
        auto* engines = view.findChild<QComboBox*>();
        QCOMPARE(engines->currentText(), QString("cpu"));
        QVERIFY(view.waterfall().plot().plottableCount() > 0);
        // What is not here is said, with what would make it measurable.
        for (const auto& e : view.answer()->engines)
            if (!e.available)
                QVERIFY2(view.conclusionText().contains("Not measured"), qPrintable(view.conclusionText()));

        const QString saved = dir_.filePath("answer.json");
        view.saveAnswer(saved);
        AnswerView again(&controller);
        again.loadAnswer(saved);
        QCOMPARE(again.conclusionText(), view.conclusionText());
        QCOMPARE(again.chart().engineCount(), 1);
    }

    // The target and the budget of more rounds are the user's, as --target and --budget are; the
    // boxes start at the plan's defaults.
    void targetAndBudgetReachThePlan() {
        TrainingController controller;
        AnswerView view(&controller);
        auto* target = view.findChild<QDoubleSpinBox*>("answerTarget");
        auto* budget = view.findChild<QSpinBox*>("answerBudget");
        QVERIFY(target && budget);
        QCOMPARE(view.plan().target, AnswerPlan{}.target);
        QCOMPARE(view.plan().budgetSeconds, AnswerPlan{}.budgetSeconds);
        QCOMPARE(view.plan().epochs, AnswerPlan{}.epochs);
        QCOMPARE(view.plan().repeats, AnswerPlan{}.repeats);
        target->setValue(2.5);
        budget->setValue(0);
        QCOMPARE(view.plan().target, 0.025);
        QCOMPARE(view.plan().budgetSeconds, 0.0);
    }

    // The attribution beyond one order is the user's too, as --alone, --leave-one-out and --no-shapley
    // are: a menu of three choices that starts at the plan's defaults.
    void attributionChoicesReachThePlan() {
        TrainingController controller;
        AnswerView view(&controller);
        auto* button = view.findChild<QToolButton*>("answerAttribution");
        QVERIFY(button && button->menu());
        const QList<QAction*> actions = button->menu()->actions();
        QCOMPARE(actions.size(), 3);
        const AnswerPlan defaults;
        QCOMPARE(view.plan().shapley, defaults.shapley);
        QCOMPARE(view.plan().alone, defaults.alone);
        QCOMPARE(view.plan().leaveOneOut, defaults.leaveOneOut);
        for (QAction* a : actions) a->trigger();  // each checkable: toggled
        QCOMPARE(view.plan().shapley, !defaults.shapley);
        QCOMPARE(view.plan().alone, !defaults.alone);
        QCOMPARE(view.plan().leaveOneOut, !defaults.leaveOneOut);
        QCOMPARE(view.plan().ablation("torch").leaveOneOut, !defaults.leaveOneOut);
        QCOMPARE(view.plan().ablation("torch").alone, !defaults.alone);
    }

    // Beside the waterfall, the shares of the gap; under the conclusion, what was measured; while
    // the answer is measured, both say it is provisional.
    void anAnswerShowsItsSharesAndWhatWasMeasured_data() {
        QTest::addColumn<bool>("running");
        QTest::newRow("completed") << false;
        QTest::newRow("still measuring") << true;
    }
    void anAnswerShowsItsSharesAndWhatWasMeasured() {
        QFETCH(bool, running);
        TrainingController controller;
        AnswerView view(&controller);
        view.showAnswer(answerOf(running ? AnswerStatus::Running : AnswerStatus::Completed));
        QCOMPARE(view.shares().causes().size(), std::size_t{2});
        const QString text = view.findChild<QTextBrowser*>("answerConclusion")->toPlainText();
        for (const QString& expected : {QString("What was measured"), QString("2,000 rows \u00d7 61 features"),
                                        QString("3 rounds"), QString("2 threads of 2")})
            QVERIFY2(text.contains(expected), qPrintable(expected + " is not in: " + text));
        QCOMPARE(text.startsWith("Provisional"), running);
        QCOMPARE(text.contains("Provisional: measured so far"), running);
    }

    // Four engines' medians and speed-ups are labels over their bars where the chart has room for them
    // whole, and a line under the chart where it has not; never a label cut or on top of another.
    void theEnginesNumbersStayWhole_data() {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("inChart");
        QTest::newRow("wide: labels in the chart") << QSize(1100, 520) << true;
        QTest::newRow("narrow: the line under it") << QSize(420, 300) << false;
        QTest::newRow("short: the line under it") << QSize(1100, 180) << false;
    }
    void theEnginesNumbersStayWhole() {
        QFETCH(QSize, size);
        QFETCH(bool, inChart);
        AnswerChart chart;
        chart.resize(size);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setAnswer(Answer::load(WB_TEST_DATA_DIR "/answer-four-engines.json"));
        chart.plot().replot();
        QCoreApplication::processEvents();
        QCOMPARE(chart.engineCount(), 4);
        QCOMPARE(chart.labelsInChart(), inChart);
        const auto* line = chart.findChild<QLabel*>("answerChartNumbers");
        QVERIFY(line);
        QCOMPARE(line->isVisible(), !inChart);
        const QString numbers = QTextDocumentFragment::fromHtml(line->text()).toPlainText().replace(QChar(0xa0), ' ');
        for (const QString& expected : {QString("torch 746 ms \u2192 42.1 ms, 18\u00d7 faster (14\u201319\u00d7)"),
                                        QString("keras 101 ms \u2192 101 ms, no measurable difference"),
                                        QString("cpu 9.42 ms"), QString("jax 132 ms")})
            QVERIFY2(numbers.contains(expected), qPrintable(numbers));
        const QStringList problems = test::layoutProblems(test::drawnTexts(chart.plot()), chart.plot().size());
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    }

    void stopCancelsIt() {
        TrainingController controller;
        AnswerView view(&controller);
        Setup s;
        view.setSources([&] { return s.config; }, [&] { return s.dataset; });
        view.setPlan(3, 1000);
        QVERIFY(view.start());
        QTRY_VERIFY_WITH_TIMEOUT(view.statusText().startsWith("cpu:"), kTimeoutMs);  // measuring
        view.stop();
        QTRY_VERIFY_WITH_TIMEOUT(!view.running(), kTimeoutMs);
        QCOMPARE(toString(view.answer()->status), std::string("cancelled"));
        QVERIFY2(view.statusText().contains("cancelled"), qPrintable(view.statusText()));
    }

    void nothingToAnswerOn() {
        TrainingController controller;
        AnswerView view(&controller);
        QVERIFY(!view.start());
        QVERIFY2(view.statusText().contains("Load a data set"), qPrintable(view.statusText()));
        QVERIFY_THROWS_EXCEPTION(ConfigError, view.saveAnswer(dir_.filePath("none.json")));
        QVERIFY(!QFile::exists(dir_.filePath("none.json")));
    }

    void aBadFileIsRefused() {
        TrainingController controller;
        AnswerView view(&controller);
        QFile f(dir_.filePath("bad.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"schema\": \"mlpwb.run/1\"}");
        f.close();
        QVERIFY_THROWS_EXCEPTION(DataError, view.loadAnswer(f.fileName()));
        QVERIFY(!view.answer().has_value());
    }
};

QTEST_MAIN(TestAnswerView)
#include "tst_answer_view.moc"
