// The part every live chart shares: a QCustomPlot bound to a RunStore that redraws on a short timer
// rather than on every change. Store signals only schedule a refresh; the timer (at most ~30 a
// second) runs the subclass's refresh() once for all changes since the last one, so a run that does
// 200 epochs in 0.1 s cannot flood the event loop (docs/ARCHITECTURE.md, "Threads (GUI)"). A chart on another tab does
// nothing on the timer: it notes that it is behind and catches up when it is shown again (with ten
// thousand runs listed, each hidden chart's refresh cost half a millisecond an epoch).
#pragma once

#include <QTimer>
#include <QWidget>

class QCustomPlot;
class QCPLayer;

namespace wb::gui {

class RunStore;

class ThrottledChart : public QWidget {
    Q_OBJECT

public:
    static constexpr int kRefreshIntervalMs = 33;  // <= 30 replots a second, however fast epochs arrive

    QCustomPlot& plot() { return *plot_; }
    const QCustomPlot& plot() const { return *plot_; }
    // Applies what is pending now instead of on the timer (tests, the headless export).
    void refreshNow();
    // What the timer calls: refreshNow(), unless the chart is out of sight in a shown window (another
    // tab), where it is only noted for when the chart is shown.
    void refreshWhenShown();
    // How many times the chart has drawn (tests check the throttling with it).
    int replotCount() const { return replotCount_; }

protected:
    // Listens to the store's run signals; each one calls runTouched(id).
    ThrottledChart(RunStore* store, QWidget* parent);

    RunStore& store() const { return *store_; }
    // Brings the plot up to date with the store and ends with replot(); called from the timer.
    virtual void refresh() = 0;
    // A run was added, changed, removed or got an epoch. By default: schedule a refresh.
    virtual void runTouched(int runId);
    void scheduleRefresh();             // starts the timer unless it already runs
    void replot();                      // draws now when visible, else when next shown
    void replotLayer(QCPLayer* layer);  // that buffered layer alone (null: the whole plot), as replot()
    void showEvent(QShowEvent* event) override;

private:
    RunStore* store_;
    QCustomPlot* plot_;
    QTimer refreshTimer_;
    bool replotPending_ = false;   // data changed while hidden: draw when shown
    bool refreshPending_ = false;  // the timer fired while hidden: refresh when shown
    int replotCount_ = 0;
};

}  // namespace wb::gui
