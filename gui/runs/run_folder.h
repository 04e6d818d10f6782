// The folder where the workbench keeps the RunRecord of every run it trains, and the loader that
// brings those runs back when the window opens again.
//
// Restoring must not hold the window up: the files are read and parsed on a background thread and
// handed to the GUI thread in batches (each batch a short slice of its event loop), so a folder of a
// thousand runs fills the runs table while the window already responds. bench/restore_bench.cpp
// measures it.
#pragma once

#include <QFuture>
#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <memory>
#include <vector>

#include "run_record.h"

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
    QString path;  // empty when the file held several runs
    RunRecord record;
};

class RunFolderLoader : public QObject {
    Q_OBJECT

public:
    explicit RunFolderLoader(QObject* parent = nullptr);
    ~RunFolderLoader() override;  // stops reading and waits for the thread

    // Reads `paths` on a background thread; runsLoaded brings them in batches, in order, then finished.
    void start(const QStringList& paths);
    bool running() const { return running_; }
    static constexpr int kBatchSize = 64;

signals:
    void runsLoaded(const std::vector<wb::gui::LoadedRun>& runs);
    // All read (or stopped); `failures` lists "file: reason" for the files that could not be read.
    void finished(int loaded, const QStringList& failures);

private:
    void deliver(std::vector<LoadedRun> batch);
    void finish(QStringList failures);

    QFuture<void> future_;
    std::shared_ptr<std::atomic<bool>> stop_ = std::make_shared<std::atomic<bool>>(false);
    bool running_ = false;
    int loaded_ = 0;
};

}  // namespace wb::gui
