#include "gui/training/training_worker.h"

#include <new>

#include <QElapsedTimer>

#include <nlohmann/json.hpp>

#include "core/data/prepare.h"
#include "core/measure/confusion_matrix.h"
#include "core/platform/errors.h"
#include "core/train/keep_warm.h"
#include "core/train/trainer.h"

namespace wb::gui {

namespace {
// Runs `measure`; what it throws fails `result` (an ablation, an answer) with the reason.
template <typename Result, typename Status, typename Measure>
void failOnError(Result& result, Status failed, Measure&& measure) {
    try {
        measure();
    } catch (const std::bad_alloc&) {
        result.status = failed;
        result.message = "out of memory";
    } catch (const std::exception& e) {
        result.status = failed;
        result.message = e.what();
    }
}
}  // namespace

void TrainingWorker::run(const RunRequest& request, const std::shared_ptr<CancelFlag>& cancel) {
    if (const auto* ablation = std::get_if<AblationJob>(&request.job)) {
        ablate(request, *ablation->plan, *cancel);
        return;
    }
    if (const auto* answering = std::get_if<AnswerJob>(&request.job)) {
        answer(request, *answering->plan, *cancel);
        return;
    }
    emit runStarted(request.id);
    const RunRecord record = train(request, std::get<TrainJob>(request.job), *cancel);
    emit runFinished(request.id, record);
}

// Collects finished epochs and emits them in batches: the first epoch at once (the charts start
// moving), then whatever finished during the last kEpochBatchMs.
class TrainingWorker::EpochBatcher {
public:
    EpochBatcher(TrainingWorker& worker, int id) : worker_(worker), id_(id) {}
    void add(const EpochMetrics& m) {
        pending_.append(m);
        if (sinceEmit_.isValid() && sinceEmit_.elapsed() < kEpochBatchMs) return;
        flush();
    }
    void flush() {
        if (pending_.isEmpty()) return;
        emit worker_.epochsFinished(id_, pending_);
        pending_.clear();
        sinceEmit_.start();
    }

private:
    TrainingWorker& worker_;
    int id_;
    QList<EpochMetrics> pending_;
    QElapsedTimer sinceEmit_;  // invalid until the first emit
};

RunRecord TrainingWorker::train(const RunRequest& request, const TrainJob& job, const CancelFlag& cancel) {
    // The Trainer records failures during training itself; what it throws (bad config, missing
    // initial weights) and what comes before it (no data, no device, out of memory) lands here.
    try {
        if (!request.dataset) return failedRecord(request, job, "no data set loaded");
        const RunConfig& config = request.config;
        const PreparedData data = prepare(*request.dataset, config.prepare);
        const auto backend = BackendRegistry::instance().create(config.backend, config.device);
        Trainer trainer(config, *request.dataset, data, *backend, job.recordPath.toStdString());
        EpochBatcher batch(*this, request.id);
        TrainerCallbacks callbacks;
        callbacks.onEpoch = [&batch](const EpochMetrics& m, const RunRecord&) { batch.add(m); };
        RunRecord record = trainer.run(cancel, callbacks);
        batch.flush();  // every epoch reaches the GUI before the run's end does
        emitConfusion(request.id, record, config.model.activation, trainer, data);
        return record;
    } catch (const std::bad_alloc&) {
        return failedRecord(request, job, "out of memory");
    } catch (const std::exception& e) {
        return failedRecord(request, job, e.what());
    } catch (...) {
        return failedRecord(request, job, "unknown error");
    }
}

void TrainingWorker::emitConfusion(int id, const RunRecord& record, Activation activation, const Trainer& trainer,
                                   const PreparedData& data) {
    if (record.status != RunStatus::Completed || data.task == Task::Regression || data.valRows() == 0) return;
    try {
        const std::vector<std::size_t> counts = confusionMatrix(trainer.finalParams(), activation, data.valX.data(),
                                                                data.valY.data(), data.valRows(), data.classes);
        emit confusionComputed(id, QList<qulonglong>(counts.begin(), counts.end()));
    } catch (const std::exception&) {
        // The run itself stands: its matrix is an extra the Confusion tab then says it lacks.
    }
}

void TrainingWorker::ablate(const RunRequest& request, const AblationPlan& plan, const CancelFlag& cancel) {
    AblationResult result;
    result.plan = plan;
    failOnError(result, AblationStatus::Failed, [&] {
        if (!request.dataset) throw ConfigError("no data set loaded");
        const PreparedData data = prepare(*request.dataset, request.config.prepare);
        AblationCallbacks callbacks;
        int runs = 0;
        callbacks.onRunStarted = [&](int, const std::string& step, int repeat, int planned) {
            ++runs;
            emit ablationProgress(request.id, runs, planned, QString::fromStdString(step), repeat);
        };
        callbacks.onStepFinished = [&](const AblationResult& partial, const AblationStep&) {
            emit ablationStepFinished(request.id, partial);
        };
        result = runAblation(plan, request.config, *request.dataset, data, cancel, callbacks);
    });
    emit ablationFinished(request.id, result);
}

void TrainingWorker::answer(const RunRequest& request, const AnswerPlan& plan, const CancelFlag& cancel) {
    Answer result;
    result.plan = plan;
    failOnError(result, AnswerStatus::Failed, [&] {
        if (!request.dataset) throw ConfigError("no data set loaded");
        const PreparedData data = prepare(*request.dataset, request.config.prepare);
        AnswerSteps steps;
        steps.onEngines = [&](const std::vector<AnswerEngine>& engines) {
            result.engines = engines;
            emit answerEngines(request.id, result);
        };
        steps.onEstimate = [&](const std::vector<AnswerEstimate>& estimates) {
            double seconds = 0;
            for (const auto& e : estimates) seconds += e.seconds.value_or(0);
            emit answerEstimated(request.id, seconds);
            return true;
        };
        steps.runs.onRunStarted = [&](const std::string& engine, const std::string& step, int repeat, int done,
                                      int planned) {
            emit answerProgress(request.id, done, planned, QString::fromStdString(engine), QString::fromStdString(step),
                                repeat);
        };
        steps.runs.onProgress = [&](const Answer& partial) { emit answerUpdated(request.id, partial); };
        if (auto answered = answerQuestion(plan, request.config, *request.dataset, data, cancel, steps))
            result = std::move(*answered);
    });
    emit answerFinished(request.id, result);
}

RunRecord failedRecord(const RunRequest& request, const TrainJob& job, const std::string& message) {
    RunRecord record;
    record.name = request.config.name;
    record.status = RunStatus::Failed;
    record.message = message;
    try {
        record.config = request.config;
        if (request.dataset) {
            record.dataset.source = request.dataset->source;
            record.dataset.rows = request.dataset->rows;
            record.dataset.features = request.dataset->cols;
            record.dataset.label = request.dataset->labelName;
            record.dataset.hash = request.dataset->hash;
        }
        // The failure is kept on disk like any other run, so the session can be reopened with it.
        if (!job.recordPath.isEmpty()) record.save(job.recordPath.toStdString());
    } catch (const std::exception& e) {
        record.message += std::string(" (the record could not be saved: ") + e.what() + ")";
    }
    return record;
}

}  // namespace wb::gui
