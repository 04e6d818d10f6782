// The Ablation tab: choose a baseline preset, the fixes (checked, in an order the user can drag), the
// repeats and "each fix alone"; Run queues the ablation on the training worker (so its timed runs never
// overlap other runs), the waterfall grows as steps finish, and the chart and the data export like every
// other chart's (PNG/JPG/PDF/SVG; CSV/JSON). An ablation JSON written by `mlpwb ablate` opens here too.
#pragma once

#include <QTimer>
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>

#include "core/data/dataset.h"
#include "core/measure/ablation.h"
#include "core/run/run_config.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QVBoxLayout;

namespace wb::gui {

class TrainingController;
class WaterfallChart;

class AblationTab : public QWidget {
    Q_OBJECT

public:
    using ConfigGetter = std::function<RunConfig()>;  // the problem to ablate (its execution is replaced)
    using DatasetGetter = std::function<std::shared_ptr<const Dataset>()>;

    explicit AblationTab(TrainingController* controller, QWidget* parent = nullptr);
    void setSources(ConfigGetter config, DatasetGetter dataset);

    AblationPlan plan() const;  // as the widgets say: checked fixes in list order
    void setPlan(const AblationPlan& plan);
    // Moves fix `row` of the list to `to` (what dragging does; also the Up/Down buttons).
    void moveFix(int row, int to);

    // Queues the ablation; false (with the reason in statusText) when there is nothing to run.
    bool start();
    void stop();
    bool running() const { return current_.has_value(); }

    // Shows a result: loaded from a file, or one that arrived from the worker.
    void showResult(const AblationResult& result);
    void loadResult(const QString& path);  // throws wb::DataError
    void exportData(const QString& path);  // .csv or .json; throws wb::IoError
    void exportChart(const QString& path, int width, int height, double scale = 1.0);  // throws wb::Error
    const std::optional<AblationResult>& result() const { return result_; }
    WaterfallChart& chart() { return *chart_; }
    QString statusText() const;
    int progressValue() const;
    int progressMaximum() const;

private:
    void buildControls(QWidget* panel);
    void addBaselineChoice(QVBoxLayout* layout);
    void addFixList(QVBoxLayout* layout);
    void addRunOptions(QVBoxLayout* layout);
    void addRunButtons(QVBoxLayout* layout);
    void addFileButtons(QVBoxLayout* layout);
    void fillFixList(const std::vector<std::string>& order, const std::vector<std::string>& checked);
    void onProgress(int id, int run, int planned, const QString& step, int repeat);
    void onStepFinished(int id, const AblationResult& partial);
    void onFinished(int id, const AblationResult& result);
    void drawPending();  // the latest result, at most ~30 times a second
    void fillTable(const AblationResult& result);
    void updateButtons();
    void openFile();
    void exportChartDialog();
    void exportDataDialog();

    TrainingController* controller_;
    ConfigGetter configSource_;
    DatasetGetter dataSource_;
    QComboBox* baseline_ = nullptr;
    QListWidget* fixes_ = nullptr;
    QSpinBox* repeats_ = nullptr;
    QCheckBox* eachFixAlone_ = nullptr;
    QPushButton* run_ = nullptr;
    QPushButton* stop_ = nullptr;
    QPushButton* exportChartButton_ = nullptr;
    QPushButton* exportDataButton_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    WaterfallChart* chart_ = nullptr;
    QTableWidget* table_ = nullptr;
    std::optional<AblationResult> result_;
    std::optional<AblationResult> pending_;  // arrived, not drawn yet
    QTimer drawTimer_;
    std::optional<int> current_;  // the id of the ablation in flight
};

}  // namespace wb::gui
