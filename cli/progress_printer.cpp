#include "cli/progress_printer.h"

#include <cmath>
#include <cstdio>
#include <string>

#include <unistd.h>

namespace wb::cli {

namespace {
constexpr int kBarWidth = 28;

std::string formatDuration(double ms) {
    const long s = std::lround(ms / 1000.0);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
    return buf;
}
// After the training loss: the task's quality measure, on the training rows and on the validation
// split when there is one ("acc 0.9120 val_loss 0.301 val_acc 0.9050", or r2 and mae for a regression).
void printQuality(std::FILE* out, const EpochMetrics& m) {
    if (m.trainRegression) {
        std::fprintf(out, " r2 %.4f mae %.6g", m.trainRegression->r2, m.trainRegression->mae);
        if (m.valLoss && m.valRegression)
            std::fprintf(out, " val_loss %.6f val_r2 %.4f val_mae %.6g", *m.valLoss, m.valRegression->r2,
                         m.valRegression->mae);
        return;
    }
    std::fprintf(out, " acc %.4f", m.trainAccuracy);
    if (m.valLoss) std::fprintf(out, " val_loss %.6f val_acc %.4f", *m.valLoss, m.valAccuracy.value_or(0.0));
}
}  // namespace

ProgressPrinter::ProgressPrinter(std::FILE* out, int totalEpochs, bool quiet)
    : out_(out), total_(totalEpochs), quiet_(quiet), terminal_(isatty(fileno(out)) != 0) {}

void ProgressPrinter::epoch(const EpochMetrics& m) {
    if (quiet_) return;
    const double meanMs = m.elapsedMs / m.epoch;
    const double etaMs = meanMs * (total_ - m.epoch);
    if (!terminal_) {
        std::fprintf(out_, "epoch %d/%d loss %.6f", m.epoch, total_, m.trainLoss);
        printQuality(out_, m);
        std::fprintf(out_, " %.2f ms%s\n", m.wallMs, m.warmup ? " (warm-up)" : "");
        std::fflush(out_);  // a pipe is fully buffered: let readers (tee, the GUI, tests) see each epoch now
        return;
    }
    // Redraw at most ~10 times a second: a fast run must not spend its time in the terminal.
    if (m.epoch != total_ && barOpen_ && m.elapsedMs - lastDrawMs_ < 100.0) return;
    lastDrawMs_ = m.elapsedMs;
    const int filled = total_ > 0 ? kBarWidth * m.epoch / total_ : kBarWidth;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(kBarWidth, '.');
    std::fprintf(out_, "\r[%s] %d/%d loss %.4f %s %.3f %.2f ms/epoch ETA %s ", bar.c_str(), m.epoch, total_,
                 m.trainLoss, m.trainRegression ? "r2" : "acc",
                 m.trainRegression ? m.trainRegression->r2 : m.trainAccuracy, m.wallMs, formatDuration(etaMs).c_str());
    std::fflush(out_);
    barOpen_ = true;
}

void ProgressPrinter::finish(const RunRecord& record) {
    if (barOpen_) std::fputc('\n', out_);
    const RunSummary s = record.summary();
    std::fprintf(out_, "%s: %s", record.name.c_str(), toString(record.status).c_str());
    if (!record.message.empty()) std::fprintf(out_, " (%s)", record.message.c_str());
    std::fprintf(out_, ", %zu epochs in %.1f ms", record.epochs.size(), s.totalMs);
    if (s.medianEpochMs) std::fprintf(out_, ", median %.3f ms/epoch", *s.medianEpochMs);
    if (s.final) {
        std::fprintf(out_, ", final loss %.6f", s.final->trainLoss);
        printQuality(out_, *s.final);
    }
    std::fputc('\n', out_);
    std::fflush(out_);
}

}  // namespace wb::cli
