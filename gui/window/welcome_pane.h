// The first five minutes: a short pane above the charts on first start, with the three things to
// do (load data or keep the built-in set, answer the question, open earlier runs). Closing it, or
// doing any of the three, hides it for good (QSettings "welcome/dismissed").
#pragma once

#include <QFrame>

namespace wb::gui {

class WelcomePane : public QFrame {
    Q_OBJECT

public:
    explicit WelcomePane(QWidget* parent = nullptr);
    // Whether it still has to be shown (it was never dismissed).
    static bool wanted();

signals:
    void openDataRequested();
    void answerRequested();
    void openRunsRequested();

private:
    void dismiss();
};

}  // namespace wb::gui
