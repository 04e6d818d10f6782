// Every run the user has made or opened in this session: its config, its record (growing while it
// trains), its colour, whether the charts show it, and which run is the speed baseline.
// Lives on the GUI thread; the charts and the runs table observe it through its signals.
#pragma once

#include <QColor>
#include <QList>
#include <QObject>
#include <QString>
#include <optional>
#include <vector>

#include "core/data/task.h"
#include "core/measure/speed_comparison.h"
#include "core/run/run_config.h"
#include "core/run/run_record.h"
#include "gui/runs/run_digest.h"

namespace wb::gui {

struct RunEntry {
    int id = 0;    // unique in the session, never reused
    QString name;  // editable; starts as the config's name or the file's
    // Our configuration, parsed once from record.config (runConfigOf) when the run enters the store
    // and when its training finishes; nullopt for a peer's record.
    std::optional<RunConfig> runConfig;
    RunRecord record;  // status and epochs so far (none yet while epochsOnDisk)
    RunDigest digest;  // of record's epochs, or of those still in the file; the runs table shows it
    // Restored hidden: the epochs are still in `path` only, read when the run is shown in the charts
    // (RunStore::ensureEpochs). A visible run always has its epochs in memory.
    bool epochsOnDisk = false;
    QColor color;         // one distinct colour per run, in every chart
    bool visible = true;  // shown in the charts
    QString path;         // the RunRecord file on disk, empty when not saved
    bool queued = false;  // waiting in the training queue (the record says "running" already)
    // Opened from a file that still says "running" with nothing in this session training it: the
    // session that trained it ended (was killed) before the run did. Shown as "interrupted".
    bool interrupted = false;
    // The confusion matrix of a classification run that completed in this session: (K, K) counts, true
    // class rows, predicted class columns, over the validation rows. Kept in memory only (the final
    // parameters it comes from are not in the RunRecord); empty otherwise.
    std::vector<std::size_t> confusion;
    // Its switches are the founding PyTorch loop's (the "Seed PyTorch loop" preset): a Compare's
    // baseline. Set once, when it is added (its configuration does not change after).
    bool seedLoop = false;
    QString preset() const;     // the preset the execution settings match, or "custom" / "peer"
    QString backend() const;    // backendOf(record): "cpu", "cuda", "pytorch", ..., "unknown"
    int plannedEpochs() const;  // the configuration's epochs, else the epochs its record holds
    // The data set it trained on: the file name of a CSV/.npy source, "built-in" for the generator,
    // what a peer's record names, or "—" when nothing says.
    QString dataset() const;
    // What it learned: a regression once an epoch has a regression's metrics (a run still training has
    // no data description yet), else what its record says (records from before tasks: binary).
    Task task() const;
};

// The RunRecords in a file: one RunRecord JSON (its epoch journal merged when it still says
// "running"), or a JSON array of them (what Export data → JSON writes). Throws wb::DataError.
std::vector<RunRecord> readRunFile(const QString& path);

class RunStore : public QObject {
    Q_OBJECT

public:
    explicit RunStore(QObject* parent = nullptr);

    // A new run waiting to train; returns its id. Queued until markStarted(), its record's status
    // is "running" until finish().
    int addPending(const RunConfig& config);
    void markStarted(int id);  // the worker has begun it: no longer queued
    // A finished run from a RunRecord file (ours or a peer's). Throws wb::DataError for a bad file.
    int addFromFile(const QString& path);
    // Every run in a file readRunFile reads (one record or an array); all or none. Throws wb::DataError.
    std::vector<int> addAllFromFile(const QString& path);
    // A run read already (from `path`, empty when the file holds several runs), shown in the charts
    // or not. A record that says "running" is marked interrupted: nothing in this session trains it.
    int addRecord(RunRecord record, const QString& path, bool visible = true);
    // A run read by skimRunRecord from `path`: listed (hidden) with the digest of the epochs that stay in
    // the file until ensureEpochs reads them.
    int addSkimmed(SkimmedRun run, const QString& path);
    // Reads the epochs of a run restored without them (nothing to do for any other run); true when the
    // run has its epochs in memory now. A file gone or damaged since: the run keeps its digest, is
    // marked as read, and epochsUnreadable says why.
    bool ensureEpochs(int id);
    void appendEpoch(int id, const EpochMetrics& metrics);
    void appendEpochs(int id, const QList<EpochMetrics>& metrics);  // one epochAppended for the lot
    // The final record of a run that ended (completed, cancelled, diverged, failed).
    void finish(int id, const RunRecord& record);
    void remove(int id);
    void rename(int id, const QString& name);
    void setVisible(int id, bool visible);  // shown: its epochs read first (ensureEpochs)
    void setBaseline(int id);
    void clearBaseline();
    void setPath(int id, const QString& path);
    void setConfusion(int id, const std::vector<std::size_t>& counts);  // see RunEntry::confusion

    const RunEntry* find(int id) const;  // nullptr when unknown; by binary search (ids only grow)
    const std::vector<RunEntry>& runs() const { return runs_; }
    std::optional<int> baseline() const { return baseline_; }  // the run the user picked
    // What speedups are relative to, for the runs table and the charts alike: the picked run, or
    // until then (or while it has no median yet) the first seed loop with a median epoch time (a
    // Compare asks how much faster the fixes are than the seed loop, whichever finished first), else
    // the first run with one, so a Compare shows its answer at once.
    std::optional<int> effectiveBaseline() const;
    // Median epoch ms of the effective baseline divided by that of `id`; nullopt when either is unknown.
    std::optional<double> speedup(int id) const;
    // The Speedup chart's rule for one run against the effective baseline (for the runs table):
    // nullopt when either has no timed epoch; else either the first workload difference (not
    // comparable) or the comparison with its range (one run: over its epochs).
    struct SpeedVerdict {
        std::optional<std::string> notComparable;
        SpeedComparison comparison;
    };
    std::optional<SpeedVerdict> speedVerdict(int id) const;

signals:
    void runAdded(int id);
    void runChanged(int id);     // name, visibility, status or summary changed
    void epochAppended(int id);  // one more point for the charts (progress and summary changed too)
    void runRemoved(int id);
    void baselineChanged();
    void epochsUnreadable(int id, const QString& reason);  // ensureEpochs found the file gone or damaged

private:
    RunEntry* findMutable(int id);
    QColor nextColor();
    int add(RunEntry entry);            // gives it an id and a colour; emits runAdded
    void epochsChanged(RunEntry& run);  // the digest follows, and with it maybe the baseline

    std::vector<RunEntry> runs_;
    std::optional<int> baseline_;
    // effectiveBaseline(), asked for by every cell of two columns: recomputed after a change only.
    mutable std::optional<std::optional<int>> effectiveBaseline_;
    int nextId_ = 1;
    int colorIndex_ = 0;
};

}  // namespace wb::gui
