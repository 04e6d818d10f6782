// The shares chart of an ablation, read back from its plottables: one bar per cause at its share of
// the gap (hand-computed from the levels), each error bar's ends the cause's 95 % interval as
// attribute() gives it (the Shapley values' where every combination was measured), a cause that
// costs time below zero with its cost named, the largest cause
// marked only when attribute() names it (not with two rounds, not when the intervals overlap), and
// at the Answer tab's and the report's sizes every label inside the plot, none over another.
#include <QtTest>
#include <map>
#include <set>

#include <qcustomplot.h>

#include "core/measure/ablation_attribution.h"
#include "gui/answer/shares_chart.h"
#include "gui/training/ablation_metatypes.h"
#include "tests/timed_step_fixture.h"

using namespace wb;
using namespace wb::gui;

namespace {
using timed_step_fixture::stepOf;

// The first `rounds` rounds of each step's times.
AblationResult ablationOf(const std::vector<std::pair<std::string, std::vector<double>>>& steps, int rounds) {
    AblationResult a;
    a.backend = "torch";
    a.status = AblationStatus::Completed;
    a.rounds = rounds;
    for (const auto& [name, times] : steps)
        a.steps.push_back(stepOf(name, std::vector<double>(times.begin(), times.begin() + rounds)));
    a.updateSavings();
    return a;
}

// 100 ms, then a fix that saves 60 (the largest, clearly), one that saves 10 (the fixed loop, at
// 30 ms) and one that costs 5 (left out): shares 60/70, 10/70 and -5/70 of the 70 ms gap.
AblationResult clearCase(int rounds) {
    return ablationOf({{"baseline", {100, 101, 99, 100.5, 99.5}},
                       {"data_path=device_resident", {40, 40.4, 39.6, 40.2, 39.8}},
                       {"loss=bce_with_logits", {30, 30.3, 29.7, 30.15, 29.85}},
                       {"launch=graph_step", {35, 35.35, 34.65, 35.2, 34.8}}},
                      rounds);
}

// Two fixes that save 30 and 29 ms with round-to-round savings far wider than their difference.
AblationResult overlappingCase() {
    return ablationOf({{"baseline", {100, 100, 100, 100, 100}},
                       {"data_path=device_resident", {70, 62, 78, 66, 74}},
                       {"loss=bce_with_logits", {41, 41, 41, 41, 41}}},
                      5);
}

// Two fixes measured in every combination, each round's levels scaled alike: the seed loop at 100 ms,
// A alone at 40, B alone at 50, both at 30. In the order applied A saves 60 and B 10; their Shapley
// values, by hand: A = ((100 - 40) + (50 - 30)) / 2 = 40, B = ((100 - 50) + (40 - 30)) / 2 = 30, of a
// 70 ms gap.
AblationResult everyOrderCase() {
    const std::vector<double> scale = {1, 1.01, 0.99, 1.005, 0.995};
    const auto times = [&](double ms) {
        std::vector<double> t;
        for (double f : scale) t.push_back(ms * f);
        return t;
    };
    AblationResult a = ablationOf(
        {{"baseline", times(100)}, {"data_path=device_resident", times(40)}, {"loss=bce_with_logits", times(30)}}, 5);
    a.subsetFixes = {1, 2};
    a.subsets = {{0, {}, 0, times(100)},
                 {1, {"data_path=device_resident"}, 1, times(40)},
                 {2, {"loss=bce_with_logits"}, std::nullopt, times(50)},
                 {3, {"data_path=device_resident", "loss=bce_with_logits"}, 2, times(30)}};
    return a;
}

struct DrawnBar {
    double value = 0;  // the bar's share, in percent
    double low = 0;    // its error bar's ends
    double high = 0;
    QColor brush;
};

// Every bar the chart draws, by key (the cause's row, 1 at the top), with its error bar.
std::map<double, DrawnBar> drawnBars(QCustomPlot& plot) {
    std::map<double, DrawnBar> bars;
    for (int i = 0; i < plot.plottableCount(); ++i) {
        auto* errors = qobject_cast<QCPErrorBars*>(plot.plottable(i));
        if (!errors) continue;
        auto* bar = qobject_cast<QCPBars*>(errors->dataPlottable());
        if (!bar || bar->data()->size() != 1 || errors->data()->size() != 1) continue;
        const double value = bar->data()->at(0)->value;
        const QCPErrorBarsData e = errors->data()->at(0);
        bars[bar->data()->at(0)->key] = {value, value - e.errorMinus, value + e.errorPlus, bar->brush().color()};
    }
    return bars;
}

int barCount(QCustomPlot& plot) {
    int n = 0;
    for (int i = 0; i < plot.plottableCount(); ++i) n += qobject_cast<QCPBars*>(plot.plottable(i)) ? 1 : 0;
    return n;
}

// Where a value label is drawn: left-aligned at its anchor, centred on it vertically, after its padding.
QRectF labelRect(QCPItemText* label) {
    const QFontMetricsF metrics(label->font());
    const QPointF at = label->position->pixelPosition();
    QRectF box(0, 0, 0, 0);
    for (const QString& line : label->text().split('\n'))
        box.setWidth(std::max(box.width(), metrics.horizontalAdvance(line)));
    box.setHeight(metrics.lineSpacing() * static_cast<double>(label->text().count('\n') + 1));
    box.moveTo(at.x() + label->padding().left(), at.y() - box.height() / 2);
    return box;
}

bool sameValue(double a, double b) {
    return std::abs(a - b) < 1e-6;
}
}  // namespace

class TestSharesChart : public QObject {
    Q_OBJECT

private slots:
    void oneBarPerCauseWithItsInterval() {
        const AblationResult r = clearCase(5);
        SharesChart chart;
        chart.resize(500, 330);
        chart.setResult(r);
        QCOMPARE(barCount(chart.plot()), 3);
        const auto bars = drawnBars(chart.plot());
        QCOMPARE(bars.size(), std::size_t{3});
        // The levels' shares of the 70 ms gap, by hand: 60/70, 10/70, and -5/70 for the fix that costs.
        const std::vector<double> shares = {6000.0 / 70, 1000.0 / 70, -500.0 / 70};
        const Attribution a = attribute(r);
        QCOMPARE(a.causes.size(), std::size_t{3});
        for (std::size_t i = 0; i < 3; ++i) {
            const DrawnBar& bar = bars.at(static_cast<double>(i + 1));
            QVERIFY2(std::abs(bar.value - shares[i]) < 1e-9, qPrintable(QString::number(bar.value)));
            const CauseShare& c = a.causes[i];
            // The error bar's ends are the attribution's interval (a fix after the fixed loop has no
            // share: its saving's interval over the gap).
            constexpr double kGapMs = 70;
            const Interval expected = c.share ? c.shareInterval : Interval{c.saved.low / kGapMs, c.saved.high / kGapMs};
            const double low = expected.low * 100, high = expected.high * 100;
            QVERIFY2(
                sameValue(bar.low, low) && sameValue(bar.high, high),
                qPrintable(
                    QString("cause %1: %2..%3, expected %4..%5").arg(i).arg(bar.low).arg(bar.high).arg(low).arg(high)));
            QVERIFY(bar.low < bar.high);  // five rounds: an interval of some width
        }
        // The fix that costs time is below zero, red, its cost named.
        QVERIFY(bars.at(3).value < 0);
        QVERIFY(chart.causes()[2].label.startsWith("costs 5.00 ms"));
        QCOMPARE(chart.causes()[2].shortLabel, QString("costs 5.00 ms"));
        QVERIFY(chart.causes()[2].label.contains("left out"));
        QVERIFY(chart.causes()[2].label.contains("\u2212"));  // its share, negative
        QVERIFY(chart.causes()[0].label.contains("("));       // the interval beside the share
    }

    // Every combination measured: the bars are the Shapley values' shares, whatever the order, and
    // their error bars the Shapley intervals over the same gap.
    void everyOrderGivesShapleyShares() {
        const AblationResult r = everyOrderCase();
        const Attribution a = attribute(r);
        QVERIFY(a.shapleyGapMs.has_value());
        SharesChart chart;
        chart.setResult(r);
        const auto bars = drawnBars(chart.plot());
        QCOMPARE(bars.size(), std::size_t{2});
        const std::vector<double> shares = {4000.0 / 70, 3000.0 / 70};
        for (std::size_t i = 0; i < 2; ++i) {
            const DrawnBar& bar = bars.at(static_cast<double>(i + 1));
            QVERIFY2(std::abs(bar.value - shares[i]) < 1e-6, qPrintable(QString::number(bar.value)));
            const Interval expected = a.causes[i].shapleyInterval;
            QVERIFY(sameValue(bar.low, std::min(expected.low / 70 * 100, bar.value)));
            QVERIFY(sameValue(bar.high, std::max(expected.high / 70 * 100, bar.value)));
            QVERIFY(chart.causes()[i].everyOrder);
        }
        auto* title = qobject_cast<QCPTextElement*>(chart.plot().plotLayout()->element(0, 0));
        QVERIFY2(title->text().contains("every order"), qPrintable(title->text()));
    }

    void theLargestOnlyWhenNamed_data() {
        QTest::addColumn<AblationResult>("result");
        QTest::addColumn<int>("largest");  // the row marked, -1 for none
        QTest::newRow("clear, 5 rounds") << clearCase(5) << 0;
        QTest::newRow("clear, but 2 rounds cannot rank") << clearCase(2) << -1;
        QTest::newRow("intervals overlap") << overlappingCase() << -1;
    }

    void theLargestOnlyWhenNamed() {
        QFETCH(AblationResult, result);
        QFETCH(int, largest);
        const Attribution a = attribute(result);
        QCOMPARE(a.largest.has_value(), largest >= 0);  // the reference: what attribute() names
        SharesChart chart;
        chart.setResult(result);
        int marked = -1, labelled = -1;
        const auto bars = drawnBars(chart.plot());
        for (std::size_t i = 0; i < chart.causes().size(); ++i) {
            if (chart.causes()[i].largest) marked = static_cast<int>(i);
            if (chart.causes()[i].label.contains("largest")) labelled = static_cast<int>(i);
        }
        QCOMPARE(marked, largest);
        QCOMPARE(labelled, largest);
        // The largest bar alone has its own colour.
        std::set<QRgb> colours;
        for (const auto& [key, bar] : bars)
            if (bar.value > 0) colours.insert(bar.brush.rgb());
        QCOMPARE(static_cast<int>(colours.size()), largest >= 0 ? 2 : 1);
    }

    void theTitleSaysTheRounds() {
        SharesChart chart;
        chart.resize(900, 470);
        chart.setResult(clearCase(5));
        chart.plot().replot();
        auto* title = qobject_cast<QCPTextElement*>(chart.plot().plotLayout()->element(0, 0));
        QVERIFY(title);
        QVERIFY2(QString(title->text()).replace('\n', ' ').contains("5 rounds"), qPrintable(title->text()));
        chart.setResult(clearCase(1));
        chart.plot().replot();
        QVERIFY2(QString(title->text()).replace('\n', ' ').contains("1 round, too few"), qPrintable(title->text()));
    }

    void nothingToShareSaysSo() {
        // No gap: the fix changes nothing measurable.
        const AblationResult r =
            ablationOf({{"baseline", {100, 104, 96, 102, 98}}, {"loss=bce_with_logits", {100, 96, 104, 98, 102}}}, 5);
        SharesChart chart;
        chart.setResult(r);
        QCOMPARE(barCount(chart.plot()), 0);
        QVERIFY(chart.causes().empty());
    }

    void labelsStayInsideAndApart_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("a short chart: its labels left to the tooltip") << QSize(480, 120);
        QTest::newRow("the Answer tab at 1280x800") << QSize(380, 300);
        QTest::newRow("the Answer tab at 1920x1080") << QSize(640, 480);
        QTest::newRow("the report") << QSize(900, 470);
    }

    void labelsStayInsideAndApart() {
        QFETCH(QSize, size);
        SharesChart chart;
        chart.resize(size);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setResult(clearCase(5));
        chart.plot().replot();
        QCustomPlot& plot = chart.plot();
        std::vector<QRectF> boxes;
        for (int i = 0; i < plot.itemCount(); ++i)
            if (auto* label = qobject_cast<QCPItemText*>(plot.item(i));
                label && label->visible() && !label->text().isEmpty())
                boxes.push_back(labelRect(label));
        QCOMPARE(boxes.size(), size.height() >= 300 ? std::size_t{3} : boxes.size());  // short: none, or all apart
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            QVERIFY2(QRectF(plot.rect()).contains(boxes[i]), qPrintable(QString("label %1 leaves the plot").arg(i)));
            for (std::size_t j = i + 1; j < boxes.size(); ++j)
                QVERIFY2(!boxes[i].intersects(boxes[j]), qPrintable(QString("labels %1 and %2 overlap").arg(i).arg(j)));
        }
        auto ticker = plot.yAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticker);
        for (const QString& tick : ticker->ticks())
            QVERIFY2(!tick.contains("\u2026") || size.width() < 500, qPrintable(tick));  // whole where there is room
    }
};

QTEST_MAIN(TestSharesChart)
#include "tst_shares_chart.moc"
