#include "gui/panels/editor_escape_filter.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextEdit>

namespace wb::gui {

bool isEditorWidget(const QWidget* widget) {
    // A spin box's or an editable combo box's text is a QLineEdit child: the first test covers it.
    return qobject_cast<const QLineEdit*>(widget) || qobject_cast<const QAbstractSpinBox*>(widget) ||
           qobject_cast<const QComboBox*>(widget) || qobject_cast<const QTextEdit*>(widget) ||
           qobject_cast<const QPlainTextEdit*>(widget);
}

EditorEscapeFilter::EditorEscapeFilter(QWidget* window) : QObject(window), window_(window) {
    qApp->installEventFilter(this);
}

EditorEscapeFilter::~EditorEscapeFilter() {
    qApp->removeEventFilter(this);
}

bool EditorEscapeFilter::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::ShortcutOverride) return false;
    const auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() != Qt::Key_Escape || key->modifiers() != Qt::NoModifier) return false;
    const auto* widget = qobject_cast<QWidget*>(watched);
    if (!widget || !window_ || widget->window() != window_ || !isEditorWidget(widget)) return false;
    event->accept();  // the editor's key: Qt then sends it a KeyPress rather than run the shortcut
    return true;
}

}  // namespace wb::gui
