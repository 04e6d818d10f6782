#include "gui/answer/answer_view.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/platform/errors.h"
#include "frameworks/fixed_loop_script.h"
#include "gui/answer/answer_chart.h"
#include "gui/answer/shares_chart.h"
#include "gui/answer/what_was_measured.h"
#include "gui/charts/waterfall_chart.h"
#include "gui/runs/pytorch_export.h"
#include "gui/training/training_controller.h"

namespace wb::gui {

namespace {
QString duration(double seconds) {
    if (seconds < 90) return QString("%1 s").arg(std::max(1.0, seconds), 0, 'f', 0);
    return QString("%1 min").arg(seconds / 60, 0, 'f', 0);
}
}  // namespace

AnswerView::AnswerView(TrainingController* controller, QWidget* parent) : QWidget(parent), controller_(controller) {
    QHBoxLayout* controls = buildControls();
    buildStatusLines();
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(buildCharts());
    split->addWidget(buildConclusionBox());
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(progress_);
    layout->addWidget(status_);
    layout->addWidget(split, 1);

    connectSignals();
    updateButtons();
}

QHBoxLayout* AnswerView::buildControls() {
    auto* controls = new QHBoxLayout;
    startButton_ = new QPushButton("Answer the question");
    startButton_->setObjectName("answerStartButton");
    startButton_->setToolTip(
        "On the loaded data and the current model: every engine here (cpu, cuda, PyTorch, "
        "Keras, JAX), its seed loop, its fixed loop and the ablation between them");
    stopButton_ = new QPushButton("Stop");
    const AnswerPlan defaults;
    buildPlanBoxes(defaults);
    buildAttributionMenu(defaults);
    controls->addWidget(startButton_);
    controls->addWidget(stopButton_);
    for (QWidget* w : std::initializer_list<QWidget*>{repeats_, epochs_, target_, budget_, attribution_})
        controls->addWidget(w);
    controls->addStretch();
    return controls;
}

void AnswerView::buildPlanBoxes(const AnswerPlan& defaults) {
    repeats_ = new QSpinBox;
    repeats_->setRange(1, 20);
    repeats_->setValue(defaults.repeats);
    repeats_->setToolTip(
        "Rounds at least (every step once per round): the spread that says whether a difference is real");
    target_ = new QDoubleSpinBox;
    target_->setObjectName("answerTarget");
    target_->setRange(0.5, 50);
    target_->setDecimals(1);
    target_->setSuffix(" %");
    target_->setValue(defaults.target * 100);
    target_->setToolTip("More rounds until every median is known to this (its 95 % interval), within the budget");
    budget_ = new QSpinBox;
    budget_->setObjectName("answerBudget");
    budget_->setRange(0, 3600);
    budget_->setSuffix(" s");
    budget_->setValue(static_cast<int>(defaults.budgetSeconds));
    budget_->setToolTip("Seconds each engine may spend on rounds beyond Repeats (0: none)");
    epochs_ = new QSpinBox;
    epochs_->setRange(2, 1000);
    epochs_->setValue(defaults.epochs);
    epochs_->setToolTip("Epochs per run (the first is the warm-up): the epoch times are the question");
    // The plan's figures say what they are in their own boxes: one row fits beside the buttons.
    repeats_->setPrefix("repeats ");
    epochs_->setPrefix("epochs ");
    target_->setPrefix("target \u00b1");
    budget_->setPrefix("budget ");
}

// The attribution beyond one order of the fixes, as mlpwb answer's --alone, --leave-one-out and
// --no-shapley: a menu, so that the row of the plan's boxes still fits a small window.
void AnswerView::buildAttributionMenu(const AnswerPlan& defaults) {
    attribution_ = new QToolButton;
    attribution_->setObjectName("answerAttribution");
    attribution_->setText("Attribution");
    attribution_->setPopupMode(QToolButton::InstantPopup);
    attribution_->setToolTip("What each engine measures beyond the fixes in one order");
    auto* attributionMenu = new QMenu(attribution_);
    const auto addChoice = [&](const QString& text, const QString& tip, bool on) {
        QAction* action = attributionMenu->addAction(text);
        action->setCheckable(true);
        action->setChecked(on);
        action->setToolTip(tip);
        return action;
    };
    shapley_ = addChoice("Shapley values where the budget allows",
                         "Every combination of the fixes an engine honours (at most 4, in half the budget): each "
                         "fix's saving over every order",
                         defaults.shapley);
    eachFixAlone_ =
        addChoice("Each fix alone", "Each fix on top of the seed loop: a run per fix and round", defaults.alone);
    leaveOneOut_ = addChoice("Leave one out",
                             "Every fix but one, for each: what each saves on top of the others; a run per fix and "
                             "round",
                             defaults.leaveOneOut);
    attributionMenu->setToolTipsVisible(true);
    attribution_->setMenu(attributionMenu);
}

void AnswerView::buildStatusLines() {
    progress_ = new QProgressBar;
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->hide();  // while an answer is measured
    status_ = new QLabel(
        "The founding question on this machine: why is one way of training the same MLP many "
        "times faster than another?");
    status_->setWordWrap(true);
    conclusion_ = new QTextBrowser;  // read-only, selectable, and it scrolls where the lines are many
    conclusion_->setObjectName("answerConclusion");
    conclusion_->setFrameShape(QFrame::NoFrame);
}

QSplitter* AnswerView::buildCharts() {
    chart_ = new AnswerChart;
    auto* charts = new QSplitter(Qt::Horizontal);
    charts->addWidget(chart_);
    charts->addWidget(buildAblationBox());
    charts->setSizes({450, 550});  // a waterfall has a bar per fix: it needs the room more
    return charts;
}

QWidget* AnswerView::buildAblationBox() {
    waterfall_ = new WaterfallChart;
    waterfall_->setPlaceholder("No answer yet: press \u201cAnswer the question\u201d, or open an answer file");
    shares_ = new SharesChart;
    engineChoice_ = new QComboBox;
    engineChoice_->setToolTip(
        "Whose ablation: what each fix saved on that engine in the order applied, and each one's share "
        "of the gap with its interval");
    auto* waterfallBox = new QWidget;
    auto* waterfallLayout = new QVBoxLayout(waterfallBox);
    waterfallLayout->setContentsMargins(0, 0, 0, 0);
    auto* choiceRow = new QFormLayout;
    choiceRow->addRow("Ablation on", engineChoice_);
    waterfallLayout->addLayout(choiceRow);
    // Side by side, one tab each: at the window's default size two charts beside the engines' would
    // leave each too narrow for its labels. What the rounds can tell first, one order's picture beside it.
    auto* ablationCharts = new QTabWidget;
    ablationCharts->setObjectName("answerAblationCharts");
    ablationCharts->setDocumentMode(true);
    ablationCharts->addTab(shares_, "Shares of the gap (95 % intervals)");
    ablationCharts->addTab(waterfall_, "Waterfall (one order of the fixes)");
    waterfallLayout->addWidget(ablationCharts, 1);
    return waterfallBox;
}

// What to do with the answer, under it: its file, the report, and the loop the conclusion
// recommends (the controls' row holds the plan; at 1,280 px beside the configuration dock it has
// no room for more).
QWidget* AnswerView::buildConclusionBox() {
    openButton_ = new QPushButton("Open answer…");
    saveButton_ = new QPushButton("Save answer…");
    reportButton_ = new QPushButton("Export report…");
    reportButton_->setToolTip(
        "The answer as one PDF or HTML document: question, charts, tables, settings, "
        "environment, conclusion and the fixed loop's code");
    exportLoopButton_ = new QPushButton("Export fixed loop as PyTorch code…");
    exportLoopButton_->setObjectName("answerExportLoopButton");
    auto* files = new QHBoxLayout;
    for (QWidget* w : std::initializer_list<QWidget*>{openButton_, saveButton_, reportButton_}) files->addWidget(w);
    files->addStretch();
    files->addWidget(exportLoopButton_);
    auto* conclusionBox = new QWidget;
    auto* conclusionLayout = new QVBoxLayout(conclusionBox);
    conclusionLayout->setContentsMargins(0, 0, 0, 0);
    conclusionLayout->addWidget(conclusion_, 1);
    conclusionLayout->addLayout(files);
    return conclusionBox;
}

void AnswerView::connectSignals() {
    connect(startButton_, &QPushButton::clicked, this, [this] { start(); });
    connect(stopButton_, &QPushButton::clicked, this, &AnswerView::stop);
    connect(openButton_, &QPushButton::clicked, this, &AnswerView::openDialog);
    connect(saveButton_, &QPushButton::clicked, this, &AnswerView::saveDialog);
    connect(reportButton_, &QPushButton::clicked, this, &AnswerView::reportRequested);
    connect(exportLoopButton_, &QPushButton::clicked, this, &AnswerView::exportFixedLoopDialog);
    connect(engineChoice_, &QComboBox::currentIndexChanged, this, &AnswerView::showWaterfall);
    connect(controller_, &TrainingController::answerEngines, this, &AnswerView::onEngines);
    connect(controller_, &TrainingController::answerEstimated, this, &AnswerView::onEstimated);
    connect(controller_, &TrainingController::answerProgress, this, &AnswerView::onProgress);
    connect(controller_, &TrainingController::answerUpdated, this, &AnswerView::onUpdated);
    connect(controller_, &TrainingController::answerFinished, this, &AnswerView::onFinished);
    connect(controller_, &TrainingController::runDropped, this, [this](int id) {
        if (current_ != id) return;
        current_.reset();
        status_->setText("Removed from the queue before it started.");
        updateButtons();
    });
}

void AnswerView::setSources(ConfigGetter config, DatasetGetter dataset) {
    configSource_ = std::move(config);
    dataSource_ = std::move(dataset);
}

AnswerPlan AnswerView::plan() const {
    AnswerPlan p;
    p.repeats = repeats_->value();
    p.epochs = epochs_->value();
    p.target = target_->value() / 100;
    p.budgetSeconds = budget_->value();
    p.alone = eachFixAlone_->isChecked();
    p.leaveOneOut = leaveOneOut_->isChecked();
    p.shapley = shapley_->isChecked();
    return p;
}

void AnswerView::setPlan(int repeats, int epochs) {
    repeats_->setValue(repeats);
    epochs_->setValue(epochs);
}

bool AnswerView::start() {
    if (current_) {
        status_->setText("The answer is already being measured.");
        return false;
    }
    const auto dataset = dataSource_ ? dataSource_() : nullptr;
    if (!dataset || !configSource_) {
        status_->setText("Load a data set first (or use the built-in one).");
        return false;
    }
    RunRequest request;
    request.id = nextJobId();
    request.config = configSource_();
    request.config.name = "Answer the question";
    request.dataset = dataset;
    auto p = std::make_shared<AnswerPlan>(plan());
    try {
        p->validate();
        RunConfig check = request.config;
        check.execution = presetByName(AnswerPlan::seedPreset("")).settings;
        check.validate();
    } catch (const Error& e) {
        status_->setText(QString("Cannot answer on this configuration: %1").arg(e.what()));
        return false;
    }
    request.job = AnswerJob{std::move(p)};
    current_ = request.id;
    estimateSeconds_ = 0;
    progress_->setRange(0, 0);  // busy until the engines and the estimate are known
    progress_->show();
    status_->setText(controller_->busy() ? "Queued after the runs in progress."
                                         : "Asking which engines this machine has…");
    controller_->enqueue(std::move(request));
    updateButtons();
    return true;
}

void AnswerView::stop() {
    if (current_ && controller_->currentRun() == current_)
        controller_->stopCurrent();
    else if (current_)
        controller_->removeQueued(*current_);
}

void AnswerView::onEngines(int id, const Answer& engines) {
    if (id != current_) return;
    QStringList here, missing;
    for (const auto& e : engines.engines) (e.available ? here : missing) << QString::fromStdString(e.engine);
    status_->setText(QString("Engines here: %1%2. Estimating: each seed loop for two epochs…")
                         .arg(here.join(", "), missing.isEmpty() ? "" : "; not here: " + missing.join(", ")));
    showAnswer(engines);
}

void AnswerView::onEstimated(int id, double seconds) {
    if (id != current_) return;
    estimateSeconds_ = seconds;
    startedMs_ = QDateTime::currentMSecsSinceEpoch();
    status_->setText(QString("This takes at most about %1. Measuring…").arg(duration(seconds)));
}

void AnswerView::onProgress(int id, int done, int planned, const QString& engine, const QString& step, int repeat) {
    if (id != current_) return;
    progress_->setRange(0, planned);
    progress_->setValue(done);
    QString left;
    if (done > 0) {  // what the runs so far took, for the runs planned so far (more rounds may follow)
        const double elapsed = static_cast<double>(QDateTime::currentMSecsSinceEpoch() - startedMs_) / 1000.0;
        left = QString(" \u2014 about %1 left").arg(duration(elapsed / done * std::max(0, planned - done)));
    }
    status_->setText(QString("%1: %2, round %3 (run %4 of %5 planned)%6")
                         .arg(engine, step)
                         .arg(repeat)
                         .arg(done + 1)
                         .arg(planned)
                         .arg(left));
}

void AnswerView::onUpdated(int id, const Answer& partial) {
    if (id == current_) showAnswer(partial);
}

void AnswerView::onFinished(int id, const Answer& answer) {
    if (id != current_) return;
    current_.reset();
    showAnswer(answer);
    progress_->setRange(0, 1);
    progress_->setValue(1);
    progress_->hide();
    const QString how = answer.status == AnswerStatus::Completed ? "Answered" : QString::fromStdString(answer.message);
    status_->setText(how + ".");
    emit status(how + ": " + conclusionText().section('\n', 0, 0));
    updateButtons();
}

void AnswerView::showAnswer(const Answer& answer) {
    answer_ = answer;
    chart_->setAnswer(answer);
    QString html;
    for (const auto& line : answer.conclusion()) html += "<p>" + QString::fromStdString(line).toHtmlEscaped() + "</p>";
    if (const QString measured = whatWasMeasuredHtml(answer); !measured.isEmpty())
        html += "<h4>What was measured</h4>" + measured;
    conclusion_->setText(html);
    // The waterfall shown stays the user's choice; at first, the engine with the largest gap.
    QString shown = engineChoice_->currentText();
    double widest = 0;
    if (shown.isEmpty())
        for (const auto& e : answer.engines)
            if (const auto gap = e.gap(); gap && gap->ratio > widest) {
                widest = gap->ratio;
                shown = QString::fromStdString(e.engine);
            }
    const QSignalBlocker quiet(engineChoice_);
    engineChoice_->clear();
    for (const auto& e : answer.engines)
        if (e.ablation) engineChoice_->addItem(QString::fromStdString(e.engine));
    engineChoice_->setCurrentIndex(std::max(0, engineChoice_->findText(shown)));
    showWaterfall();
    updateButtons();
}

void AnswerView::showWaterfall() {
    if (!answer_) return;
    for (const auto& e : answer_->engines)
        if (e.ablation && QString::fromStdString(e.engine) == engineChoice_->currentText()) {
            waterfall_->setResult(*e.ablation);
            shares_->setResult(*e.ablation);
            return;
        }
    waterfall_->clear();
    shares_->clear();
}

void AnswerView::loadAnswer(const QString& path) {
    showAnswer(Answer::load(path.toStdString()));
    status_->setText("Opened " + QFileInfo(path).fileName() + ".");
}

void AnswerView::saveAnswer(const QString& path) {
    if (!answer_) throw ConfigError("there is no answer to save yet");
    answer_->save(path.toStdString());
}

QString AnswerView::statusText() const {
    return status_->text();
}

QString AnswerView::conclusionText() const {
    if (!answer_) return {};
    QStringList lines;
    for (const auto& line : answer_->conclusion()) lines << QString::fromStdString(line);
    return lines.join('\n');
}

void AnswerView::updateButtons() {
    startButton_->setEnabled(!current_);
    stopButton_->setEnabled(current_.has_value());
    repeats_->setEnabled(!current_);
    epochs_->setEnabled(!current_);
    target_->setEnabled(!current_);
    budget_->setEnabled(!current_);
    attribution_->setEnabled(!current_);
    saveButton_->setEnabled(answer_.has_value() && !current_);
    reportButton_->setEnabled(answer_.has_value() && !current_);
    // The fastest configuration measured on PyTorch, or why there is none.
    const auto noLoop = !answer_   ? std::optional<std::string>("there is no answer yet")
                        : current_ ? std::optional<std::string>("the answer is still being measured")
                                   : whyNoFixedLoop(*answer_, "torch");
    exportLoopButton_->setEnabled(!noLoop);
    exportLoopButton_->setToolTip(
        noLoop ? "No PyTorch fixed loop to export: " + QString::fromStdString(*noLoop)
               : "The fastest configuration the answer measured on PyTorch (not every fix applied), as a script "
                 "of your own: what mlpwb export --answer writes");
}

void AnswerView::openDialog() {
    const QString path = QFileDialog::getOpenFileName(this, "Open answer", {}, "Answer (*.json);;All files (*)");
    if (path.isEmpty()) return;
    try {
        loadAnswer(path);
    } catch (const Error& e) {
        QMessageBox::warning(this, "Cannot open the answer", e.what());
    }
}

void AnswerView::exportFixedLoopDialog() {
    const QString path =
        QFileDialog::getSaveFileName(this, "Export fixed loop as PyTorch code", "fixed_loop.py", "Python (*.py)");
    if (!path.isEmpty()) exportFixedLoop(path);
}

bool AnswerView::exportFixedLoop(const QString& path) {
    try {
        if (!answer_) throw ConfigError("there is no answer yet");
        exportFixedLoopScript(*answer_, "the answer", path);
    } catch (const Error& e) {
        QMessageBox::warning(this, "Export fixed loop as PyTorch code", e.what());
        return false;
    }
    emit status("Wrote " + QDir::toNativeSeparators(path) + "; run it on your rows: python3 " +
                QFileInfo(path).fileName() + " --data x.npy --labels y.npy --out run.json");
    return true;
}

void AnswerView::saveDialog() {
    const QString path = QFileDialog::getSaveFileName(this, "Save answer", "answer.json", "Answer (*.json)");
    if (path.isEmpty()) return;
    try {
        saveAnswer(path);
        emit status("Saved " + path);
    } catch (const Error& e) {
        QMessageBox::warning(this, "Cannot save the answer", e.what());
    }
}

}  // namespace wb::gui
