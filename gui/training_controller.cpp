#include "training_controller.h"

#include <algorithm>

#include "ablation_metatypes.h"
#include "handoff_fence.h"
#include "metatypes.h"
#include "training_worker.h"

namespace wb::gui {

TrainingController::TrainingController(QObject* parent)
    : QObject(parent), worker_(new TrainingWorker), cancel_(std::make_shared<CancelFlag>(false)) {
    registerMetaTypes();
    registerAblationMetaTypes();
    thread_.setObjectName("training");
    worker_->moveToThread(&thread_);
    // The worker lives on another thread, so these connections are queued: the GUI thread only
    // ever receives copies of plain values, and handles them when its event loop gets to them.
    // Each first passes the fence the worker posted through (handoff_fence.h).
    connect(worker_, &TrainingWorker::runStarted, this, [this](int id) {
        handoffFence().receive();
        emit runStarted(id);
    });
    connect(worker_, &TrainingWorker::epochsFinished, this, [this](int id, const QList<EpochMetrics>& metrics) {
        handoffFence().receive();
        emit epochsFinished(id, metrics);
        for (const EpochMetrics& m : metrics) emit epochFinished(id, m);
    });
    connect(worker_, &TrainingWorker::runFinished, this, [this](int id, const RunRecord& record) {
        handoffFence().receive();
        onRunFinished(id, record);
    });
    connect(worker_, &TrainingWorker::ablationProgress, this,
            [this](int id, int run, int planned, const QString& step, int repeat) {
                handoffFence().receive();
                emit ablationProgress(id, run, planned, step, repeat);
            });
    connect(worker_, &TrainingWorker::ablationStepFinished, this, [this](int id, const AblationResult& partial) {
        handoffFence().receive();
        emit ablationStepFinished(id, partial);
    });
    connect(worker_, &TrainingWorker::ablationFinished, this, [this](int id, const AblationResult& result) {
        handoffFence().receive();
        onAblationFinished(id, result);
    });
    thread_.start();
}

TrainingController::~TrainingController() {
    queue_.clear();
    cancel_->store(true);  // the run in flight ends at its next step
    thread_.quit();
    thread_.wait();
    delete worker_;  // its thread has ended: nothing else can touch it now
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

void TrainingController::startNext() {
    if (current_ || queue_.empty()) return;
    RunRequest request = std::move(queue_.front());
    queue_.pop_front();
    current_ = request.id;
    // A fresh flag per run: a stop meant for the previous run can never cancel this one.
    cancel_ = std::make_shared<CancelFlag>(false);
    handoffFence().post([&] {
        QMetaObject::invokeMethod(
            worker_,
            [worker = worker_, request = std::move(request), cancel = cancel_] {
                handoffFence().receive();  // before the first read of a capture
                worker->run(request, cancel);
            },
            Qt::QueuedConnection);
    });
    emit queueChanged();
}

void TrainingController::onRunFinished(int id, const RunRecord& record) {
    current_.reset();
    emit runFinished(id, record);
    startNext();
}

void TrainingController::onAblationFinished(int id, const AblationResult& result) {
    current_.reset();
    emit ablationFinished(id, result);
    startNext();
}

}  // namespace wb::gui
