// Small rules every configuration panel follows, in one place so each panel applies them the same way:
// the mouse wheel changes a spin box or a combo box only when the user has clicked into it (scrolling
// the configuration dock must not edit the fields it passes over), and a message shown in a panel
// wraps, is cut after a sensible length with "…", and keeps its whole text in the tooltip (a CSV error
// quoting a whole row must not widen the dock past the window).
#pragma once

#include <QString>

class QLabel;
class QWidget;

namespace wb::gui {

// Every QAbstractSpinBox and QComboBox under `root` (now) takes focus only by click or Tab
// (Qt::StrongFocus) and ignores the wheel until focused; an unfocused field passes the wheel on to
// the scroll area around it, which scrolls.
void guardWheel(QWidget* root);

constexpr int kMaxMessageChars = 240;  // about four lines of a narrow dock

// `message` cut after `maxChars` characters with "…" (unchanged when shorter).
QString elideMessage(const QString& message, int maxChars = kMaxMessageChars);

// Shows `message` in `label`: word-wrapped (long runs of separators may break too), elided as
// elideMessage, the whole text as the tooltip; the label never asks for more width than its layout gives.
void showMessage(QLabel* label, const QString& message, int maxChars = kMaxMessageChars);

}  // namespace wb::gui
