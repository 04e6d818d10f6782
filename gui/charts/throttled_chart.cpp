#include "gui/charts/throttled_chart.h"

#include <QVBoxLayout>

#include <qcustomplot.h>

#include "gui/charts/chart_style.h"
#include "gui/runs/run_store.h"

namespace wb::gui {

ThrottledChart::ThrottledChart(RunStore* store, QWidget* parent)
    : QWidget(parent), store_(store), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    // Every draw (new runs, a resize) lays the legend out for the width there is.
    connect(plot_, &QCustomPlot::beforeReplot, this, [this] { fitLegendColumns(*plot_, plot_->width()); });

    refreshTimer_.setSingleShot(true);
    refreshTimer_.setInterval(kRefreshIntervalMs);
    connect(&refreshTimer_, &QTimer::timeout, this, &ThrottledChart::refreshWhenShown);
    // Lambdas, so the call is virtual: the subclass may track which run changed.
    connect(store_, &RunStore::runAdded, this, [this](int id) { runTouched(id); });
    connect(store_, &RunStore::runChanged, this, [this](int id) { runTouched(id); });
    connect(store_, &RunStore::epochAppended, this, [this](int id) { runTouched(id); });
    connect(store_, &RunStore::runRemoved, this, [this](int id) { runTouched(id); });
    scheduleRefresh();  // the first refresh runs from the event loop, when the subclass exists
}

void ThrottledChart::refreshNow() {
    refreshTimer_.stop();
    refreshPending_ = false;
    refresh();
}

void ThrottledChart::refreshWhenShown() {
    // Out of sight in a shown window (another tab): later. A chart in no shown window at all (one
    // made to be exported, or examined) keeps its data current.
    if (!isVisible() && window()->isVisible())
        refreshPending_ = true;
    else
        refreshNow();
}

void ThrottledChart::runTouched(int) {
    scheduleRefresh();
}

void ThrottledChart::scheduleRefresh() {
    if (!refreshTimer_.isActive()) refreshTimer_.start();
}

void ThrottledChart::replot() {
    replotLayer(nullptr);
}

void ThrottledChart::replotLayer(QCPLayer* layer) {
    if (!isVisible()) {
        replotPending_ = true;  // the whole plot, when shown
        return;
    }
    replotPending_ = false;
    if (layer)
        layer->replot();
    else
        plot_->replot();
    ++replotCount_;
}

void ThrottledChart::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (refreshPending_)
        refreshNow();
    else if (replotPending_)
        replot();
}

}  // namespace wb::gui
