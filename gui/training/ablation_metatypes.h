// The ablation's and the answer's plain values that cross from the training thread to the GUI thread (see metatypes.h
// for the run's): a queued connection copies them through QMetaType, so each must be known by name.
#pragma once

#include <QMetaType>

#include "core/measure/ablation.h"
#include "core/measure/answer.h"

Q_DECLARE_METATYPE(wb::AblationResult)
Q_DECLARE_METATYPE(wb::Answer)

namespace wb::gui {

// Registers the types above at run time (idempotent); the TrainingController does so itself.
inline void registerAblationMetaTypes() {
    qRegisterMetaType<wb::AblationResult>("wb::AblationResult");
    qRegisterMetaType<wb::Answer>("wb::Answer");
}

}  // namespace wb::gui
