// trainCommandLine(config) parsed back by `mlpwb train`'s own options gives the config again, for
// every kind of data, optimizer, switch and backend option.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "cli/train_options.h"
#include "core/model/execution_settings.h"
#include "core/run/train_command_line.h"

using wb::RunConfig;

namespace {
RunConfig parsed(const std::vector<std::string>& args) {
    CLI::App app;
    wb::cli::TrainOptions options;
    options.bind(app);
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
    app.parse(reversed);
    return options.toRunConfig(app);
}

nlohmann::json withoutName(const RunConfig& c) {
    nlohmann::json j = c;
    j.erase("name");
    return j;
}
}  // namespace

Q_DECLARE_METATYPE(RunConfig)

class TestTrainCommandLine : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data() {
        QTest::addColumn<RunConfig>("config");
        QTest::newRow("defaults") << RunConfig{};
        RunConfig sgd;
        sgd.data.rows = 5000;
        sgd.data.seed = 3;
        sgd.prepare = {0.2, false, 9};
        sgd.model.hidden = {64, 32, 8};
        sgd.model.activation = wb::Activation::Relu;
        sgd.model.init = wb::InitKind::Glorot;
        sgd.optimizer = wb::OptimizerSpec::defaults(wb::OptimizerKind::Sgd);
        sgd.optimizer.lr = 0.05;
        sgd.optimizer.momentum = 0.9;
        sgd.optimizer.nesterov = true;
        sgd.optimizer.weightDecay = 1e-4;
        sgd.train = {7, 100, true, 9, 0.0};
        sgd.execution = wb::presetByName("Fastest").settings;
        QTest::newRow("sgd, shuffled, Fastest") << sgd;
        RunConfig csv;
        csv.data.kind = wb::DataSpec::Kind::Csv;
        csv.data.path = "some data.csv";
        csv.data.csv.label = "type";
        csv.data.csv.header = wb::HeaderMode::Yes;
        csv.data.csv.delimiter = ';';
        csv.data.csv.ignore = {"id", "3"};
        csv.data.csv.skipLines = 2;
        csv.data.csv.missing = wb::MissingPolicy::Mean;
        csv.data.task = wb::TaskChoice::Multiclass;
        csv.model.classWeights = wb::parseClassWeights("1,2.5,0.5");
        csv.optimizer = wb::OptimizerSpec::defaults(wb::OptimizerKind::RmsProp);
        csv.optimizer.centered = true;
        csv.optimizer.alpha = 0.9;
        csv.execution = wb::presetByName("Seed PyTorch loop").settings;
        QTest::newRow("csv, multiclass, rmsprop") << csv;
        RunConfig torch;
        torch.backend = "torch";
        torch.threads = 2;
        torch.framework = {"/usr/bin/python3", "cpu", {2, 4, true, true}};
        torch.model.regressionLoss = wb::RegressionLoss::Huber;
        torch.data.kind = wb::DataSpec::Kind::Npy;
        torch.data.path = "x.npy";
        torch.data.labelsPath = "y.npy";
        torch.data.task = wb::TaskChoice::Regression;
        torch.initWeights = "w.safetensors";
        QTest::newRow("torch, npy regression") << torch;
    }
    void roundTrip() {
        QFETCH(RunConfig, config);
        const RunConfig back = parsed(wb::trainCommandLine(config));
        QCOMPARE(withoutName(back).dump(1), withoutName(config).dump(1));
    }
};

QTEST_APPLESS_MAIN(TestTrainCommandLine)
#include "tst_train_command_line.moc"
