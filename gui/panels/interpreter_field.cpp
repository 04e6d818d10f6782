#include "gui/panels/interpreter_field.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QStandardPaths>
#include <QToolButton>

namespace wb::gui {

InterpreterField::InterpreterField(QWidget* parent) : QWidget(parent), edit_(new QLineEdit), browse_(new QToolButton) {
    edit_->setObjectName("python");
    edit_->setClearButtonEnabled(true);
    edit_->setToolTip(
        "The Python interpreter the framework backends (torch) run in, e.g. /usr/bin/python3 or a "
        "virtual environment's bin/python. Empty: $MLPWB_PYTHON, else python3 on PATH. Press Enter to "
        "ask it again (after installing a package).");
    browse_->setObjectName("browsePython");
    browse_->setText("…");
    browse_->setToolTip("Choose a Python interpreter");
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(edit_, 1);
    row->addWidget(browse_);
    connect(edit_, &QLineEdit::editingFinished, this, [this] {
        if (python() == shown_) return;  // focus left without a change
        shown_ = python();
        emit chosen(shown_);
    });
    connect(edit_, &QLineEdit::returnPressed, this, [this] {
        if (python() != shown_) return;  // editingFinished reports the change
        emit chosen(shown_);
    });
    connect(browse_, &QToolButton::clicked, this, &InterpreterField::browse);
}

QString InterpreterField::python() const {
    return edit_->text().trimmed();
}

void InterpreterField::setPython(const QString& path) {
    shown_ = path.trimmed();
    edit_->setText(shown_);
}

void InterpreterField::setDefault(const QString& resolved) {
    default_ = resolved;
    edit_->setPlaceholderText(resolved + " (default)");
}

void InterpreterField::browse() {
    // Start beside the interpreter in use (resolved on PATH when it is a bare name).
    QString current = python().isEmpty() ? default_ : python();
    if (!current.contains('/')) current = QStandardPaths::findExecutable(current);
    const QString path = QFileDialog::getOpenFileName(
        this, "Choose a Python interpreter", current.isEmpty() ? QString() : QFileInfo(current).absolutePath());
    if (path.isEmpty()) return;
    setPython(path);
    emit chosen(path);
}

}  // namespace wb::gui
