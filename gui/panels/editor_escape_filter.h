// Esc is the Stop action's shortcut, but inside a text field, a spin box or a combo box Esc belongs
// to that editor (it leaves a table cell's editor, closes a popup, or does nothing): it must never
// stop a training run. Installed on the application, this filter claims Esc for such an editor in
// its window (it accepts the ShortcutOverride event), so Qt hands the key to the editor instead of
// triggering the window's shortcut. Everywhere else Esc still stops.
#pragma once

#include <QObject>
#include <QPointer>
#include <QWidget>

namespace wb::gui {

// A widget that takes typed text or a value: a line edit, a spin box, a combo box, a text edit.
bool isEditorWidget(const QWidget* widget);

class EditorEscapeFilter : public QObject {
    Q_OBJECT

public:
    // Acts on the editors inside `window` only; installs itself on the application.
    explicit EditorEscapeFilter(QWidget* window);
    ~EditorEscapeFilter() override;

    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QPointer<QWidget> window_;
};

}  // namespace wb::gui
