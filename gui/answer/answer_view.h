// The Answer tab: "Answer the question" in one click. On the loaded data and the current model it
// queues one answer on the training worker (every engine here: their estimate first, then each
// one's seed loop, fixed loop and the ablation between them, repeated), and shows it as it grows:
// time per epoch of every engine side by side, each engine's waterfall (one order of the fixes)
// beside its shares of the gap with their intervals, the conclusion in words, what was measured
// (workload, rounds, each engine's environment, the machine's state), with what is missing and the
// command that installs it. Progress for the whole of it, cancellable; the answer saves and opens as
// mlpwb.answer/1 (what `mlpwb answer --out` writes), and its PyTorch fixed loop exports as a script.
#pragma once

#include <QWidget>
#include <functional>
#include <memory>
#include <optional>

#include "core/data/dataset.h"
#include "core/measure/answer.h"
#include "core/run/run_config.h"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QTextBrowser;
class QProgressBar;
class QPushButton;
class QDoubleSpinBox;
class QSpinBox;
class QSplitter;
class QToolButton;
class QAction;

namespace wb::gui {

class AnswerChart;
class SharesChart;
class TrainingController;
class WaterfallChart;

class AnswerView : public QWidget {
    Q_OBJECT

public:
    using ConfigGetter =
        std::function<RunConfig()>;  // the problem to answer (its backend and switches are the answer's)
    using DatasetGetter = std::function<std::shared_ptr<const Dataset>()>;

    explicit AnswerView(TrainingController* controller, QWidget* parent = nullptr);
    void setSources(ConfigGetter config, DatasetGetter dataset);

    AnswerPlan plan() const;  // as the spin boxes say
    void setPlan(int repeats, int epochs);
    // Queues the answer; false (with the reason in statusText) when there is no data to answer on.
    bool start();
    void stop();
    bool running() const { return current_.has_value(); }

    void showAnswer(const Answer& answer);
    void loadAnswer(const QString& path);  // throws wb::DataError
    void saveAnswer(const QString& path);  // throws wb::IoError; nothing to save: wb::ConfigError
    // "Export fixed loop as PyTorch code…" without its dialog: the answer's PyTorch fixed loop to
    // `path` (what `mlpwb export --answer` writes); false, with a message box saying why, when not.
    bool exportFixedLoop(const QString& path);
    const std::optional<Answer>& answer() const { return answer_; }
    QString statusText() const;
    QString conclusionText() const;
    AnswerChart& chart() { return *chart_; }
    WaterfallChart& waterfall() { return *waterfall_; }
    SharesChart& shares() { return *shares_; }

signals:
    void status(const QString& message);  // for the status bar
    void reportRequested();               // "Export report…": File > Export report, from here

private:
    QHBoxLayout* buildControls();
    void buildPlanBoxes(const AnswerPlan& defaults);
    void buildAttributionMenu(const AnswerPlan& defaults);
    void buildStatusLines();
    QSplitter* buildCharts();
    QWidget* buildAblationBox();
    QWidget* buildConclusionBox();
    void connectSignals();
    void onEngines(int id, const Answer& engines);
    void onEstimated(int id, double seconds);
    void onProgress(int id, int done, int planned, const QString& engine, const QString& step, int repeat);
    void onUpdated(int id, const Answer& partial);
    void onFinished(int id, const Answer& answer);
    void showWaterfall();
    void updateButtons();
    void openDialog();
    void saveDialog();
    void exportFixedLoopDialog();

    TrainingController* controller_;
    ConfigGetter configSource_;
    DatasetGetter dataSource_;
    QSpinBox* repeats_ = nullptr;
    QSpinBox* epochs_ = nullptr;
    QDoubleSpinBox* target_ = nullptr;    // AnswerPlan::target, in percent
    QSpinBox* budget_ = nullptr;          // AnswerPlan::budgetSeconds
    QToolButton* attribution_ = nullptr;  // a menu of AnswerPlan::alone, leaveOneOut, shapley
    QAction *eachFixAlone_ = nullptr, *leaveOneOut_ = nullptr, *shapley_ = nullptr;
    QPushButton* startButton_ = nullptr;
    QPushButton* stopButton_ = nullptr;
    QPushButton* openButton_ = nullptr;
    QPushButton* saveButton_ = nullptr;
    QPushButton* reportButton_ = nullptr;
    QPushButton* exportLoopButton_ = nullptr;  // enabled where the answer has a PyTorch fixed loop
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    QTextBrowser* conclusion_ = nullptr;
    QComboBox* engineChoice_ = nullptr;  // whose waterfall is shown
    AnswerChart* chart_ = nullptr;
    WaterfallChart* waterfall_ = nullptr;
    SharesChart* shares_ = nullptr;  // the chosen engine's, beside its waterfall
    std::optional<int> current_;     // the request in flight
    std::optional<Answer> answer_;
    double estimateSeconds_ = 0;
    qint64 startedMs_ = 0;  // of the measured part, for the time left
};

}  // namespace wb::gui
