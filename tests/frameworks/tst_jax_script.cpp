// The JAX loop generator: each switch value puts JAX's own construct into the script, what the
// target cannot do falls back with the reason, the optimizers are PyTorch's formulas, and every
// switch combination is valid Python.
#include <QtTest>

#include "frameworks/jax_script.h"
#include "tests/frameworks/script_test_support.h"

using namespace wb;
using wb::test::configWith;

namespace {
JaxTarget target(const QString& device) {
    return JaxTarget{device.toStdString(), "0.4.30"};
}

QString script(const RunConfig& c, const QString& device) {
    return QString::fromStdString(jaxScript(c, target(device)));
}
}  // namespace

class JaxScriptTest : public QObject {
    Q_OBJECT
private slots:
    void switchBecomesConstruct_data() {
        QTest::addColumn<QString>("settings");
        QTest::addColumn<QString>("device");
        QTest::addColumn<QStringList>("present");
        QTest::addColumn<QStringList>("absent");
        QTest::newRow("gather, per step")
            << "data_path=per_sample_gather launch=eager"
            << "cpu" << QStringList{"np.stack([x[i] for i in rows])", "jax.device_put(xb, device)"}
            << QStringList{"np.concatenate(xs)", "x_dev"};
        QTest::newRow("gather, whole epoch")
            << "data_path=per_sample_gather launch=graph_step"
            << "cpu" << QStringList{"np.stack([x[i] for i in rows])", "np.concatenate(xs)", "jax.lax.scan("}
            << QStringList{"def make_batches"};
        QTest::newRow("pageable cuda") << "data_path=pageable_copy"
                                       << "cuda"
                                       << QStringList{"xs, ys = (x, y) if order is None else (x[order], y[order])",
                                                      "jax.device_put(xb, device)"}
                                       << QStringList{"np.stack([x[i]", "x_dev"};
        QTest::newRow("pageable cpu falls back")
            << "data_path=pageable_copy"
            << "cpu" << QStringList{"data_path=device_resident", "no copy to a device", "x_dev, y_dev"}
            << QStringList{"jax.device_put(xb, device)"};
        QTest::newRow("pinned cuda falls back")
            << "data_path=pinned_async"
            << "cuda" << QStringList{"no pinned host buffers", "data_path=pageable_copy", "jax.device_put(xb, device)"}
            << QStringList{"x_dev"};
        QTest::newRow("resident, per step")
            << "data_path=device_resident launch=eager"
            << "cuda"
            << QStringList{"x_dev, y_dev = jax.device_put(x, device), jax.device_put(y, device)",
                           "xs[start:start + BATCH_SIZE]"}
            << QStringList{"host_batches"};
        QTest::newRow("resident, whole epoch")
            << "data_path=device_resident launch=fused gemm=custom"
            << "cuda" << QStringList{"x_dev, y_dev = jax.device_put(x, device)", "x, y = x[order], y[order]"}
            << QStringList{"host_batches"};
        QTest::newRow("eager_sync") << "launch=eager_sync"
                                    << "cpu"
                                    << QStringList{"step = jax.jit(train_step)", "loss_sum += float(loss) * rows"}
                                    << QStringList{"jax.lax.scan(", "losses.append(loss)"};
        QTest::newRow("eager") << "launch=eager"
                               << "cpu" << QStringList{"step = jax.jit(train_step)", "losses.append(loss)"}
                               << QStringList{"jax.lax.scan(", "loss_sum += float(loss)"};
        QTest::newRow("graph_step") << "launch=graph_step"
                                    << "cpu"
                                    << QStringList{"epoch = jax.jit(scan_epoch)",
                                                   "jax.lax.scan(train_step, carry, batches)", "if full < rows:"}
                                    << QStringList{"step = jax.jit("};
        QTest::newRow("fused") << "launch=fused gemm=custom"
                               << "cpu" << QStringList{"# launch=fused: the whole epoch", "epoch = jax.jit(scan_epoch)"}
                               << QStringList{"step = jax.jit("};
        QTest::newRow("persistent falls back to fused")
            << "launch=persistent gemm=custom"
            << "cpu" << QStringList{"launch: JAX has no whole-epoch persistent kernel", "epoch = jax.jit(scan_epoch)"}
            << QStringList{"step = jax.jit("};
        QTest::newRow("sigmoid_bce") << "loss=sigmoid_bce"
                                     << "cpu"
                                     << QStringList{"@jax.custom_vjp", "jnp.maximum(jnp.log(p), -100.0)",
                                                    "jnp.maximum(p * (1 - p), 1e-12)", "THRESHOLD = 0.5",
                                                    "return jax.nn.sigmoid(z)"}
                                     << QStringList{"jnp.log1p(jnp.exp(-jnp.abs(z)))"};
        QTest::newRow("bce_with_logits") << "loss=bce_with_logits"
                                         << "cpu"
                                         << QStringList{"jnp.maximum(z, 0.0) - z * y + jnp.log1p(jnp.exp(-jnp.abs(z)))",
                                                        "THRESHOLD = 0.0"}
                                         << QStringList{"custom_vjp", "jax.nn.sigmoid(z)"};
        QTest::newRow("zero_grad not applicable")
            << "zero_grad=twice"
            << "cpu" << QStringList{"zero_grad: jax.grad returns each step's gradients as fresh values"}
            << QStringList{"zero_grad("};
        QTest::newRow("optimizer_kernel not applicable")
            << "optimizer_kernel=multi_tensor"
            << "cpu" << QStringList{"optimizer_kernel: the update is written over the whole parameter tree"}
            << QStringList{"foreach"};
        QTest::newRow("fp32") << "precision=fp32"
                              << "cuda" << QStringList{"COMPUTE = jnp.float32", "MATMUL_PRECISION = \"highest\""}
                              << QStringList{"65536"};
        QTest::newRow("tf32 cuda") << "precision=tf32"
                                   << "cuda" << QStringList{"MATMUL_PRECISION = \"tensorfloat32\""}
                                   << QStringList{"bfloat16"};
        QTest::newRow("bf16") << "precision=bf16"
                              << "cpu" << QStringList{"COMPUTE = jnp.bfloat16", "h = x.astype(COMPUTE)"}
                              << QStringList{"65536"};
        QTest::newRow("fp16 cuda") << "precision=fp16"
                                   << "cuda"
                                   << QStringList{"COMPUTE = jnp.float16", "jnp.float32(65536.0)",
                                                  "grads = [g / scale for g in grads]", "jnp.where(finite, a, b)"}
                                   << QStringList{};
        QTest::newRow("fp16 cpu falls back")
            << "precision=fp16"
            << "cpu" << QStringList{"precision=fp32:", "fp16 with loss scaling are GPU practices"}
            << QStringList{"65536", "jnp.float16"};
        QTest::newRow("gemm custom not applicable")
            << "gemm=custom"
            << "cpu" << QStringList{"gemm: XLA picks its own matrix-product kernels"} << QStringList{};
    }
    void switchBecomesConstruct() {
        QFETCH(QString, settings);
        QFETCH(QString, device);
        QFETCH(QStringList, present);
        QFETCH(QStringList, absent);
        const QString text = script(configWith(settings), device);
        test::expectSnippets(text, present, absent);
    }

    // What the loop cannot honour is the target's ignored list, each switch with its reason.
    void ignoredSwitchesOnTheCpu() {
        const auto c = configWith("data_path=pinned_async precision=tf32 gemm=custom");
        QStringList names;
        for (const auto& i : jaxIgnoredSwitches(c.execution, target("cpu"))) {
            names << QString::fromStdString(i.name);
            QVERIFY(!i.reason.empty());
        }
        QCOMPARE(names, (QStringList{"data_path", "zero_grad", "optimizer_kernel", "precision", "gemm"}));
    }

    void optimizerIsPyTorchs_data() {
        QTest::addColumn<QString>("optimizer");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("adam") << "adam"
                              << QStringList{"LR, BETA1, BETA2, EPS, WEIGHT_DECAY = 0.001, 0.9, 0.999, 1e-08, 0",
                                             "\"\"\"torch.optim.Adam:",
                                             "p = p - step_size * (m / (jnp.sqrt(v) / correction2_sqrt + EPS))"};
        QTest::newRow("adam l2") << "adam wd" << QStringList{"g = g + WEIGHT_DECAY * p  # Adam's weight decay: L2"};
        QTest::newRow("adamw") << "adamw"
                               << QStringList{"\"\"\"torch.optim.AdamW:", "p = p * (1 - LR * WEIGHT_DECAY)", "0.01"};
        QTest::newRow("sgd nesterov") << "sgd"
                                      << QStringList{"LR, MOMENTUM, DAMPENING, WEIGHT_DECAY = 0.05, 0.9, 0, 0",
                                                     "NESTEROV = True", "jnp.where(step == 1, d,",
                                                     "d = d + MOMENTUM * buf if NESTEROV else buf"};
        QTest::newRow("rmsprop centred") << "rmsprop"
                                         << QStringList{"LR, ALPHA, EPS, MOMENTUM, WEIGHT_DECAY = 0.01, 0.99, 1e-08",
                                                        "CENTERED = True", "jnp.sqrt(sq - avg * avg) + EPS"};
    }
    void optimizerIsPyTorchs() {
        QFETCH(QString, optimizer);
        QFETCH(QStringList, expected);
        RunConfig c = configWith("");
        c.optimizer = OptimizerSpec::defaults(optimizerKindFromString(optimizer.split(' ')[0].toStdString()));
        if (optimizer.endsWith(" wd")) c.optimizer.weightDecay = 0.01;
        if (c.optimizer.kind == OptimizerKind::Sgd) {
            c.optimizer.lr = 0.05;
            c.optimizer.momentum = 0.9;
            c.optimizer.nesterov = true;
        }
        if (c.optimizer.kind == OptimizerKind::RmsProp) c.optimizer.centered = true;
        const QString text = script(c, "cpu");
        for (const QString& e : expected) QVERIFY2(text.contains(e), qPrintable("missing: " + e));
    }

    void modelAndInitialisation() {
        RunConfig c = configWith("");
        c.model.hidden = {64, 32};
        c.model.activation = Activation::Gelu;
        c.model.init = InitKind::Glorot;
        const QString text = script(c, "cpu");
        for (const char* p : {"HIDDEN = [64, 32]", "functools.partial(jax.nn.gelu, approximate=False)",
                              "limit = math.sqrt(6.0 / (fan_in + fan_out))", "FRAMEWORK = \"jax\""})
            QVERIFY2(text.contains(p), p);
        c.model.init = InitKind::Torch;
        QVERIFY(script(c, "cpu").contains("bound = 1.0 / math.sqrt(fan_in)"));
    }

    // Every valid combination, on a GPU and on a CPU, parses as Python.
    void everyCombinationIsValidPython() {
        std::vector<std::string> scripts;
        for (const auto& s : test::allValidSettings())
            for (const char* device : {"cuda", "cpu"})
                scripts.push_back(jaxScript(test::quotedRun(s, int(scripts.size())), target(device)));
        QVERIFY(scripts.size() > 100);
        QString error;
        const auto parsed = test::parsesAsPython(scripts, error);
        if (parsed == test::Parsed::NoPython) QSKIP("no python3 on PATH to parse the scripts with");
        QVERIFY2(parsed == test::Parsed::Yes, qPrintable(error));
    }

    // Each task puts its own model end, per-row loss and sums into the loop, on every epoch path.
    void taskBecomesCode_data() {
        test::addTaskColumns();
        QTest::newRow("3 classes, fused")
            << "loss=bce_with_logits"
            << "multiclass"
            << "mse"
            << QStringList{"jax.nn.log_softmax(z, axis=1)", "hits(out, y)", "widths = [inputs] + HIDDEN + [3]",
                           "jnp.argmax(out, axis=1)", "model's output (B, 3)"}
            << QStringList{"THRESHOLD", "log1p", "jax.nn.sigmoid(z)", "(out >= "};
        QTest::newRow("3 classes, separate steps")
            << "loss=sigmoid_bce"
            << "multiclass"
            << "mse" << QStringList{"jax.nn.softmax(z, axis=1)", "jnp.log(p)", "loss: Softmax + log + NLLLoss"}
            << QStringList{"log_softmax", "custom_vjp"};
        QTest::newRow("regression, mse, whole epoch")
            << "launch=graph_step"
            << "regression"
            << "mse"
            << QStringList{"(z - y) ** 2",
                           "jnp.zeros((0, 2), jnp.float32)",
                           "jnp.concatenate([rights, right[None]])",
                           "errors = np.sum(np.asarray(rights",
                           "val_sums = (float(loss) * log.rows_val, 0, *",
                           "spread(y), spread(val[1])",
                           "  loss: a regression has no sigmoid"}
            << QStringList{"THRESHOLD", "int(right)", "right.astype(jnp.int32)", "log1p"};
        QTest::newRow("regression, huber, eager_sync")
            << "launch=eager_sync"
            << "regression"
            << "huber"
            << QStringList{"jnp.where(jnp.abs(d) < 1.0, 0.5 * d * d, jnp.abs(d) - 0.5)",
                           "errors += np.asarray(right, dtype=np.float64)",
                           "return carry, (loss_sum, 0, samples, *errors)"}
            << QStringList{"correct += int(right)", "(z - y) ** 2"};
        QTest::newRow("regression, mse, eager")
            << "launch=eager"
            << "regression"
            << "mse" << QStringList{"errors = np.sum(np.asarray(rights", "return carry, epoch_sums("}
            << QStringList{"int(np.sum(np.asarray(rights)))"};
        // Class weights: the batch loss sum w[y] l / sum w[y], in training and in evaluation.
        QTest::newRow("3 classes weighted")
            << "loss=sigmoid_bce"
            << "weighted multiclass"
            << "mse"
            << QStringList{"CLASS_WEIGHT = [0.5, 2.0, 1.25]", "return jnp.sum(w * losses) / jnp.sum(w)",
                           "return weighted_mean(row_losses(out, y), y), out",
                           "return weighted_mean(row_losses(out, y), y), hits(out, y)"}
            << QStringList{"jnp.mean(row_losses(out, y))"};
    }
    void taskBecomesCode() {
        QFETCH(QString, settings);
        QFETCH(QString, task);
        QFETCH(QString, regressionLoss);
        QFETCH(QStringList, present);
        QFETCH(QStringList, absent);
        const QString script =
            QString::fromStdString(jaxScript(test::configForTask(settings, task, regressionLoss), target("cpu")));
        test::expectSnippets(script, present, absent);
    }

    // Every valid combination for a multiclass and a regression data set parses as Python.
    void everyTaskCombinationIsValidPython() {
        QString error;
        const auto parsed =
            test::taskScriptsParse([](const RunConfig& c) { return jaxScript(c, target("cpu")); }, error);
        if (parsed == test::Parsed::NoPython) QSKIP("no python3 on PATH to parse the scripts with");
        QVERIFY2(parsed == test::Parsed::Yes, qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(JaxScriptTest)
#include "tst_jax_script.moc"
