// The ablation runner on a tiny data set (400 built-in rows, 2 epochs, one run per step): the steps it
// makes and what becomes of each fix on the CPU backend, the waterfall arithmetic, the JSON round trip,
// reordering, refused fixes, "alone" steps and cancellation. Nothing here asserts a timing.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

#include "core/data/builtin_data.h"
#include "core/data/prepare.h"
#include "core/measure/ablation.h"
#include "core/measure/ablation_attribution.h"
#include "core/platform/errors.h"
#include "tests/injected_times_backend.h"
#include "tests/test_support.h"

using namespace wb;

namespace {

struct Fixture {
    Dataset dataset = generateSeedLike(400, 1);
    PreparedData data = prepare(dataset, {});
    RunConfig config = [] {
        RunConfig c;
        c.data.rows = 400;
        c.train.epochs = 2;
        c.train.batchSize = 64;
        c.backend = "cpu";
        return c;
    }();
};

AblationPlan plan(std::vector<std::string> fixes, int repeats = 1, bool alone = false) {
    AblationPlan p;
    p.fixes = std::move(fixes);
    p.repeats = repeats;
    p.alone = alone;
    return p;
}

AblationResult run(const AblationPlan& p, const AblationCallbacks& callbacks = {}) {
    static const Fixture f;
    CancelFlag cancel{false};
    return runAblation(p, f.config, f.dataset, f.data, cancel, callbacks);
}

QStringList namesOf(const std::vector<AblationStep>& steps) {
    QStringList names;
    for (const auto& s : steps) names << QString::fromStdString(s.name);
    return names;
}

QStringList statusesOf(const std::vector<AblationStep>& steps) {
    QStringList statuses;
    for (const auto& s : steps) statuses << QString::fromStdString(toString(s.status));
    return statuses;
}

// Settings as their JSON text: compared with a readable message when they differ.
QString text(const ExecutionSettings& s) {
    return QString::fromStdString(nlohmann::json(s).dump());
}

// The fixture's rows as a `task` data set: a regression reads the 0/1 labels as numbers (as
// `--task regression` makes it); a multiclass one puts row i in class i mod 3.
Dataset fixtureAs(Task task) {
    static const Fixture f;
    Dataset d = f.dataset;
    d.task = task;
    d.classNames.clear();
    d.labelMapping.clear();
    if (task == Task::Multiclass) {
        for (std::size_t i = 0; i < d.rows; ++i) d.labels[i] = static_cast<float>(i % 3);
        d.classNames = {"0", "1", "2"};
    }
    d.computeHash();
    return d;
}

AblationResult runOn(const Dataset& dataset, const AblationPlan& p) {
    static const Fixture f;
    const PreparedData data = prepare(dataset, {});
    CancelFlag cancel{false};
    return runAblation(p, f.config, dataset, data, cancel, {});
}

AblationResult runRegression(const AblationPlan& p) {
    return runOn(fixtureAs(Task::Regression), p);
}

AblationResult runMulticlass(const AblationPlan& p) {
    return runOn(fixtureAs(Task::Multiclass), p);
}

// The savings of the steps up to the fixed loop (the fastest measured step): they make its gap.
double sumOfSavings(const AblationResult& r) {
    double sum = 0;
    for (std::size_t i = 1; i < r.steps.size() && &r.steps[i - 1] != r.fixedLoop(); ++i) sum += r.steps[i].savedMs;
    return sum;
}

}  // namespace

class TestAblation : public QObject {
    Q_OBJECT

private slots:
    void defaultPlanMakesTheExpectedSteps();
    void stepsThatDidNotRunKeepTheLevel();
    void savingsAddUpToTheGap();
    void jsonRoundTrips();
    void reorderingChangesTheOrderNotTheEnd();
    void refusedFixIsReportedAndNotApplied();
    void aloneStepsStartFromTheBaseline();
    void aFixThatChangesNothingStillRuns();
    void repeatsRunTheSameTraining();
    void cancellationStopsAtTheStepInFlight_data();
    void cancellationStopsAtTheStepInFlight();
    void badPlansAreRefusedBeforeAnyRun_data();
    void badPlansAreRefusedBeforeAnyRun();
    void customFixBySwitchAndValue();
    void torchOptionFixes();
    void torchOptionsDoNothingOnTheCpuBackend();
    void repeatsRunInRounds();
    void moreRoundsOnlyWhileTheTargetAndBudgetAskForThem();
    void cancellingALaterRoundKeepsTheRunsMade();
    void theClosingStepIsMeasuredAmongTheRounds();
    void everySubsetIsMeasuredOnceInTheRounds();
    void combinationsNeedABudget();
    void regressionKeepsItsTaskAndR2();
    void multiclassLossStepSaysWhatItMeans();
};

void TestAblation::defaultPlanMakesTheExpectedSteps() {
    int started = 0;
    AblationCallbacks cb;
    cb.onRunStarted = [&](int, const std::string&, int, int) { ++started; };
    const AblationResult r = run(plan(defaultFixOrder()), cb);
    WB_COMPARE_NAME(r.status, "completed");
    QCOMPARE(namesOf(r.steps),
             QStringList({"baseline", "data_path=device_resident", "launch=graph_step", "loss=bce_with_logits",
                          "zero_grad=none", "optimizer_kernel=multi_tensor", "precision=fp16",
                          "launch=fused, gemm=custom, precision=fp32",
                          "launch=persistent, gemm=custom, precision=fp32, data_path=device_resident"}));
    // On the CPU backend launch, precision, the fused and the persistent path are ignored: reported, not run.
    QCOMPARE(statusesOf(r.steps), QStringList({"ran", "ran", "not_applicable", "ran", "ran", "ran", "not_applicable",
                                               "not_applicable", "not_applicable"}));
    for (const auto& s : r.steps) {
        QCOMPARE(s.runs.size(), std::size_t(s.status == StepStatus::Ran ? 1 : 0));
        for (const auto& record : s.runs) {
            QCOMPARE(record.epochs.size(), std::size_t(2));
            WB_COMPARE_NAME(record.status, "completed");
            // The run trained with the step's settings.
            QCOMPARE(text(record.config.at("execution").get<ExecutionSettings>()), text(s.settings));
        }
    }
    QVERIFY(r.steps[2].message.find("launch=graph_step") != std::string::npos);
    QCOMPARE(started, 5);
    QCOMPARE(plannedRuns(plan(defaultFixOrder())), 9);
    // The last step's settings are the baseline with every fix applied.
    const ExecutionSettings& last = r.steps.back().settings;
    QCOMPARE(text(last),
             text(ExecutionSettings{DataPath::DeviceResident, Launch::Persistent, LossKind::BceWithLogits,
                                    ZeroGrad::None, OptimizerKernel::MultiTensor, Precision::Fp32, Gemm::Custom}));
}

void TestAblation::stepsThatDidNotRunKeepTheLevel() {
    const AblationResult r = run(plan({"launch", "loss", "precision"}));
    QCOMPARE(statusesOf(r.steps), QStringList({"ran", "not_applicable", "ran", "not_applicable"}));
    QCOMPARE(r.steps[1].medianEpochMs, r.steps[0].medianEpochMs);
    QCOMPARE(r.steps[1].savedMs, 0.0);
    QCOMPARE(r.steps[3].medianEpochMs, r.steps[2].medianEpochMs);
    QCOMPARE(r.steps[3].savedMs, 0.0);
    QVERIFY(!r.steps[1].final);
    QVERIFY(r.steps[2].final);
    // A ran step's level is its run's own median epoch time.
    QCOMPARE(r.steps[2].medianEpochMs, *r.steps[2].runs[0].summary().medianEpochMs);
}

void TestAblation::savingsAddUpToTheGap() {
    const AblationResult r = run(plan(defaultFixOrder()));
    const double gap = r.steps.front().medianEpochMs - r.fixedLoop()->medianEpochMs;
    QCOMPARE(r.totalGapMs(), gap);
    QVERIFY2(std::abs(sumOfSavings(r) - gap) <= 1e-9 * std::max(1.0, std::abs(gap)),
             qPrintable(QString("sum %1 vs gap %2").arg(sumOfSavings(r)).arg(gap)));
    QVERIFY(gap != 0.0);  // two different measured levels are never bit-identical
    double shares = 0;
    for (std::size_t i = 1; i < r.steps.size(); ++i) {
        const bool inFixedLoop = &r.steps[i] <= r.fixedLoop();
        QCOMPARE(r.steps[i].share.has_value(), inFixedLoop);  // after the fixed loop: no share of its gap
        if (!inFixedLoop) continue;
        QCOMPARE(*r.steps[i].share, r.steps[i].savedMs / gap);
        shares += *r.steps[i].share;
    }
    QVERIFY(std::abs(shares - 1.0) < 1e-9);
    QCOMPARE(r.steps[0].savedMs, 0.0);
    QVERIFY(!r.steps[0].share);
}

void TestAblation::jsonRoundTrips() {
    const AblationResult r = run(plan({"data_path", "launch", "loss"}, 1, true));
    const nlohmann::json j = r.toJson();
    QCOMPARE(QString::fromStdString(j.at("schema").get<std::string>()), QString("mlpwb.ablation/1"));
    QCOMPARE(QString::fromStdString(j.at("baseline").get<std::string>()), QString("Seed PyTorch loop"));
    for (const char* key : {"name", "runs", "median_epoch_ms", "saved_ms", "final", "status", "settings"})
        QVERIFY2(j.at("steps").at(1).contains(key), key);
    QCOMPARE(AblationResult::fromJson(j).toJson(), j);

    QTemporaryDir dir;
    const std::string path = dir.filePath("ablation.json").toStdString();
    r.save(path);
    const AblationResult loaded = AblationResult::load(path);
    QCOMPARE(loaded.toJson(), j);
    QCOMPARE(loaded.steps.size(), r.steps.size());
    QCOMPARE(loaded.steps[1].runs[0].epochs.size(), std::size_t(2));
    QCOMPARE(loaded.steps[1].final->trainLoss, r.steps[1].final->trainLoss);

    const std::string csv = dir.filePath("ablation.csv").toStdString();
    r.saveCsv(csv);
    std::ifstream in(csv);
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    QCOMPARE(lines, 1 + 4 + 3);  // header, cumulative steps, alone steps

    QVERIFY(dataErrorOf([] { AblationResult::fromJson({{"schema", "mlpwb.run/1"}}); }));
    QVERIFY(dataErrorOf([&] { AblationResult::load(dir.filePath("missing.json").toStdString()); }));
}

void TestAblation::reorderingChangesTheOrderNotTheEnd() {
    const AblationResult forward = run(plan({"data_path", "loss", "zero_grad"}));
    const AblationResult backward = run(plan({"zero_grad", "loss", "data_path"}));
    QCOMPARE(namesOf(backward.steps),
             QStringList({"baseline", "zero_grad=none", "loss=bce_with_logits", "data_path=device_resident"}));
    QCOMPARE(text(forward.steps.back().settings), text(backward.steps.back().settings));
    // Same data, weights and seed: the training ends at the same numbers whatever the order.
    QCOMPARE(forward.steps.back().final->trainLoss, backward.steps.back().final->trainLoss);
}

void TestAblation::refusedFixIsReportedAndNotApplied() {
    // fp16 with Sigmoid + BCELoss is refused; after the loss fix it is allowed (not applicable on a CPU).
    const AblationResult r = run(plan({"precision", "loss", "precision"}));
    QCOMPARE(statusesOf(r.steps), QStringList({"ran", "refused", "ran", "not_applicable"}));
    QVERIFY(r.steps[1].message.find("BCELoss") != std::string::npos);
    QVERIFY(r.steps[1].runs.empty());
    QCOMPARE(r.steps[1].savedMs, 0.0);
    WB_COMPARE_NAME(r.steps[1].settings.precision, "fp32");  // not applied
    WB_COMPARE_NAME(r.steps[2].settings.precision, "fp32");
    WB_COMPARE_NAME(r.steps[3].settings.precision, "fp16");
}

void TestAblation::aloneStepsStartFromTheBaseline() {
    const AblationResult r = run(plan({"data_path", "loss", "data_path"}, 1, true));
    QCOMPARE(namesOf(r.alone), QStringList({"data_path=device_resident", "loss=bce_with_logits"}));  // once each
    ExecutionSettings expected = presetByName("Seed PyTorch loop").settings;
    expected.loss = LossKind::BceWithLogits;
    QCOMPARE(text(r.alone[1].settings), text(expected));
    for (const auto& s : r.alone) {
        QCOMPARE(s.runs.size(), std::size_t(1));
        QCOMPARE(s.savedMs, r.steps.front().medianEpochMs - s.medianEpochMs);
    }
    // The alone steps are outside the waterfall: its savings still add up to its own gap.
    QVERIFY(std::abs(sumOfSavings(r) - r.totalGapMs()) <= 1e-9 * std::max(1.0, std::abs(r.totalGapMs())));
    QCOMPARE(plannedRuns(plan({"data_path", "loss", "data_path"}, 1, true)), 6);
}

void TestAblation::aFixThatChangesNothingStillRuns() {
    const AblationResult r = run(plan({"zero_grad", "zero_grad"}));
    QCOMPARE(statusesOf(r.steps), QStringList({"ran", "ran", "ran"}));
    QVERIFY(r.steps[2].message.find("changes no switch") != std::string::npos);
    QCOMPARE(text(r.steps[2].settings), text(r.steps[1].settings));
    // Not zeroing gradients that are overwritten anyway changes no number of the training.
    QCOMPARE(r.steps[1].final->trainLoss, r.steps[0].final->trainLoss);
    QCOMPARE(r.steps[2].final->trainLoss, r.steps[1].final->trainLoss);
    QCOMPARE(r.steps[2].final->trainAccuracy, r.steps[0].final->trainAccuracy);
}

void TestAblation::repeatsRunTheSameTraining() {
    const AblationResult r = run(plan({"loss"}, 3));
    // Three rounds, or four where the CPU's timings made the loss fix look costly after round 3 (the
    // closing step without it is then measured in one more round, among the others).
    const bool closing = r.steps.back().fix == AblationStep::kWithoutCostly;
    QCOMPARE(r.rounds, closing ? 4 : 3);
    for (const auto& s : r.steps) {
        QCOMPARE(s.runs.size(), std::size_t(r.rounds));
        std::vector<double> medians;
        for (const auto& run : s.runs) {
            medians.push_back(*run.summary().medianEpochMs);
            // The same data, initial weights and seed: the same losses.
            QCOMPARE(run.epochs.back().trainLoss, s.runs[0].epochs.back().trainLoss);
        }
        QCOMPARE(s.medianEpochMs, *median(medians));
        QCOMPARE(s.minEpochMs, *std::min_element(medians.begin(), medians.end()));
        QCOMPARE(s.maxEpochMs, *std::max_element(medians.begin(), medians.end()));
        QVERIFY(s.minEpochMs <= s.medianEpochMs && s.medianEpochMs <= s.maxEpochMs);
    }
    // BCEWithLogitsLoss and Sigmoid + BCELoss agree to float precision, but are not the same sums.
    QVERIFY(std::abs(r.steps[1].final->trainLoss - r.steps[0].final->trainLoss) < 1e-4);
}

void TestAblation::cancellationStopsAtTheStepInFlight_data() {
    QTest::addColumn<int>("cancelAfterSteps");
    QTest::newRow("before the baseline") << 0;
    QTest::newRow("after the baseline") << 1;
    QTest::newRow("after two steps") << 2;
}

void TestAblation::cancellationStopsAtTheStepInFlight() {
    QFETCH(int, cancelAfterSteps);
    static const Fixture f;
    CancelFlag cancel{cancelAfterSteps == 0};
    int finished = 0;
    AblationCallbacks cb;
    cb.onStepFinished = [&](const AblationResult&, const AblationStep&) {
        if (++finished == cancelAfterSteps) cancel.store(true);
    };
    const AblationResult r =
        runAblation(plan({"data_path", "loss", "zero_grad"}), f.config, f.dataset, f.data, cancel, cb);
    WB_COMPARE_NAME(r.status, "cancelled");
    QCOMPARE(r.steps.size(), std::size_t(cancelAfterSteps + 1));
    WB_COMPARE_NAME(r.steps.back().status, "cancelled");
    QVERIFY(r.steps.back().runs.empty());
    for (int i = 0; i < cancelAfterSteps; ++i) WB_COMPARE_NAME(r.steps[std::size_t(i)].status, "ran");
}

void TestAblation::badPlansAreRefusedBeforeAnyRun_data() {
    QTest::addColumn<QString>("baseline");
    QTest::addColumn<QString>("fix");
    QTest::addColumn<int>("repeats");
    QTest::newRow("unknown preset") << "Nope"
                                    << "loss" << 1;
    QTest::newRow("unknown fix") << "Seed PyTorch loop"
                                 << "turbo" << 1;
    QTest::newRow("unknown switch") << "Seed PyTorch loop"
                                    << "warp=9" << 1;
    QTest::newRow("unknown value") << "Seed PyTorch loop"
                                   << "precision=fp8" << 1;
    QTest::newRow("no repeats") << "Seed PyTorch loop"
                                << "loss" << 0;
    QTest::newRow("unknown torch option") << "Seed PyTorch loop"
                                          << "torch.turbo=1" << 1;
    QTest::newRow("bad torch value") << "Seed PyTorch loop"
                                     << "torch.num_workers=many" << 1;
}

void TestAblation::badPlansAreRefusedBeforeAnyRun() {
    QFETCH(QString, baseline);
    QFETCH(QString, fix);
    QFETCH(int, repeats);
    AblationPlan p = plan({fix.toStdString()}, repeats);
    p.baseline = baseline.toStdString();
    int started = 0;
    AblationCallbacks cb;
    cb.onRunStarted = [&](int, const std::string&, int, int) { ++started; };
    QVERIFY_THROWS_EXCEPTION(ConfigError, run(p, cb));
    QCOMPARE(started, 0);
}

void TestAblation::customFixBySwitchAndValue() {
    const AblationFix fix = ablationFixByName("loss=bce_with_logits");
    QCOMPARE(fix.sets.size(), std::size_t(1));
    const AblationResult r = run(plan({"loss=bce_with_logits", "precision=bf16"}));
    QCOMPARE(statusesOf(r.steps), QStringList({"ran", "ran", "not_applicable"}));
    WB_COMPARE_NAME(r.steps[1].settings.loss, "bce_with_logits");
}

// The torch backend's own knobs are fixes too, by name or as "torch.option=value", but not in the
// default order (they act on PyTorch's loop only).
void TestAblation::torchOptionFixes() {
    const AblationFix workers = ablationFixByName("torch_workers");
    QCOMPARE(workers.sets, (std::vector<std::pair<std::string, std::string>>{{"torch.num_workers", "2"}}));
    QVERIFY(isTorchFix(workers));
    QVERIFY(!isTorchFix(ablationFixByName("loss")));
    const AblationFix custom = ablationFixByName("torch.prefetch_factor=8");
    QCOMPARE(custom.sets, (std::vector<std::pair<std::string, std::string>>{{"torch.prefetch_factor", "8"}}));
    for (const auto& name : defaultFixOrder()) QVERIFY2(!isTorchFix(ablationFixByName(name)), name.c_str());
    TorchOptions o;
    setTorchOption(o, "torch.script_model", "true");
    setTorchOption(o, "torch.num_workers", "3");
    QVERIFY(o.scriptModel);
    QCOMPARE(torchOptionValue(o, "torch.num_workers"), std::string("3"));
}

void TestAblation::torchOptionsDoNothingOnTheCpuBackend() {
    const AblationResult r = run(plan({"torch_workers", "loss", "torch_script"}));
    QCOMPARE(statusesOf(r.steps), QStringList({"ran", "not_applicable", "ran", "not_applicable"}));
    QVERIFY2(r.steps[1].message.find("which the cpu backend does not run") != std::string::npos,
             r.steps[1].message.c_str());
    QCOMPARE(r.steps[1].torch.numWorkers, 2);  // applied (as a switch the backend ignores is), not run
    const AblationResult back = AblationResult::fromJson(r.toJson());
    QCOMPARE(back.steps[3].torch.scriptModel, true);
}

void TestAblation::repeatsRunInRounds() {
    QStringList order;
    AblationCallbacks cb;
    cb.onRunStarted = [&](int step, const std::string&, int repeat, int planned) {
        order << QString("%1/%2").arg(step).arg(repeat);
        QCOMPARE(planned, 14);  // (baseline + 3 fixes + 3 alone) x 2
    };
    const AblationResult r = run(plan({"data_path", "launch", "loss"}, 2, true), cb);
    // Steps 0..3 cumulative (2 = launch, not applicable), 4..6 alone (5 = launch): every step once, then again.
    QCOMPARE(order, QStringList({"0/1", "1/1", "3/1", "4/1", "6/1", "0/2", "1/2", "3/2", "4/2", "6/2"}));
    for (const auto* steps : {&r.steps, &r.alone})
        for (const auto& s : *steps) QCOMPARE(s.runs.size(), std::size_t(s.status == StepStatus::Ran ? 2 : 0));
    QCOMPARE(r.steps[2].medianEpochMs, r.steps[1].medianEpochMs);  // the level before it, after both rounds
    QCOMPARE(r.alone[1].medianEpochMs, r.steps[0].medianEpochMs);
}

void TestAblation::cancellingALaterRoundKeepsTheRunsMade() {
    static const Fixture f;
    CancelFlag cancel{false};
    AblationCallbacks cb;
    cb.onRunStarted = [&](int step, const std::string&, int repeat, int) {
        if (step == 1 && repeat == 2) cancel.store(true);  // the run about to start is cancelled at once
    };
    const AblationResult r = runAblation(plan({"data_path", "loss"}, 3), f.config, f.dataset, f.data, cancel, cb);
    WB_COMPARE_NAME(r.status, "cancelled");
    QVERIFY(r.message.find("round 2") != std::string::npos);
    QCOMPARE(statusesOf(r.steps), QStringList({"ran", "ran", "ran"}));
    QCOMPARE(r.steps[0].runs.size(), std::size_t(2));
    QCOMPARE(r.steps[1].runs.size(), std::size_t(1));
    QCOMPARE(r.steps[2].runs.size(), std::size_t(1));
    QVERIFY(std::abs(sumOfSavings(r) - r.totalGapMs()) <= 1e-9 * std::max(1.0, std::abs(r.totalGapMs())));
}

// A fix that costs time (graph capture on the stand-in engine) is named after round 3; the closing
// step without it joins round 4, making up the three rounds it missed with runs spread among the
// others' (one before each of the first steps), and runs in round 5 like every step: never after
// the rounds, where a drifting machine would time it apart from the rest.
void TestAblation::theClosingStepIsMeasuredAmongTheRounds() {
    registerStandInAsTorch();
    static const Fixture f;
    RunConfig config = f.config;
    config.backend = "torch";
    QStringList order;
    AblationCallbacks cb;
    cb.onRunStarted = [&](int step, const std::string&, int repeat, int) {
        order << QString("%1/%2").arg(step).arg(repeat);
    };
    CancelFlag cancel{false};
    const AblationResult r =
        runAblation(plan({"data_path", "launch", "loss"}, 5), config, f.dataset, f.data, cancel, cb);
    WB_COMPARE_NAME(r.status, "completed");
    QCOMPARE(namesOf(r.steps), QStringList({"baseline", "data_path=device_resident", "launch=graph_step",
                                            "loss=bce_with_logits", "without launch=graph_step"}));
    QCOMPARE(r.rounds, 5);
    for (const auto& s : r.steps) QCOMPARE(int(s.runs.size()), 5);
    // Step 4 is the closing step, its run number after the slash.
    QCOMPARE(order, QStringList({"0/1", "1/1", "2/1", "3/1",                              // round 1
                                 "0/2", "1/2", "2/2", "3/2",                              // round 2
                                 "0/3", "1/3", "2/3", "3/3",                              // round 3
                                 "4/1", "0/4", "4/2", "1/4", "4/3", "2/4", "3/4", "4/4",  // round 4
                                 "0/5", "1/5", "2/5", "3/5", "4/5"}));                    // round 5
    QCOMPARE(r.fixedLoop(), &r.steps.back());
}

namespace {

// The order everySubsetIsMeasuredOnceInTheRounds's runs start in, and what each one's progress
// said was planned.
void checkSubsetRoundsOrder(const QStringList& order, const std::vector<int>& planned) {
    // Steps 0-3 cumulative, 4 the closing step; the subsets {launch}, {loss}, {data_path, loss},
    // {launch, loss} (masks 2, 4, 5, 6) are 5 + their mask: 7, 9, 10, 11.
    QCOMPARE(order, QStringList({"0/1", "1/1", "2/1",  "3/1",                                     // round 1
                                 "7/1", "0/2", "9/1",  "1/2",  "10/1", "2/2", "11/1", "3/2",      // round 2
                                 "7/2", "9/2", "10/2", "11/2",                                    //
                                 "0/3", "1/3", "2/3",  "3/3",  "7/3",  "9/3", "10/3", "11/3"}));  // round 3
    // The progress never counts fewer runs planned than it has started, and knows the whole count
    // (4 + 12 + 8) once the last round began.
    for (std::size_t i = 0; i < planned.size(); ++i) QVERIFY2(planned[i] > int(i), qPrintable(QString::number(i)));
    QCOMPARE(planned.back(), 24);
    QCOMPARE(planned[16], 24);
}

// The closing step reuses the subset {data_path, loss}; the cumulative steps measure theirs.
void checkSubsetLevels(const AblationResult& r) {
    QCOMPARE(r.steps.back().name, std::string("without launch=graph_step"));
    QCOMPARE(int(r.steps.back().runs.size()), 3);
    QCOMPARE(r.subsetFixes, (std::vector<std::size_t>{1, 2, 3}));
    QCOMPARE(r.subsets.size(), std::size_t(8));
    const std::vector<std::optional<std::size_t>> measuredBy = {0, 1, std::nullopt, 2, std::nullopt, 4, std::nullopt,
                                                                3};
    for (const SubsetLevel& s : r.subsets) {
        QCOMPARE(s.step, measuredBy[s.mask]);
        QCOMPARE(int(s.roundMs.size()), 3);
    }
    QVERIFY2(QString::fromStdString(r.combinations).contains("Shapley"), r.combinations.c_str());
}

// Each Shapley value is the fix's injected effect, and they sum to the gap.
void checkShapleyValues(const AblationResult& r) {
    const Attribution a = attribute(r);
    QVERIFY(a.shapleyGapMs);
    double sum = 0;
    for (std::size_t i = 0; i < 3; ++i) {
        const CauseShare& c = a.causes[i];
        QVERIFY(c.shapley && c.alone && c.leaveOneOut);
        QVERIFY(c.shapleyInterval.low <= *c.shapley && *c.shapley <= c.shapleyInterval.high);
        sum += *c.shapley;
    }
    QVERIFY(std::abs(sum - *a.shapleyGapMs) < 1e-9);
    QVERIFY2(std::abs(*a.causes[0].shapley - 850) < 30, qPrintable(QString::number(*a.causes[0].shapley)));
    QVERIFY2(std::abs(*a.causes[1].shapley + 56) < 25, qPrintable(QString::number(*a.causes[1].shapley)));
    QVERIFY2(std::abs(*a.causes[2].shapley - 20) < 25, qPrintable(QString::number(*a.causes[2].shapley)));
    QVERIFY(*a.causes[1].leaveOneOut < 0);  // graph capture on top of the others costs time here
    QVERIFY(!a.causes[3].shapley);          // the closing step is no fix
}

// The subsets round-trip through JSON; a bad mask or fix index is refused; a file without them loads.
void checkCombinationsJson(const AblationResult& r) {
    const nlohmann::json j = r.toJson();
    QCOMPARE(j.at("combinations").at("subsets").size(), std::size_t(8));
    QCOMPARE(AblationResult::fromJson(j).toJson(), j);
    nlohmann::json bad = j;
    bad["combinations"]["subsets"][0]["mask"] = 8;  // names a fourth fix
    QVERIFY(dataErrorOf([&] { AblationResult::fromJson(bad); }));
    bad = j;
    bad["combinations"]["fixes"] = {1, 2, 99};
    QVERIFY(dataErrorOf([&] { AblationResult::fromJson(bad); }));
    bad = j;
    bad.erase("combinations");  // a file written before them: loads with none
    QVERIFY(AblationResult::fromJson(bad).subsets.empty());
}

}  // namespace

// Three fixes the stand-in engine honours, a budget with room: after round 1 the runner measures
// every subset of them for the Shapley values, reusing the cumulative steps (the seed loop, {data_path},
// {data_path, launch}, all three) and measuring the four others in the rounds: in round 2 each
// makes up round 1, its runs spread among the others'. The closing step without graph capture is
// the subset {data_path, loss}: it takes that subset's runs instead of measuring it again. The
// injected times add up (850 + 56 + 20 ms over 30), so each Shapley value is the fix's own effect,
// within the runs' 2 %, and they sum to the seed loop's level minus all three's.
void TestAblation::everySubsetIsMeasuredOnceInTheRounds() {
    registerStandInAsTorch();
    static const Fixture f;
    RunConfig config = f.config;
    config.backend = "torch";
    QStringList order;
    std::vector<int> planned;  // what each run's progress said was planned
    AblationCallbacks cb;
    cb.onRunStarted = [&](int step, const std::string&, int repeat, int plannedRuns) {
        order << QString("%1/%2").arg(step).arg(repeat);
        planned.push_back(plannedRuns);
    };
    AblationPlan p = plan({"data_path", "launch", "loss"}, 3);
    p.budgetSeconds = 3600;
    p.target = 0.99;  // met at once: the rounds stop at 3
    CancelFlag cancel{false};
    const AblationResult r = runAblation(p, config, f.dataset, f.data, cancel, cb);
    WB_COMPARE_NAME(r.status, "completed");
    QCOMPARE(r.rounds, 3);
    checkSubsetRoundsOrder(order, planned);
    if (QTest::currentTestFailed()) return;
    checkSubsetLevels(r);
    if (QTest::currentTestFailed()) return;
    checkShapleyValues(r);
    if (QTest::currentTestFailed()) return;
    checkCombinationsJson(r);
}

// Without a time budget no subsets are measured for Shapley values (the rounds are what --repeats
// says), and the result says why; leave-one-out, asked for, is measured all the same.
void TestAblation::combinationsNeedABudget() {
    AblationPlan p = plan({"data_path", "loss", "zero_grad"}, 2);
    const AblationResult none = run(p);
    QVERIFY(none.subsets.empty());
    QVERIFY2(QString::fromStdString(none.combinations).contains("no time budget"), none.combinations.c_str());
    p.leaveOneOut = true;
    const AblationResult out = run(p);
    QCOMPARE(out.subsets.size(), std::size_t(5));  // the seed loop, all three, and each of them left out
    for (const SubsetLevel& s : out.subsets) QCOMPARE(int(s.roundMs.size()), out.rounds);
    const Attribution a = attribute(out);
    QVERIFY(!a.shapleyGapMs);
    for (std::size_t i = 0; i < 3; ++i) QVERIFY(a.causes[i].leaveOneOut && !a.causes[i].shapley);
    QVERIFY(!a.causes[0].alone);  // alone needs the subsets of one fix, or the plan's alone steps
}

// --repeats is the least: more rounds are made only with a budget, until every median is known to
// the target; what stopped them is said. (Counts and words only: nothing here times anything.)
void TestAblation::moreRoundsOnlyWhileTheTargetAndBudgetAskForThem() {
    AblationPlan p = plan({"loss"}, 3);
    // No budget: exactly the rounds asked for; one more where the CPU's timings made the loss fix
    // look costly after round 3 (the closing step without it is then measured among the others).
    const auto asked = [](const AblationResult& r) {
        return 3 + (r.steps.back().fix == AblationStep::kWithoutCostly ? 1 : 0);
    };
    const AblationResult none = run(p);
    QCOMPARE(none.rounds, asked(none));
    QCOMPARE(int(none.steps[1].runs.size()), asked(none));
    QVERIFY2(QString::fromStdString(none.precision).contains("a time budget would add rounds") ||
                 QString::fromStdString(none.precision).contains("every median known"),
             none.precision.c_str());
    p.budgetSeconds = 3600;
    p.target = 0.99;  // met at once
    const AblationResult loose = run(p);
    // (More only where a stall of a busy machine made one of three runs several times the others.)
    QVERIFY2(loose.rounds >= asked(loose), qPrintable(QString::number(loose.rounds)));
    QVERIFY2(QString::fromStdString(loose.precision).startsWith("every median known to \u00b199 %"),
             loose.precision.c_str());
    p.target = 1e-9;  // never met: the rounds stop at the most made
    const AblationResult tight = run(p);
    QCOMPARE(tight.rounds, AblationPlan::kMaxRounds);
    QCOMPARE(int(tight.steps[0].runs.size()), AblationPlan::kMaxRounds);
    QCOMPARE(int(tight.steps[1].runs.size()), AblationPlan::kMaxRounds);
    QVERIFY2(QString::fromStdString(tight.precision).contains("the most made"), tight.precision.c_str());
    const AblationResult back = AblationResult::fromJson(tight.toJson());
    QCOMPARE(back.rounds, AblationPlan::kMaxRounds);
    QCOMPARE(back.precision, tight.precision);
    QCOMPARE(back.plan.budgetSeconds, 3600.0);
}

QTEST_GUILESS_MAIN(TestAblation)
// On K classes the loss switch's names speak of a sigmoid: the step that changes it runs, with a note
// (data, in the JSON's "notes") saying it is log(softmax) + NLLLoss against CrossEntropyLoss; a step
// that leaves the loss alone has no such note.
void TestAblation::multiclassLossStepSaysWhatItMeans() {
    const AblationResult r = runMulticlass(plan({"loss", "zero_grad"}));
    WB_COMPARE_NAME(r.status, "completed");
    QCOMPARE(int(r.task), int(Task::Multiclass));
    QCOMPARE(r.steps.size(), std::size_t{3});
    const AblationStep& loss = r.steps[1];
    WB_COMPARE_NAME(loss.status, "ran");
    QCOMPARE(loss.notes.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(loss.notes[0].name), QString("loss"));
    QVERIFY(loss.notes[0].reason.find("CrossEntropyLoss") != std::string::npos);
    QVERIFY(r.steps[2].notes.empty());
    QVERIFY(runRegression(plan({"loss"})).steps[1].notes.empty());  // not applicable there, with its reason
}

#include "tst_ablation.moc"

// A regression's steps carry its MSE, MAE and R^2 (no accuracy), the result names its task, and both
// survive the JSON file; a file written before results named their task takes it from its runs.
void TestAblation::regressionKeepsItsTaskAndR2() {
    const AblationResult r = runRegression(plan({"zero_grad"}));
    WB_COMPARE_NAME(r.status, "completed");
    QCOMPARE(int(r.task), int(Task::Regression));
    QCOMPARE(int(r.quality()), int(QualityMetric::R2));
    const AblationStep& last = r.steps.back();
    QVERIFY(last.final && last.final->trainRegression);
    const EpochMetrics& epoch = last.runs.back().epochs.back();
    QCOMPARE(last.final->quality(QualityMetric::R2), std::optional<double>(epoch.trainRegression->r2));
    QVERIFY(!last.final->quality(QualityMetric::Accuracy));

    nlohmann::json j = r.toJson();
    QCOMPARE(QString::fromStdString(j.at("task").get<std::string>()), QString("regression"));
    const nlohmann::json& final = j.at("steps").at(1).at("final");
    QCOMPARE(final.at("train_r2").get<double>(), epoch.trainRegression->r2);
    QVERIFY(final.at("train_accuracy").is_null());
    QCOMPARE(AblationResult::fromJson(j).toJson(), j);

    j.erase("task");
    QCOMPARE(int(AblationResult::fromJson(j).task), int(Task::Regression));
}
