#include "gui/sweeps/sweep_watcher.h"

#include <QDateTime>
#include <QFileInfo>

#include "core/platform/errors.h"
#include "core/run/run_record.h"
#include "sweep/slurm_engine.h"
#include "sweep/sweep_metric.h"

namespace wb::gui {

SweepWatcher::SweepWatcher(QObject* parent) : QObject(parent) {
    timer_.setInterval(1000);
    connect(&timer_, &QTimer::timeout, this, &SweepWatcher::refresh);
}

SweepWatcher::~SweepWatcher() = default;

void SweepWatcher::open(const QString& dir) {
    auto folder = std::make_unique<sweep::SweepFolder>(dir.toStdString());  // throws before anything changes
    views_.clear();
    records_.clear();
    lastDigest_.clear();
    planModified_ = {};
    planSize_ = -1;
    folder_ = std::move(folder);
    refresh();
    timer_.start();
    emit opened();
}

void SweepWatcher::close() {
    timer_.stop();
    views_.clear();
    records_.clear();
    folder_.reset();
    emit opened();
}

QString SweepWatcher::dir() const {
    return folder_ ? QString::fromStdString(folder_->dir()) : QString();
}

const sweep::SweepPlan& SweepWatcher::plan() const {
    return folder_->plan();
}

std::optional<std::size_t> SweepWatcher::best() const {
    return folder_ ? sweep::bestTrial(views_, folder_->plan().metric) : std::nullopt;
}

QString SweepWatcher::recordPath(int id) const {
    return folder_ ? QString::fromStdString(folder_->recordPath(id)) : QString();
}

nlohmann::json SweepWatcher::figuresOf(int id) {
    const QFileInfo info(recordPath(id));
    if (!info.exists()) {
        records_.remove(id);
        return nullptr;
    }
    CachedRecord& cached = records_[id];
    if (cached.size != info.size() || cached.modified != info.lastModified()) {
        cached.size = info.size();
        cached.modified = info.lastModified();
        try {
            cached.figures = sweep::summaryFigures(RunRecord::load(info.filePath().toStdString()));
        } catch (const std::exception&) {  // damaged, or caught mid-replace where rename is not atomic
            cached.size = -1;              // caught mid-replace on a filesystem without atomic rename: next time
            cached.figures = nullptr;
        }
    }
    return cached.figures;
}

// A bayes sweep appends its trials to sweep.json batch by batch: read it again when it changed (the
// table's and charts' pointers into the plan are renewed by the changed() that follows).
void SweepWatcher::reloadGrownPlan() {
    const QFileInfo info(QString::fromStdString(folder_->dir()) + "/sweep.json");
    if (info.lastModified() == planModified_ && info.size() == planSize_) return;
    planModified_ = info.lastModified();
    planSize_ = info.size();
    if (folder_->plan().method != sweep::Method::Bayes) return;
    try {
        folder_ = std::make_unique<sweep::SweepFolder>(folder_->dir());
        lastDigest_.clear();
    } catch (const Error&) {
        // caught mid-replace, or damaged since: the plan as last read stands
    }
}

void SweepWatcher::refresh() {
    if (!folder_) return;
    reloadGrownPlan();
    const auto& plan = folder_->plan();
    // Trials on SLURM that were cancelled before they started write nothing: squeue says so.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    bool slurmActive = false;
    for (const auto& t : plan.trials) {
        const auto s = folder_->readStatus(t.id);
        if (s.engine == "slurm" && !sweep::isFinished(s.state)) slurmActive = true;
    }
    if (slurmActive && now - lastSettleMs_ > 10000) {
        lastSettleMs_ = now;
        try {
            sweep::settleSlurmStates(*folder_);
        } catch (const Error&) {
            // no squeue here (the folder is followed from a machine outside the cluster): the files stand
        }
    }
    std::vector<sweep::TrialRow> views;
    views.reserve(plan.trials.size());
    QString digest;
    for (const auto& trial : plan.trials) {
        sweep::TrialRow v = folder_->view(trial, figuresOf(trial.id));
        digest += QString::fromStdString(v.status.toJson().dump() + v.figures.dump());
        views.push_back(std::move(v));
    }
    views_ = std::move(views);
    if (digest == lastDigest_) return;
    lastDigest_ = digest;
    emit changed();
}

}  // namespace wb::gui
