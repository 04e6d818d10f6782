// The answer: which engines it asks and what it tells the user to install, its conclusion derived
// from hand-made levels (a gap and its largest cause, no difference, the fastest epoch, what was not
// measured), its file's round trip, and a real run on the CPU backend (tiny data) with cancellation.
// Nothing here asserts a timing.
#include <QTemporaryDir>
#include <QtTest>

#include "core/data/builtin_data.h"
#include "core/data/prepare.h"
#include "core/measure/answer.h"
#include "core/platform/errors.h"

using namespace wb;

namespace {
// A finished run whose epochs take `ms` each after a warm-up of 10x the first.
RunRecord runOf(const std::vector<double>& ms) {
    RunRecord r;
    r.status = RunStatus::Completed;
    for (std::size_t i = 0; i <= ms.size(); ++i) {
        EpochMetrics e;
        e.epoch = static_cast<int>(i) + 1;
        e.warmup = i == 0;
        e.wallMs = i == 0 ? ms.front() * 10 : ms[i - 1];
        e.trainLoss = 0.5;
        r.epochs.push_back(e);
    }
    return r;
}

// A step measured three times, each run's epochs at `ms` times (1 - spread, 1, 1 + spread).
AblationStep step(const std::string& name, const std::string& description, double ms, double spread = 0.02) {
    AblationStep s;
    s.name = name;
    s.description = description;
    for (double f : {1 - spread, 1.0, 1 + spread}) s.runs.push_back(runOf({ms * f, ms * f, ms * f}));
    s.medianEpochMs = ms;
    s.minEpochMs = ms * (1 - spread);
    s.maxEpochMs = ms * (1 + spread);
    s.final = StepFinal{0.5, 0.8, std::nullopt, std::nullopt};
    return s;
}

AnswerEngine engine(const std::string& name, std::vector<AblationStep> steps) {
    AnswerEngine e;
    e.engine = name;
    e.available = true;
    e.device = "test device";
    AblationResult r;
    r.backend = name;
    r.status = AblationStatus::Completed;
    r.steps = std::move(steps);
    r.updateSavings();
    e.ablation = r;
    return e;
}

AnswerEngine missing(const std::string& name, const std::string& reason) {
    AnswerEngine e;
    e.engine = name;
    e.reason = reason;
    e.install = installHint(name, reason);
    return e;
}

// PyTorch's seed loop is slow for its DataLoader; our CPU backend has nothing to remove.
Answer founding() {
    Answer a;
    a.status = AnswerStatus::Completed;
    a.engines.push_back(
        engine("cpu", {step("baseline", "", 5.0, 0.05), step("data_path=device_resident", "d", 4.9, 0.05)}));
    a.engines.push_back(
        engine("torch", {step("baseline", "", 400), step("data_path=device_resident", "the DataLoader gone", 30),
                         step("loss=bce_with_logits", "fused loss", 20)}));
    a.engines.push_back(missing("jax", "jax is not importable by python3"));
    return a;
}

// The founding post's two programs: the PyTorch loop (514 ms per epoch, 20 once fixed) and Keras's
// fit (85 ms; 80 with XLA).
Answer foundingPair(double kerasFitMs = 85) {
    Answer a;
    a.status = AnswerStatus::Completed;
    a.engines.push_back(engine("torch", {step("baseline", "", 514), step("data_path=device_resident", "d", 40),
                                         step("launch=graph_step", "g", 20)}));
    a.engines.push_back(
        engine("keras", {step("baseline", "", kerasFitMs), step("launch=fused, gemm=custom", "x", 80)}));
    return a;
}

QString joined(const Answer& a) {
    QStringList lines;
    for (const auto& l : a.conclusion()) lines << QString::fromStdString(l);
    return lines.join('\n');
}
}  // namespace

class TestAnswer : public QObject {
    Q_OBJECT

private slots:
    void theLargestGapLeadsWithItsLargestCause() {
        const auto lines = founding().conclusion();
        QVERIFY(lines.size() >= 3);
        const QString first = QString::fromStdString(lines[0]);
        QVERIFY2(
            first.startsWith(
                "On PyTorch (test device), the fixed loop is 20\u00d7 faster (19\u201321\u00d7) than the seed loop"),
            qPrintable(first));
        QVERIFY2(first.contains("400 \u2192 20.0 ms per epoch"), qPrintable(first));
        // (400 - 30) of the 380 ms gap: 97%.
        QVERIFY2(first.contains("The largest cause: data_path=device_resident (the DataLoader gone), 97% ("),
                 qPrintable(first));
        QVERIFY2(first.contains(") of the gap."), qPrintable(first));
    }

    void noDifferenceIsSaidSo() {
        const QString second = QString::fromStdString(founding().conclusion()[1]);
        QVERIFY2(
            second.startsWith("On our CPU backend (test device), the seed loop and the fixed loop take the same time: "
                              "no measurable difference"),
            qPrintable(second));
        QVERIFY2(!second.contains("largest cause"), qPrintable(second));
    }

    // Where every fix costs time (Keras's fit on a busy CPU), the loop to keep is the seed loop: the
    // conclusion says so, names the fix's cost, and never calls the seed loop "slower" than itself.
    void aSeedLoopFasterThanEveryFixIsTheFixedLoop() {
        Answer a;
        a.status = AnswerStatus::Completed;
        a.engines.push_back(engine("keras", {step("baseline", "", 85), step("launch=fused, gemm=custom", "x", 95)}));
        const AblationResult& r = *a.engines.front().ablation;
        QCOMPARE(r.fixedLoop(), r.seedLoop());
        QVERIFY(r.leftOut().size() == 1);
        const QString line = QString::fromStdString(a.conclusion().front());
        QVERIFY2(line.startsWith("On Keras (test device), no fix made the seed loop faster here: at 85.0 ms per "
                                 "epoch it was the fastest loop measured, so the fixed loop is the seed loop itself."),
                 qPrintable(line));
        QVERIFY2(line.contains("launch=fused, gemm=custom costs 10.0 ms per epoch ("), qPrintable(line));
        QVERIFY2(!line.contains("slower"), qPrintable(line));
    }

    void theFastestEpochAgainstTheSlowestSeedLoop() {
        const QString all = joined(founding());
        // cpu's fixed loop at 4.9 ms (4.66-5.15) against torch's seed loop at 400 ms (392-408).
        QVERIFY2(
            all.contains("The fastest epoch here: the fixed loop on our CPU backend (test device), 4.90 ms, 82\u00d7 "
                         "faster (76\u201388\u00d7) than the seed loop on PyTorch (test device) (400 ms)."),
            qPrintable(all));
    }

    // Each engine from its own seed loop: Keras from the founding fit, without the fixes that would
    // change nothing there; every other engine from the founding PyTorch loop, with every fix.
    void eachEngineFromItsFoundingCode() {
        AnswerPlan plan;
        QCOMPARE(plan.ablation("torch").baseline, std::string("Seed PyTorch loop"));
        QCOMPARE(plan.ablation("torch").fixes, defaultFixOrder());
        QCOMPARE(plan.ablation("cpu").fixes, defaultFixOrder());
        const AblationPlan keras = plan.ablation("keras");
        QCOMPARE(keras.baseline, std::string("Seed Keras fit"));
        // The fit already slices the arrays, runs a graph, takes the logit and zeroes nothing.
        QCOMPARE(keras.fixes, (std::vector<std::string>{"optimizer_kernel", "precision", "fused", "persistent"}));
        const ExecutionSettings& fit = presetByName("Seed Keras fit").settings;
        QCOMPARE(toString(fit.dataPath), std::string("device_resident"));
        QCOMPARE(toString(fit.launch), std::string("graph_step"));
    }

    // Where Keras and PyTorch both ran, the first sentence is the founding question's answer:
    // 514 / 85 = 6.05x (the runs' medians 503.7-524.3 against 83.3-86.7: 5.81-6.29x), the
    // PyTorch loop's own causes with their shares, and its fixed loop against the fit (85 / 20).
    void theFoundingQuestionComesFirst() {
        const auto lines = foundingPair().conclusion();
        const QString first = QString::fromStdString(lines.front());
        QVERIFY2(first.startsWith("The founding question: Keras's fit is 6.05× faster (5.81–6.29×) "
                                  "than the PyTorch loop here, 85.0 against 514 ms per epoch."),
                 qPrintable(first));
        // (514 - 40) / 494 = 96%, (40 - 20) / 494 = 4%.
        QVERIFY2(first.contains("Where the PyTorch loop loses its time (shares of its own gap, fixed in this order): "
                                "data_path=device_resident 96% ("),
                 qPrintable(first));
        QVERIFY2(first.contains("launch=graph_step 4% ("), qPrintable(first));
        QVERIFY2(first.contains(" The fixed PyTorch loop is 4.25× faster ("), qPrintable(first));
        QVERIFY2(first.endsWith(") than Keras's fit: 20.0 ms."), qPrintable(first));
    }

    void aFitAsSlowAsTheLoopIsNoDifference() {
        const QString first = QString::fromStdString(foundingPair(510).conclusion().front());
        QVERIFY2(first.startsWith("The founding question: Keras's fit and the PyTorch loop take the same time here "
                                  "(no measurable difference ("),
                 qPrintable(first));
    }

    void withoutKerasTheFoundingQuestionSaysWhatToInstall() {
        Answer a = founding();
        a.engines.push_back(missing("keras", "keras is not importable by python3"));
        const QString first = QString::fromStdString(a.conclusion().front());
        QCOMPARE(first, QString("The founding question (Keras's fit against the PyTorch loop) cannot be answered "
                                "here: Keras could not run (why, and what to install, below)."));
        QVERIFY(
            joined(a).contains("Not measured: Keras, keras is not importable by python3. To measure it: pip "
                               "install tensorflow-cpu keras."));
        QVERIFY(!a.founding());
    }

    void whatWasNotMeasuredSaysHowToMeasureIt() {
        const QString all = joined(founding());
        QVERIFY2(all.contains("Not measured: JAX, jax is not importable by python3. To measure it: pip install jax."),
                 qPrintable(all));
    }

    // An answer shown while it is measured says that it is provisional, first.
    void aPartialAnswerIsMarkedProvisional() {
        Answer a = founding();
        a.status = AnswerStatus::Running;
        const auto lines = a.conclusion();
        QCOMPARE(lines.front(), std::string("Provisional: still measuring; every figure below may change."));
        QVERIFY(QString::fromStdString(lines[1]).startsWith("On PyTorch"));
        QVERIFY(QString::fromStdString(founding().conclusion().front()).startsWith("On PyTorch"));
    }

    void nothingMeasuredYet() {
        Answer a;
        QCOMPARE(a.conclusion(), std::vector<std::string>{"Nothing measured yet."});
    }

    void enginesAvailableFirstWithInstallHints() {
        AnswerPlan plan;
        std::vector<BackendInfo> infos = {{"cpu", true, "AMD EPYC", "", {}},
                                          {"torch", false, "", "torch is not importable", {}},
                                          {"keras", false, "", "keras is not importable", {}},
                                          {"jax", true, "jax 0.4 (cpu)", "", {}}};
        const auto engines = answerEngines(plan, infos);
        QStringList order;
        for (const auto& e : engines) order << QString::fromStdString(e.engine);
        QCOMPARE(order, QStringList({"cpu", "jax", "cuda", "torch", "keras"}));
        QCOMPARE(engines[2].reason, std::string("this build has no cuda backend"));
        QVERIFY(QString::fromStdString(engines[3].install).contains("apt-get install python3-torch"));
        QCOMPARE(engines[4].install, std::string("pip install tensorflow-cpu keras"));
        QVERIFY(engines[0].install.empty());
        plan.engines = {"jax", "cpu"};
        QCOMPARE(answerEngines(plan, infos).front().engine, std::string("jax"));
    }

    void aBadPlanIsRefused_data() {
        QTest::addColumn<int>("repeats");
        QTest::addColumn<int>("epochs");
        QTest::addColumn<QString>("engine");
        QTest::newRow("no repeats") << 0 << 10 << "cpu";
        QTest::newRow("one epoch: no timed epoch") << 1 << 1 << "cpu";
        QTest::newRow("an unknown engine") << 1 << 10 << "tensorflow";
    }
    void aBadPlanIsRefused() {
        QFETCH(int, repeats);
        QFETCH(int, epochs);
        QFETCH(QString, engine);
        AnswerPlan plan;
        plan.repeats = repeats;
        plan.epochs = epochs;
        plan.engines = {engine.toStdString()};
        QVERIFY_THROWS_EXCEPTION(ConfigError, plan.validate());
    }

    void theFileRoundTrips() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("answer.json").toStdString();
        const Answer a = founding();
        a.save(path);
        const Answer b = Answer::load(path);
        QCOMPARE(b.conclusion(), a.conclusion());
        QCOMPARE(b.engines.size(), a.engines.size());
        QCOMPARE(b.engines[1].ablation->steps[1].medianEpochMs, 30.0);
        QCOMPARE(b.engines[2].install, std::string("pip install jax"));
        QCOMPARE(toString(b.status), std::string("completed"));
    }

    void aFileOfAnotherKindIsRefused() {
        QVERIFY_THROWS_EXCEPTION(DataError, Answer::fromJson({{"schema", "mlpwb.ablation/1"}}));
        QVERIFY_THROWS_EXCEPTION(DataError, Answer::fromJson({{"schema", Answer::kSchema}, {"engines", 3}}));
    }

    // For real on the CPU backend: every planned step of the engine is reported, the missing engine
    // stays in the answer with its reason, and a cancel stops it.
    void runsEveryAvailableEngine() {
        const Dataset dataset = generateSeedLike(400, 1);
        const PreparedData data = prepare(dataset, {});
        RunConfig config;
        config.data.rows = 400;
        config.train.batchSize = 64;
        AnswerPlan plan;
        plan.engines = {"cpu", "cuda"};
        plan.repeats = 1;
        plan.epochs = 2;
        std::vector<AnswerEngine> engines = {engine("cpu", {}), missing("cuda", "no NVIDIA driver")};
        engines[0].ablation.reset();
        CancelFlag cancel{false};
        int started = 0, progress = 0;
        AnswerCallbacks callbacks;
        callbacks.onRunStarted = [&](const std::string& name, const std::string&, int, int done, int planned) {
            QCOMPARE(name, std::string("cpu"));
            QCOMPARE(done, started++);
            QVERIFY(planned >= plannedRuns(plan.ablation("cpu")));  // more once more rounds are wanted
            QVERIFY(planned > done);
        };
        callbacks.onProgress = [&](const Answer&) { ++progress; };
        const Answer a = runAnswer(plan, engines, config, dataset, data, cancel, callbacks);
        QCOMPARE(toString(a.status), std::string("completed"));
        QVERIFY(started >= 2);  // the baseline and at least one fix the CPU backend honours
        QVERIFY(progress > started / 2);
        QVERIFY(a.engines[0].ablation.has_value());
        QCOMPARE(toString(a.engines[0].ablation->status), std::string("completed"));
        QCOMPARE(a.config.train.epochs, 2);
        QVERIFY(joined(a).contains("Not measured: our CUDA backend, no NVIDIA driver."));

        const auto estimates = estimateAnswer(plan, engines, config, dataset, data, cancel);
        QCOMPARE(estimates.size(), std::size_t{1});
        QVERIFY(estimates[0].seconds && *estimates[0].seconds > 0);

        cancel.store(true);
        const Answer stopped = runAnswer(plan, engines, config, dataset, data, cancel);
        QCOMPARE(toString(stopped.status), std::string("cancelled"));
    }
};

QTEST_GUILESS_MAIN(TestAnswer)
#include "tst_answer.moc"
