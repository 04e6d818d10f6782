// The execution panel greys the switches the selected backend ignores, whichever backend that is: it asks
// the registry, so a backend other than the CPU (here a stand-in registered by the test) is marked too.
#include <QComboBox>
#include <QStandardItemModel>
#include <QtTest>

#include "core/run/backend.h"
#include "gui/panels/execution_panel.h"

using namespace wb;
using namespace wb::gui;

namespace {

// A backend that only exists in the registry: it ignores `loss` under sigmoid_bce, and `zero_grad`.
std::vector<IgnoredSwitch> standInIgnores(const ExecutionSettings& s) {
    std::vector<IgnoredSwitch> out;
    if (s.loss == LossKind::SigmoidBce) out.push_back({"loss", "the stand-in always fuses the sigmoid"});
    out.push_back({"zero_grad", "the stand-in writes its gradients"});
    return out;
}

BackendInfo standInProbe() {
    return {"standin", true, "a stand-in device", "", {}};
}

std::unique_ptr<Backend> noFactory(int /*device*/) {
    return nullptr;  // never trains: the panel only asks what it ignores
}

// The panel asks the registry which backends can train off the GUI thread; a test starts from its answer.
bool backendsKnown(const ExecutionPanel& panel) {
    return QTest::qWaitFor([&] { return !panel.checkingBackends(); }, 60000);
}

QStandardItem* comboItem(QComboBox* combo, const QString& data) {
    return qobject_cast<QStandardItemModel*>(combo->model())->item(combo->findData(data));
}

}  // namespace

class TestExecutionPanelBackends : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { BackendRegistry::instance().add("standin", standInProbe, noFactory, standInIgnores); }

    void switchesTheSelectedBackendIgnoresAreGreyed() {
        ExecutionPanel panel;
        QVERIFY(backendsKnown(panel));
        panel.setBackend("standin");
        QCOMPARE(panel.backend(), QString("standin"));
        ExecutionSettings s;
        s.loss = LossKind::SigmoidBce;
        panel.setSettings(s);
        for (const char* name : {"loss", "zero_grad"}) {
            auto* combo = panel.findChild<QComboBox*>(name);
            QVERIFY2(combo->property("notApplicable").toBool(), name);
            QVERIFY2(combo->toolTip().startsWith("Not applicable on the standin: "), qPrintable(combo->toolTip()));
        }
        QVERIFY(panel.findChild<QComboBox*>("zero_grad")->toolTip().contains("writes its gradients"));
        // What the CPU ignores, the stand-in honours.
        for (const char* name : {"launch", "gemm", "data_path", "precision"})
            QVERIFY2(!panel.findChild<QComboBox*>(name)->property("notApplicable").toBool(), name);
        // Per value: the loss is ignored under sigmoid_bce only.
        auto* loss = panel.findChild<QComboBox*>("loss");
        QVERIFY(comboItem(loss, "sigmoid_bce")->toolTip().contains("Not applicable on the standin"));
        QVERIFY(!comboItem(loss, "bce_with_logits")->toolTip().contains("Not applicable"));

        s.loss = LossKind::BceWithLogits;
        panel.setSettings(s);
        QVERIFY(!loss->property("notApplicable").toBool());

        // Back on the CPU, its own list applies again.
        panel.setBackend("cpu");
        QVERIFY(panel.findChild<QComboBox*>("launch")->property("notApplicable").toBool());
        QVERIFY(!panel.findChild<QComboBox*>("zero_grad")->property("notApplicable").toBool());
    }
};

QTEST_MAIN(TestExecutionPanelBackends)
#include "tst_execution_panel_backends.moc"
