// The runs table's data-set column, its text filter and Show all / Hide all, through the view's
// public interface over a real run store: the data set comes from the run's config ("data") or,
// for a peer's record, from what the record says; the filter keeps the rows whose name, data set,
// backend, preset or status holds the text; Hide all hides every run in the store, which the charts
// follow, and Show all shows the runs the table lists, fifty at most, in the table's order, a few
// per turn of the event loop, saying under the table when it left some out.
#include <QAction>
#include <QLineEdit>
#include <QtTest>

#include "core/model/execution_settings.h"
#include "core/run/run_record.h"
#include "gui/runs/run_store.h"
#include "gui/runs/runs_table_model.h"
#include "gui/runs/runs_table_view.h"

using namespace wb;
using namespace wb::gui;

namespace {
RunRecord ourRun(const std::string& name, const nlohmann::json& data, const std::string& backend, RunStatus status) {
    RunRecord r;
    r.name = name;
    r.status = status;
    r.config = {{"name", name}, {"backend", backend}, {"data", data}, {"train", {{"epochs", 3}}}};
    r.config["execution"] = ExecutionSettings{};
    return r;
}

// A peer script's record: its own config keys (no "data"), perhaps a dataset description.
RunRecord peerRun(const std::string& name, const std::string& source) {
    RunRecord r;
    r.name = name;
    r.status = RunStatus::Completed;
    r.config = {{"backend", "pytorch"}, {"batch_size", 2048}};
    r.dataset.source = source;
    return r;
}

// Four runs to filter: two data sets, two backends, a peer, one failed.
void fill(RunStore& store) {
    const nlohmann::json builtin = {{"kind", "builtin"}, {"rows", 1000}};
    const nlohmann::json spam = {{"kind", "csv"}, {"path", "/data/uci/spambase.csv"}};
    store.addRecord(ourRun("alpha", builtin, "cpu", RunStatus::Completed), QString());
    store.addRecord(ourRun("beta", spam, "cpu", RunStatus::Failed), QString());
    store.addRecord(ourRun("gamma", spam, "torch", RunStatus::Completed), QString());
    store.addRecord(peerRun("keras fit", "higgs.npy"), QString());
}

QStringList shownNames(const RunsTableView& view) {
    QStringList names;
    const QAbstractItemModel* shown = view.table()->model();
    for (int row = 0; row < shown->rowCount(); ++row)
        names << shown->index(row, RunsTableModel::Name).data().toString();
    return names;
}
}  // namespace

class TestRunsTableFilter : public QObject {
    Q_OBJECT

private slots:
    void datasetColumn_data();
    void datasetColumn();
    void filterByText_data();
    void filterByText();
    void filterFieldDrivesTheTable();
    void hideAllAndShowAll();
    void showAllIsBounded();
};

void TestRunsTableFilter::datasetColumn_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("expected");
    QTest::newRow("built-in generator") << "alpha"
                                        << "built-in";
    QTest::newRow("CSV: the file's name") << "beta"
                                          << "spambase.csv";
    QTest::newRow("peer: what its record says") << "keras fit"
                                                << "higgs.npy";
}

void TestRunsTableFilter::datasetColumn() {
    QFETCH(QString, name);
    QFETCH(QString, expected);
    RunStore store;
    fill(store);
    RunsTableView view(&store);
    QCOMPARE(view.model()->headerData(RunsTableModel::Dataset, Qt::Horizontal).toString(), QString("Data set"));
    const auto row = static_cast<int>(shownNames(view).indexOf(name));
    QVERIFY(row >= 0);
    QCOMPARE(view.table()->model()->index(row, RunsTableModel::Dataset).data().toString(), expected);
}

void TestRunsTableFilter::filterByText_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("nothing: every run") << "" << QStringList{"alpha", "beta", "gamma", "keras fit"};
    QTest::newRow("name") << "gam" << QStringList{"gamma"};
    QTest::newRow("data set") << "spambase" << QStringList{"beta", "gamma"};
    QTest::newRow("built-in data set") << "built-in" << QStringList{"alpha"};
    QTest::newRow("backend") << "cpu" << QStringList{"alpha", "beta"};
    QTest::newRow("preset") << "peer" << QStringList{"keras fit"};
    QTest::newRow("status, any case") << "FAILED" << QStringList{"beta"};
    QTest::newRow("no match") << "zzz" << QStringList{};
}

void TestRunsTableFilter::filterByText() {
    QFETCH(QString, text);
    QFETCH(QStringList, expected);
    RunStore store;
    fill(store);
    RunsTableView view(&store);
    view.setFilterText(text);
    QCOMPARE(shownNames(view), expected);
    QCOMPARE(view.shownRowCount(), static_cast<int>(expected.size()));
    QCOMPARE(view.filterEdit()->text(), text);
}

// Typing in the field filters; a run added later is filtered too; clearing brings every row back.
void TestRunsTableFilter::filterFieldDrivesTheTable() {
    RunStore store;
    fill(store);
    RunsTableView view(&store);
    QTest::keyClicks(view.filterEdit(), "spam");
    QCOMPARE(shownNames(view), (QStringList{"beta", "gamma"}));
    store.addRecord(ourRun("delta", {{"kind", "csv"}, {"path", "spambase.csv"}}, "cpu", RunStatus::Completed),
                    QString());
    store.addRecord(ourRun("epsilon", {{"kind", "builtin"}}, "cpu", RunStatus::Completed), QString());
    QCOMPARE(shownNames(view), (QStringList{"beta", "gamma", "delta"}));
    view.filterEdit()->clear();
    QCOMPARE(view.shownRowCount(), 6);
}

void TestRunsTableFilter::hideAllAndShowAll() {
    RunStore store;
    fill(store);
    RunsTableView view(&store);
    view.setFilterText("spam");  // hides from the charts every run, not only the rows shown
    int changed = 0;
    connect(&store, &RunStore::runChanged, this, [&changed] { ++changed; });
    view.hideAllAction()->trigger();
    for (const RunEntry& run : store.runs()) QVERIFY(!run.visible);
    QCOMPARE(changed, 4);
    view.showAllAction()->trigger();  // the runs listed: those of the spam data set
    QTRY_COMPARE(changed, 6);
    QStringList shown;
    for (const RunEntry& run : store.runs())
        if (run.visible) shown << run.name;
    QCOMPARE(shown, QStringList({"beta", "gamma"}));
    QVERIFY(view.showNote().isEmpty());  // none left out
    view.setFilterText("");
    view.showAllAction()->trigger();
    QTRY_COMPARE(changed, 8);
    for (const RunEntry& run : store.runs()) QVERIFY(run.visible);
}

// Thousands of runs listed: Show all shows the first fifty the table lists (sorted as the table is),
// says how many it left out, and Hide all stops what it had still to show.
void TestRunsTableFilter::showAllIsBounded() {
    RunStore store;
    const nlohmann::json builtin = {{"kind", "builtin"}, {"rows", 1000}};
    constexpr int kRuns = 1200;
    for (int i = 0; i < kRuns; ++i)
        store.addRecord(
            ourRun(QString("run %1").arg(i, 4, 10, QChar('0')).toStdString(), builtin, "cpu", RunStatus::Completed),
            QString(), false);
    RunsTableView view(&store);
    view.table()->sortByColumn(RunsTableModel::Name, Qt::DescendingOrder);  // the last made, first
    view.showAllAction()->trigger();
    const auto visibleNames = [&store] {
        QStringList names;
        for (const RunEntry& run : store.runs())
            if (run.visible) names << run.name;
        return names;
    };
    QTRY_COMPARE(visibleNames().size(), RunsTableView::kMaxShownAtOnce);
    QCoreApplication::processEvents();
    QCOMPARE(visibleNames().size(), RunsTableView::kMaxShownAtOnce);  // and no more after
    QCOMPARE(visibleNames().front(), QString("run 1150"));
    QCOMPARE(visibleNames().back(), QString("run 1199"));
    QVERIFY2(view.showNote().contains("first 50 of 1,200 listed runs"), qPrintable(view.showNote()));
    view.hideAllAction()->trigger();
    QVERIFY(visibleNames().isEmpty());
    QVERIFY(view.showNote().isEmpty());
    view.showAllAction()->trigger();  // and Hide all at once: nothing is shown later
    view.hideAllAction()->trigger();
    QTest::qWait(50);
    QVERIFY2(visibleNames().isEmpty(), qPrintable(visibleNames().join(", ")));
}

QTEST_MAIN(TestRunsTableFilter)
#include "tst_runs_table_filter.moc"
