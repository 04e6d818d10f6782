// The fields the configuration panels build their forms from, made one way: named (for tests and
// settings), with a tooltip, and a spin box that applies its value when editing ends, not at every
// key typed.
#pragma once

#include <QString>

class QCheckBox;
class QSpinBox;

namespace wb::gui {

QSpinBox* intSpin(const QString& name, int min, int max, int value, const QString& tip);
QCheckBox* checkBox(const QString& name, const QString& text, const QString& tip);

}  // namespace wb::gui
