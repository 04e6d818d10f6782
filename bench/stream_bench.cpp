// stream_bench: how the GUI thread fares while a run streams many short epochs (what the training
// controller's and the charts' unit tests once asserted by the clock, and now check by counts).
//
// Trains the built-in data (2,000 rows, batch 256, the cpu backend) through the real path: the
// TrainingController on its worker thread, every epoch into the RunStore, the runs table and a live
// Loss chart (offscreen, shown). A 5 ms timer on the GUI thread measures how late it comes (the
// longest stall); Stop is pressed after --seconds of training. Per repeat: epochs trained, epoch
// batches and chart replots per second, the longest and the 99th-percentile stall, and how long the
// run took to end after Stop. Prints Markdown lines for bench/RESULTS.md.
//
//   build/gui/stream_bench [--seconds 3] [--repeats 3]
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include "core/data/builtin_data.h"
#include "gui/charts/metric_chart.h"
#include "gui/runs/run_store.h"
#include "gui/runs/runs_table_model.h"
#include "gui/training/metatypes.h"
#include "gui/training/training_controller.h"

namespace {

int argValue(const QStringList& args, const QString& name, int fallback) {
    const qsizetype i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args[i + 1].toInt() : fallback;
}

struct Stream {
    std::size_t epochs = 0;
    long long batches = 0;
    int replots = 0;
    double seconds = 0;
    double maxStallMs = 0;
    double p99StallMs = 0;
    double stopToEndMs = 0;
};

Stream stream(const std::shared_ptr<const wb::Dataset>& data, int seconds) {
    using namespace wb::gui;
    TrainingController controller;
    RunStore store;
    RunsTableModel table(&store);
    MetricChart chart(&store, MetricChart::Kind::Loss);
    chart.resize(900, 500);
    chart.show();
    QObject::connect(&controller, &TrainingController::epochsFinished, &store, &RunStore::appendEpochs);
    QObject::connect(&controller, &TrainingController::runFinished, &store, &RunStore::finish);
    Stream s;
    QObject::connect(&controller, &TrainingController::epochsFinished, [&s] { ++s.batches; });

    RunRequest run;
    run.config.name = "stream";
    run.config.data.rows = data->rows;
    run.config.train.epochs = 100'000'000;  // only Stop ends it
    run.config.train.batchSize = 256;
    run.config.backend = "cpu";
    run.dataset = data;
    run.id = store.addPending(run.config);

    std::vector<double> stalls;
    QElapsedTimer tick;
    QTimer probe;
    probe.setInterval(5);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        stalls.push_back(std::max(0.0, static_cast<double>(tick.nsecsElapsed()) / 1e6 - 5.0));
        tick.start();
    });
    QElapsedTimer clock, sinceStop;
    QEventLoop loop;
    QObject::connect(&controller, &TrainingController::runFinished, &loop, &QEventLoop::quit);
    QTimer::singleShot(seconds * 1000, [&] {
        sinceStop.start();
        controller.stopCurrent();
    });
    const int replotsBefore = chart.replotCount();
    controller.enqueue(run);
    clock.start();
    tick.start();
    probe.start();
    loop.exec();
    probe.stop();
    s.stopToEndMs = static_cast<double>(sinceStop.nsecsElapsed()) / 1e6;
    s.seconds = static_cast<double>(clock.nsecsElapsed()) / 1e9;
    s.replots = chart.replotCount() - replotsBefore;
    s.epochs = store.find(run.id)->record.epochs.size();
    std::sort(stalls.begin(), stalls.end());
    if (!stalls.empty()) {
        s.maxStallMs = stalls.back();
        s.p99StallMs = stalls[stalls.size() * 99 / 100];
    }
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    wb::gui::registerMetaTypes();
    const QStringList args = QApplication::arguments();
    const int seconds = std::max(1, argValue(args, "--seconds", 3));
    const int repeats = std::max(1, argValue(args, "--repeats", 3));
    const auto data = std::make_shared<const wb::Dataset>(wb::generateSeedLike(2000, 1));

    std::printf(
        "| repeat | epochs/s | batches/s | replots/s | longest GUI stall | 99th percentile | Stop to end |\n"
        "| --- | --- | --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < repeats; ++i) {
        const Stream s = stream(data, seconds);
        std::printf("| %d | %.0f | %.1f | %.1f | %.1f ms | %.1f ms | %.1f ms |\n", i + 1,
                    static_cast<double>(s.epochs) / s.seconds, static_cast<double>(s.batches) / s.seconds,
                    s.replots / s.seconds, s.maxStallMs, s.p99StallMs, s.stopToEndMs);
    }
    return 0;
}
