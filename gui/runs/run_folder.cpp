#include "gui/runs/run_folder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>
#include <QStandardPaths>
#include <QThread>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "core/run/epoch_journal.h"
#include "gui/runs/run_store.h"

namespace wb::gui {

namespace {
QString& folderOverride() {
    static QString folder;
    return folder;
}

// Larger files are read whole, by the reader that bounds and explains them.
constexpr qint64 kMaxSkimmedBytes = qint64{64} << 20;

std::optional<SkimmedRun> skimFile(const QString& path) {
    const QFileInfo info(path);
    if (!info.isFile() || info.size() > kMaxSkimmedBytes) return std::nullopt;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return std::nullopt;
    const QByteArray text = file.readAll();
    auto run =
        skimRunRecord(std::string_view(text.constData(), static_cast<std::size_t>(text.size())), path.toStdString());
    if (run && run->head.status == RunStatus::Running) return std::nullopt;  // its epochs are in the journal
    return run;
}

// One file's runs, or why it could not be read.
struct FileRead {
    std::vector<LoadedRun> runs;
    QString failure;
};

FileRead readOne(const QString& path, bool whole) {
    FileRead read;
    try {
        read.runs = readRunsIn(path, whole);
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

std::vector<LoadedRun> readRunsIn(const QString& path, bool whole) {
    std::vector<LoadedRun> runs;
    if (auto skimmed = whole ? std::nullopt : skimFile(path)) {
        runs.push_back({path, std::move(skimmed->head), skimmed->digest});
        return runs;
    }
    std::vector<RunRecord> records = readRunFile(path);
    const bool one = records.size() == 1;
    for (RunRecord& record : records) runs.push_back({one ? path : QString(), std::move(record), std::nullopt});
    return runs;
}

RunFolderLoader::RunFolderLoader(QObject* parent) : QObject(parent) {
    pool_.setMaxThreadCount(1);
}

RunFolderLoader::~RunFolderLoader() {
    stop_->store(true);
    if (room_) room_->release(kBatchesAhead);  // a reader waiting for room sees the stop
    future_.waitForFinished();
}

void RunFolderLoader::start(const QStringList& paths, const QStringList& whole) {
    if (running_) return;
    running_ = true;
    loaded_ = 0;
    // Only what the thread owns goes in: the paths (a copy), the stop flag and `this` as the
    // context of the queued calls that bring results back (never dereferenced on the thread).
    const QSet<QString> wholeSet(whole.begin(), whole.end());
    room_ = std::make_shared<QSemaphore>(kBatchesAhead);
    future_ = QtConcurrent::run(&pool_, [this, paths, wholeSet, stop = stop_, room = room_] {
        QStringList failures;
        for (qsizetype first = 0; first < paths.size() && !stop->load(); first += kBatchSize) {
            room->acquire();
            if (stop->load()) return;
            auto batch = std::make_shared<std::vector<LoadedRun>>();
            for (const QString& path : paths.mid(first, kBatchSize)) {
                FileRead read = readOne(path, wholeSet.contains(path));
                if (!read.failure.isEmpty()) failures << read.failure;
                for (LoadedRun& run : read.runs) batch->push_back(std::move(run));
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
    room_->release();
}

void RunFolderLoader::finish(QStringList failures) {
    running_ = false;
    emit finished(loaded_, failures);
}

}  // namespace wb::gui
