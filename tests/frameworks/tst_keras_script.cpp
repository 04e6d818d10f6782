// The Keras loop generator: each switch value puts Keras' own construct into the script (a tf.data
// pipeline, run_eagerly, jit_compile, a mixed-precision policy), what Keras cannot express falls
// back with the reason, the optimizer maps onto keras.optimizers with its differences said, and
// every switch combination is valid Python.
#include <QtTest>

#include "frameworks/keras_script.h"
#include "tests/frameworks/script_test_support.h"

using namespace wb;
using wb::test::configWith;

namespace {
KerasTarget target(const QString& device) {
    return KerasTarget{device.toStdString(), "3.6.0"};
}

QString script(const RunConfig& c, const QString& device) {
    return QString::fromStdString(kerasScript(c, target(device)));
}
}  // namespace

class KerasScriptTest : public QObject {
    Q_OBJECT
private slots:
    void switchBecomesConstruct_data() {
        QTest::addColumn<QString>("settings");
        QTest::addColumn<QString>("device");
        QTest::addColumn<QStringList>("present");
        QTest::addColumn<QStringList>("absent");
        QTest::newRow("gather") << "data_path=per_sample_gather"
                                << "cpu"
                                << QStringList{"tf.data.Dataset.from_tensor_slices((x, y))",
                                               "return {\"x\": rows.batch(BATCH_SIZE), \"shuffle\": False}"}
                                << QStringList{"\"batch_size\": BATCH_SIZE"};
        QTest::newRow("pageable cuda") << "data_path=pageable_copy"
                                       << "cuda"
                                       << QStringList{"# data_path=pageable_copy: fit slices whole batches",
                                                      "\"x\": x, \"y\": y, \"batch_size\": BATCH_SIZE"}
                                       << QStringList{"from_tensor_slices"};
        QTest::newRow("pageable cpu falls back")
            << "data_path=pageable_copy"
            << "cpu" << QStringList{"# data_path=device_resident: fit slices", "no copy to a device"}
            << QStringList{"from_tensor_slices"};
        QTest::newRow("resident cpu") << "data_path=device_resident"
                                      << "cpu" << QStringList{"\"x\": x, \"y\": y, \"batch_size\": BATCH_SIZE"}
                                      << QStringList{"Asked for but not applicable here:\n  data_path"};
        QTest::newRow("resident cuda falls back")
            << "data_path=device_resident"
            << "cuda" << QStringList{"neither resident rows nor pinned memory", "# data_path=pageable_copy"}
            << QStringList{};
        QTest::newRow("pinned cuda falls back")
            << "data_path=pinned_async"
            << "cuda" << QStringList{"neither resident rows nor pinned memory", "# data_path=pageable_copy"}
            << QStringList{};
        QTest::newRow("eager_sync") << "launch=eager_sync"
                                    << "cpu" << QStringList{"run_eagerly, jit_compile = True, False"}
                                    << QStringList{"launch: Keras has one eager mode"};
        QTest::newRow("eager falls back")
            << "launch=eager"
            << "cpu" << QStringList{"launch: Keras has one eager mode", "run_eagerly, jit_compile = False, False"}
            << QStringList{"run_eagerly, jit_compile = True"};
        QTest::newRow("graph_step") << "launch=graph_step"
                                    << "cuda" << QStringList{"run_eagerly, jit_compile = False, False"}
                                    << QStringList{"launch: Keras"};
        QTest::newRow("fused") << "launch=fused gemm=custom"
                               << "cuda" << QStringList{"run_eagerly, jit_compile = False, True", "compiled by XLA"}
                               << QStringList{};
        QTest::newRow("persistent falls back to fused")
            << "launch=persistent gemm=custom"
            << "cuda"
            << QStringList{"launch: Keras has no whole-epoch persistent kernel",
                           "run_eagerly, jit_compile = False, True"}
            << QStringList{"run_eagerly, jit_compile = False, False"};
        QTest::newRow("sigmoid_bce") << "loss=sigmoid_bce"
                                     << "cpu"
                                     << QStringList{"BinaryCrossentropy(from_logits=False)",
                                                    "Dense(1, activation=\"sigmoid\", dtype=\"float32\"",
                                                    "threshold=0.5", "clipped to [1e-7, 1 - 1e-7]"}
                                     << QStringList{"from_logits=True"};
        QTest::newRow("bce_with_logits") << "loss=bce_with_logits"
                                         << "cpu"
                                         << QStringList{"BinaryCrossentropy(from_logits=True)",
                                                        "Dense(1, activation=None, dtype=\"float32\"", "threshold=0.0"}
                                         << QStringList{"from_logits=False"};
        QTest::newRow("zero_grad not applicable")
            << "zero_grad=twice"
            << "cpu" << QStringList{"zero_grad: Keras computes each step's gradients afresh"} << QStringList{};
        QTest::newRow("optimizer_kernel not applicable")
            << "optimizer_kernel=multi_tensor"
            << "cpu" << QStringList{"optimizer_kernel: Keras' optimizers update each variable"} << QStringList{};
        QTest::newRow("fp32") << "precision=fp32"
                              << "cuda" << QStringList{"tf.config.experimental.enable_tensor_float_32_execution(False)"}
                              << QStringList{"set_global_policy"};
        QTest::newRow("tf32 cuda") << "precision=tf32"
                                   << "cuda"
                                   << QStringList{"tf.config.experimental.enable_tensor_float_32_execution(True)"}
                                   << QStringList{"set_global_policy"};
        QTest::newRow("bf16") << "precision=bf16"
                              << "cpu" << QStringList{"keras.mixed_precision.set_global_policy(\"mixed_bfloat16\")"}
                              << QStringList{"mixed_float16"};
        QTest::newRow("fp16 cuda") << "precision=fp16"
                                   << "cuda"
                                   << QStringList{"keras.mixed_precision.set_global_policy(\"mixed_float16\")",
                                                  "LossScaleOptimizer"}
                                   << QStringList{};
        QTest::newRow("fp16 cpu falls back")
            << "precision=fp16"
            << "cpu" << QStringList{"precision=fp32:", "mixed_float16 policy with loss scaling are GPU features"}
            << QStringList{"set_global_policy(\"mixed_float16\")"};
        QTest::newRow("gemm custom not applicable")
            << "gemm=custom"
            << "cpu" << QStringList{"gemm: TensorFlow picks its own matrix-product kernels"} << QStringList{};
    }
    void switchBecomesConstruct() {
        QFETCH(QString, settings);
        QFETCH(QString, device);
        QFETCH(QStringList, present);
        QFETCH(QStringList, absent);
        const QString text = script(configWith(settings), device);
        test::expectSnippets(text, present, absent);
    }

    // What fit cannot honour is the target's ignored list, each switch with its reason.
    void ignoredSwitchesOnTheCpu() {
        const auto c = configWith("data_path=pinned_async launch=eager precision=fp16");
        QStringList names;
        for (const auto& i : kerasIgnoredSwitches(c.execution, target("cpu"))) {
            names << QString::fromStdString(i.name);
            QVERIFY(!i.reason.empty());
        }
        QCOMPARE(names, (QStringList{"data_path", "launch", "zero_grad", "optimizer_kernel", "precision"}));
    }

    void optimizerMapsOntoKeras_data() {
        QTest::addColumn<QString>("optimizer");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("adam") << "adam"
                              << QStringList{
                                     "keras.optimizers.Adam(learning_rate=0.001, beta_1=0.9, beta_2=0.999, "
                                     "epsilon=1e-08)",
                                     "Adam adds epsilon to sqrt(v) before the bias correction"};
        QTest::newRow("adam l2") << "adam wd"
                                 << QStringList{"epsilon=1e-08, weight_decay=0.01)",
                                                "PyTorch's adam adds wd * var to the gradient"};
        QTest::newRow("adamw") << "adamw"
                               << QStringList{
                                      "keras.optimizers.AdamW(learning_rate=0.001, beta_1=0.9, beta_2=0.999, "
                                      "epsilon=1e-08, weight_decay=0.01)"};
        QTest::newRow("sgd nesterov") << "sgd"
                                      << QStringList{
                                             "keras.optimizers.SGD(learning_rate=0.05, momentum=0.9, "
                                             "nesterov=True)"};
        QTest::newRow("sgd dampening") << "sgd damp"
                                       << QStringList{"# no dampening in Keras",
                                                      "PyTorch's dampening=0.1 is not applied"};
        QTest::newRow("sgd plain") << "sgd plain"
                                   << QStringList{
                                          "keras.optimizers.SGD(learning_rate=0.001, momentum=0.0, "
                                          "nesterov=False)"};  // a float: Keras refuses int 0
        QTest::newRow("rmsprop") << "rmsprop"
                                 << QStringList{
                                        "keras.optimizers.RMSprop(learning_rate=0.01, rho=0.99, momentum=0.0, "
                                        "epsilon=1e-08 ** 2, centered=False)",
                                        "epsilon is passed as eps**2"};
    }
    void optimizerMapsOntoKeras() {
        QFETCH(QString, optimizer);
        QFETCH(QStringList, expected);
        RunConfig c = configWith("");
        c.optimizer = OptimizerSpec::defaults(optimizerKindFromString(optimizer.split(' ')[0].toStdString()));
        if (optimizer.endsWith(" wd")) c.optimizer.weightDecay = 0.01;
        if (c.optimizer.kind == OptimizerKind::Sgd && !optimizer.endsWith(" plain")) {
            c.optimizer.lr = 0.05;
            c.optimizer.momentum = 0.9;
            c.optimizer.nesterov = !optimizer.endsWith(" damp");
            if (optimizer.endsWith(" damp")) c.optimizer.dampening = 0.1;
        }
        const QString text = script(c, "cpu");
        for (const QString& e : expected) QVERIFY2(text.contains(e), qPrintable("missing: " + e));
    }

    void modelAndInitialisation() {
        RunConfig c = configWith("");
        c.model.hidden = {64, 32};
        c.model.activation = Activation::Gelu;
        c.model.init = InitKind::Glorot;
        const QString text = script(c, "cpu");
        for (const char* p : {"HIDDEN = [64, 32]", "activation = \"gelu\"", "Keras' own glorot_uniform kernels",
                              "layer.set_weights([weight.T.copy(), bias])", "FRAMEWORK = \"keras\""})
            QVERIFY2(text.contains(p), p);
        c.model.init = InitKind::Torch;
        QVERIFY(script(c, "cpu").contains("keras.initializers.VarianceScaling(1.0 / 3.0, \"fan_in\", \"uniform\")"));
    }

    // Every valid combination, on a GPU and on a CPU, parses as Python.
    void everyCombinationIsValidPython() {
        std::vector<std::string> scripts;
        for (const auto& s : test::allValidSettings())
            for (const char* device : {"cuda", "cpu"})
                scripts.push_back(kerasScript(test::quotedRun(s, int(scripts.size())), target(device)));
        QVERIFY(scripts.size() > 100);
        QString error;
        const auto parsed = test::parsesAsPython(scripts, error);
        if (parsed == test::Parsed::NoPython) QSKIP("no python3 on PATH to parse the scripts with");
        QVERIFY2(parsed == test::Parsed::Yes, qPrintable(error));
    }

    // Each task puts its own output layer, loss, metrics and sums into the loop.
    void taskBecomesCode_data() {
        test::addTaskColumns();
        QTest::newRow("3 classes, fused")
            << "loss=bce_with_logits"
            << "multiclass"
            << "mse"
            << QStringList{"keras.losses.SparseCategoricalCrossentropy(from_logits=True)",
                           "keras.layers.Dense(3, activation=None", "SparseCategoricalAccuracy(name=\"accuracy\")",
                           "-> 3 (one logit per class)"}
            << QStringList{"BinaryCrossentropy", "BinaryAccuracy", "squared_error"};
        QTest::newRow("3 classes, separate steps")
            << "loss=sigmoid_bce"
            << "multiclass"
            << "mse"
            << QStringList{"SparseCategoricalCrossentropy(from_logits=False)",
                           "keras.layers.Dense(3, activation=\"softmax\"", "softmax output is computed from the logits"}
            << QStringList{"BinaryCrossentropy", "activation=\"sigmoid\", dtype"};
        QTest::newRow("regression, mse") << "launch=graph_step"
                                         << "regression"
                                         << "mse"
                                         << QStringList{"loss=keras.losses.MeanSquaredError()",
                                                        "MeanSquaredError(name=\"squared_error\")",
                                                        "MeanAbsoluteError(name=\"absolute_error\")",
                                                        "logs[\"squared_error\"] * rows",
                                                        "logs[\"val_absolute_error\"] * rows_val",
                                                        "  loss: a regression has no sigmoid",
                                                        "spread(y), spread(val[1])"}
                                         << QStringList{"BinaryCrossentropy", "logs[\"accuracy\"]", "Accuracy("};
        QTest::newRow("regression, huber")
            << "launch=eager_sync"
            << "regression"
            << "huber" << QStringList{"loss=keras.losses.Huber(delta=1.0)", "loss: Huber(delta=1.0)"}
            << QStringList{"loss=keras.losses.MeanSquaredError()"};
        // Class weights: a loss dividing by the batch's sum of w[y] (PyTorch's), not fit(class_weight=).
        QTest::newRow("3 classes weighted")
            << "loss=bce_with_logits"
            << "weighted multiclass"
            << "mse"
            << QStringList{"class_weight = keras.ops.convert_to_tensor([0.5, 2.0, 1.25], dtype=\"float32\")",
                           "SparseCategoricalCrossentropy(from_logits=True, reduction=None)",
                           "return keras.ops.sum(w * row_loss(y_true, y_pred)) / keras.ops.sum(w)",
                           "loss=weighted_loss,", "Keras' own fit(class_weight=...) divides"}
            << QStringList{"loss=keras.losses.SparseCategoricalCrossentropy", "class_weight={"};
    }
    void taskBecomesCode() {
        QFETCH(QString, settings);
        QFETCH(QString, task);
        QFETCH(QString, regressionLoss);
        QFETCH(QStringList, present);
        QFETCH(QStringList, absent);
        const QString script =
            QString::fromStdString(kerasScript(test::configForTask(settings, task, regressionLoss), target("cpu")));
        test::expectSnippets(script, present, absent);
    }

    // Every valid combination for a multiclass and a regression data set parses as Python.
    void everyTaskCombinationIsValidPython() {
        QString error;
        const auto parsed =
            test::taskScriptsParse([](const RunConfig& c) { return kerasScript(c, target("cpu")); }, error);
        if (parsed == test::Parsed::NoPython) QSKIP("no python3 on PATH to parse the scripts with");
        QVERIFY2(parsed == test::Parsed::Yes, qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(KerasScriptTest)
#include "tst_keras_script.moc"
