// The folder where the workbench keeps the RunRecord of every run it trains, and the loader that
// brings those runs back when the window opens again.
//
// Restoring must not hold the window up: the files are read on a background thread and handed to
// the GUI thread in batches (each batch a short slice of its event loop), so a folder of ten
// thousand runs fills the runs table while the window already responds. Only the runs the charts
// show at once are parsed whole; the others are skimmed (skimRunRecord: the record without its
// epochs, and their digest for the table), their epochs read when a chart shows them.
// bench/runs_scale_bench.cpp measures it.
#pragma once

#include <QFuture>
#include <QObject>
#include <QSemaphore>
#include <QString>
#include <QStringList>
#include <QThreadPool>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "core/run/run_record.h"
#include "gui/runs/run_digest.h"

namespace wb::gui {

// AppDataLocation + "/runs", or the folder setRunFolder chose (tests, the benchmark).
QString runFolder();
void setRunFolder(const QString& folder);  // empty: back to the default
// The RunRecord files in `folder` (*.json; a journal *.epochs.jsonl is read with its record), oldest
// first: the file names begin with their time stamp.
QStringList runFilesIn(const QString& folder);
// Deletes a RunRecord file and the epoch journal beside it (whichever exist); false when one stays.
bool removeRunFiles(const QString& recordPath);

struct LoadedRun {
    QString path;                     // empty when the file held several runs
    RunRecord record;                 // without its epochs when skimmed
    std::optional<RunDigest> digest;  // skimmed: the digest of the epochs left in the file
};

// One file's runs: skimmed unless `whole` (or it is not a single finished record of ours: read
// whole then, a run still "running" with its journal). Throws wb::DataError as readRunFile does.
std::vector<LoadedRun> readRunsIn(const QString& path, bool whole);

class RunFolderLoader : public QObject {
    Q_OBJECT

public:
    explicit RunFolderLoader(QObject* parent = nullptr);
    ~RunFolderLoader() override;  // stops reading and waits for the thread

    // Reads `paths` on a background thread; runsLoaded brings them in batches, in order, then finished.
    // Those also in `whole` are parsed whole (the runs shown at once), the others skimmed.
    void start(const QStringList& paths, const QStringList& whole = {});
    bool running() const { return running_; }
    static constexpr int kBatchSize = 64;

signals:
    void runsLoaded(const std::vector<wb::gui::LoadedRun>& runs);
    // All read (or stopped); `failures` lists "file: reason" for the files that could not be read.
    void finished(int loaded, const QStringList& failures);

private:
    void deliver(std::vector<LoadedRun> batch);
    void finish(QStringList failures);

    // Its own thread, not the global pool's: Qt's painting converts large images on the global pool
    // and waits for it, and a reader holding a pool thread for the whole restore stalled the first
    // paint by a fifth of a second.
    QThreadPool pool_;
    QFuture<void> future_;
    std::shared_ptr<std::atomic<bool>> stop_ = std::make_shared<std::atomic<bool>>(false);
    // Batches read but not yet added: the reader waits while kBatchesAhead are, so the GUI thread gets
    // one batch per turn of its event loop (timers and painting between), not a queue of them at once.
    std::shared_ptr<QSemaphore> room_;
    static constexpr int kBatchesAhead = 2;
    bool running_ = false;
    int loaded_ = 0;
};

}  // namespace wb::gui
