// The Ablation tab and its waterfall: a hand-written ablation JSON (numbers chosen here, not computed by
// the code under test) draws the expected bars and labels and exports offscreen, headless too; a tiny
// real ablation through the training worker waits for the run queued before it and produces the bars
// its steps call for; Stop cancels; the fix list reorders.
#include <QImage>
#include <QListWidget>
#include <QProcess>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

#include <qcustomplot.h>
#include <nlohmann/json.hpp>

#include "core/data/builtin_data.h"
#include "core/platform/errors.h"
#include "gui/charts/waterfall_chart.h"
#include "gui/training/ablation_metatypes.h"
#include "gui/training/ablation_tab.h"
#include "gui/training/training_controller.h"

using namespace wb;
using namespace wb::gui;

namespace {
constexpr int kRunTimeoutMs = 120000;  // generous: the build machine is shared; nothing here is timed

nlohmann::json step(const std::string& name, const std::string& status, double level, double saved,
                    nlohmann::json share, double loss, double spread) {
    const bool ran = status == "ran";
    nlohmann::json final = nullptr;
    if (ran) final = {{"train_loss", loss}, {"train_accuracy", 0.75}, {"val_loss", nullptr}, {"val_accuracy", nullptr}};
    return {{"name", name},
            {"fix", name == "baseline" ? "" : name.substr(0, name.find('='))},
            {"status", status},
            {"message", ran ? "" : "launch=graph_step: the CPU backend launches no kernels"},
            {"median_epoch_ms", level},
            {"min_epoch_ms", level - spread},
            {"max_epoch_ms", level + spread},
            {"saved_ms", saved},
            {"share", share},
            {"final", final},
            // One stand-in run per measured step: the chart only asks whether the step ran.
            {"runs", ran ? nlohmann::json::array(
                               {{{"schema", "mlpwb.run/1"}, {"name", name}, {"epochs", nlohmann::json::array()}}})
                         : nlohmann::json::array()}};
}

// Baseline 10 ms; data_path saves 4 (80 % of the 5 ms gap); launch not applicable; loss costs 1 (-20 %);
// zero_grad saves 2 (40 %). Last level 5 ms.
nlohmann::json handWrittenAblation() {
    return {{"schema", "mlpwb.ablation/1"},
            {"baseline", "Seed PyTorch loop"},
            {"plan",
             {{"baseline", "Seed PyTorch loop"},
              {"fixes", {"data_path", "launch", "loss", "zero_grad"}},
              {"repeats", 3},
              {"alone", false}}},
            {"status", "completed"},
            {"backend", "cpu"},
            {"device", "test CPU"},
            {"steps",
             {step("baseline", "ran", 10.0, 0.0, nullptr, 0.40, 0.5),
              step("data_path=device_resident", "ran", 6.0, 4.0, 0.8, 0.40, 0.25),
              step("launch=graph_step", "not_applicable", 6.0, 0.0, 0.0, 0, 0),
              step("loss=bce_with_logits", "ran", 7.0, -1.0, -0.2, 0.30, 0.0),
              step("zero_grad=none", "ran", 5.0, 2.0, 0.4, 0.30, 0.1)}}};
}

// The hand-written ablation as a `task` one: a regression's finals hold R^2 0.8123 and no accuracy; a
// multiclass one keeps accuracy 0.75.
nlohmann::json handWrittenAblationOf(const std::string& task) {
    nlohmann::json j = handWrittenAblation();
    j["task"] = task;
    if (task != "regression") return j;
    for (auto& s : j["steps"]) {
        if (s["final"].is_null()) continue;
        s["final"]["train_accuracy"] = nullptr;
        s["final"]["train_mse"] = 2.0;
        s["final"]["train_mae"] = 1.1;
        s["final"]["train_r2"] = 0.8123;
    }
    return j;
}

void writeJson(const QString& path, const nlohmann::json& j) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(j.dump()));
}

RunConfig tinyConfig(int epochs) {
    RunConfig c;
    c.train.epochs = epochs;
    c.train.batchSize = 64;
    c.backend = "cpu";
    c.name = "tiny";
    return c;
}
}  // namespace

class TestAblationTab : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        registerAblationMetaTypes();
        QVERIFY(dir_.isValid());
        writeJson(dir_.filePath("hand.json"), handWrittenAblation());
    }
    void rendersTheWaterfallFromAnAblationJson();
    void showsTheTasksMetric_data();
    void showsTheTasksMetric();
    void exportsChartAndData_data();
    void exportsChartAndData();
    void headlessExportOfTheWaterfall_data();
    void headlessExportOfTheWaterfall();
    void noSpeedupInsideTheSpread();
    void notesShowInTheTableAndTooltip();
    void tinyRealAblationThroughTheWorker();
    void stopCancelsTheAblation();
    void fixListReordersAndUnchecks();

private:
    QTemporaryDir dir_;
};

void TestAblationTab::showsTheTasksMetric_data() {
    QTest::addColumn<QString>("task");
    QTest::addColumn<QString>("header");  // of the table's metric column
    QTest::addColumn<QString>("cell");    // the baseline's value there
    QTest::addColumn<QString>("label");   // what the baseline's bar says
    QTest::newRow("regression") << "regression" << QString::fromUtf8("R²") << "0.8123"
                                << QString::fromUtf8("loss 0.4000, R² 0.812");
    QTest::newRow("multiclass") << "multiclass"
                                << "Accuracy"
                                << "75.00%"
                                << "loss 0.4000, acc 75.0%";
    QTest::newRow("binary") << "binary"
                            << "Accuracy"
                            << "75.00%"
                            << "loss 0.4000, acc 75.0%";
}

// The table's metric column and the bars' labels name and show the task's metric (R^2 for a regression).
void TestAblationTab::showsTheTasksMetric() {
    QFETCH(QString, task);
    QFETCH(QString, header);
    QFETCH(QString, cell);
    QFETCH(QString, label);
    const QString path = dir_.filePath(task + ".json");
    writeJson(path, handWrittenAblationOf(task.toStdString()));
    TrainingController controller;
    AblationTab tab(&controller);
    tab.loadResult(path);
    const auto* table = tab.findChild<QTableWidget*>();
    QVERIFY(table);
    int column = -1;
    for (int c = 0; c < table->columnCount(); ++c)
        if (table->horizontalHeaderItem(c)->text() == header) column = c;
    QVERIFY2(column >= 0, qPrintable(header));
    QCOMPARE(table->item(0, column)->text(), cell);
    const auto& bars = tab.chart().bars();
    QVERIFY2(bars[0].label.endsWith(label), qPrintable(bars[0].label));
    QVERIFY2(tab.chart().tooltipFor(1).contains(label.section(", ", 1)), qPrintable(tab.chart().tooltipFor(1)));
}

// Baseline 10 ms over 8-12, last step 9.5 ms over 8-11: the "fixed loop" bar claims no speedup
// (the CLI's total gap says the same), and its tooltip gives the range of the ratio.
void TestAblationTab::noSpeedupInsideTheSpread() {
    nlohmann::json j = handWrittenAblation();
    j["steps"] = {step("baseline", "ran", 10.0, 0.0, nullptr, 0.40, 2.0),
                  step("zero_grad=none", "ran", 9.5, 0.5, nullptr, 0.40, 1.5)};
    const QString path = dir_.filePath("noise.json");
    writeJson(path, j);
    TrainingController controller;
    AblationTab tab(&controller);
    tab.loadResult(path);
    const auto& bars = tab.chart().bars();
    QCOMPARE(bars.size(), std::size_t{3});
    QVERIFY2(bars[2].label.contains("no measurable speedup"), qPrintable(bars[2].label));
    QVERIFY2(!bars[2].label.contains("1.05"), qPrintable(bars[2].label));
    QVERIFY2(tab.chart().tooltipFor(2).contains("no measurable difference"), qPrintable(tab.chart().tooltipFor(2)));
}

// A step's notes (data: {switch, reason}) reach the Note column after its message, and its tooltip.
void TestAblationTab::notesShowInTheTableAndTooltip() {
    nlohmann::json j = handWrittenAblation();
    j["steps"][3]["notes"] = {{{"switch", "loss"}, {"reason", "means, on K classes: CrossEntropyLoss"}}};
    const QString path = dir_.filePath("notes.json");
    writeJson(path, j);
    TrainingController controller;
    AblationTab tab(&controller);
    tab.loadResult(path);
    const auto* table = tab.findChild<QTableWidget*>();
    QVERIFY(table);
    const int note = table->columnCount() - 1;
    QCOMPARE(table->horizontalHeaderItem(note)->text(), QString("Note"));
    QCOMPARE(table->item(3, note)->text(), QString("loss means, on K classes: CrossEntropyLoss"));
    QVERIFY(table->item(2, note)->text().contains("launches no kernels"));  // a message, no note
    QVERIFY2(tab.chart().tooltipFor(3).contains("note: loss means, on K classes"),
             qPrintable(tab.chart().tooltipFor(3)));
}

void TestAblationTab::rendersTheWaterfallFromAnAblationJson() {
    TrainingController controller;
    AblationTab tab(&controller);
    tab.resize(1200, 800);
    tab.loadResult(dir_.filePath("hand.json"));
    const auto& bars = tab.chart().bars();
    QCOMPARE(bars.size(), std::size_t{6});  // five steps and the "fixed loop" bar
    using Kind = WaterfallChart::Bar::Kind;
    QVERIFY(bars[0].kind == Kind::Baseline);
    QCOMPARE(bars[0].low, 0.0);
    QCOMPARE(bars[0].high, 10.0);
    // data_path floats from 6 to 10 and saved time; its whisker is the spread of its repeats.
    QCOMPARE(bars[1].low, 6.0);
    QCOMPARE(bars[1].high, 10.0);
    QVERIFY(bars[1].measured && !bars[1].slower);
    QCOMPARE(bars[1].spreadLow.value_or(0), 5.75);
    QCOMPARE(bars[1].spreadHigh.value_or(0), 6.25);
    QVERIFY2(bars[1].label.contains("saved 4.00 ms"), qPrintable(bars[1].label));
    QVERIFY2(bars[1].label.contains("80.0% of the gap"), qPrintable(bars[1].label));
    QVERIFY2(bars[1].label.contains("loss 0.4000"), qPrintable(bars[1].label));
    // launch did nothing: a flat line at the level it started from, saying why.
    QCOMPARE(bars[2].low, 6.0);
    QCOMPARE(bars[2].high, 6.0);
    QVERIFY(!bars[2].measured);
    QVERIFY2(bars[2].label.contains("not applicable on cpu"), qPrintable(bars[2].label));
    QVERIFY(tab.chart().tooltipFor(2).contains("launches no kernels"));
    // loss cost time: a red bar from 6 up to 7, and its numbers changed (loss 0.3).
    QCOMPARE(bars[3].low, 6.0);
    QCOMPARE(bars[3].high, 7.0);
    QVERIFY(bars[3].slower);
    QVERIFY2(bars[3].label.contains("slower by 1.00 ms"), qPrintable(bars[3].label));
    QVERIFY2(bars[3].label.contains("-20.0% of the gap"), qPrintable(bars[3].label));
    QVERIFY2(bars[3].label.contains("loss 0.3000"), qPrintable(bars[3].label));
    QVERIFY(!bars[3].spreadLow || *bars[3].spreadLow == *bars[3].spreadHigh);
    QCOMPARE(bars[4].low, 5.0);
    QCOMPARE(bars[4].high, 7.0);
    QVERIFY(bars[5].kind == Kind::Total);
    QCOMPARE(bars[5].high, 5.0);
    QVERIFY2(bars[5].label.contains("speedup 2.00"), qPrintable(bars[5].label));
    // Every bar's text is also on the plot (one value label per bar).
    int labels = 0;
    for (int i = 0; i < tab.chart().plot().itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(tab.chart().plot().item(i)); text && text->visible()) ++labels;
    QCOMPARE(labels, 6);
    // A bad file leaves what is shown as it was.
    QVERIFY_THROWS_EXCEPTION(DataError, tab.loadResult(dir_.filePath("missing.json")));
    QCOMPARE(tab.chart().bars().size(), std::size_t{6});
}

void TestAblationTab::exportsChartAndData_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("png") << "w.png";
    QTest::newRow("jpg") << "w.jpg";
    QTest::newRow("pdf") << "w.pdf";
    QTest::newRow("svg") << "w.svg";
    QTest::newRow("csv") << "w.csv";
    QTest::newRow("json") << "w.json";
}

void TestAblationTab::exportsChartAndData() {
    QFETCH(QString, file);
    TrainingController controller;
    AblationTab tab(&controller);
    tab.loadResult(dir_.filePath("hand.json"));
    const QString path = dir_.filePath(file);
    if (file.endsWith(".csv") || file.endsWith(".json"))
        tab.exportData(path);
    else
        tab.exportChart(path, 1000, 600);
    QFile out(path);
    QVERIFY(out.open(QIODevice::ReadOnly));
    const QByteArray bytes = out.readAll();
    QVERIFY(bytes.size() > 100);
    if (file.endsWith(".png") || file.endsWith(".jpg")) QCOMPARE(QImage(path).size(), QSize(1000, 600));
    if (file.endsWith(".svg")) QVERIFY(bytes.contains("saved 4.00 ms"));
    if (file.endsWith(".csv")) {
        const QStringList lines = QString::fromUtf8(bytes).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 6);
        QVERIFY(lines[3].contains("not_applicable"));
    }
    if (file.endsWith(".json")) QCOMPARE(AblationResult::load(path.toStdString()).steps.size(), std::size_t{5});
}

void TestAblationTab::headlessExportOfTheWaterfall_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    const QString hand = dir_.filePath("hand.json"), out = dir_.filePath("headless.png");
    QTest::newRow("exported") << QStringList{"--ablation", hand, "--out", out, "--size", "900x500"} << 0;
    QTest::newRow("no --ablation") << QStringList{"--out", out} << 2;
    QTest::newRow("a run file is not an ablation")
        << QStringList{"--ablation", QString(WB_TEST_DATA_DIR) + "/parity/expected.json", "--out", out} << 3;
}

void TestAblationTab::headlessExportOfTheWaterfall() {
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    if (!QFileInfo::exists(WB_GUI_PATH)) QSKIP("mlp-workbench is not built");
    const QString out = dir_.filePath("headless.png");
    QFile::remove(out);
    QProcess process;
    process.start(WB_GUI_PATH, QStringList{"--export-chart", "waterfall"} << args);
    QVERIFY(process.waitForFinished(60000));
    const QByteArray errors = process.readAllStandardError();
    QVERIFY2(process.exitCode() == exitCode, errors.constData());
    // Rendering off screen paints nothing before the export's size is known (Qt warned of inactive painters).
    QVERIFY2(!errors.contains("QPainter"), errors.constData());
    if (exitCode == 0)
        QCOMPARE(QImage(out).size(), QSize(900, 500));
    else
        QVERIFY(!QFileInfo::exists(out));
}

void TestAblationTab::tinyRealAblationThroughTheWorker() {
    TrainingController controller;
    AblationTab tab(&controller);
    const auto data = std::make_shared<const Dataset>(generateSeedLike(400, 1));
    tab.setSources([] { return tinyConfig(2); }, [data] { return data; });
    AblationPlan plan;
    plan.fixes = {"data_path", "launch", "loss"};
    plan.repeats = 1;
    tab.setPlan(plan);

    QStringList events;
    connect(&controller, &TrainingController::runFinished, this, [&](int id) { events << QString("run %1").arg(id); });
    connect(&controller, &TrainingController::ablationProgress, this,
            [&](int, int run) { events << QString("ablation run %1").arg(run); });
    QSignalSpy steps(&controller, &TrainingController::ablationStepFinished);
    QSignalSpy finished(&controller, &TrainingController::ablationFinished);
    // A normal run queued first: the ablation's timed runs start only after it.
    RunRequest first;
    first.id = 1;
    first.config = tinyConfig(3);
    first.dataset = data;
    controller.enqueue(first);
    QVERIFY(tab.start());
    QVERIFY(tab.running());
    QVERIFY(!tab.start());  // one ablation at a time

    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
    QCOMPARE(events, QStringList({"run 1", "ablation run 1", "ablation run 2", "ablation run 3"}));
    QCOMPARE(steps.count(), 4);
    QVERIFY(!tab.running());
    QVERIFY(tab.result());
    const AblationResult& r = *tab.result();
    QCOMPARE(QString::fromStdString(toString(r.status)), QString("completed"));
    QCOMPARE(r.steps.size(), std::size_t{4});
    for (std::size_t i : {0u, 1u, 3u}) QCOMPARE(r.steps[i].runs.size(), std::size_t{1});
    QCOMPARE(r.steps[1].runs[0].epochs.size(), std::size_t{2});
    // The bars its steps call for: baseline, two floating bars, a flat line, and the fixed loop.
    const auto& bars = tab.chart().bars();
    QCOMPARE(bars.size(), std::size_t{5});
    QCOMPARE(bars[0].high, r.steps[0].medianEpochMs);
    QCOMPARE(bars[1].low, std::min(r.steps[0].medianEpochMs, r.steps[1].medianEpochMs));
    QCOMPARE(bars[1].high, std::max(r.steps[0].medianEpochMs, r.steps[1].medianEpochMs));
    QVERIFY(!bars[2].measured);
    QCOMPARE(bars[2].low, r.steps[1].medianEpochMs);
    QCOMPARE(bars[2].high, r.steps[1].medianEpochMs);
    QCOMPARE(bars[4].high, r.fixedLoop()->medianEpochMs);  // the closing bar: the fastest step
    QCOMPARE(tab.progressValue(), tab.progressMaximum());
    QVERIFY2(tab.statusText().contains("completed"), qPrintable(tab.statusText()));
}

void TestAblationTab::stopCancelsTheAblation() {
    TrainingController controller;
    AblationTab tab(&controller);
    const auto data = std::make_shared<const Dataset>(generateSeedLike(20000, 1));
    tab.setSources([] { return tinyConfig(100000); }, [data] { return data; });
    QSignalSpy progress(&controller, &TrainingController::ablationProgress);
    QSignalSpy finished(&controller, &TrainingController::ablationFinished);
    QVERIFY(tab.start());
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() >= 1, kRunTimeoutMs);
    tab.stop();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
    const auto result = finished.at(0).at(1).value<AblationResult>();
    QCOMPARE(QString::fromStdString(toString(result.status)), QString("cancelled"));
    QVERIFY(!tab.running());
    QVERIFY(!controller.busy());
}

void TestAblationTab::fixListReordersAndUnchecks() {
    TrainingController controller;
    AblationTab tab(&controller);
    QCOMPARE(tab.plan().fixes, defaultFixOrder());
    QCOMPARE(tab.plan().repeats, 3);
    tab.moveFix(0, 2);  // data_path after launch and loss
    QCOMPARE(tab.plan().fixes, (std::vector<std::string>{"launch", "loss", "data_path", "zero_grad", "optimizer_kernel",
                                                         "precision", "fused", "persistent"}));
    auto* list = tab.findChild<QListWidget*>();
    QVERIFY(list);
    list->item(0)->setCheckState(Qt::Unchecked);
    QCOMPARE(tab.plan().fixes.front(), std::string("loss"));
    AblationPlan p;
    p.fixes = {"loss", "zero_grad"};
    p.alone = true;
    tab.setPlan(p);
    QCOMPARE(tab.plan().fixes, p.fixes);                                // the others are listed, unchecked
    QCOMPARE(list->count(), static_cast<int>(ablationFixes().size()));  // the torch backend's knobs too
    QCOMPARE(list->item(list->count() - 1)->text().contains("torch"), true);
    QVERIFY(tab.plan().alone);
}

QTEST_MAIN(TestAblationTab)
#include "tst_ablation_tab.moc"
