#include "gui/panels/form_widgets.h"

#include <QCheckBox>
#include <QSpinBox>

namespace wb::gui {

QSpinBox* intSpin(const QString& name, int min, int max, int value, const QString& tip) {
    auto* spin = new QSpinBox;
    spin->setObjectName(name);
    spin->setRange(min, max);
    spin->setValue(value);
    spin->setGroupSeparatorShown(true);
    spin->setKeyboardTracking(false);
    spin->setToolTip(tip);
    return spin;
}

QCheckBox* checkBox(const QString& name, const QString& text, const QString& tip) {
    auto* check = new QCheckBox(text);
    check->setObjectName(name);
    check->setToolTip(tip);
    return check;
}

}  // namespace wb::gui
