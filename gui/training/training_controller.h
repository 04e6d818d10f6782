// Runs queued trainings one at a time on one worker thread that owns the backend.
// The GUI thread never waits on training: it queues runs, and hears back through queued signals
// carrying plain values (run id, EpochMetrics, RunRecord). Stop sets an atomic flag the trainer
// checks between steps.
#pragma once

#include <QObject>
#include <QString>
#include <QThread>
#include <atomic>
#include <deque>
#include <memory>
#include <optional>
#include <variant>

#include "core/data/dataset.h"
#include "core/measure/ablation.h"
#include "core/measure/answer.h"
#include "core/run/run_config.h"
#include "core/run/run_record.h"

namespace wb::gui {

// What the worker does with a request, each on the one worker so that no timed run overlaps another:
// train the configuration once, reporting through the run signals;
struct TrainJob {
    QString recordPath;  // written after every epoch; empty: not written
};
// ablate it (every step of the plan), reporting through the ablation signals;
struct AblationJob {
    std::shared_ptr<const AblationPlan> plan;
};
// or answer the founding question on it (every engine here, its estimate first), reporting through
// the answer signals.
struct AnswerJob {
    std::shared_ptr<const AnswerPlan> plan;
};
using Job = std::variant<TrainJob, AblationJob, AnswerJob>;

// One queued job: what to do, with which configuration, on which data.
struct RunRequest {
    int id = 0;  // a TrainJob: its RunStore id; an ablation or an answer: nextJobId()
    RunConfig config;
    std::shared_ptr<const Dataset> dataset;  // immutable, shared with the GUI
    Job job;
};

// The id of a job that is not one run of the RunStore (an ablation, an answer): negative, so never a
// store id, and never the same twice in a session.
int nextJobId();

class TrainingWorker;

class TrainingController : public QObject {
    Q_OBJECT

public:
    explicit TrainingController(QObject* parent = nullptr);
    ~TrainingController() override;  // stops the current run, quits and joins the thread

    void enqueue(RunRequest request);
    void stopCurrent();  // the current run ends within one step, marked cancelled
    void clearQueue();   // drops the runs that have not started
    // Drops one run that has not started; false when `id` is not waiting (running, done, unknown).
    bool removeQueued(int id);
    const std::deque<RunRequest>& pending() const { return queue_; }  // in the order they will run
    bool busy() const { return current_.has_value(); }
    int queued() const { return static_cast<int>(queue_.size()); }
    std::optional<int> currentRun() const { return current_; }
    // The name the current request's config gives it (an ablation: "Ablation from ..."); empty when idle.
    const std::string& currentName() const { return currentName_; }

signals:
    void runStarted(int id);
    // The epochs a run finished since the last batch (at most ~60 batches a second): what views use.
    void epochsFinished(int id, const QList<wb::EpochMetrics>& metrics);
    // The same epochs one by one, emitted right after their batch (for code that wants single ones).
    void epochFinished(int id, const wb::EpochMetrics& metrics);
    void runFinished(int id, const wb::RunRecord& record);
    // Just before runFinished of a completed classification run with validation rows: its confusion
    // matrix over them (K * K counts, true rows, predicted columns).
    void confusionComputed(int id, const QList<qulonglong>& counts);
    void queueChanged();
    // An ablation request: before each of its runs (1-based, of at most `planned`), after each step
    // (the result so far), and at its end (completed, cancelled or failed).
    void ablationProgress(int id, int run, int planned, const QString& step, int repeat);
    void ablationStepFinished(int id, const wb::AblationResult& partial);
    void ablationFinished(int id, const wb::AblationResult& result);
    // An answer request: the engines found (before anything trains), the estimate in seconds (null
    // where an engine's could not be made), before each run, after each step, and at its end.
    void answerEngines(int id, const wb::Answer& engines);
    void answerEstimated(int id, double seconds);
    void answerProgress(int id, int done, int planned, const QString& engine, const QString& step, int repeat);
    void answerUpdated(int id, const wb::Answer& partial);
    void answerFinished(int id, const wb::Answer& answer);
    void runDropped(int id);  // removed from the queue before it started (removeQueued, clearQueue)
    // To the worker (queued to its thread): train `request`, stopping when `cancel` is set. Internal.
    void runRequested(const wb::gui::RunRequest& request, const std::shared_ptr<wb::CancelFlag>& cancel);
    // queueChanged: what runs or waits changed (a run queued, started, dropped, or one that ended
    // with nothing after it, be it a run or an ablation).

private:
    bool startNext();  // false when nothing started (busy, or nothing waits)
    void onEpochsFinished(int id, const QList<wb::EpochMetrics>& metrics);
    void onRunFinished(int id, const wb::RunRecord& record);  // from the worker: start the next run
    void onAblationFinished(int id, const wb::AblationResult& result);
    void onAnswerFinished(int id, const wb::Answer& answer);

    QThread thread_;
    TrainingWorker* worker_ = nullptr;  // lives on thread_
    std::shared_ptr<std::atomic<bool>> cancel_;
    std::deque<RunRequest> queue_;
    std::optional<int> current_;
    std::string currentName_;
};

}  // namespace wb::gui
