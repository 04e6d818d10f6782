// The CPU backend gives the same bits for every thread count: a batch is cut into chunks that do
// not depend on the threads, and the chunks' losses and gradients are summed in chunk order. Runs
// with 1, 2 and 7 threads must agree on every epoch's loss and on every final weight, bit for bit,
// for batches that fill whole chunks, a ragged last batch, and a batch of one chunk.
#include <QtTest>

#include <cstring>
#include <vector>

#include "core/cpu/cpu_backend.h"
#include "core/cpu/cpu_target.h"
#include "core/data/builtin_data.h"
#include "core/data/prepare.h"
#include "core/platform/errors.h"
#include "core/run/backend.h"

using namespace wb;

Q_DECLARE_METATYPE(wb::Activation)
Q_DECLARE_METATYPE(wb::OptimizerKind)

namespace {
struct Trace {
    std::vector<double> epochLoss;  // (epochs) summed loss of each epoch
    std::vector<std::size_t> epochCorrect;
    std::vector<float> params;  // (paramCount) the final weights
};

struct Setup {
    std::vector<int> hidden;
    Activation activation;
    OptimizerKind optimizer;
    int batch;
    OptimizerKernel kernel;
};

Trace train(const PreparedData& data, const Setup& s, int threads) {
    TrainingProblem p;
    p.data = &data;
    p.model.hidden = s.hidden;
    p.model.activation = s.activation;
    p.optimizer = OptimizerSpec::defaults(s.optimizer);
    p.execution.optimizerKernel = s.kernel;
    p.batchSize = s.batch;
    p.initialParams = initParams(p.model, data.cols, 3);
    p.threads = threads;
    auto backend = makeCpuBackend();
    backend->setup(p);
    const CancelFlag never{false};
    Trace t;
    for (int e = 0; e < 3; ++e) {
        const EpochResult r = backend->trainEpoch(nullptr, never);
        t.epochLoss.push_back(r.lossSum);
        t.epochCorrect.push_back(r.correct);
    }
    t.params = backend->parameters().values;
    return t;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}
}  // namespace

class TestCpuThreads : public QObject {
    Q_OBJECT

private slots:
    // ctest runs this suite again with MLPWB_CPU_TARGET forcing each lower CPU target
    // (cpu_threads_baseline, cpu_threads_v3): a processor that cannot run it skips, saying so.
    void initTestCase() {
        const QByteArray forced = qgetenv("MLPWB_CPU_TARGET");
        try {
            (void)chooseCpuTarget(forced.toStdString());
        } catch (const ConfigError& e) {
            QSKIP(e.what());
        }
    }

    void identicalForEveryThreadCount_data() {
        QTest::addColumn<QVector<int>>("hidden");
        QTest::addColumn<Activation>("activation");
        QTest::addColumn<OptimizerKind>("optimizer");
        QTest::addColumn<int>("batch");
        QTest::addColumn<bool>("perTensor");
        // 3000 rows: batches of 2048 (16 chunks, then a ragged 952), of 1000, and of 100 (one chunk).
        QTest::newRow("seed tanh adam 2048")
            << QVector<int>{20, 10} << Activation::Tanh << OptimizerKind::Adam << 2048 << true;
        QTest::newRow("gelu adamw 1000 multi-tensor")
            << QVector<int>{64, 32} << Activation::Gelu << OptimizerKind::AdamW << 1000 << false;
        QTest::newRow("wide relu sgd 2048")
            << QVector<int>{256, 128} << Activation::Relu << OptimizerKind::Sgd << 2048 << true;
        QTest::newRow("sigmoid rmsprop 100")
            << QVector<int>{20, 10} << Activation::Sigmoid << OptimizerKind::RmsProp << 100 << true;
    }

    void identicalForEveryThreadCount() {
        QFETCH(QVector<int>, hidden);
        QFETCH(Activation, activation);
        QFETCH(OptimizerKind, optimizer);
        QFETCH(int, batch);
        QFETCH(bool, perTensor);
        const PreparedData data = prepare(generateSeedLike(3000, 5), PrepareSpec{0.0, true, 5});
        const Setup s{std::vector<int>(hidden.begin(), hidden.end()), activation, optimizer, batch,
                      perTensor ? OptimizerKernel::PerTensor : OptimizerKernel::MultiTensor};
        const Trace one = train(data, s, 1);
        for (int threads : {2, 7}) {
            const Trace many = train(data, s, threads);
            for (std::size_t e = 0; e < one.epochLoss.size(); ++e) {
                QCOMPARE(many.epochLoss[e], one.epochLoss[e]);  // exact: the same bits
                QCOMPARE(many.epochCorrect[e], one.epochCorrect[e]);
            }
            QVERIFY2(sameBits(many.params, one.params),
                     qPrintable(QString("weights differ with %1 threads").arg(threads)));
        }
    }

    void environmentNamesTheThreads() {
        const PreparedData data = prepare(generateSeedLike(300, 5), PrepareSpec{0.0, true, 5});
        TrainingProblem p;
        p.data = &data;
        p.initialParams = initParams(p.model, data.cols, 3);
        p.threads = 3;
        auto backend = makeCpuBackend();
        backend->setup(p);
        bool found = false;
        std::string target;
        for (const auto& [key, value] : backend->environment()) {
            if (key == "threads") found = value == "3";
            if (key == "cpu_target") target = value;
        }
        QVERIFY(found);
        // The CPU target the kernels run with: the forced one when MLPWB_CPU_TARGET says so.
        const std::string forced = qgetenv("MLPWB_CPU_TARGET").toStdString();
        QVERIFY2(target.rfind(forced.empty() ? toString(cpuTargetChoice().chosen) : forced, 0) == 0, target.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCpuThreads)
#include "tst_cpu_threads.moc"
