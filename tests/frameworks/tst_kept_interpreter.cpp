// An interpreter kept between loops (core/train/keep_warm.h, frameworks/loop_process.h), in real PyTorch:
// loops run in a kept interpreter train exactly as in one of their own, the record says which it
// was, and an interpreter whose loop failed or was stopped is never kept. Skips with the reason
// where the interpreter has no PyTorch ($MLPWB_TEST_PYTHON, else Debian's /usr/bin/python3).
#include <QtTest>

#include "core/data/builtin_data.h"
#include "core/train/keep_warm.h"
#include "frameworks/loop_process.h"
#include "frameworks/python_interpreter.h"
#include "tests/frameworks/run_test_support.h"
#include "tests/test_support.h"

using namespace wb;

namespace {

QString interpreterOf(const test::Run& r) {
    const auto it = r.record.environment.find("framework_interpreter");
    return it == r.record.environment.end() ? QString("(none)") : QString::fromStdString(it->second);
}

// A stand-in interpreter: the real one, except that a kept interpreter (the program given with -c
// that runs loops one after another) finds a `torch` that fails to import, as a broken install would.
QString brokenKeptPython(const QString& dir, const std::string& real) {
    QDir(dir).mkpath("broken");
    QFile module(QDir(dir).filePath("broken/torch.py"));
    if (!module.open(QIODevice::WriteOnly)) return {};
    module.write("raise ModuleNotFoundError(\"No module named 'torch'\")\n");
    module.close();
    const QString fake = QDir(dir).filePath("python");
    QFile f(fake);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write("#!/bin/sh\ncase \"$2\" in *loop_exit*) export PYTHONPATH=\"" + QDir(dir).filePath("broken").toUtf8() +
            "\" ;; esac\nexec " + QByteArray::fromStdString(real) + " \"$@\"\n");
    f.close();
    f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    return fake;
}
}  // namespace

class KeptInterpreterTest : public QObject {
    Q_OBJECT
    Dataset dataset_ = generateSeedLike(3000, 11);
    std::string python_ = test::torchTestPython();

private slots:
    void initTestCase() {
        if (const auto why = test::useFrameworkPython("torch", python_)) QSKIP(qPrintable(*why));
    }

    // A loop in its own interpreter, then two in a kept one: the second reuses the first's
    // interpreter, all three train to the same losses and weights, and the kept interpreter ends
    // with the last KeepWarm.
    void keptLoopsTrainAlike() {
        const RunConfig c = test::smallRun("torch", OptimizerSpec{}, python_);
        const PreparedData data = prepare(dataset_, c.prepare);
        CancelFlag never{false};
        const test::Run alone = test::train(c, dataset_, data, never);
        QCOMPARE(interpreterOf(alone), QString("new"));
        QCOMPARE(LoopProcess::keptInterpreters(), std::size_t{0});
        std::vector<test::Run> kept;
        {
            const KeepWarm warm;
            kept.push_back(test::train(c, dataset_, data, never));
            QCOMPARE(LoopProcess::keptInterpreters(), std::size_t{1});
            kept.push_back(test::train(c, dataset_, data, never));
            QCOMPARE(LoopProcess::keptInterpreters(), std::size_t{1});
        }
        QCOMPARE(LoopProcess::keptInterpreters(), std::size_t{0});
        QCOMPARE(interpreterOf(kept[0]), QString("new"));
        QCOMPARE(interpreterOf(kept[1]), QString("kept (loop 2)"));
        for (const test::Run& r : kept) {
            QVERIFY2(r.record.status == RunStatus::Completed, r.record.message.c_str());
            QCOMPARE(r.record.epochs.size(), alone.record.epochs.size());
            QVERIFY2(test::largestLossDifference(r.record, alone.record) <= 1e-6,
                     qPrintable(QString::number(test::largestLossDifference(r.record, alone.record))));
            QCOMPARE(r.params.count(), alone.params.count());
            for (std::size_t i = 0; i < r.params.count(); ++i)
                QVERIFY2(std::abs(r.params.values[i] - alone.params.values[i]) < 1e-6, qPrintable(QString::number(i)));
        }
    }

    // A loop that fails in a kept interpreter: a `failed` run with the loop's traceback and status,
    // and the interpreter is not kept for the next loop.
    void failedLoopIsNotKept() {
        QTemporaryDir dir;
        RunConfig c = test::smallRun("torch", OptimizerSpec{}, python_);
        c.framework.python = brokenKeptPython(dir.path(), python_).toStdString();
        const PreparedData data = prepare(dataset_, c.prepare);
        CancelFlag never{false};
        const KeepWarm warm;
        const test::Run r = test::train(c, dataset_, data, never);
        WB_COMPARE_NAME(r.record.status, "failed");
        QVERIFY2(r.record.message.find("No module named 'torch'") != std::string::npos, r.record.message.c_str());
        QVERIFY2(r.record.message.find("exited with status 1") != std::string::npos, r.record.message.c_str());
        QCOMPARE(LoopProcess::keptInterpreters(), std::size_t{0});
    }

    // Stop during a loop in a kept interpreter ends that interpreter: the run is cancelled after the
    // epochs it had, and nothing is kept (a loop cut off mid-epoch leaves its state unknown).
    void stoppedLoopIsNotKept() {
        RunConfig c = test::smallRun("torch", OptimizerSpec{}, python_);
        const PreparedData data = prepare(dataset_, c.prepare);
        CancelFlag never{false};
        const KeepWarm warm;
        QVERIFY(test::train(c, dataset_, data, never).record.status == RunStatus::Completed);
        QCOMPARE(LoopProcess::keptInterpreters(), std::size_t{1});
        c.train.epochs = 100000;
        CancelFlag cancel{false};
        const test::Run r = test::train(c, dataset_, data, cancel, {[&](const EpochMetrics& m, const RunRecord&) {
                                            if (m.epoch == 2) cancel.store(true);
                                        }});
        WB_COMPARE_NAME(r.record.status, "cancelled");
        QCOMPARE(interpreterOf(r), QString("kept (loop 2)"));
        QCOMPARE(LoopProcess::keptInterpreters(), std::size_t{0});
    }
};

QTEST_GUILESS_MAIN(KeptInterpreterTest)
#include "tst_kept_interpreter.moc"
