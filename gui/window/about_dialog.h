// Help ▸ About: the workbench's version and what it was built with (Qt, QCustomPlot, compiler), and
// whether CUDA can train here. The CUDA probe (driver, device) runs on a worker thread: the dialog
// opens at once and fills that line in when the answer comes.
#pragma once

#include <QDialog>
#include <QString>

class QLabel;

namespace wb::gui {

// "GCC 12.2.0", "Clang 16.0.6": the compiler this build used.
QString compilerDescription();
// The versions as HTML lines, CUDA as `cuda` says (e.g. "checking…").
QString aboutText(const QString& cuda);

class AboutDialog : public QDialog {
    Q_OBJECT

public:
    explicit AboutDialog(QWidget* parent = nullptr);
    QString text() const;

private:
    QLabel* label_;
};

}  // namespace wb::gui
