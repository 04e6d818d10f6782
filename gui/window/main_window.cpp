#include "gui/window/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QVBoxLayout>

#include "core/platform/errors.h"
#include "core/run/backend.h"
#include "core/run/memory_budget.h"
#include "core/run/run_naming.h"
#include "gui/answer/answer_view.h"
#include "gui/charts/breakdown_chart.h"
#include "gui/charts/chart_controls.h"
#include "gui/charts/confusion_view.h"
#include "gui/charts/metric_chart.h"
#include "gui/charts/speedup_chart.h"
#include "gui/charts/waterfall_chart.h"
#include "gui/panels/data_panel.h"
#include "gui/panels/editor_escape_filter.h"
#include "gui/panels/execution_panel.h"
#include "gui/panels/field_guard.h"
#include "gui/panels/model_panel.h"
#include "gui/runs/run_folder.h"
#include "gui/runs/run_repeats.h"
#include "gui/runs/run_store.h"
#include "gui/runs/runs_table_view.h"
#include "gui/sweeps/sweeps_view.h"
#include "gui/training/ablation_tab.h"
#include "gui/training/queue_binding.h"
#include "gui/training/queue_panel.h"
#include "gui/training/training_controller.h"
#include "gui/window/about_dialog.h"
#include "gui/window/welcome_pane.h"

namespace wb::gui {

namespace {
// The runs dock's first height in pixels: the filter, the header, six rows and the buttons.
constexpr int kRunsDockHeight = 300;

QString formatEta(double ms) {
    const auto s = static_cast<long long>(ms / 1000.0 + 0.5);
    return QString("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QChar('0'));
}
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle("MLP Workbench");
    setWindowIcon(QIcon(":/icons/mlp-workbench.svg"));
    store_ = new RunStore(this);
    controller_ = new TrainingController(this);
    buildCharts();
    buildDocks();
    buildActions();
    buildMenus();
    connectTraining();
    setAcceptDrops(true);
    new EditorEscapeFilter(this);  // Esc in a text field is the field's, not Stop's
    // Below this the configuration dock, the charts' axes and the runs table's buttons overlap.
    setMinimumSize(1024, 680);
    restoreSettings();
    restoreRuns();
    dataPanel_->loadBuiltin();  // so the first Run works with no file
    showBackendLabel();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildCharts() {
    tabs_ = new QTabWidget(this);
    lossChart_ = new MetricChart(store_, MetricChart::Kind::Loss, tabs_);
    accuracyChart_ = new MetricChart(store_, MetricChart::Kind::Accuracy, tabs_);
    timeChart_ = new MetricChart(store_, MetricChart::Kind::EpochTime, tabs_);
    breakdownChart_ = new BreakdownChart(store_, tabs_);
    speedupChart_ = new SpeedupChart(store_, tabs_);
    tabs_->addTab(lossChart_, "Loss");
    tabs_->addTab(accuracyChart_, "Accuracy / R\u00b2");
    tabs_->addTab(timeChart_, "Epoch time");
    tabs_->addTab(breakdownChart_, "Time breakdown");
    tabs_->addTab(speedupChart_, "Speedup");
    // Smoothing, x axis, log scales, legend and zoom of the three metric charts: one row at the top of
    // whichever of them the tabs show (in the toolbar they sat behind its "»" at 1,280 and 1,400 px).
    auto* chartControls = new ChartControls;
    for (auto* chart : {lossChart_, accuracyChart_, timeChart_}) chartControls->addChart(chart);
    chartControls->followTabs(tabs_);
    confusionView_ = new ConfusionView(store_, tabs_);
    tabs_->addTab(confusionView_, "Confusion");
    ablationTab_ = new AblationTab(controller_, tabs_);
    tabs_->addTab(ablationTab_, "Ablation");
    sweepsView_ = new SweepsView(tabs_);
    tabs_->addTab(sweepsView_, "Sweeps");
    // First: the one-click answer to the question the workbench exists for.
    answerView_ = new AnswerView(controller_, tabs_);
    tabs_->insertTab(0, answerView_, "Answer");
    tabs_->setCurrentIndex(0);
    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    if (WelcomePane::wanted()) {
        auto* welcome = new WelcomePane;
        layout->addWidget(welcome);
        connect(welcome, &WelcomePane::openDataRequested, this, &MainWindow::openData);
        connect(welcome, &WelcomePane::answerRequested, this, &MainWindow::answerQuestion);
        connect(welcome, &WelcomePane::openRunsRequested, this, &MainWindow::openRuns);
    }
    layout->addWidget(tabs_, 1);
    setCentralWidget(central);
}

void MainWindow::buildDocks() {
    buildConfigurationDock();
    QDockWidget* runsDock = buildRunsDock();
    buildQueueDock(runsDock);
    connectPanels();
}

void MainWindow::buildConfigurationDock() {
    auto* config = new QWidget;
    auto* layout = new QVBoxLayout(config);
    dataPanel_ = new DataPanel;
    modelPanel_ = new ModelPanel;
    executionPanel_ = new ExecutionPanel;
    layout->addWidget(dataPanel_);
    layout->addWidget(modelPanel_);
    layout->addWidget(executionPanel_);
    layout->addStretch();
    auto* scroll = new QScrollArea;
    scroll->setWidget(config);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* configDock = new QDockWidget("Configuration", this);
    configDock->setObjectName("configurationDock");
    configDock->setWidget(scroll);
    configDock->setMinimumWidth(340);
    addDockWidget(Qt::LeftDockWidgetArea, configDock);
}

QDockWidget* MainWindow::buildRunsDock() {
    runsView_ = new RunsTableView(store_);
    auto* runsDock = new QDockWidget("Runs", this);
    runsDock->setObjectName("runsDock");
    runsDock->setWidget(runsView_);
    addDockWidget(Qt::BottomDockWidgetArea, runsDock);
    confusionView_->followSelection(runsView_);
    connect(runsView_, &RunsTableView::exported, this,
            [this](const QString& message) { statusBar()->showMessage(message, 10000); });
    return runsDock;
}

// The queue beside the runs table: what trains now and what waits.
void MainWindow::buildQueueDock(QDockWidget* runsDock) {
    auto* queueDock = new QDockWidget("Queue", this);
    queueDock->setObjectName("queueDock");
    queueDock->setWidget(new QueuePanel(controller_, store_));
    addDockWidget(Qt::BottomDockWidgetArea, queueDock);
    splitDockWidget(runsDock, queueDock, Qt::Horizontal);
    resizeDocks({runsDock, queueDock}, {1200, 240}, Qt::Horizontal);  // pixels, as a ratio
    // Six runs' rows under the filter and above the buttons (at 1,280 x 800 too), so a new run shows.
    resizeDocks({runsDock}, {kRunsDockHeight}, Qt::Vertical);
}

// The panels and the tabs that read them, and where their messages go.
void MainWindow::connectPanels() {
    ablationTab_->setSources([this] { return currentConfig(); }, [this] { return dataPanel_->dataset(); });
    sweepsView_->setBaseConfig([this] { return currentConfig(); });
    answerView_->setSources([this] { return currentConfig(); }, [this] { return dataPanel_->dataset(); });
    connect(answerView_, &AnswerView::status, this, [this](const QString& m) { statusBar()->showMessage(m, 15000); });
    connect(answerView_, &AnswerView::reportRequested, this, &MainWindow::exportReport);
    connect(sweepsView_, &SweepsView::overlayRequested, this, &MainWindow::overlayRuns);
    connect(sweepsView_, &SweepsView::status, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });
    connect(dataPanel_, &DataPanel::datasetChanged, this, [this](const std::shared_ptr<const Dataset>& ds) {
        if (ds) modelPanel_->setDataset(*ds);
    });
    // The task decides how the label column is read: a new choice reloads the data (DataSpec::task).
    connect(modelPanel_, &ModelPanel::taskChoiceChanged, dataPanel_, &DataPanel::setTaskChoice);
    connect(executionPanel_, &ExecutionPanel::changed, this, &MainWindow::showBackendLabel);  // backend and device
    // A load error shows in the Data panel, which may be scrolled out of view: the status bar says it
    // too, and a file the user opened gets a dialog.
    connect(dataPanel_, &DataPanel::loadFailed, this, [this](const QString& message) {
        statusBar()->showMessage("Data not loaded: " + elideMessage(message), 15000);
    });
    connect(dataPanel_, &DataPanel::fileOpenFailed, this, [this](const QString& path, const QString& message) {
        auto* box = new QMessageBox(QMessageBox::Warning, "Cannot open data",
                                    QString("%1\n\n%2").arg(QFileInfo(path).fileName(), elideMessage(message, 600)),
                                    QMessageBox::Ok, this);
        box->setDetailedText(message);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
}

void MainWindow::buildActions() {
    auto* bar = addToolBar("Main");
    bar->setObjectName("mainToolBar");
    auto add = [&](const QString& text, const QKeySequence& key, auto slot, const QString& tip) {
        auto* action = bar->addAction(text, this, slot);
        action->setShortcut(key);
        action->setToolTip(QString("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
        return action;
    };
    add("Open data…", QKeySequence("Ctrl+O"), &MainWindow::openData, "Open a CSV or .npy data set")
        ->setObjectName("openDataAction");
    add("Open runs…", QKeySequence("Ctrl+Shift+O"), &MainWindow::openRuns, "Open RunRecord JSON files")
        ->setObjectName("openRunsAction");
    bar->addSeparator();
    add("Run", QKeySequence("Ctrl+R"), &MainWindow::runCurrent, "Train the current configuration");
    add("Compare", QKeySequence("Ctrl+Shift+R"), &MainWindow::compare,
        "Train the 'Seed PyTorch loop' and 'Fastest' presets on the same data, model and seed");
    add("Answer the question", QKeySequence("Ctrl+Shift+A"), &MainWindow::answerQuestion,
        "Every engine here: the seed loop, the fixed loop and the ablation between them, and the conclusion")
        ->setObjectName("answerAction");
    add("Stop", QKeySequence(Qt::Key_Escape), &MainWindow::stop, "Stop the current run (marked cancelled)");
    add("Clear queue", QKeySequence(), &MainWindow::clearQueue, "Drop the runs that have not started");
    bar->addSeparator();
    add("Export chart…", QKeySequence("Ctrl+E"), &MainWindow::exportChart, "Export the chart shown")
        ->setObjectName("exportChartAction");
    add("Export data…", QKeySequence(), &MainWindow::exportRunData, "Export the selected runs' epochs");
    bar->addSeparator();

    backendLabel_ = new QLabel;
    runLabel_ = new QLabel;
    statusBar()->addWidget(runLabel_, 1);
    statusBar()->addPermanentWidget(backendLabel_);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu("&File");
    // The toolbar's actions themselves: a second action with the same shortcut would make the
    // shortcut ambiguous, and Qt then fires neither.
    file->addAction(findChild<QAction*>("openDataAction"));
    recentMenu_ = file->addMenu("Recent data");
    file->addAction(findChild<QAction*>("openRunsAction"));
    file->addAction("Open sweep…", this,
                    [this] {
                        tabs_->setCurrentWidget(sweepsView_);
                        sweepsView_->openSweepDialog();
                    })
        ->setObjectName("openSweepAction");
    file->addAction("New sweep…", this,
                    [this] {
                        tabs_->setCurrentWidget(sweepsView_);
                        sweepsView_->newSweep();
                    })
        ->setObjectName("newSweepAction");
    file->addSeparator();
    file->addAction(findChild<QAction*>("exportChartAction"));
    file->addAction("Export run data…", this, &MainWindow::exportRunData);
    file->addAction(runsView_->pytorchAction());  // acts on the run selected in the runs table
    file->addAction("Export report…", this, &MainWindow::exportReport)->setObjectName("exportReportAction");
    file->addSeparator();
    file->addAction("Quit", QKeySequence::Quit, this, &QWidget::close);
    refreshRecentMenu();

    // Every dock and toolbar can be closed; this is where they come back.
    QMenu* view = menuBar()->addMenu("&View");
    view->setObjectName("viewMenu");
    for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    view->addSeparator();
    for (QToolBar* bar : findChildren<QToolBar*>()) view->addAction(bar->toggleViewAction());

    QMenu* help = menuBar()->addMenu("&Help");
    help->addAction("About MLP Workbench…", this, &MainWindow::showAbout)->setObjectName("aboutAction");
}

void MainWindow::showAbout() {
    auto* about = new AboutDialog(this);
    about->setAttribute(Qt::WA_DeleteOnClose);
    about->open();
}

void MainWindow::restoreRuns() {
    const QStringList files = runFilesIn(runFolder());  // oldest first
    // The newest runs come back in the charts too; the older ones in the table, unticked (Show all
    // brings them): a chart of a thousand curves is unreadable and slow to draw.
    const QStringList charted = files.mid(std::max<qsizetype>(0, files.size() - kChartedAtStart));
    runLoader_ = new RunFolderLoader(this);
    // The charted ones are read whole; the others skimmed, their epochs read when shown.
    connect(runLoader_, &RunFolderLoader::runsLoaded, this, [this, charted](const std::vector<LoadedRun>& runs) {
        for (const LoadedRun& run : runs)
            if (run.digest)
                store_->addSkimmed({run.record, *run.digest}, run.path);
            else
                store_->addRecord(run.record, run.path, charted.contains(run.path));
    });
    connect(store_, &RunStore::epochsUnreadable, this, [this](int id, const QString& reason) {
        const RunEntry* run = store_->find(id);
        statusBar()->showMessage(QString("Cannot show %1: %2").arg(run ? run->name : QString(), reason), 15000);
    });
    connect(runLoader_, &RunFolderLoader::finished, this, [this](int loaded, const QStringList& failures) {
        if (loaded == 0 && failures.isEmpty()) return;
        QString text = QString("Restored %1 run(s) from %2").arg(loaded).arg(QDir::toNativeSeparators(runFolder()));
        if (!failures.isEmpty())
            text += QString("; %1 file(s) could not be read: %2").arg(failures.size()).arg(failures.join("; "));
        statusBar()->showMessage(text, 15000);
    });
    runLoader_->start(files, charted);
}

bool MainWindow::restoringRuns() const {
    return runLoader_ && runLoader_->running();
}

void MainWindow::rememberRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value("data/recent").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 8) recent.removeLast();
    settings.setValue("data/recent", recent);
    refreshRecentMenu();
}

void MainWindow::refreshRecentMenu() {
    recentMenu_->clear();
    const QStringList recent = QSettings().value("data/recent").toStringList();
    for (const QString& path : recent) recentMenu_->addAction(path, this, [this, path] { dataPanel_->openFile(path); });
    recentMenu_->setEnabled(!recent.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    QStringList runs;
    for (const QUrl& url : event->mimeData()->urls()) {
        const QString path = url.toLocalFile();
        if (path.endsWith(".json", Qt::CaseInsensitive)) {
            runs << path;
        } else if (!path.isEmpty()) {
            dataPanel_->openFile(path);
            rememberRecent(path);
        }
    }
    openRunFiles(runs);
}

void MainWindow::connectTraining() {
    connect(controller_, &TrainingController::epochsFinished, this, [this](int id, const QList<EpochMetrics>& batch) {
        store_->appendEpochs(id, batch);
        const RunEntry* run = store_->find(id);
        if (!run || batch.isEmpty()) return;
        const EpochMetrics& m = batch.back();
        const int total = run->plannedEpochs();
        const double eta = m.elapsedMs / m.epoch * (total - m.epoch);
        runLabel_->setText(QString("%1: epoch %2/%3, %4 ms/epoch, ETA %5")
                               .arg(run->name)
                               .arg(m.epoch)
                               .arg(total)
                               .arg(m.wallMs, 0, 'f', 2)
                               .arg(formatEta(eta)));
    });
    connect(controller_, &TrainingController::runFinished, this, [this](int id, const RunRecord& record) {
        store_->finish(id, record);
        const RunEntry* run = store_->find(id);
        QString text = QString("%1: %2").arg(run ? run->name : QString::number(id),
                                             QString::fromStdString(toString(record.status)));
        if (!record.message.empty()) text += " — " + QString::fromStdString(record.message);
        runLabel_->setText(text);
    });
    connect(controller_, &TrainingController::queueChanged, this, &MainWindow::showBackendLabel);
    connect(controller_, &TrainingController::queueChanged, this, [this] {  // a run (or ablation) began
        if (controller_->currentRun() == clockedRun_) return;
        clockedRun_ = controller_->currentRun();
        runClock_.start();
    });
    linkQueueToStore(*controller_, *store_);
}

RunConfig MainWindow::currentConfig() const {
    RunConfig c;
    c.model = modelPanel_->modelSpec();
    c.optimizer = modelPanel_->optimizerSpec();
    c.train = modelPanel_->trainSpec();
    c.data = dataPanel_->dataSpec();
    c.prepare = dataPanel_->prepareSpec(c.train.seed);
    c.execution = executionPanel_->settings();
    c.backend = executionPanel_->backend().toStdString();
    c.framework = executionPanel_->frameworkOptions();
    c.threads = executionPanel_->threads();
    c.name = defaultRunName(c);  // the preset, the backend and what else differs: legends tell runs apart
    return c;
}

QString MainWindow::newRecordPath(int id) const {
    const QString dir = runFolder();  // where the next start-up restores runs from
    QDir().mkpath(dir);
    return QString("%1/%2-run%3.json").arg(dir, QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss")).arg(id);
}

void MainWindow::refuse(const QString& title, const QString& why) {
    statusBar()->showMessage(title + ": " + elideMessage(why), 15000);
    auto* box = new QMessageBox(QMessageBox::Warning, title, elideMessage(why, 600), QMessageBox::Ok, this);
    box->setDetailedText(why.size() > 600 ? why : QString());
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();  // not exec(): a refusal must not stop the event loop (nor a test)
}

bool MainWindow::queueRun(RunConfig config) {
    const auto dataset = dataPanel_->dataset();
    if (!dataset) {
        refuse("No data", "Load a data set first.");
        return false;
    }
    try {
        config.validate();
        // Refused here, where the user pressed Run, before the worker prepares a copy of the rows.
        checkRunFits(config, shapeOf(config, *dataset), MemoryStage::BeforePrepare, "this run");
    } catch (const Error& e) {
        refuse("Cannot run this configuration", e.what());
        return false;
    }
    const int id = store_->addPending(config);
    const QString path = newRecordPath(id);
    store_->setPath(id, path);
    controller_->enqueue({id, std::move(config), dataset, TrainJob{path}});
    return true;
}

void MainWindow::queueRepeats(std::vector<RunConfig> configs, int repeats) {
    if (const QString why = modelPanel_->invalidReason(); !why.isEmpty()) {
        refuse("Cannot run this configuration", why);
        return;
    }
    // Run trains what the Data panel shows: an edit not yet loaded (built-in chosen without Load, a new
    // label column) is loaded first; if it cannot be, nothing trains on the old data in its place.
    dataPanel_->whenShownLoaded(
        [this, configs = std::move(configs), repeats] {
            QStringList taken;
            for (const RunEntry& run : store_->runs()) taken << run.name;
            std::vector<RunConfig> withData;
            for (RunConfig config : configs) {
                const bool defaultName = config.name == defaultRunName(config);
                config.data = dataPanel_->dataSpec();  // what was loaded, now that it is what the panel shows
                // The loaded data's task joins a default name ("Fastest · regression"), so runs of
                // different tasks tell apart in the table and legends.
                if (const auto loaded = dataPanel_->dataset(); loaded && defaultName)
                    config.name = defaultRunName(config, *loaded);
                withData.push_back(std::move(config));
            }
            for (RunConfig& config : planRepeats(withData, repeats, taken))
                if (!queueRun(std::move(config))) return;
        },
        [this](const QString& message) {
            refuse("Run refused", "the data the Data panel shows cannot be loaded: " + message);
        });
}

void MainWindow::runCurrent() {
    if (!executionPanel_->valid()) {
        refuse("Cannot run this combination", executionPanel_->invalidReason());
        return;
    }
    queueRepeats({currentConfig()}, executionPanel_->runRepeats());
}

void MainWindow::compare() {
    std::vector<RunConfig> configs;
    for (const char* preset : {"Seed PyTorch loop", "Fastest"}) {
        RunConfig c = currentConfig();
        c.execution = presetByName(preset).settings;
        c.name = defaultRunName(c);
        configs.push_back(c);
    }
    queueRepeats(std::move(configs), executionPanel_->compareRepeats());
}

void MainWindow::stop() {
    const auto id = controller_->currentRun();
    if (!id) return;
    if (runClock_.isValid() && runClock_.elapsed() >= kStopWithoutAskingMs) {
        const RunEntry* run = store_->find(*id);
        const QString name = run ? QString("'%1'").arg(run->name) : QString("the current run");
        const auto answer = QMessageBox::question(
            this, "Stop run", QString("Stop %1? It is kept, marked cancelled, with the epochs it finished.").arg(name),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
        if (answer != QMessageBox::Yes || controller_->currentRun() != id) return;  // or it ended meanwhile
    }
    controller_->stopCurrent();
}

void MainWindow::clearQueue() {
    controller_->clearQueue();
}

void MainWindow::openData() {
    const QString path =
        QFileDialog::getOpenFileName(this, "Open data", QString(), "Data (*.csv *.tsv *.txt *.npy);;All files (*)");
    if (path.isEmpty()) return;
    dataPanel_->openFile(path);
    rememberRecent(path);
}

void MainWindow::openRuns() {
    // Starts where the workbench writes its runs: the one folder every run of every session is in.
    openRunFiles(QFileDialog::getOpenFileNames(this, "Open runs", runFolder(), "Run records (*.json)"));
}

void MainWindow::openSweep(const QString& dir) {
    tabs_->setCurrentWidget(sweepsView_);
    sweepsView_->openSweep(dir);
}

void MainWindow::overlayRuns(const QStringList& paths) {
    for (const QString& path : paths) {
        const RunEntry* open = nullptr;
        for (const RunEntry& run : store_->runs())
            if (run.path == path) open = &run;
        if (open && open->record.status != RunStatus::Running) {
            store_->setVisible(open->id, true);
            continue;
        }
        if (open) store_->remove(open->id);  // it was still training when opened: read it again
        try {
            store_->addAllFromFile(path);
        } catch (const Error& e) {
            statusBar()->showMessage(QString("Cannot show %1: %2").arg(path, e.what()), 8000);
        }
    }
}

void MainWindow::openRunFiles(const QStringList& paths) {
    for (const QString& path : paths) {
        try {
            store_->addAllFromFile(path);
        } catch (const Error& e) {
            QMessageBox::warning(this, "Cannot open run", e.what());
        }
    }
}

void MainWindow::openAnswer(const QString& path) {
    tabs_->setCurrentWidget(answerView_);
    try {
        answerView_->loadAnswer(path);
    } catch (const Error& e) {
        QMessageBox::warning(this, "Cannot open the answer", e.what());
    }
}

void MainWindow::answerQuestion() {
    tabs_->setCurrentWidget(answerView_);
    if (!answerView_->running()) answerView_->start();
}

void MainWindow::showBackendLabel() {
    // The panel's latest answer from the registry: asking it here would run the probes (a framework
    // backend's imports its framework) on the GUI thread.
    QString backend = executionPanel_->backend();
    if (const QString device = executionPanel_->backendDevice(); !device.isEmpty())
        backend = device.startsWith(backend + " ") ? device : backend + " / " + device;  // "torch 1.13.1 (cpu)"
    QString queued = controller_->queued() > 0 ? QString(", %1 queued").arg(controller_->queued()) : QString();
    backendLabel_->setText(QString("Backend: %1%2").arg(backend, queued));
}

void MainWindow::restoreSettings() {
    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    const QByteArray last = settings.value("config/last").toByteArray();
    if (last.isEmpty()) return;
    try {
        const RunConfig c = nlohmann::json::parse(last.toStdString()).get<RunConfig>();
        modelPanel_->setModelSpec(c.model);
        modelPanel_->setOptimizerSpec(c.optimizer);
        modelPanel_->setTrainSpec(c.train);
        executionPanel_->setSettings(c.execution);
        executionPanel_->setFrameworkOptions(c.framework);  // device and knobs; the interpreter is its own setting
        executionPanel_->setBackend(QString::fromStdString(c.backend));
        executionPanel_->setThreads(c.threads);
        dataPanel_->setPrepareSpec(c.prepare);
        dataPanel_->setDataSpec(c.data);  // the built-in rows and seed, the CSV options, the last file
        modelPanel_->setTaskChoice(c.data.task);
    } catch (const std::exception&) {
        // A setting from another version: keep the defaults rather than fail at start-up.
    }
}

void MainWindow::saveSettings() const {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    const nlohmann::json config = currentConfig();
    settings.setValue("config/last", QByteArray::fromStdString(config.dump()));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveSettings();
    controller_->clearQueue();
    controller_->stopCurrent();
    event->accept();
}

}  // namespace wb::gui
