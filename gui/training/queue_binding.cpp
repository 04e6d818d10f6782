#include "gui/training/queue_binding.h"

#include "gui/runs/run_store.h"
#include "gui/training/training_controller.h"

namespace wb::gui {

void linkQueueToStore(TrainingController& controller, RunStore& store) {
    QObject::connect(&controller, &TrainingController::runStarted, &store, &RunStore::markStarted);
    // A dropped run never trained: nothing was recorded, so its row goes (no file was written).
    QObject::connect(&controller, &TrainingController::confusionComputed, &store,
                     [&store](int id, const QList<qulonglong>& counts) {
                         store.setConfusion(id, std::vector<std::size_t>(counts.begin(), counts.end()));
                     });
    QObject::connect(&controller, &TrainingController::runDropped, &store, &RunStore::remove);
    QObject::connect(&store, &RunStore::runRemoved, &controller, [&controller](int id) {
        if (controller.currentRun() == id)
            controller.stopCurrent();
        else
            controller.removeQueued(id);  // no-op for a run that is not waiting
    });
}

}  // namespace wb::gui
