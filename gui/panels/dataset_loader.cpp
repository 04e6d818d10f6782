#include "gui/panels/dataset_loader.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QLocale>
#include <QtConcurrent/QtConcurrentRun>
#include <new>

#include "core/platform/errors.h"

namespace wb::gui {

// What one background load produced: a data set or the words for why not.
struct DatasetLoader::Outcome {
    DataSpec spec;
    std::shared_ptr<const Dataset> dataset;
    QString error;
};

namespace {

// The file's name rather than its full path keeps the message readable in a narrow panel; the
// line, column and text are what the user needs to find the problem.
QString describeDataError(const DataError& e) {
    QString where = QFileInfo(QString::fromStdString(e.file())).fileName();
    if (e.line() > 0) where += QString(", line %1").arg(e.line());
    if (e.column() > 0) where += QString(", column %1").arg(e.column());
    QString message = where + ": " + QString::fromStdString(e.reason());
    if (!e.text().empty()) message += QString(" ('%1')").arg(QString::fromStdString(e.text()).left(60));
    return message;
}

}  // namespace

DatasetLoader::DatasetLoader(QObject* parent) : QObject(parent) {}

// A load still running when the loader goes away finishes on the pool and is dropped: the task
// owns copies of everything it touches, so nothing dangles.
DatasetLoader::~DatasetLoader() = default;

QString DatasetLoader::describe(const DataSpec& spec) {
    if (spec.kind == DataSpec::Kind::Builtin)
        return QString("built-in data (%1 rows)").arg(QLocale().toString(static_cast<qulonglong>(spec.rows)));
    QString name = QFileInfo(QString::fromStdString(spec.path)).fileName();
    if (!spec.labelsPath.empty()) name += " + " + QFileInfo(QString::fromStdString(spec.labelsPath)).fileName();
    return name;
}

DatasetLoader::Outcome DatasetLoader::run(const DataSpec& spec) {
    // Exceptions must not cross the thread boundary: every failure becomes a message.
    try {
        return {spec, std::make_shared<const Dataset>(loadDataset(spec)), {}};
    } catch (const DataError& e) {
        return {spec, nullptr, describeDataError(e)};
    } catch (const std::bad_alloc&) {
        return {spec, nullptr, describe(spec) + ": not enough memory to load this data set"};
    } catch (const std::exception& e) {
        return {spec, nullptr, QString::fromStdString(e.what())};
    }
}

void DatasetLoader::load(const DataSpec& spec) {
    const int request = ++lastRequest_;
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, request] {
        deliver(watcher->result(), request);
        watcher->deleteLater();
    });
    if (pending_++ == 0) emit busyChanged(true);
    emit started(describe(spec));
    watcher->setFuture(QtConcurrent::run([spec] { return run(spec); }));
}

void DatasetLoader::deliver(const Outcome& outcome, int request) {
    if (--pending_ == 0) emit busyChanged(false);
    if (outcome.dataset) {
        // A slow old load that finishes after a newer one has been shown is dropped.
        if (request < lastDelivered_) return;
        lastDelivered_ = request;
        emit loaded(outcome.dataset, outcome.spec);
    } else if (request == lastRequest_) {
        // Errors of superseded requests would only confuse: the user has moved on.
        emit failed(outcome.error, outcome.spec);
    }
}

}  // namespace wb::gui
