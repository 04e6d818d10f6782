// The PyTorch loop generator: each switch value puts PyTorch's own construct into the script, what
// the target cannot do falls back with the reason, and every combination is valid Python.
#include <QtTest>

#include "core/platform/errors.h"
#include "core/run/run_config.h"
#include "frameworks/torch_script.h"
#include "tests/frameworks/script_test_support.h"

using namespace wb;

namespace {
using test::configWith;

TorchTarget target(const QString& device, bool compile = true) {
    return TorchTarget{device.toStdString(), compile, compile ? "2.5.1" : "1.13.1"};
}
}  // namespace

class TorchScriptTest : public QObject {
    Q_OBJECT
private slots:
    void switchBecomesConstruct_data() {
        QTest::addColumn<QString>("settings");
        QTest::addColumn<QString>("device");
        QTest::addColumn<QStringList>("present");
        QTest::addColumn<QStringList>("absent");
        QTest::newRow("gather") << "data_path=per_sample_gather"
                                << "cpu"
                                << QStringList{"DataLoader(TensorDataset(torch.Tensor(x), torch.Tensor(y))",
                                               "inputs.to(device), targets.to(device)"}
                                << QStringList{"non_blocking"};
        QTest::newRow("pageable") << "data_path=pageable_copy"
                                  << "cuda" << QStringList{"xs[start:start + BATCH_SIZE].to(device)"}
                                  << QStringList{"DataLoader", "non_blocking"};
        QTest::newRow("pinned cuda") << "data_path=pinned_async"
                                     << "cuda" << QStringList{".pin_memory()", "non_blocking=True"}
                                     << QStringList{"DataLoader"};
        QTest::newRow("pinned cpu falls back")
            << "data_path=pinned_async"
            << "cpu" << QStringList{"data_path=device_resident", "no copy to a device"}
            << QStringList{"non_blocking=True"};
        QTest::newRow("resident") << "data_path=device_resident"
                                  << "cuda" << QStringList{"torch.from_numpy(x).to(device)"}
                                  << QStringList{"DataLoader"};
        QTest::newRow("eager_sync") << "launch=eager_sync"
                                    << "cpu" << QStringList{"loss_sum += loss.item() * rows"}
                                    << QStringList{"loss.detach()"};
        QTest::newRow("eager") << "launch=eager"
                               << "cpu" << QStringList{"loss_sum += loss.detach().double() * rows"}
                               << QStringList{"loss.item()"};
        QTest::newRow("graph_step") << "launch=graph_step"
                                    << "cuda" << QStringList{"torch.compile(model, mode=\"reduce-overhead\")"}
                                    << QStringList{};
        QTest::newRow("fused falls back")
            << "launch=fused gemm=custom"
            << "cuda" << QStringList{"no whole-step fused kernel", "launch=eager:"} << QStringList{"torch.compile("};
        QTest::newRow("persistent falls back")
            << "launch=persistent gemm=custom"
            << "cuda" << QStringList{"no whole-epoch persistent kernel", "launch=eager:"}
            << QStringList{"torch.compile("};
        QTest::newRow("sigmoid_bce") << "loss=sigmoid_bce"
                                     << "cpu" << QStringList{"nn.BCELoss()", "nn.Sigmoid()"}
                                     << QStringList{"BCEWithLogitsLoss()"};
        QTest::newRow("bce_with_logits") << "loss=bce_with_logits"
                                         << "cpu" << QStringList{"nn.BCEWithLogitsLoss()"}
                                         << QStringList{"nn.BCELoss()", "self.probability"};
        QTest::newRow("zero twice") << "zero_grad=twice"
                                    << "cpu"
                                    << QStringList{"model.zero_grad(set_to_none=False)",
                                                   "optimizer.zero_grad(set_to_none=False)"}
                                    << QStringList{"set_to_none=True"};
        QTest::newRow("zero once") << "zero_grad=once"
                                   << "cpu" << QStringList{"optimizer.zero_grad(set_to_none=False)"}
                                   << QStringList{"model.zero_grad("};
        QTest::newRow("set_to_none") << "zero_grad=none"
                                     << "cpu" << QStringList{"optimizer.zero_grad(set_to_none=True)"}
                                     << QStringList{"model.zero_grad("};
        QTest::newRow("per_tensor") << "optimizer_kernel=per_tensor"
                                    << "cpu" << QStringList{"foreach=False"} << QStringList{"foreach=True"};
        QTest::newRow("multi_tensor") << "optimizer_kernel=multi_tensor"
                                      << "cpu" << QStringList{"foreach=True"} << QStringList{"foreach=False"};
        QTest::newRow("bf16") << "precision=bf16"
                              << "cpu" << QStringList{"torch.autocast(device_type=DEVICE, dtype=torch.bfloat16)"}
                              << QStringList{"GradScaler"};
        QTest::newRow("fp16 cuda") << "precision=fp16"
                                   << "cuda"
                                   << QStringList{"dtype=torch.float16", "torch.cuda.amp.GradScaler()",
                                                  "scaler.scale(loss).backward()"}
                                   << QStringList{};
        QTest::newRow("fp16 cpu falls back")
            << "precision=fp16"
            << "cpu" << QStringList{"precision=fp32:"} << QStringList{"GradScaler()", "autocast("};
        QTest::newRow("tf32 cuda") << "precision=tf32"
                                   << "cuda" << QStringList{"torch.backends.cuda.matmul.allow_tf32 = True"}
                                   << QStringList{};
    }
    void switchBecomesConstruct() {
        QFETCH(QString, settings);
        QFETCH(QString, device);
        QFETCH(QStringList, present);
        QFETCH(QStringList, absent);
        RunConfig c = configWith(settings);
        if (c.execution.precision != Precision::Fp32) c.execution.loss = LossKind::BceWithLogits;
        const QString script = QString::fromStdString(torchScript(c, target(device)));
        test::expectSnippets(script, present, absent);
    }

    void graphStepOnOldTorchSaysWhy() {
        const auto c = configWith("launch=graph_step");
        const QString script = QString::fromStdString(torchScript(c, target("cpu", false)));
        QVERIFY(!script.contains("torch.compile("));
        QVERIFY(script.contains("torch.compile needs PyTorch 2.0 or newer; this interpreter has PyTorch 1.13.1"));
        const auto ignored = torchIgnoredSwitches(c.execution, target("cpu", false));
        QCOMPARE(ignored.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(ignored[0].name), QString("launch"));
    }

    void modelOptimizerAndTorchOptions_data() {
        QTest::addColumn<QString>("optimizer");
        QTest::addColumn<QString>("expected");
        QTest::newRow("adam") << "adam"
                              << "torch.optim.Adam(model.parameters(), lr=0.001, betas=(0.9, 0.999), eps=1e-08";
        QTest::newRow("adamw") << "adamw"
                               << "torch.optim.AdamW(model.parameters(), lr=0.001";
        QTest::newRow("sgd")
            << "sgd"
            << "torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9, dampening=0, nesterov=True";
        QTest::newRow("rmsprop") << "rmsprop"
                                 << "torch.optim.RMSprop(model.parameters(), lr=0.01, alpha=0.99, eps=1e-08";
    }
    void modelOptimizerAndTorchOptions() {
        QFETCH(QString, optimizer);
        QFETCH(QString, expected);
        RunConfig c = configWith("data_path=per_sample_gather");
        c.optimizer = OptimizerSpec::defaults(optimizerKindFromString(optimizer.toStdString()));
        if (c.optimizer.kind == OptimizerKind::Sgd) {
            c.optimizer.momentum = 0.9;
            c.optimizer.nesterov = true;
        }
        c.model.hidden = {64, 32};
        c.model.activation = Activation::Gelu;
        c.model.init = InitKind::Glorot;
        c.framework.torch = {2, 4, true, true};
        const QString script = QString::fromStdString(torchScript(c, target("cuda")));
        QVERIFY2(script.contains(expected), qPrintable(expected));
        for (const char* p : {"HIDDEN = [64, 32]", "nn.GELU()", "nn.init.xavier_uniform_",
                              "num_workers=2, prefetch_factor=4, pin_memory=True", "torch.jit.script(model)"})
            QVERIFY2(script.contains(p), p);
    }

    // Every valid combination, on a GPU with torch.compile and on a CPU without, parses as Python.
    void everyCombinationIsValidPython() {
        std::vector<std::string> scripts;
        for (const auto& s : test::allValidSettings())
            for (const auto& t : {target("cuda", true), target("cpu", false)})
                scripts.push_back(torchScript(test::quotedRun(s, static_cast<int>(scripts.size())), t));
        QVERIFY(scripts.size() > 100);
        QString error;
        const auto parsed = test::parsesAsPython(scripts, error);
        if (parsed == test::Parsed::NoPython) QSKIP("no python3 on PATH to parse the scripts with");
        QVERIFY2(parsed == test::Parsed::Yes, qPrintable(error));
    }

    // Each task puts its own model end, loss and sums into the loop; the binary text is untouched.
    void taskBecomesCode_data() {
        test::addTaskColumns();
        QTest::newRow("3 classes, fused")
            << "loss=bce_with_logits"
            << "multiclass"
            << "mse"
            << QStringList{"widths = [inputs] + HIDDEN + [3]", "nn.CrossEntropyLoss()",      "targets.view(-1).long()",
                           "outputs.detach().argmax(1)",       "-> 3 (one logit per class)", "loss: CrossEntropyLoss",
                           "the class index 0..K-1",           "cross-entropy on the logits"}
            << QStringList{"BCEWithLogitsLoss", "nn.Sigmoid()", "self.probability", "squared_error"};
        QTest::newRow("3 classes, separate steps")
            << "loss=sigmoid_bce launch=eager_sync"
            << "multiclass"
            << "mse"
            << QStringList{"self.probability = nn.Softmax(dim=1)", "nn.NLLLoss()", "nll(torch.log(outputs)",
                           "loss: Softmax + log + NLLLoss", "int((outputs.argmax(1) == targets.view(-1).long())"}
            << QStringList{"nn.BCELoss()", "nn.Sigmoid()", "CrossEntropyLoss()"};
        QTest::newRow("regression, mse, eager")
            << "launch=eager"
            << "regression"
            << "mse"
            << QStringList{"nn.MSELoss()",
                           "widths = [inputs] + HIDDEN + [1]",
                           "\"squared_error\": finite(squared)",
                           "squared += (errors * errors).sum().double()",
                           "return loss, 0, squared, absolute",
                           "  loss: a regression has no sigmoid or softmax",
                           "spread(y), spread(vy)",
                           "\"train_r2\""}
            << QStringList{"BCELoss", "BCEWithLogitsLoss", "argmax", "nn.Sigmoid()", "loss=bce_with_logits:"};
        QTest::newRow("regression, huber, eager_sync")
            << "launch=eager_sync"
            << "regression"
            << "huber"
            << QStringList{"nn.HuberLoss(delta=1.0)", "squared += (errors * errors).sum().item()",
                           "return loss_sum, 0, samples, squared, absolute", "loss: HuberLoss(delta=1)"}
            << QStringList{"nn.MSELoss()", "BCELoss"};
        // Class weights: weight= on the loss; the epoch's loss is the weighted mean (sums of w[y]).
        QTest::newRow("3 classes weighted, fused")
            << "loss=bce_with_logits"
            << "weighted multiclass"
            << "mse"
            << QStringList{"class_weight = torch.tensor([0.5, 2.0, 1.25], device=device)",
                           "nn.CrossEntropyLoss(weight=class_weight)",
                           "loss_fn.class_weight = class_weight",
                           "weight_sum = torch.zeros((), dtype=torch.float64, device=device)",
                           "weight = loss_fn.class_weight[targets.view(-1).long()].sum().double()",
                           "loss_sum += loss.detach().double() * weight",
                           "return (loss_sum / weight_sum).item() * samples, int(correct.item()), samples"}
            << QStringList{"nn.CrossEntropyLoss()", "loss_sum += loss.detach().double() * rows"};
        QTest::newRow("3 classes weighted, separate steps")
            << "loss=sigmoid_bce launch=eager_sync"
            << "weighted multiclass"
            << "mse"
            << QStringList{"nn.NLLLoss(weight=class_weight)", "nll(torch.log(outputs)", "weight_sum = 0.0",
                           "loss_sum += loss.item() * weight.item()",
                           "return loss_sum / weight_sum * samples, correct, samples"}
            << QStringList{"nn.NLLLoss()", "CrossEntropyLoss"};
    }
    void taskBecomesCode() {
        QFETCH(QString, settings);
        QFETCH(QString, task);
        QFETCH(QString, regressionLoss);
        QFETCH(QStringList, present);
        QFETCH(QStringList, absent);
        const QString script =
            QString::fromStdString(torchScript(test::configForTask(settings, task, regressionLoss), target("cpu")));
        test::expectSnippets(script, present, absent);
    }

    // Every valid combination for a multiclass and a regression data set parses as Python.
    void everyTaskCombinationIsValidPython() {
        QString error;
        const auto parsed =
            test::taskScriptsParse([](const RunConfig& c) { return torchScript(c, target("cpu")); }, error);
        if (parsed == test::Parsed::NoPython) QSKIP("no python3 on PATH to parse the scripts with");
        QVERIFY2(parsed == test::Parsed::Yes, qPrintable(error));
    }

    // A multiclass loop needs its classes, which only the data counts: without them, a ConfigError.
    void multiclassWithoutItsClassesIsRefused() {
        RunConfig c = test::configForTask("", "multiclass");
        c.model.outputs = 1;
        QVERIFY_THROWS_EXCEPTION(ConfigError, torchScript(c, target("cpu")));
    }
};

QTEST_GUILESS_MAIN(TorchScriptTest)
#include "tst_torch_script.moc"
