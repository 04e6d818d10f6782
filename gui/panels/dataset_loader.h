// Loads data sets off the GUI thread: wb::loadDataset runs on Qt's thread pool and the result comes
// back on the GUI thread through a QFutureWatcher, so opening a large CSV never freezes the window.
#pragma once

#include <QObject>
#include <QString>
#include <memory>

#include "core/data/data_source.h"
#include "core/data/dataset.h"

namespace wb::gui {

class DatasetLoader : public QObject {
    Q_OBJECT

public:
    explicit DatasetLoader(QObject* parent = nullptr);
    ~DatasetLoader() override;  // a load still running finishes unheard (it cannot be interrupted)

    // Starts loading `spec` in the background. Loads may overlap: each success is delivered unless a
    // later request has already delivered its data set, so an old file never replaces a newer one.
    void load(const DataSpec& spec);
    bool busy() const { return pending_ > 0; }

    // "spambase.csv", "built-in (100,000 rows)": what a load is about, in the user's words.
    static QString describe(const DataSpec& spec);

signals:
    void started(const QString& what);
    void loaded(const std::shared_ptr<const wb::Dataset>& dataset, const wb::DataSpec& spec);
    // `message` names file, line, column and the offending text when the core knows them.
    void failed(const QString& message, const wb::DataSpec& spec);
    void busyChanged(bool busy);

private:
    struct Outcome;
    static Outcome run(const DataSpec& spec);
    void deliver(const Outcome& outcome, int request);

    int pending_ = 0;
    int lastRequest_ = 0;
    int lastDelivered_ = 0;
};

}  // namespace wb::gui
