// The object that trains: it lives on the TrainingController's worker thread, runs one request at a
// time, and reports back only through signals carrying plain values (queued to the GUI thread).
#pragma once

#include <QObject>
#include <memory>

#include "core/data/prepare.h"
#include "core/run/backend.h"
#include "core/run/epoch_metrics.h"
#include "core/run/run_record.h"
#include "core/train/trainer.h"
#include "gui/training/training_controller.h"

namespace wb::gui {

// How often, at most, the worker hands finished epochs to the GUI thread (~60 Hz).
constexpr int kEpochBatchMs = 16;

class TrainingWorker : public QObject {
    Q_OBJECT

public:
    using QObject::QObject;

    // Trains `request` to its end, to a cancel or to a failure; called on the worker thread.
    // Never throws: anything that goes wrong becomes a record with status "failed" and the message.
    void run(const RunRequest& request, const std::shared_ptr<CancelFlag>& cancel);

signals:
    void runStarted(int id);
    // The epochs finished since the last emit, at most every kEpochBatchMs (the first at once): a run
    // of thousands of tiny epochs a second would otherwise queue thousands of events on the GUI thread.
    void epochsFinished(int id, const QList<wb::EpochMetrics>& metrics);
    void runFinished(int id, const wb::RunRecord& record);
    // Before runFinished of a classification run that completed with validation rows: its confusion
    // matrix (K * K counts, true rows, predicted columns) from the final parameters.
    void confusionComputed(int id, const QList<qulonglong>& counts);
    void ablationProgress(int id, int run, int planned, const QString& step, int repeat);
    void ablationStepFinished(int id, const wb::AblationResult& partial);
    void ablationFinished(int id, const wb::AblationResult& result);
    void answerEngines(int id, const wb::Answer& engines);
    void answerEstimated(int id, double seconds);
    void answerProgress(int id, int done, int planned, const QString& engine, const QString& step, int repeat);
    void answerUpdated(int id, const wb::Answer& partial);
    void answerFinished(int id, const wb::Answer& answer);

private:
    class EpochBatcher;
    RunRecord train(const RunRequest& request, const TrainJob& job, const CancelFlag& cancel);
    void emitConfusion(int id, const RunRecord& record, Activation activation, const Trainer& trainer,
                       const PreparedData& data);
    // Runs every step of request.ablation; never throws (a failure is a result with status "failed").
    void ablate(const RunRequest& request, const AblationPlan& plan, const CancelFlag& cancel);
    // Asks every engine (the probes start the user's Python), estimates, then runs request.answer;
    // never throws (a failure is an answer with status "failed").
    void answer(const RunRequest& request, const AnswerPlan& plan, const CancelFlag& cancel);
};

// The record of a run that could not train at all (bad config, no device, missing file, ...).
RunRecord failedRecord(const RunRequest& request, const TrainJob& job, const std::string& message);

}  // namespace wb::gui
