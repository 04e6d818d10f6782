// The runs the training controller queues are also rows of the run store (status "queued" until
// the worker begins them). This keeps the two in step both ways: a run that starts is marked
// started, a run dropped from the queue leaves the store, and a run deleted from the store leaves
// the queue (or, when it is the one training, is stopped: its results would have nowhere to go).
#pragma once

namespace wb::gui {

class RunStore;
class TrainingController;

void linkQueueToStore(TrainingController& controller, RunStore& store);

}  // namespace wb::gui
