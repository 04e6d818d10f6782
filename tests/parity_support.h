// What the PyTorch parity suites share: reading a fixture's expected.json and optimizer block, and
// comparing a run's loss curve and final weights with PyTorch's (the fixtures are made by
// bench/make_parity_fixture.py and bench/make_task_parity_fixture.py).
#pragma once

#include <QtTest>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/data/npy_io.h"
#include "core/model/model.h"
#include "core/model/optimizer.h"
#include "core/run/run_config.h"
#include "core/run/run_record.h"

namespace wb::parity {

inline nlohmann::json readExpected(const std::string& dir) {
    std::ifstream in(dir + "expected.json");
    return nlohmann::json::parse(in);
}

// The fixture's optimizer block, in our JSON's words ("kind" is called "type" there).
inline OptimizerSpec optimizerOf(const nlohmann::json& block) {
    nlohmann::json j = block;
    j["type"] = j.at("kind");
    return j.get<OptimizerSpec>();
}

// Every epoch's mean train loss within 1e-4 relative of PyTorch's.
inline void compareLossCurve(const RunRecord& record, const std::vector<double>& losses) {
    QCOMPARE(record.epochs.size(), losses.size());
    for (std::size_t e = 0; e < losses.size(); ++e)
        QVERIFY2(std::abs(record.epochs[e].trainLoss - losses[e]) <= 1e-4 * std::abs(losses[e]),
                 qPrintable(QString("epoch %1: ours %2, PyTorch %3")
                                .arg(e + 1)
                                .arg(record.epochs[e].trainLoss, 0, 'g', 10)
                                .arg(losses[e], 0, 'g', 10)));
}

// Every final parameter within 1e-3 relative + 1e-5 of PyTorch's.
inline void compareWeights(const MlpParams& ours, const MlpParams& torch) {
    QCOMPARE(ours.count(), torch.count());
    for (std::size_t k = 0; k < ours.count(); ++k) {
        const double want = torch.values[k], got = ours.values[k];
        QVERIFY2(
            std::abs(got - want) <= 1e-3 * std::abs(want) + 1e-5,
            qPrintable(QString("parameter %1: ours %2, PyTorch %3").arg(k).arg(got, 0, 'g', 9).arg(want, 0, 'g', 9)));
    }
}

// The task fixture (tests/data/parity_tasks, in `dir`): case `c`'s features and labels, read for its task.
inline Dataset loadTaskCase(const std::string& dir, const nlohmann::json& c) {
    const bool regression = c.at("task").get<std::string>() == "regression";
    return loadNpyDataset(dir + "x.npy", dir + c.at("labels").get<std::string>(),
                          regression ? TaskChoice::Regression : TaskChoice::Multiclass);
}

// The training the task fixture's case `c` did in PyTorch: its model, optimizer, loss, epochs and
// batches from its initial weights, on the rows as they are (no standardisation, no split).
inline RunConfig taskCaseConfig(const std::string& dir, const nlohmann::json& fixture, const nlohmann::json& c) {
    RunConfig config;
    config.prepare.standardize = false;  // the same rows PyTorch saw, in file order
    config.model.hidden = fixture.at("model").at("hidden").get<std::vector<int>>();
    config.optimizer = optimizerOf(fixture.at("optimizer"));
    if (c.contains("loss")) config.execution.loss = lossKindFromString(c.at("loss").get<std::string>());
    if (c.contains("regression_loss"))
        config.model.regressionLoss = regressionLossFromString(c.at("regression_loss").get<std::string>());
    if (c.contains("class_weights")) config.model.classWeights.values = c.at("class_weights").get<std::vector<float>>();
    config.train.epochs = fixture.at("train").at("epochs").get<int>();
    config.train.batchSize = fixture.at("train").at("batch_size").get<int>();
    config.initWeights = dir + c.at("init_weights").get<std::string>();
    return config;
}

}  // namespace wb::parity
