// runs_scale_bench: the workbench with 10,000 runs in its run folder (issue 39, item 5).
//
// Writes N RunRecords of the founding model (61 -> 20 -> 10 -> 1 tanh, Adam, 200 epochs, the cpu
// backend) as `mlpwb train --out` writes them, through RunRecord::save (no training; every 100th
// left "running" with its epoch journal, as a killed session leaves it), into --folder (kept, and
// reused when it already holds N records) or a temporary folder. Then, per repeat, it opens the real
// MainWindow on them (offscreen, 1,400 x 900, the Loss tab shown) and measures on the GUI thread:
//   restore   until every run is in the runs table, and the longest stall of the event loop meanwhile
//             (a 10 ms timer: how late it comes is how long the thread was busy elsewhere);
//   filter    typing a filter into the runs table and clearing it again (each: the rows re-filtered);
//   sort      sorting the table by median epoch time, then back to the order the runs were made;
//   epoch     one new epoch of a run training while the N runs are listed: appended to the store,
//             the events it causes processed, the charts refreshed and the table and the chart drawn
//             (the median and the longest of --epochs-live of them);
//   stall     the longest event-loop stall over the whole repeat (restore, filter, sort, epochs).
// Prints Markdown lines for bench/RESULTS.md and the median of each over the repeats.
//
//   build/gui/runs_scale_bench [--runs 10000] [--epochs 200] [--repeats 3] [--epochs-live 30] [--folder DIR]
//
// Diagnostics: WB_BENCH_STALLS=1 names every event that held the GUI thread over 50 ms and every
// stall over 60 ms; WB_BENCH_CHARTS=1 prints each chart's refresh during the live epochs.
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/run/epoch_journal.h"
#include "core/run/run_config.h"
#include "core/run/run_record.h"
#include "gui/charts/throttled_chart.h"
#include "gui/runs/run_folder.h"
#include "gui/runs/run_store.h"
#include "gui/runs/runs_table_model.h"
#include "gui/runs/runs_table_view.h"
#include "gui/training/metatypes.h"
#include "gui/window/main_window.h"

namespace {

int argValue(const QStringList& args, const QString& name, int fallback) {
    const qsizetype i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args[i + 1].toInt() : fallback;
}

QString argText(const QStringList& args, const QString& name) {
    const qsizetype i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args[i + 1] : QString();
}

double msSince(const QElapsedTimer& clock) {
    return static_cast<double>(clock.nsecsElapsed()) / 1e6;
}

double medianOf(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0 : values[values.size() / 2];
}

// What the founding model's CPU run writes per epoch (validation split, phases measured).
wb::EpochMetrics epoch(int n, int run) {
    wb::EpochMetrics m;
    m.epoch = n;
    m.warmup = n == 1;
    m.trainLoss = 0.7 / n + run * 1e-6;
    m.trainAccuracy = 0.9 - 0.1 / n;
    m.valLoss = 0.72 / n;
    m.valAccuracy = 0.88 - 0.1 / n;
    m.wallMs = 18.0 + (n % 7) * 0.1 + (run % 13) * 0.05;
    m.samplesPerSecond = 4.5e6;
    m.phases = wb::PhaseTimes{0.4, 6.1, 9.8, 0.3, 1.4};
    m.elapsedMs = 18.3 * n;
    return m;
}

wb::RunRecord foundingRecord(int i, int epochs) {
    wb::RunConfig config;  // the defaults: the founding model, Adam, the built-in data
    config.train.epochs = epochs;
    config.backend = "cpu";
    config.name = "Run " + std::to_string(i + 1);
    wb::RunRecord r;
    r.name = config.name;
    r.config = config;
    r.environment = {{"backend", "cpu"}, {"device", "bench CPU"}, {"threads", "2"}, {"mlpwb_version", "bench"}};
    r.dataset.source = "builtin";
    r.dataset.rows = 100000;
    r.dataset.features = 61;
    r.dataset.label = "y";
    r.dataset.trainRows = 80000;
    r.dataset.valRows = 20000;
    r.dataset.hash = "bench";
    return r;
}

QString recordPath(const QString& dir, int i) {
    return QString("%1/20260101-%2-run%3.json").arg(dir).arg(100000 + i).arg(i + 1);
}

void writeFolder(const QString& dir, int runs, int epochs) {
    for (int i = 0; i < runs; ++i) {
        wb::RunRecord r = foundingRecord(i, epochs);
        const QString path = recordPath(dir, i);
        const bool killed = i % 100 == 99;
        r.status = killed ? wb::RunStatus::Running : wb::RunStatus::Completed;
        if (!killed)
            for (int n = 1; n <= epochs; ++n) r.epochs.push_back(epoch(n, i));
        r.save(path.toStdString());
        if (!killed) continue;
        wb::EpochJournal journal(path.toStdString());
        for (int n = 1; n <= epochs / 2; ++n) journal.append(epoch(n, i));
    }
}

// How late a 10 ms timer comes: the longest time the GUI thread was busy with something else.
class StallProbe {
public:
    StallProbe() {
        timer_.setInterval(kIntervalMs);
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            longest_ = std::max(longest_, msSince(tick_) - kIntervalMs);
            if (qEnvironmentVariableIsSet("WB_BENCH_STALLS") && msSince(tick_) > 60)
                std::fprintf(stderr, "DBG stall %.0f ms\n", msSince(tick_));
            tick_.start();
        });
    }
    void start() {
        longest_ = 0;
        tick_.start();
        timer_.start();
    }
    double longest() const { return longest_; }

private:
    static constexpr int kIntervalMs = 10;
    QTimer timer_;
    QElapsedTimer tick_;
    double longest_ = 0;
};

// Runs `action`, then lets the event loop handle what it posted; the milliseconds it all took.
double timed(const std::function<void()>& action) {
    QElapsedTimer clock;
    clock.start();
    action();
    QCoreApplication::processEvents();
    return msSince(clock);
}

struct Repeat {
    double restoreMs = 0, restoreStallMs = 0;
    double filterMs = 0, unfilterMs = 0;
    double sortMs = 0, unsortMs = 0;
    double epochMedianMs = 0, epochMaxMs = 0;
    double stallMs = 0;
    double showAllMs = 0, showAllStallMs = 0;
    int shownAfterFilter = 0, shownByShowAll = 0;
};

void restore(wb::gui::MainWindow& window, int runs, Repeat& r, StallProbe& probe) {
    QElapsedTimer clock;
    clock.start();
    probe.start();
    while (window.restoringRuns() || static_cast<int>(window.store().runs().size()) < runs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        if (clock.elapsed() > 600000) break;  // something is wrong: report what there is
    }
    r.restoreMs = msSince(clock);
    QCoreApplication::processEvents();
    r.restoreStallMs = probe.longest();
    if (static_cast<int>(window.store().runs().size()) != runs)
        std::printf("WARNING: %zu of %d runs restored\n", window.store().runs().size(), runs);
}

void filterAndSort(wb::gui::MainWindow& window, Repeat& r) {
    wb::gui::RunsTableView& view = window.runsView();
    r.filterMs = timed([&] { view.setFilterText("Run 77"); });  // Run 77, Run 770..779, Run 7700..7799
    r.shownAfterFilter = view.shownRowCount();
    r.unfilterMs = timed([&] { view.setFilterText(QString()); });
    r.sortMs = timed([&] { view.table()->sortByColumn(wb::gui::RunsTableModel::MedianEpochMs, Qt::DescendingOrder); });
    r.unsortMs = timed([&] { view.table()->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder); });
}

// A run training while the others are listed: each epoch through the store (as the controller's
// epochsFinished does), then the charts' refresh (as their 33 ms timer does: the hidden ones only
// note it) and the drawing.
void liveEpochs(wb::gui::MainWindow& window, int epochs, int count, Repeat& r) {
    wb::RunConfig config;
    config.name = "live";
    config.train.epochs = epochs;
    wb::gui::RunStore& store = window.store();
    const int id = store.addPending(config);
    store.markStarted(id);
    QCoreApplication::processEvents();
    const auto charts = window.findChildren<wb::gui::ThrottledChart*>();
    auto* tabs = window.findChild<QTabWidget*>();
    QWidget* shown = tabs ? tabs->currentWidget() : nullptr;
    std::vector<double> times, stores, refreshes, paints;
    for (int n = 1; n <= count; ++n) {
        QElapsedTimer step;
        times.push_back(timed([&] {
            step.start();
            store.appendEpochs(id, {epoch(n, 0)});
            QCoreApplication::processEvents();
            stores.push_back(msSince(step));
            step.start();
            for (wb::gui::ThrottledChart* chart : charts) {
                QElapsedTimer one;
                one.start();
                chart->refreshWhenShown();  // what each chart's 33 ms timer does
                if (qEnvironmentVariableIsSet("WB_BENCH_CHARTS"))
                    std::printf("    %s %s: %.2f ms\n", chart->metaObject()->className(),
                                chart->isVisible() ? "shown" : "hidden", msSince(one));
            }
            refreshes.push_back(msSince(step));
            step.start();
            window.runsView().table()->viewport()->repaint();
            if (shown) shown->repaint();
            paints.push_back(msSince(step));
        }));
    }
    r.epochMedianMs = medianOf(times);
    r.epochMaxMs = *std::max_element(times.begin(), times.end());
    std::printf("  epoch update, medians: store and table %.2f ms, charts' refresh %.2f ms, painting %.2f ms\n",
                medianOf(stores), medianOf(refreshes), medianOf(paints));
}

// Show all with every run listed: until the runs it shows are in the charts and drawn, and the
// longest the window waited meanwhile.
void showAll(wb::gui::MainWindow& window, Repeat& r) {
    wb::gui::RunsTableView& view = window.runsView();
    const QAbstractItemModel* listed = view.table()->model();
    const auto visible = [&window] {
        int n = 0;
        for (const wb::gui::RunEntry& run : window.store().runs()) n += run.visible ? 1 : 0;
        return n;
    };
    int expected = visible();
    for (int row = 0; row < std::min(listed->rowCount(), wb::gui::RunsTableView::kMaxShownAtOnce); ++row)
        if (const auto* run =
                window.store().find(listed->index(row, 0).data(wb::gui::RunsTableModel::RunIdRole).toInt()))
            expected += run->visible ? 0 : 1;
    StallProbe probe;
    probe.start();
    QElapsedTimer clock;
    clock.start();
    view.showAllAction()->trigger();
    while (visible() < expected && clock.elapsed() < 600000) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    for (wb::gui::ThrottledChart* chart : window.findChildren<wb::gui::ThrottledChart*>()) chart->refreshNow();
    if (auto* tabs = window.findChild<QTabWidget*>(); tabs && tabs->currentWidget()) tabs->currentWidget()->repaint();
    r.showAllMs = msSince(clock);
    QCoreApplication::processEvents();
    r.showAllStallMs = probe.longest();
    r.shownByShowAll = visible();
}

Repeat openWindow(int runs, int epochs, int liveCount) {
    Repeat r;
    StallProbe probe;
    wb::gui::MainWindow window;
    window.resize(1400, 900);
    window.show();
    if (auto* tabs = window.findChild<QTabWidget*>())  // the Loss chart, as while watching a run train
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->tabText(i) == "Loss") tabs->setCurrentIndex(i);
    restore(window, runs, r, probe);
    filterAndSort(window, r);
    liveEpochs(window, epochs, liveCount, r);
    r.stallMs = probe.longest();
    showAll(window, r);
    return r;
}

// With WB_BENCH_STALLS set: names every event that kept the GUI thread longer than 50 ms.
class TimingApplication : public QApplication {
public:
    using QApplication::QApplication;
    bool notify(QObject* receiver, QEvent* event) override {
        if (!qEnvironmentVariableIsSet("WB_BENCH_STALLS")) return QApplication::notify(receiver, event);
        QElapsedTimer clock;
        clock.start();
        const int type = event->type();
        const bool handled = QApplication::notify(receiver, event);
        if (clock.elapsed() > 50)
            std::fprintf(stderr, "DBG event %d to %s (%s): %lld ms\n", type, receiver->metaObject()->className(),
                         qPrintable(receiver->objectName()), static_cast<long long>(clock.elapsed()));
        return handled;
    }
};

// The run folder: --folder, or `temporary`; filled with `runs` records unless it holds that many.
QString prepareFolder(const QStringList& args, const QString& temporary, int runs, int epochs) {
    QString dir = argText(args, "--folder");
    if (dir.isEmpty()) dir = temporary;
    QDir().mkpath(dir);
    QElapsedTimer clock;
    clock.start();
    if (wb::gui::runFilesIn(dir).size() != runs) {
        writeFolder(dir, runs, epochs);
        std::printf("wrote %d runs of %d epochs in %.1f s (%s)\n", runs, epochs, msSince(clock) / 1000,
                    qPrintable(dir));
    }
    return dir;
}

// What the loader's thread does, alone on this one: every file skimmed (as for the table), and
// the first thousand read whole (as before the skim).
void timeLoading(const QString& dir) {
    const QStringList files = wb::gui::runFilesIn(dir);
    QElapsedTimer clock;
    clock.start();
    std::size_t skimmed = 0;
    for (const QString& path : files) skimmed += wb::gui::readRunsIn(path, false).size();
    const double skimMs = msSince(clock);
    clock.restart();
    const qsizetype sample = std::min<qsizetype>(files.size(), 1000);
    for (qsizetype i = 0; i < sample; ++i) wb::gui::readRunsIn(files[i], true);
    std::printf("one thread: %zu files skimmed in %.0f ms; %lld read whole in %.0f ms\n", skimmed, skimMs,
                static_cast<long long>(sample), msSince(clock));
}

void printTableHead() {
    std::printf(
        "| repeat | restore | stall while restoring | filter / clear | sort / unsort | epoch update "
        "(median, longest) | longest stall | Show all (its longest stall) |\n| --- | --- | --- | --- | --- | --- | --- "
        "| --- "
        "|\n");
}

void printRepeat(int i, const Repeat& r) {
    std::printf(
        "| %d | %.0f ms | %.0f ms | %.1f / %.1f ms (%d rows) | %.1f / %.1f ms | %.2f, %.2f ms | %.0f ms | %.0f ms "
        "(%.0f ms), %d runs shown |\n",
        i + 1, r.restoreMs, r.restoreStallMs, r.filterMs, r.unfilterMs, r.shownAfterFilter, r.sortMs, r.unsortMs,
        r.epochMedianMs, r.epochMaxMs, r.stallMs, r.showAllMs, r.showAllStallMs, r.shownByShowAll);
    std::fflush(stdout);
}

void printMedians(const std::vector<Repeat>& all) {
    auto median = [&all](double Repeat::*field) {
        std::vector<double> values;
        for (const Repeat& r : all) values.push_back(r.*field);
        return medianOf(values);
    };
    std::printf(
        "| median | %.0f ms | %.0f ms | %.1f / %.1f ms | %.1f / %.1f ms | %.2f, %.2f ms | %.0f ms | %.0f ms (%.0f ms) "
        "|\n",
        median(&Repeat::restoreMs), median(&Repeat::restoreStallMs), median(&Repeat::filterMs),
        median(&Repeat::unfilterMs), median(&Repeat::sortMs), median(&Repeat::unsortMs), median(&Repeat::epochMedianMs),
        median(&Repeat::epochMaxMs), median(&Repeat::stallMs), median(&Repeat::showAllMs),
        median(&Repeat::showAllStallMs));
}

}  // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    TimingApplication app(argc, argv);
    Q_INIT_RESOURCE(resources);
    QApplication::setOrganizationName("MLP Workbench bench");
    QApplication::setApplicationName("runs_scale_bench");
    wb::gui::registerMetaTypes();
    const QStringList args = QApplication::arguments();
    const int runs = argValue(args, "--runs", 10000);
    const int epochs = argValue(args, "--epochs", 200);
    const int repeats = argValue(args, "--repeats", 3);
    const int liveCount = argValue(args, "--epochs-live", 30);

    QTemporaryDir temporary;
    const QString dir = prepareFolder(args, temporary.path(), runs, epochs);
    wb::gui::setRunFolder(dir);
    timeLoading(dir);

    std::vector<Repeat> all;
    printTableHead();
    for (int i = 0; i < repeats; ++i) {
        all.push_back(openWindow(runs, epochs, liveCount));
        printRepeat(i, all.back());
    }
    printMedians(all);
    return 0;
}
