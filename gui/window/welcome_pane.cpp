#include "gui/window/welcome_pane.h"

#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QToolButton>

namespace wb::gui {

namespace {
constexpr const char* kDismissed = "welcome/dismissed";
}

WelcomePane::WelcomePane(QWidget* parent) : QFrame(parent) {
    setObjectName("welcomePane");
    setFrameShape(QFrame::StyledPanel);
    setStyleSheet("#welcomePane { background: #eef4fb; border: 1px solid #b8cde4; border-radius: 4px; }");
    auto* title = new QLabel(
        "<b>Welcome.</b> Why does the same small MLP train many times faster one way than "
        "another? Three steps show it on your machine:");
    title->setWordWrap(true);
    auto* close = new QToolButton;
    close->setText("\u2715");
    close->setToolTip("Hide this for good");
    close->setAutoRaise(true);

    struct Step {
        QString button, text;
    };
    const Step steps[] = {
        {"1. Load data…",
         "a CSV or .npy file of your own, or keep the built-in data set (100,000 rows, "
         "61 features: the founding question's shape), loaded already."},
        {"2. Answer the question",
         "every engine here (our CPU and CUDA backends, PyTorch, Keras, JAX) trains the "
         "seed loop and the fixed loop, and an ablation shows which cause costs the time."},
        {"3. Open runs…",
         "earlier runs (RunRecord files of mlpwb, of the peers' scripts, or of this window), to "
         "overlay and compare."},
    };
    auto* grid = new QGridLayout(this);
    grid->addWidget(title, 0, 0, 1, 2);
    grid->addWidget(close, 0, 2, Qt::AlignRight | Qt::AlignTop);
    int row = 1;
    for (const Step& s : steps) {
        auto* button = new QPushButton(s.button);
        auto* text = new QLabel(s.text);
        text->setWordWrap(true);
        grid->addWidget(button, row, 0);
        grid->addWidget(text, row, 1, 1, 2);
        connect(button, &QPushButton::clicked, this, [this, row] {
            dismiss();
            if (row == 1) emit openDataRequested();
            if (row == 2) emit answerRequested();
            if (row == 3) emit openRunsRequested();
        });
        ++row;
    }
    grid->setColumnStretch(1, 1);
    connect(close, &QToolButton::clicked, this, &WelcomePane::dismiss);
}

bool WelcomePane::wanted() {
    return !QSettings().value(kDismissed, false).toBool();
}

void WelcomePane::dismiss() {
    QSettings().setValue(kDismissed, true);
    hide();
}

}  // namespace wb::gui
