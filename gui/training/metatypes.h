// The core's plain values that cross from the training thread to the GUI thread. A queued
// connection copies its arguments through QMetaType, so each type must be known to it by name.
#pragma once

#include <QMetaType>

#include "core/run/epoch_metrics.h"
#include "core/run/run_record.h"

Q_DECLARE_METATYPE(wb::EpochMetrics)
Q_DECLARE_METATYPE(QList<wb::EpochMetrics>)
Q_DECLARE_METATYPE(wb::RunRecord)

namespace wb::gui {

// Registers the types above at run time (idempotent). Call before the first queued connection
// that carries them; the TrainingController does so itself.
inline void registerMetaTypes() {
    qRegisterMetaType<wb::EpochMetrics>("wb::EpochMetrics");
    qRegisterMetaType<wb::RunRecord>("wb::RunRecord");
}

}  // namespace wb::gui
