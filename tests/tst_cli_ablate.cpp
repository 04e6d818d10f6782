// `mlpwb ablate` end to end: the built binary run with QProcess on 2,000 built-in rows, 2 epochs, one
// run per step (except the run interrupted with SIGINT). Checks the ablation JSON, the printed table,
// the CSV, the exit codes of cli/exit_codes.h and one "mlpwb: ..." line on stderr per failure.
#include <QtTest>

#include <csignal>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

#include <sys/types.h>

namespace {

constexpr int kTimeoutMs = 120000;

QStringList tinyAblation() {
    return {"ablate", "--builtin", "--rows", "2000", "--epochs", "2", "--repeats", "1"};
}

// The table row of `step`: the line starting with its name (after the indent).
QString rowOf(const MlpwbResult& r, const QString& step) {
    for (const QString& line : r.outLines())
        if (line.trimmed().startsWith(step + " ")) return line;
    return {};
}

}  // namespace

class TestCliAblate : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    QString path(const QString& name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QVERIFY2(QFileInfo(QStringLiteral(WB_MLPWB_PATH)).isExecutable(), WB_MLPWB_PATH);
    }

    void writesJsonCsvAndPrintsTable() {
        RUN_MLPWB(r, tinyAblation() << "--fixes"
                                    << "data_path,launch,loss"
                                    << "--val-split"
                                    << "0.2"
                                    << "--out" << path("a.json") << "--csv" << path("a.csv"));
        QVERIFY2(r.exitCode == 0, r.describe());

        const nlohmann::json j = readJson(path("a.json"));
        QVERIFY2(j.is_object(), "a.json is missing or not JSON");
        QCOMPARE(str(j["schema"]), QString("mlpwb.ablation/1"));
        QCOMPARE(str(j["baseline"]), QString("Seed PyTorch loop"));
        QCOMPARE(str(j["status"]), QString("completed"));
        QCOMPARE(str(j["backend"]), QString("cpu"));
        const auto& steps = j["steps"];
        QCOMPARE(steps.size(), std::size_t{4});
        const QStringList names = {"baseline", "data_path=device_resident", "launch=graph_step",
                                   "loss=bce_with_logits"};
        const QStringList statuses = {"ran", "ran", "not_applicable", "ran"};
        // The fixed loop is the fastest step measured, the seed loop included (where every fix costs
        // time, as it may on a CPU under a sanitizer); its gap is the sum of the savings up to it.
        std::size_t fixed = 0;
        for (std::size_t i = 1; i < steps.size(); ++i)
            if (statuses[int(i)] == "ran" &&
                steps[i]["median_epoch_ms"].get<double>() < steps[fixed]["median_epoch_ms"].get<double>())
                fixed = i;
        double saved = 0;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            QCOMPARE(str(steps[i]["name"]), names[int(i)]);
            QCOMPARE(str(steps[i]["status"]), statuses[int(i)]);
            QCOMPARE(steps[i]["runs"].size(), std::size_t{statuses[int(i)] == "ran" ? 1u : 0u});
            if (i > 0 && i <= fixed) saved += steps[i]["saved_ms"].get<double>();
        }
        // The run's RunRecord is in the file, with the options given (2 epochs, a validation split).
        QCOMPARE(steps[1]["runs"][0]["epochs"].size(), std::size_t{2});
        QVERIFY(steps[1]["runs"][0]["epochs"][1]["val_loss"].is_number());
        QCOMPARE(str(steps[3]["runs"][0]["config"]["execution"]["loss"]), QString("bce_with_logits"));
        const double gap = steps[0]["median_epoch_ms"].get<double>() - steps[fixed]["median_epoch_ms"].get<double>();
        QVERIFY(std::abs(saved - gap) <= 1e-9 * std::max(1.0, std::abs(gap)));
        QCOMPARE(j["total_gap_ms"].get<double>(), gap);

        // The table: one row per step with its median, and the step that did not run says why.
        for (const QString& name : names) QVERIFY2(!rowOf(r, name).isEmpty(), qPrintable(name + "\n" + r.describe()));
        QVERIFY(rowOf(r, "launch=graph_step").contains("not_applicable"));
        const QString printed = rowOf(r, "baseline").split(' ', Qt::SkipEmptyParts).value(1);
        QVERIFY2(showsMilliseconds(printed, steps[0]["median_epoch_ms"].get<double>()), qPrintable(printed));
        QVERIFY(r.out.contains("the CPU backend launches no kernels"));
        QVERIFY(r.out.contains("total gap"));

        QFile csv(path("a.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 5);
        QVERIFY(lines[0].startsWith("section,step,"));
        QVERIFY(lines[3].contains("not_applicable"));
        QVERIFY2(!QFileInfo::exists(path("a.json.tmp")), "a .tmp file was left behind");
    }

    void aloneAddsOneStepPerFix() {
        RUN_MLPWB(r, tinyAblation() << "--fixes"
                                    << "loss,zero_grad"
                                    << "--alone"
                                    << "--quiet"
                                    << "--out" << path("alone.json"));
        QVERIFY2(r.exitCode == 0, r.describe());
        QVERIFY2(!r.out.contains("round 1"), "--quiet printed progress");
        const nlohmann::json j = readJson(path("alone.json"));
        QCOMPARE(j["alone"].size(), std::size_t{2});
        QCOMPARE(str(j["alone"][1]["settings"]["zero_grad"]), QString("none"));
        QCOMPARE(str(j["alone"][1]["settings"]["loss"]), QString("sigmoid_bce"));  // the baseline's
        QVERIFY(r.out.contains("Each fix alone"));
    }

    // --leave-one-out measures every fix but one (here {zero_grad} alone is new: {loss} is the first
    // cumulative step), --no-shapley asks for no other combination; the file says both.
    void leaveOneOutAndNoShapleyReachThePlan() {
        RUN_MLPWB(r, tinyAblation() << "--fixes"
                                    << "loss,zero_grad"
                                    << "--leave-one-out"
                                    << "--no-shapley"
                                    << "--quiet"
                                    << "--out" << path("leave-one-out.json"));
        QVERIFY2(r.exitCode == 0, r.describe());
        const nlohmann::json j = readJson(path("leave-one-out.json"));
        QCOMPARE(j["plan"]["leave_one_out"].get<bool>(), true);
        QCOMPARE(j["plan"]["shapley"].get<bool>(), false);
        QVERIFY2(str(j["combinations"]["note"]).contains("leave-one-out"), j.dump().c_str());
        QStringList measured;  // the subsets no cumulative step measured
        for (const auto& subset : j["combinations"]["subsets"])
            if (subset["step"].is_null())
                for (const auto& fix : subset["fixes"]) measured << str(fix);
        QCOMPARE(measured, QStringList{"zero_grad=none"});
    }

    void refusedFixIsPrinted() {
        RUN_MLPWB(r, tinyAblation() << "--fixes"
                                    << "precision,loss"
                                    << "--out" << path("refused.json"));
        QVERIFY2(r.exitCode == 0, r.describe());
        QVERIFY(rowOf(r, "precision=fp16").contains("refused"));
        QCOMPARE(str(readJson(path("refused.json"))["steps"][1]["status"]), QString("refused"));
    }

    void errors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown fix") << QStringList{"--fixes", "data_path,turbo"} << 4 << "turbo";
        QTest::newRow("unknown baseline") << QStringList{"--baseline", "Nope"} << 4 << "Nope";
        QTest::newRow("unknown switch value") << QStringList{"--fixes", "precision=fp8"} << 4 << "fp8";
        QTest::newRow("--repeats 0") << QStringList{"--repeats", "0"} << 2 << "repeats";
        // The switches belong to the plan, not to the command line.
        QTest::newRow("--data-path") << QStringList{"--data-path", "device_resident"} << 2 << "data-path";
        QTest::newRow("--backend foo") << QStringList{"--backend", "foo"} << 4 << "foo";
    }
    void errors() {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, mentions);
        RUN_MLPWB(r, tinyAblation() << args << "--out" << path("error.json"));
        QVERIFY2(r.exitCode == exitCode, r.describe());
        QVERIFY2(r.errLines().size() == 1, r.describe());
        QVERIFY2(r.errLines()[0].startsWith("mlpwb:"), r.describe());
        QVERIFY2(r.errLines()[0].contains(mentions), r.describe());
        QVERIFY2(!QFileInfo::exists(path("error.json")), "a failed ablation wrote a result");
    }

    void sigintCancelsAndKeepsFinishedSteps() {
        QProcess p;
        p.setWorkingDirectory(dir_.path());
        p.start(QStringLiteral(WB_MLPWB_PATH), QStringList{"ablate", "--builtin", "--rows", "200000", "--epochs",
                                                           "100000", "--repeats", "1", "--out", "cancelled.json"});
        QVERIFY(p.waitForStarted(kTimeoutMs));
        QByteArray out;
        QElapsedTimer timer;
        timer.start();
        while (!out.contains("baseline, round 1") && p.state() == QProcess::Running && timer.elapsed() < kTimeoutMs) {
            p.waitForReadyRead(1000);
            out += p.readAllStandardOutput();
        }
        QVERIFY2(out.contains("baseline, round 1"), out.constData());
        QCOMPARE(::kill(static_cast<pid_t>(p.processId()), SIGINT), 0);
        if (!p.waitForFinished(kTimeoutMs)) {
            p.kill();
            p.waitForFinished();
            QFAIL("mlpwb did not stop in time after SIGINT");
        }
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 130, p.readAllStandardError().constData());
        const nlohmann::json j = readJson(path("cancelled.json"));
        QVERIFY(j.is_object());
        QCOMPARE(str(j["status"]), QString("cancelled"));
        QCOMPARE(str(j["steps"].back()["status"]), QString("cancelled"));
    }
};

QTEST_GUILESS_MAIN(TestCliAblate)
#include "tst_cli_ablate.moc"
