// restore_bench: how long the workbench takes to bring back a run folder of N runs at start-up.
//
// Writes N RunRecords of E epochs each (every 100th left "running" with its epoch journal, as a
// killed session leaves it) into a temporary folder, then opens the real MainWindow on it (offscreen)
// `repeats` times and reports, per start: the window's constructor, the time until every run is in
// the runs table, and the longest stall of the GUI thread's event loop meanwhile (a 5 ms timer that
// arrives late by that much). Prints Markdown lines for bench/RESULTS.md.
//
//   build/gui/restore_bench [--runs 1000] [--epochs 200] [--repeats 3]
#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/run/epoch_journal.h"
#include "core/run/run_config.h"
#include "core/run/run_record.h"
#include "gui/runs/run_folder.h"
#include "gui/runs/run_store.h"
#include "gui/training/metatypes.h"
#include "gui/window/main_window.h"

namespace {

int argValue(const QStringList& args, const QString& name, int fallback) {
    const qsizetype i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args[i + 1].toInt() : fallback;
}

wb::EpochMetrics epoch(int n) {
    wb::EpochMetrics m;
    m.epoch = n;
    m.warmup = n == 1;
    m.trainLoss = 0.7 / n;
    m.trainAccuracy = 0.9;
    m.valLoss = 0.72 / n;
    m.valAccuracy = 0.88;
    m.wallMs = 18.0 + (n % 7) * 0.1;
    m.samplesPerSecond = 4.5e6;
    m.phases = wb::PhaseTimes{0.4, 6.1, 9.8, 0.3, 1.4};
    m.elapsedMs = 18.3 * n;
    return m;
}

void writeFolder(const QString& dir, int runs, int epochs) {
    wb::RunConfig config;
    config.train.epochs = epochs;
    config.backend = "cpu";
    for (int i = 0; i < runs; ++i) {
        config.name = "Run " + std::to_string(i + 1);
        wb::RunRecord r;
        r.name = config.name;
        r.config = config;
        r.environment = {{"backend", "cpu"}, {"device", "bench CPU"}};
        r.dataset.source = "builtin";
        const QString path = QString("%1/20260101-%2-run%3.json").arg(dir).arg(100000 + i).arg(i + 1);
        const bool killed = i % 100 == 99;
        r.status = killed ? wb::RunStatus::Running : wb::RunStatus::Completed;
        if (!killed)
            for (int n = 1; n <= epochs; ++n) r.epochs.push_back(epoch(n));
        r.save(path.toStdString());
        if (!killed) continue;
        wb::EpochJournal journal(path.toStdString());
        for (int n = 1; n <= epochs / 2; ++n) journal.append(epoch(n));
    }
}

struct Start {
    double constructMs = 0;
    double allRunsMs = 0;
    double maxStallMs = 0;
};

Start openWindow(int runs) {
    Start s;
    QElapsedTimer clock;
    clock.start();
    wb::gui::MainWindow window;
    s.constructMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    window.resize(1400, 900);
    window.show();
    // A timer every 5 ms: how late it comes is how long the GUI thread was busy elsewhere.
    QElapsedTimer tick;
    tick.start();
    QTimer probe;
    probe.setInterval(5);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        s.maxStallMs = std::max(s.maxStallMs, static_cast<double>(tick.nsecsElapsed()) / 1e6 - 5.0);
        tick.start();
    });
    probe.start();
    while (window.restoringRuns() || static_cast<int>(window.store().runs().size()) < runs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        if (clock.elapsed() > 120000) break;  // something is wrong: report what there is
    }
    s.allRunsMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    if (static_cast<int>(window.store().runs().size()) != runs)
        std::printf("WARNING: %zu of %d runs restored\n", window.store().runs().size(), runs);
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    Q_INIT_RESOURCE(resources);
    QApplication::setOrganizationName("MLP Workbench bench");
    QApplication::setApplicationName("restore_bench");
    wb::gui::registerMetaTypes();
    const QStringList args = QApplication::arguments();
    const int runs = argValue(args, "--runs", 1000);
    const int epochs = argValue(args, "--epochs", 200);
    const int repeats = argValue(args, "--repeats", 3);

    QTemporaryDir dir;
    QElapsedTimer clock;
    clock.start();
    writeFolder(dir.path(), runs, epochs);
    std::printf("wrote %d runs of %d epochs in %.1f s (%s)\n", runs, epochs,
                static_cast<double>(clock.elapsed()) / 1000.0, qPrintable(dir.path()));
    wb::gui::setRunFolder(dir.path());
    // The reading alone, on this thread: what the loader's background thread does.
    clock.restart();
    std::size_t read = 0;
    for (const QString& path : wb::gui::runFilesIn(dir.path())) read += wb::gui::readRunFile(path).size();
    std::printf("reading and parsing the %zu records on one thread: %lld ms\n", read, clock.elapsed());

    std::vector<double> all;
    std::printf("| start | constructor | all %d runs in the table | longest GUI stall |\n| --- | --- | --- | --- |\n",
                runs);
    for (int i = 0; i < repeats; ++i) {
        const Start s = openWindow(runs);
        all.push_back(s.allRunsMs);
        std::printf("| %d | %.0f ms | %.0f ms | %.0f ms |\n", i + 1, s.constructMs, s.allRunsMs, s.maxStallMs);
        std::fflush(stdout);
    }
    std::sort(all.begin(), all.end());
    std::printf("median: %.0f ms for %d runs of %d epochs\n", all[all.size() / 2], runs, epochs);
    return 0;
}
