#include "gui/panels/field_guard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QLabel>
#include <QScrollBar>
#include <QWheelEvent>

namespace wb::gui {

namespace {

// One filter for the whole application: it keeps no state.
class WheelGuard : public QObject {
public:
    using QObject::QObject;

    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() != QEvent::Wheel) return false;
        auto* widget = qobject_cast<QWidget*>(watched);
        if (!widget || widget->hasFocus()) return false;
        // Not focused: the field stays as it is; the scroll area around it scrolls instead.
        for (QWidget* up = widget->parentWidget(); up; up = up->parentWidget())
            if (auto* area = qobject_cast<QAbstractScrollArea*>(up)) {
                QCoreApplication::sendEvent(area->verticalScrollBar(), event);
                break;
            }
        return true;
    }
};

WheelGuard& wheelGuard() {
    static auto* guard = new WheelGuard(QCoreApplication::instance());
    return *guard;
}

void guard(QWidget* field) {
    field->setFocusPolicy(Qt::StrongFocus);
    field->installEventFilter(&wheelGuard());
}

}  // namespace

void guardWheel(QWidget* root) {
    for (auto* spin : root->findChildren<QAbstractSpinBox*>()) guard(spin);
    for (auto* combo : root->findChildren<QComboBox*>()) guard(combo);
}

QString elideMessage(const QString& message, int maxChars) {
    if (message.size() <= maxChars) return message;
    return message.left(maxChars).trimmed() + QChar(0x2026);
}

void showMessage(QLabel* label, const QString& message, int maxChars) {
    QString shown = elideMessage(message, maxChars);
    // A CSV row quoted in an error has no spaces to wrap at: allow a break after its separators.
    static const QString kBreak = QString(QChar(0x200B));
    for (const QChar separator : {QChar(','), QChar(';'), QChar('/'), QChar('\\'), QChar('\t')})
        shown.replace(separator, QString(separator) + kBreak);
    label->setWordWrap(true);
    label->setText(shown);
    label->setToolTip(message);
    QSizePolicy policy = label->sizePolicy();
    policy.setHorizontalPolicy(QSizePolicy::Ignored);  // as wide as the layout gives, never wider
    label->setSizePolicy(policy);
}

}  // namespace wb::gui
