// Follows a sweep folder while its trials run, wherever they run (this machine's pool, a SLURM
// cluster writing to a shared filesystem): re-reads the trial states every second and a trial's
// RunRecord only when the file changed, and says when anything did.
#pragma once

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QTimer>
#include <memory>
#include <vector>

#include "sweep/sweep_folder.h"

namespace wb::gui {

class SweepWatcher : public QObject {
    Q_OBJECT

public:
    explicit SweepWatcher(QObject* parent = nullptr);
    ~SweepWatcher() override;

    // Opens `dir` and reads it. Throws wb::DataError when it holds no sweep (nothing changes then).
    void open(const QString& dir);
    void close();
    bool isOpen() const { return folder_ != nullptr; }
    QString dir() const;
    const sweep::SweepPlan& plan() const;  // only while open
    const std::vector<sweep::TrialRow>& views() const { return views_; }
    std::optional<std::size_t> best() const;  // index into views()
    QString recordPath(int id) const;         // the trial's run.json
    void setInterval(int ms) { timer_.setInterval(ms); }

public slots:
    void refresh();  // reads the folder now; emits changed() when something differs

signals:
    void changed();
    void opened();  // a new folder: its trial list and parameters may differ from the last

private:
    nlohmann::json figuresOf(int id);
    void reloadGrownPlan();

    struct CachedRecord {
        QDateTime modified;
        qint64 size = -1;
        nlohmann::json figures;
    };
    std::unique_ptr<sweep::SweepFolder> folder_;
    std::vector<sweep::TrialRow> views_;
    QHash<int, CachedRecord> records_;
    QString lastDigest_;
    QDateTime planModified_;  // sweep.json as last read: a bayes sweep's plan grows batch by batch
    qint64 planSize_ = -1;
    QTimer timer_;
    qint64 lastSettleMs_ = 0;  // squeue is asked at most every 10 s
};

}  // namespace wb::gui
