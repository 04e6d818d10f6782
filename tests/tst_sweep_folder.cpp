// The sweep folder: created once, states written and read back, a trial whose process died read as
// failed, one lock holder at a time, and the report's figures against hand-computed medians.
#include <QtTest>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "errors.h"
#include "folder_lock.h"
#include "run_record.h"
#include "sweep_folder.h"
#include "sweep_report.h"

using namespace wb::sweep;

namespace {
SweepPlan planOf(int trials) {
    SweepPlan p;
    p.name = "t";
    p.specFile = "s.yaml";
    p.specText = "method: grid\n";
    p.metric = {"val_loss", Goal::Minimize};
    p.parameterNames = {"lr", "opt"};
    const double lrs[] = {0.1, 0.01};
    const char* opts[] = {"adam", "sgd"};
    for (int i = 0; i < trials; ++i)
        p.trials.push_back({i,
                            i,
                            0,
                            "trial " + std::to_string(i),
                            {{"lr", lrs[i % 2]}, {"opt", opts[(i / 2) % 2]}},
                            {"--lr=x"},
                            nlohmann::json::object()});
    return p;
}

// A completed RunRecord with one epoch whose validation loss is `valLoss`.
void writeRecord(const SweepFolder& f, int id, double valLoss) {
    wb::RunRecord r;
    r.name = "trial";
    r.status = wb::RunStatus::Completed;
    wb::EpochMetrics m;
    m.epoch = 1;
    m.trainLoss = valLoss + 1;
    m.valLoss = valLoss;
    m.valAccuracy = 0.5;
    m.wallMs = 2;
    r.epochs.push_back(m);
    r.save(f.recordPath(id));
    TrialStatus s;
    s.state = TrialState::Completed;
    f.writeStatus(id, s);
}
}  // namespace

class TestSweepFolder : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::string path(const char* name) { return (tmp_.path() + "/" + name).toStdString(); }

private slots:
    void createWritesThePlanAndRefusesASecondTime() {
        const auto f = SweepFolder::create(path("a"), planOf(3));
        QVERIFY(SweepFolder::isSweepFolder(path("a")));
        QVERIFY(std::filesystem::is_directory(f.trialDir(2)));
        const SweepFolder reopened(path("a"));
        QCOMPARE(reopened.plan().trials.size(), std::size_t(3));
        QCOMPARE(reopened.plan().trials[1].parameters.at("lr").get<double>(), 0.01);
        QCOMPARE(reopened.plan().metric.name, std::string("val_loss"));
        QVERIFY_THROWS_EXCEPTION(wb::ConfigError, SweepFolder::create(path("a"), planOf(3)));
    }

    void createRefusesAFolderWithOtherFiles() {
        std::filesystem::create_directories(path("b"));
        std::ofstream(path("b") + "/notes.txt") << "mine\n";
        QVERIFY_THROWS_EXCEPTION(wb::ConfigError, SweepFolder::create(path("b"), planOf(1)));
        QVERIFY(std::filesystem::exists(path("b") + "/notes.txt"));  // and nothing of it is touched
        QVERIFY(!SweepFolder::isSweepFolder(path("b")));
    }

    void openingANonSweepFolderSaysSo() {
        std::filesystem::create_directories(path("c"));
        QVERIFY_THROWS_EXCEPTION(wb::DataError, SweepFolder(path("c")));
    }

    void statesRoundTripAndPendingIsTheDefault() {
        const auto f = SweepFolder::create(path("d"), planOf(2));
        QCOMPARE(toString(f.readStatus(0).state), toString(TrialState::Pending));
        TrialStatus s;
        s.state = TrialState::Failed;
        s.attempt = 2;
        s.error = "mlpwb: data error";
        s.timing = "exclusive";
        f.writeStatus(0, s);
        const auto back = f.readStatus(0);
        QCOMPARE(toString(back.state), toString(TrialState::Failed));
        QCOMPARE(back.attempt, 2);
        QCOMPARE(back.error, s.error);
        QCOMPARE(back.timing, s.timing);
        QCOMPARE(f.unfinishedIds(), (std::vector<int>{0, 1}));
    }

    void aRunningTrialWhoseProcessIsGoneReadsFailed() {
        const auto f = SweepFolder::create(path("e"), planOf(2));
        const pid_t child = fork();
        if (child == 0) _exit(0);
        waitpid(child, nullptr, 0);  // a pid that no longer runs
        TrialStatus s;
        s.state = TrialState::Running;
        s.host = shortHostName();
        s.pid = child;
        f.writeStatus(0, s);
        s.pid = getpid();  // this process: alive
        f.writeStatus(1, s);
        QCOMPARE(toString(f.effectiveStatus(0).state), toString(TrialState::Failed));
        QVERIFY(f.effectiveStatus(0).error.find("interrupted") != std::string::npos);
        QCOMPARE(toString(f.effectiveStatus(1).state), toString(TrialState::Running));
        s.host = "another-node";  // elsewhere: not ours to judge
        s.pid = child;
        f.writeStatus(1, s);
        QCOMPARE(toString(f.effectiveStatus(1).state), toString(TrialState::Running));
    }

    void oneLockHolderAtATime() {
        const std::string lockPath = path("lock");
        auto first = FolderLock::tryAcquire(lockPath);
        QVERIFY(first.has_value());
        // flock is per open file: a second process (a child here) is refused and told who holds it.
        const pid_t child = fork();
        if (child == 0) {
            std::string holder;
            const bool refused = !FolderLock::tryAcquire(lockPath, &holder).has_value();
            _exit(refused && holder.find("pid " + std::to_string(getppid())) == 0 ? 0 : 1);
        }
        int status = 0;
        waitpid(child, &status, 0);
        QCOMPARE(WEXITSTATUS(status), 0);
        first.reset();  // released: the next one gets it
        QVERIFY(FolderLock::tryAcquire(lockPath).has_value());
    }

    void reportFindsTheBestAndEachParametersEffect() {
        const auto f = SweepFolder::create(path("r"), planOf(4));
        // lr 0.1: trials 0 and 2; lr 0.01: trials 1 and 3; opt adam: 0, 1; sgd: 2, 3 (3 failed).
        writeRecord(f, 0, 0.5);
        writeRecord(f, 1, 0.2);
        writeRecord(f, 2, 0.7);
        TrialStatus failed;
        failed.state = TrialState::Failed;
        failed.error = "boom";
        f.writeStatus(3, failed);
        const auto r = makeReport(f.plan(), f.views());
        QCOMPARE(r.total, 4);
        QCOMPARE(r.completed, 3);
        QCOMPARE(r.failed, 1);
        QCOMPARE(*r.bestId, 1);
        QCOMPARE(*r.bestMetric, 0.2);
        QCOMPARE(r.effects.size(), std::size_t(2));
        const auto& lr = r.effects[0];
        QCOMPARE(lr.values.size(), std::size_t(2));
        QCOMPARE(lr.values[0].value.get<double>(), 0.01);  // numbers ascending
        QCOMPARE(lr.values[0].trials, 2);
        QCOMPARE(lr.values[0].completed, 1);
        QCOMPARE(*lr.values[0].median, 0.2);
        QCOMPARE(*lr.values[1].median, 0.6);  // (0.5 + 0.7) / 2
        QCOMPARE(*lr.values[1].min, 0.5);
        QCOMPARE(*lr.values[1].max, 0.7);
        QVERIFY(std::abs(*lr.medianRange - 0.4) < 1e-12);
        const auto& opt = r.effects[1];
        QCOMPARE(opt.values[0].value.get<std::string>(), std::string("adam"));  // text: in order of appearance
        QCOMPARE(*opt.values[0].median, 0.35);
        const std::string csv = reportCsv(r);
        QVERIFY(csv.rfind("parameter,value,trials,completed,median_val_loss,min_val_loss,max_val_loss\n", 0) == 0);
        QVERIFY(csv.find("\nlr,0.1,2,2,0.59999999999999998,0.5,0.69999999999999996\n") != std::string::npos);
        const auto json = reportJson(r);
        QCOMPARE(json.at("best").at("id").get<int>(), 1);
        QCOMPARE(json.at("effects").at(1).at("values").at(1).at("completed").get<int>(), 1);
        QVERIFY(reportText(r).find("Best: trial 1 (trial 1): val_loss 0.2") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestSweepFolder)
#include "tst_sweep_folder.moc"
