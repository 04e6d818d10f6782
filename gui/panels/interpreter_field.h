// The "Python" row of the backend group: which interpreter the framework backends (torch) run in.
// A line edit (empty = the default, shown as its placeholder) and a button that browses for one.
#pragma once

#include <QString>
#include <QWidget>

class QLineEdit;
class QToolButton;

namespace wb::gui {

class InterpreterField : public QWidget {
    Q_OBJECT

public:
    explicit InterpreterField(QWidget* parent = nullptr);

    QString python() const;                    // as typed, trimmed; empty = the default
    void setPython(const QString& path);       // shows `path`; emits nothing
    void setDefault(const QString& resolved);  // the interpreter used when the field is empty
    QLineEdit* lineEdit() const { return edit_; }

signals:
    // The user finished typing a different interpreter, pressed Enter (ask again, e.g. after
    // installing a package), or chose one in the file dialog.
    void chosen(const QString& path);

private:
    void browse();

    QLineEdit* edit_;
    QToolButton* browse_;
    QString shown_;  // the value last set or chosen, to tell an edit that changed nothing
    QString default_;
};

}  // namespace wb::gui
