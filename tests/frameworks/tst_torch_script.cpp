// The PyTorch loop generator: each switch value puts PyTorch's own construct into the script, what
// the target cannot do falls back with the reason, and every combination is valid Python.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "run_config.h"
#include "torch_script.h"

using namespace wb;

namespace {
RunConfig configWith(const QString& assignments) {
    RunConfig c;
    c.name = "generator test";
    c.execution = ExecutionSettings{};
    for (const QString& a : assignments.split(' ', Qt::SkipEmptyParts)) {
        const QStringList kv = a.split('=');
        setSwitch(c.execution, kv[0].toStdString(), kv[1].toStdString());
    }
    return c;
}

TorchTarget target(const QString& device, bool compile = true) {
    return TorchTarget{device.toStdString(), compile, compile ? "2.5.1" : "1.13.1"};
}

// Every valid combination of the switches (those ExecutionSettings::refusal() lets through).
std::vector<ExecutionSettings> allValidSettings() {
    std::vector<ExecutionSettings> all{ExecutionSettings{}};
    for (const auto& sw : describeSwitches(ExecutionSettings{})) {
        std::vector<ExecutionSettings> next;
        for (const auto& s : all)
            for (const auto& v : sw.values) {
                ExecutionSettings t = s;
                setSwitch(t, sw.name, v);
                next.push_back(t);
            }
        all = std::move(next);
    }
    std::erase_if(all, [](const ExecutionSettings& s) { return s.refusal().has_value(); });
    return all;
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
        for (const QString& p : present) QVERIFY2(script.contains(p), qPrintable("missing: " + p));
        for (const QString& a : absent) QVERIFY2(!script.contains(a), qPrintable("unexpected: " + a));
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
        QTemporaryDir dir;
        QStringList files;
        int n = 0;
        for (const auto& s : allValidSettings())
            for (const auto& t : {target("cuda", true), target("cpu", false)}) {
                RunConfig c;
                c.name = "combination \"" + std::to_string(n) + "\" \\ quoted";
                c.execution = s;
                const QString path = dir.filePath(QString("loop%1.py").arg(n++));
                QFile f(path);
                QVERIFY(f.open(QIODevice::WriteOnly));
                f.write(QByteArray::fromStdString(torchScript(c, t)));
                files << path;
            }
        QVERIFY(n > 100);
        QProcess python;
        python.start(
            "python3",
            QStringList{"-c", "import ast, sys\nfor p in sys.argv[1:]:\n    ast.parse(open(p).read(), p)"} + files);
        if (!python.waitForStarted()) QSKIP("no python3 on PATH to parse the scripts with");
        QVERIFY(python.waitForFinished(120000));
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    }
};

QTEST_GUILESS_MAIN(TorchScriptTest)
#include "tst_torch_script.moc"
