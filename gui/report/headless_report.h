// The report for scripts, without a window:
//   mlp-workbench --report RUN.json|ABLATION.json|ANSWER.json|SWEEP_DIR... --out report.pdf|report.html
// (`mlpwb report` runs this). Exit codes as mlpwb's: 0 written, 2 bad arguments, 3 an input that
// cannot be read, 6 the report could not be written. Errors are one line on stderr.
#pragma once

#include <QStringList>

namespace wb::gui {

// `args` as QCoreApplication::arguments() gives them (the program name first). Needs a QApplication.
int runHeadlessReport(const QStringList& args);

}  // namespace wb::gui
