// Closes the next message box a widget opens (they are modal: a test would wait on them forever)
// and keeps its text, for the GUI suites that check what the user is told.
#pragma once

#include <QApplication>
#include <QMessageBox>
#include <QObject>
#include <QTimer>

class MessageBoxCatcher : public QObject {
public:
    QString text;
    // Call before the action that opens the box.
    void arm() {
        QTimer::singleShot(0, this, [this] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                text = box->text();
                box->close();
            } else {
                arm();  // not shown yet
            }
        });
    }
};
