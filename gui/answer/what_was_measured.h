// What an answer measured, engine by engine, in words: the workload as it ran (rows, features,
// batch, epochs, the rounds made against the plan's target and budget, and why they stopped), the
// engine's environment as its runs recorded it (framework and Python versions, device, threads) and
// the machine's state meanwhile (other programs' cores, load, clock, steal). The Answer tab and the
// experiment report both say it with these sentences. Read from the records only: nothing is asked.
#pragma once

#include <QString>
#include <QStringList>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/measure/answer.h"

namespace wb::gui {

// "100,000 rows × 61 features (80,000 to train, 20,000 to validate), batch 2048, 10 epochs per run
// (the first a warm-up)": from `a`'s seed loop's first run; empty when nothing ran.
QString workloadText(const AblationResult& a);
// "5 rounds (3 at least; more until every median is known to ±5 %, within 60 s): <precision>".
QString roundsText(const AblationResult& a);
// "Other programs kept 0.3 of the machine's 2 cores busy (load 0.4 → 1.1); CPU clock 2,450 MHz;
// stolen by a hypervisor: 0.0 %." Empty when nothing was readable.
QString machineText(const MachineLoad& m);
// "torch 2.1.0, Python 3.11.2; device cpu (AMD EPYC); 2 threads of 2": the facts of a recorded
// environment a reader looks for first; empty for an empty environment.
QString environmentSummary(const std::map<std::string, std::string>& environment);
// The environment `a`'s runs recorded (its first measured run's); empty when none ran.
const std::map<std::string, std::string>& recordedEnvironment(const AblationResult& a);

// The whole of it as rich text, one paragraph per measured engine (its name in bold), the
// environment as a summary line; headed "Provisional" while the answer is still running.
QString whatWasMeasuredHtml(const Answer& answer);

}  // namespace wb::gui
