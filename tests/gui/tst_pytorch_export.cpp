// "Export as PyTorch code…": a run's configuration becomes the PyTorch loop the torch backend runs
// for it, with the run's switches as PyTorch constructs, whichever backend the run trained on; a run
// with no workbench configuration, one that does not parse, or a file that cannot be written is
// refused with the reason (a message box where the user acted) and leaves nothing behind. The Answer
// tab's "Export fixed loop as PyTorch code…": enabled only where the answer has a PyTorch fixed loop
// (else its tooltip says why), writing what `mlpwb export --answer` writes: the fastest step measured.
#include <QAction>
#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/platform/errors.h"
#include "frameworks/fixed_loop_script.h"
#include "gui/answer/answer_view.h"
#include "gui/runs/pytorch_export.h"
#include "gui/runs/run_store.h"
#include "gui/runs/runs_table_view.h"
#include "gui/training/training_controller.h"
#include "tests/fixed_loop_fixture.h"
#include "tests/gui/message_box_catcher.h"
#include "tests/test_support.h"

using namespace wb;
using namespace wb::gui;
using nlohmann::json;

namespace {

RunConfig runOf(const QString& preset, const QString& backend, const QTemporaryDir& dir) {
    RunConfig c;
    c.name = preset.toStdString();
    c.backend = backend.toStdString();
    c.execution = presetByName(preset.toStdString()).settings;
    c.train.epochs = 7;
    // An interpreter that does not exist: the loop is written for the CPU and the newest PyTorch,
    // the same on every machine (and no PyTorch is imported to learn otherwise).
    c.framework.python = dir.filePath("no-such-python").toStdString();
    return c;
}

}  // namespace

class TestPytorchExport : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(dir_.isValid());
    }

    void theScriptHasTheRunsConstructs_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("backend");  // the run's own backend: every one exports
        QTest::addColumn<QString>("file");     // the name offered in the save dialog
        QTest::addColumn<QStringList>("constructs");
        QTest::newRow("the founding loop, trained on the cpu")
            << "Seed PyTorch loop"
            << "cpu"
            << "seed_pytorch_loop.py"
            << QStringList{"DataLoader(TensorDataset(", "nn.BCELoss()", "model.zero_grad(set_to_none=False)",
                           "optimizer.zero_grad(set_to_none=False)", "foreach=False"};
        QTest::newRow("the answer's fixes, trained in PyTorch")
            << "Seed answer's fixes"
            << "torch"
            << "seed_answer_s_fixes.py"
            << QStringList{"nn.BCEWithLogitsLoss()", "# zero_grad=once", "data_path=device_resident"};
        QTest::newRow("a static graph, trained on cuda")
            << "Static graph (Keras-like)"
            << "cuda"
            << "static_graph_keras_like.py" << QStringList{"torch.compile(", "set_to_none=True", "foreach=True"};
    }

    void theScriptHasTheRunsConstructs() {
        QFETCH(QString, preset);
        QFETCH(QString, backend);
        QFETCH(QString, file);
        QFETCH(QStringList, constructs);
        RunStore store;
        const int id = store.addPending(runOf(preset, backend, dir_));
        RunsTableView view(&store);
        QCOMPARE(scriptFileName(*store.find(id)), file);
        const QString path = dir_.filePath(file);
        QVERIFY(view.exportRunAsPytorch(id, path));
        const QString script = readAll(path);
        QVERIFY(script.startsWith("#!/usr/bin/env python3"));
        QVERIFY(script.contains("import torch"));
        for (const QString& construct : constructs) QVERIFY2(script.contains(construct), qPrintable(construct));
        QVERIFY(script.contains(R"("backend":"torch")"));  // the run's config, on the torch backend
        QVERIFY(script.contains(R"("epochs":7)"));
        QVERIFY(QFileInfo(path).isExecutable());
        QCOMPARE(torchConfigOf(*store.find(id)).backend, std::string("torch"));

        // Valid Python, where an interpreter is at hand (no PyTorch needed to parse it).
        const QString python = QStandardPaths::findExecutable("python3");
        if (python.isEmpty()) return;
        QProcess parse;
        parse.start(python, {"-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", path});
        QVERIFY(parse.waitForFinished(30000));
        QVERIFY2(parse.exitCode() == 0, parse.readAllStandardError().constData());
    }

    void theTorchKnobsAreInTheScript() {
        RunConfig c = runOf("Seed PyTorch loop", "torch", dir_);
        c.framework.torch = {3, 4, true, true};
        RunStore store;
        const int id = store.addPending(c);
        const QString path = dir_.filePath("knobs.py");
        exportPytorchScript(*store.find(id), path);
        const QString script = readAll(path);
        QVERIFY2(script.contains("num_workers=3, prefetch_factor=4, pin_memory=True"), qPrintable(script));
        QVERIFY(script.contains("torch.jit.script(model)"));
    }

    void refusedWithTheReason_data() {
        QTest::addColumn<QString>("config");  // the run's config JSON; empty = a good one
        QTest::addColumn<QString>("file");    // under the test's folder
        QTest::addColumn<QString>("mentions");
        QTest::newRow("a peer's run") << R"({"backend": "pytorch", "execution": null})"
                                      << "peer.py"
                                      << "no workbench configuration";
        QTest::newRow("a config that does not parse")
            << R"({"backend": "cpu", "execution": {}, "model": {"hidden": "wide"}})"
            << "bad.py"
            << "cannot be read";
        QTest::newRow("an unwritable file") << ""
                                            << "no-such-folder/loop.py"
                                            << "cannot write";
    }

    void refusedWithTheReason() {
        QFETCH(QString, config);
        QFETCH(QString, file);
        QFETCH(QString, mentions);
        RunStore store;
        const int id = store.addPending(runOf("Seed PyTorch loop", "cpu", dir_));
        RunEntry run = *store.find(id);
        if (!config.isEmpty()) run.record.config = json::parse(config.toStdString());
        const QString path = dir_.filePath(file);
        try {
            exportPytorchScript(run, path);
            QFAIL("exported anyway");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains(mentions), e.what());
        }
        QVERIFY(!QFile::exists(path));
    }

    // From the runs table: the action wants exactly one run; a failure is a message box there.
    void theViewSaysWhyAndWritesNothing() {
        RunStore store;
        const int id = store.addPending(runOf("Seed PyTorch loop", "cpu", dir_));
        store.addPending(runOf("Fastest", "cpu", dir_));
        RunsTableView view(&store);
        QAction* action = view.pytorchAction();
        QVERIFY(!action->isEnabled());
        view.selectRuns({id});
        QVERIFY(action->isEnabled());
        view.selectRuns({id, id + 1});
        QVERIFY(!action->isEnabled());

        MessageBoxCatcher catcher;
        catcher.arm();
        const QString path = dir_.filePath("missing-folder/seed.py");
        QVERIFY(!view.exportRunAsPytorch(id, path));
        QVERIFY2(catcher.text.contains("cannot write"), qPrintable(catcher.text));
        QVERIFY(!QFile::exists(path));
        QCOMPARE(store.runs().size(), std::size_t{2});  // nothing else changed
    }

    // The answer's fixed loop is data_path=device_resident (30 ms); launch=graph_step after it (45 ms)
    // is left out: the script has the one and not the other, as the CLI writes it.
    void theAnswerTabExportsTheFixedLoop() {
        TrainingController controller;
        AnswerView view(&controller);
        auto* button = view.findChild<QPushButton*>("answerExportLoopButton");
        QVERIFY(button);
        QVERIFY(!button->isEnabled());
        QVERIFY2(button->toolTip().contains("there is no answer yet"), qPrintable(button->toolTip()));
        const Answer answer = fixture::torchAnswer();
        view.showAnswer(answer);
        QVERIFY(button->isEnabled());
        // Under the conclusion, it widens the tab by nothing (the controls' row fills the default window).
        const int width = view.minimumSizeHint().width();
        button->hide();
        QCOMPARE(view.minimumSizeHint().width(), width);
        button->show();
        QSignalSpy said(&view, &AnswerView::status);
        const QString path = dir_.filePath("fixed_loop.py");
        QVERIFY(view.exportFixedLoop(path));
        const QString script = readAll(path);
        QCOMPARE(script.toStdString(), fixedLoopScript(answer, "torch", "the answer"));
        QVERIFY2(script.startsWith("#!/usr/bin/env python3\n# The fixed loop of the answer on PyTorch (test device)"),
                 qPrintable(script.left(500)));
        QVERIFY(script.contains("data_path=device_resident: "));
        QVERIFY(QString(script).replace("\n# ", " ").contains("launch=graph_step, which cost 15.0 ms per epoch."));
        QVERIFY(!script.contains("torch.compile("));
        QVERIFY(QFileInfo(path).isExecutable());
        QCOMPARE(said.count(), 1);
        QVERIFY2(said.front().front().toString().startsWith("Wrote "), qPrintable(said.front().front().toString()));
    }

    void theAnswerTabSaysWhyNot_data() {
        QTest::addColumn<QString>("answer");
        QTest::addColumn<QString>("why");
        QTest::newRow("PyTorch was missing") << "missing"
                                             << "it was not available: torch is not importable by python3";
        QTest::newRow("only its seed loop measured") << "seed only"
                                                     << "no step after its seed loop was measured";
    }
    void theAnswerTabSaysWhyNot() {
        QFETCH(QString, answer);
        QFETCH(QString, why);
        Answer a = fixture::torchAnswer();
        if (answer == "missing")
            a.engines.front() = fixture::missing("torch", "torch is not importable by python3");
        else
            a.engines.front().ablation->steps.resize(1);
        TrainingController controller;
        AnswerView view(&controller);
        view.showAnswer(a);
        auto* button = view.findChild<QPushButton*>("answerExportLoopButton");
        QVERIFY(!button->isEnabled());
        QVERIFY2(button->toolTip().contains(why), qPrintable(button->toolTip()));
        MessageBoxCatcher catcher;
        catcher.arm();
        const QString path = dir_.filePath("no_loop.py");
        QVERIFY(!view.exportFixedLoop(path));
        QVERIFY2(catcher.text.contains("torch has no measured fixed loop (" + why + ")"), qPrintable(catcher.text));
        QVERIFY(!QFile::exists(path));
    }
};

QTEST_MAIN(TestPytorchExport)
#include "tst_pytorch_export.moc"
