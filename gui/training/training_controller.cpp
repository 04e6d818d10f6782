#include "gui/training/training_controller.h"

#include <algorithm>

#include "gui/training/ablation_metatypes.h"
#include "gui/training/metatypes.h"
#include "gui/training/thread_handoff.h"
#include "gui/training/training_worker.h"

namespace wb::gui {

TrainingController::TrainingController(QObject* parent)
    : QObject(parent), worker_(new TrainingWorker), cancel_(std::make_shared<CancelFlag>(false)) {
    registerMetaTypes();
    registerAblationMetaTypes();
    thread_.setObjectName("training");
    worker_->moveToThread(&thread_);
    // The worker lives on another thread, so these connections are queued: the GUI thread only
    // ever receives copies of plain values, and handles them when its event loop gets to them.
    connectAcrossThreads(this, &TrainingController::runRequested, worker_, &TrainingWorker::run);
    connectAcrossThreads(worker_, &TrainingWorker::runStarted, this, &TrainingController::runStarted);
    connectAcrossThreads(worker_, &TrainingWorker::epochsFinished, this, &TrainingController::onEpochsFinished);
    connectAcrossThreads(worker_, &TrainingWorker::confusionComputed, this, &TrainingController::confusionComputed);
    connectAcrossThreads(worker_, &TrainingWorker::runFinished, this, &TrainingController::onRunFinished);
    connectAcrossThreads(worker_, &TrainingWorker::ablationProgress, this, &TrainingController::ablationProgress);
    connectAcrossThreads(worker_, &TrainingWorker::ablationStepFinished, this,
                         &TrainingController::ablationStepFinished);
    connectAcrossThreads(worker_, &TrainingWorker::ablationFinished, this, &TrainingController::onAblationFinished);
    connectAcrossThreads(worker_, &TrainingWorker::answerEngines, this, &TrainingController::answerEngines);
    connectAcrossThreads(worker_, &TrainingWorker::answerEstimated, this, &TrainingController::answerEstimated);
    connectAcrossThreads(worker_, &TrainingWorker::answerProgress, this, &TrainingController::answerProgress);
    connectAcrossThreads(worker_, &TrainingWorker::answerUpdated, this, &TrainingController::answerUpdated);
    connectAcrossThreads(worker_, &TrainingWorker::answerFinished, this, &TrainingController::onAnswerFinished);
    thread_.start();
}

TrainingController::~TrainingController() {
    queue_.clear();
    cancel_->store(true);  // the run in flight ends at its next step
    thread_.quit();
    thread_.wait();
    delete worker_;  // its thread has ended: nothing else can touch it now
}

int nextJobId() {
    static std::atomic<int> next{-1};
    return next--;
}

void TrainingController::enqueue(RunRequest request) {
    queue_.push_back(std::move(request));
    emit queueChanged();
    startNext();
}

void TrainingController::stopCurrent() {
    if (current_) cancel_->store(true);
}

void TrainingController::clearQueue() {
    if (queue_.empty()) return;
    std::deque<RunRequest> dropped;
    dropped.swap(queue_);  // empty before anyone hears of it, so a listener sees the final state
    for (const RunRequest& run : dropped) emit runDropped(run.id);
    emit queueChanged();
}

bool TrainingController::removeQueued(int id) {
    const auto it = std::find_if(queue_.begin(), queue_.end(), [id](const RunRequest& r) { return r.id == id; });
    if (it == queue_.end()) return false;
    queue_.erase(it);
    emit runDropped(id);
    emit queueChanged();
    return true;
}

bool TrainingController::startNext() {
    if (current_ || queue_.empty()) return false;
    RunRequest request = std::move(queue_.front());
    queue_.pop_front();
    current_ = request.id;
    currentName_ = request.config.name;
    // A fresh flag per run: a stop meant for the previous run can never cancel this one.
    cancel_ = std::make_shared<CancelFlag>(false);
    emit runRequested(request, cancel_);  // to the worker's thread
    emit queueChanged();
    return true;
}

void TrainingController::onEpochsFinished(int id, const QList<EpochMetrics>& metrics) {
    emit epochsFinished(id, metrics);
    for (const EpochMetrics& m : metrics) emit epochFinished(id, m);
}

void TrainingController::onRunFinished(int id, const RunRecord& record) {
    current_.reset();
    currentName_.clear();
    emit runFinished(id, record);
    if (!startNext()) emit queueChanged();  // nothing runs now: views drop the finished entry
}

void TrainingController::onAblationFinished(int id, const AblationResult& result) {
    current_.reset();
    currentName_.clear();
    emit ablationFinished(id, result);
    if (!startNext()) emit queueChanged();
}

void TrainingController::onAnswerFinished(int id, const Answer& answer) {
    current_.reset();
    currentName_.clear();
    emit answerFinished(id, answer);
    if (!startNext()) emit queueChanged();
}

}  // namespace wb::gui
