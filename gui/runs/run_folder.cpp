#include "run_folder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QThread>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "epoch_journal.h"
#include "run_store.h"

namespace wb::gui {

namespace {
QString& folderOverride() {
    static QString folder;
    return folder;
}

// One file's runs, or why it could not be read.
struct FileRead {
    QString path;
    std::vector<RunRecord> records;
    QString failure;
};

FileRead readOne(const QString& path) {
    FileRead read{path, {}, {}};
    try {
        read.records = readRunFile(path);
    } catch (const std::exception& e) {  // a damaged or foreign file: say so, keep going
        read.failure = QString("%1: %2").arg(QFileInfo(path).fileName(), QString::fromUtf8(e.what()));
    }
    return read;
}
}  // namespace

QString runFolder() {
    if (!folderOverride().isEmpty()) return folderOverride();
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/runs";
}

void setRunFolder(const QString& folder) {
    folderOverride() = folder;
}

QStringList runFilesIn(const QString& folder) {
    const QDir dir(folder);
    QStringList paths;
    for (const QString& name : dir.entryList({"*.json"}, QDir::Files, QDir::Name)) paths << dir.filePath(name);
    return paths;
}

bool removeRunFiles(const QString& recordPath) {
    bool removed = true;
    const QString journal = QString::fromStdString(EpochJournal::pathFor(recordPath.toStdString()));
    for (const QString& path : {recordPath, journal})
        if (QFileInfo::exists(path)) removed &= QFile::remove(path);
    return removed;
}

RunFolderLoader::RunFolderLoader(QObject* parent) : QObject(parent) {}

RunFolderLoader::~RunFolderLoader() {
    stop_->store(true);
    future_.waitForFinished();
}

void RunFolderLoader::start(const QStringList& paths) {
    if (running_) return;
    running_ = true;
    loaded_ = 0;
    // Only what the thread owns goes in: the paths (a copy), the stop flag and `this` as the
    // context of the queued calls that bring results back (never dereferenced on the thread).
    future_ = QtConcurrent::run([this, paths, stop = stop_] {
        QStringList failures;
        for (qsizetype first = 0; first < paths.size() && !stop->load(); first += kBatchSize) {
            auto batch = std::make_shared<std::vector<LoadedRun>>();
            for (const QString& path : paths.mid(first, kBatchSize)) {
                FileRead read = readOne(path);
                if (!read.failure.isEmpty()) failures << read.failure;
                const bool one = read.records.size() == 1;
                for (RunRecord& record : read.records)
                    batch->push_back({one ? read.path : QString(), std::move(record)});
            }
            QMetaObject::invokeMethod(
                this, [this, batch] { deliver(std::move(*batch)); }, Qt::QueuedConnection);
        }
        if (stop->load()) return;
        QMetaObject::invokeMethod(
            this, [this, failures] { finish(failures); }, Qt::QueuedConnection);
    });
}

void RunFolderLoader::deliver(std::vector<LoadedRun> batch) {
    loaded_ += static_cast<int>(batch.size());
    emit runsLoaded(batch);
}

void RunFolderLoader::finish(QStringList failures) {
    running_ = false;
    emit finished(loaded_, failures);
}

}  // namespace wb::gui
