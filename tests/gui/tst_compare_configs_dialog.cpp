// "Compare configs…" on two runs says first whether their speeds may be compared: two runs on
// different data are "not comparable", with the difference in words, and the differing data facts
// lead the list (highlighted); the same workload on another device is "comparable", the device and
// the switches listed as what the comparison is about. Opened through the runs table's action.
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "gui/runs/run_store.h"
#include "gui/runs/runs_table_view.h"
#include "gui/training/compare_configs_dialog.h"

using namespace wb;
using namespace wb::gui;

namespace {

RunRecord recordOn(const RunConfig& config, const std::string& source, std::size_t rows, const std::string& hash,
                   const std::string& device) {
    RunRecord r;
    r.name = config.name;
    r.status = RunStatus::Completed;
    r.config = nlohmann::json(config);
    r.dataset.source = source;
    r.dataset.rows = rows;
    r.dataset.features = 61;
    r.dataset.hash = hash;
    r.dataset.trainRows = rows * 4 / 5;
    r.dataset.valRows = rows - r.dataset.trainRows;
    r.environment["device"] = device;
    return r;
}

}  // namespace

class TestCompareConfigsDialog : public QObject {
    Q_OBJECT

private slots:
    void workloadDifferenceComesFirst_data();
    void workloadDifferenceComesFirst();
};

void TestCompareConfigsDialog::workloadDifferenceComesFirst_data() {
    QTest::addColumn<QString>("otherSource");  // the second run's data: "builtin" is the first run's
    QTest::addColumn<QString>("otherDevice");
    QTest::addColumn<QString>("verdict");
    QTest::addColumn<QString>("firstWorkloadRow");  // empty: none
    QTest::addColumn<QString>("executionRow");      // a row the execution table must hold
    QTest::newRow("different data") << "bc.csv"
                                    << "cpu0"
                                    << QString::fromUtf8("Different workload \u2014 not comparable: different data")
                                    << "data.kind"
                                    << "execution.launch";
    QTest::newRow("same workload, another device")
        << "builtin"
        << "another machine's cpu" << QString("Same workload: speed comparable") << QString() << "environment.device";
}

void TestCompareConfigsDialog::workloadDifferenceComesFirst() {
    QFETCH(QString, otherSource);
    QFETCH(QString, otherDevice);
    QFETCH(QString, verdict);
    QFETCH(QString, firstWorkloadRow);
    QFETCH(QString, executionRow);
    RunStore store;
    RunsTableView view(&store);
    RunConfig a;
    a.name = "Seed PyTorch loop";
    a.execution = presetByName("Seed PyTorch loop").settings;
    RunConfig b = a;
    b.name = "Fastest";
    b.execution = presetByName("Fastest").settings;
    const bool otherData = otherSource != "builtin";
    if (otherData) {
        b.data.kind = DataSpec::Kind::Csv;
        b.data.path = "bc.csv";
    }
    const int idA = store.addPending(a);
    const int idB = store.addPending(b);
    store.finish(idA, recordOn(a, "builtin", 100000, "sha256:aaa", "cpu0"));
    store.finish(idB, recordOn(b, otherSource.toStdString(), otherData ? 569 : 100000,
                               otherData ? "sha256:bbb" : "sha256:aaa", otherDevice.toStdString()));

    view.selectRuns({idA, idB});
    view.compareSelected();
    auto* dialog = view.findChild<CompareConfigsDialog*>("configDiffDialog");
    QVERIFY(dialog);
    QVERIFY2(dialog->verdict().startsWith(verdict), qPrintable(dialog->verdict()));

    // The verdict is the first thing in the dialog, the workload table before the execution table.
    auto* layout = qobject_cast<QVBoxLayout*>(dialog->layout());
    QVERIFY(layout);
    auto* header = qobject_cast<QLabel*>(layout->itemAt(0)->widget());
    QVERIFY(header);
    QCOMPARE(header->objectName(), QString("workloadVerdict"));
    QCOMPARE(header->text(), dialog->verdict());
    auto* workload = dialog->findChild<QTableWidget*>("workloadTable");
    auto* execution = dialog->findChild<QTableWidget*>("executionTable");
    QVERIFY(execution);
    QStringList executionKeys;
    for (int row = 0; row < execution->rowCount(); ++row) executionKeys << execution->item(row, 0)->text();
    QVERIFY2(executionKeys.contains(executionRow), qPrintable(executionKeys.join(", ")));
    for (const QString& key : executionKeys) QVERIFY2(!isWorkloadKey(key), qPrintable(key));
    if (firstWorkloadRow.isEmpty()) {
        QVERIFY(!workload);
        return;
    }
    QVERIFY(workload);
    QVERIFY(layout->indexOf(workload) < layout->indexOf(execution));
    QStringList workloadKeys;
    for (int row = 0; row < workload->rowCount(); ++row) workloadKeys << workload->item(row, 0)->text();
    QVERIFY2(workloadKeys.contains(firstWorkloadRow), qPrintable(workloadKeys.join(", ")));
    QVERIFY2(workloadKeys.contains("dataset.hash"), qPrintable(workloadKeys.join(", ")));
    QVERIFY(workload->item(0, 0)->background().style() != Qt::NoBrush);  // highlighted
}

QTEST_MAIN(TestCompareConfigsDialog)
#include "tst_compare_configs_dialog.moc"
