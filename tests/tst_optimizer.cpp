// Optimizer steps against the update rules as PyTorch documents them (torch.optim.*), written out
// here in double precision in their textbook form, plus literal hand-computed numbers.
#include <QtTest>

#include <cmath>

#include "core/cpu/cpu_tile_kernels.h"
#include "core/model/optimizer.h"
#include "core/platform/errors.h"

using namespace wb;

Q_DECLARE_METATYPE(wb::OptimizerSpec)
Q_DECLARE_METATYPE(const wb::CpuKernels*)

namespace {
// The documented algorithms, one element at a time, over `steps` gradients.
struct Reference {
    OptimizerSpec s;
    double p, m = 0, v = 0, buf = 0, gavg = 0;
    int t = 0;

    void step(double g) {
        ++t;
        if (s.kind == OptimizerKind::AdamW)
            p *= 1 - s.lr * s.weightDecay;
        else if (s.weightDecay != 0)
            g += s.weightDecay * p;
        switch (s.kind) {
            case OptimizerKind::Adam:
            case OptimizerKind::AdamW: {
                m = s.beta1 * m + (1 - s.beta1) * g;
                v = s.beta2 * v + (1 - s.beta2) * g * g;
                const double mHat = m / (1 - std::pow(s.beta1, t)), vHat = v / (1 - std::pow(s.beta2, t));
                p -= s.lr * mHat / (std::sqrt(vHat) + s.eps);
                break;
            }
            case OptimizerKind::Sgd:
                if (s.momentum != 0) {
                    buf = t == 1 ? g : s.momentum * buf + (1 - s.dampening) * g;
                    g = s.nesterov ? g + s.momentum * buf : buf;
                }
                p -= s.lr * g;
                break;
            case OptimizerKind::RmsProp: {
                v = s.alpha * v + (1 - s.alpha) * g * g;
                double denom = std::sqrt(v) + s.eps;
                if (s.centered) {
                    gavg = s.alpha * gavg + (1 - s.alpha) * g;
                    denom = std::sqrt(v - gavg * gavg) + s.eps;
                }
                if (s.momentum > 0) {
                    buf = s.momentum * buf + g / denom;
                    p -= s.lr * buf;
                } else {
                    p -= s.lr * g / denom;
                }
                break;
            }
        }
    }
};

OptimizerSpec spec(OptimizerKind kind, double lr) {
    OptimizerSpec s = OptimizerSpec::defaults(kind);
    s.lr = lr;
    return s;
}

const std::vector<float> kStart = {1.0f, -2.0f, 0.5f, 0.0f};
const std::vector<std::vector<float>> kGrads = {
    {0.5f, -0.1f, 2.0f, 0.0f}, {-0.25f, 0.3f, 1.0f, 1e-3f}, {0.125f, 0.3f, -3.0f, -1e-3f}};
}  // namespace

class TestOptimizer : public QObject {
    Q_OBJECT

private slots:
    void adamFirstStepByHand() {
        // g = 0.5: m = 0.05, v = 0.00025, m_hat = 0.5, v_hat = 0.25, p = 1 - 0.1 * 0.5 / (0.5 + 1e-8).
        auto opt = makeOptimizer(spec(OptimizerKind::Adam, 0.1), 1);
        float p = 1.0f;
        const float g = 0.5f;
        opt->beginStep();
        opt->update(&p, &g, 0, 1);
        QVERIFY(std::abs(p - 0.9f) < 1e-6f);
    }

    void sgdMomentumByHand() {
        // buf1 = g1 = 1, p = 1 - 0.1 = 0.9; buf2 = 0.9 * 1 + 2 = 2.9, p = 0.9 - 0.29 = 0.61.
        OptimizerSpec s = spec(OptimizerKind::Sgd, 0.1);
        s.momentum = 0.9;
        auto opt = makeOptimizer(s, 1);
        float p = 1.0f;
        for (float g : {1.0f, 2.0f}) {
            opt->beginStep();
            opt->update(&p, &g, 0, 1);
        }
        QVERIFY(std::abs(p - 0.61f) < 1e-6f);
    }

    void matchesDocumentedRule_data() {
        QTest::addColumn<OptimizerSpec>("s");
        QTest::newRow("adam") << spec(OptimizerKind::Adam, 1e-2);
        OptimizerSpec adamL2 = spec(OptimizerKind::Adam, 1e-2);
        adamL2.weightDecay = 0.1;
        QTest::newRow("adam weight decay") << adamL2;
        QTest::newRow("adamw") << spec(OptimizerKind::AdamW, 1e-2);
        QTest::newRow("sgd plain") << spec(OptimizerKind::Sgd, 0.1);
        OptimizerSpec momentum = spec(OptimizerKind::Sgd, 0.1);
        momentum.momentum = 0.9;
        momentum.dampening = 0.1;
        momentum.weightDecay = 1e-2;
        QTest::newRow("sgd momentum dampening decay") << momentum;
        OptimizerSpec nesterov = spec(OptimizerKind::Sgd, 0.1);
        nesterov.momentum = 0.9;
        nesterov.nesterov = true;
        QTest::newRow("sgd nesterov") << nesterov;
        QTest::newRow("rmsprop") << spec(OptimizerKind::RmsProp, 1e-2);
        OptimizerSpec centered = spec(OptimizerKind::RmsProp, 1e-2);
        centered.centered = true;
        centered.momentum = 0.5;
        centered.weightDecay = 1e-2;
        QTest::newRow("rmsprop centered momentum decay") << centered;
    }

    void matchesDocumentedRule() {
        QFETCH(OptimizerSpec, s);
        auto opt = makeOptimizer(s, kStart.size());
        std::vector<float> p = kStart;
        std::vector<Reference> ref;
        for (float v : kStart) ref.push_back({s, v});
        for (const auto& g : kGrads) {
            opt->beginStep();
            opt->update(p.data(), g.data(), 0, p.size());
            for (std::size_t i = 0; i < p.size(); ++i) ref[i].step(g[i]);
        }
        for (std::size_t i = 0; i < p.size(); ++i)
            QVERIFY2(std::abs(p[i] - ref[i].p) <= 1e-6 + 1e-5 * std::abs(ref[i].p),
                     qPrintable(QString("element %1: got %2, expected %3").arg(i).arg(p[i]).arg(ref[i].p)));
    }

    // The update loops of every CPU target this processor runs (the CPU backend's, compiled for AVX2
    // or AVX-512 too) against the same documented rules, on 1,000 elements so that their vector
    // code, not only the tail, runs.
    void eachCpuTargetMatchesTheDocumentedRule_data() {
        QTest::addColumn<OptimizerSpec>("s");
        QTest::addColumn<const CpuKernels*>("kernels");
        for (const CpuKernels* k : allRunnableCpuKernels())
            for (const OptimizerKind kind :
                 {OptimizerKind::Adam, OptimizerKind::AdamW, OptimizerKind::Sgd, OptimizerKind::RmsProp}) {
                OptimizerSpec s = spec(kind, kind == OptimizerKind::Sgd ? 0.1 : 1e-2);
                s.momentum = kind == OptimizerKind::Adam || kind == OptimizerKind::AdamW ? 0.0 : 0.5;
                s.centered = kind == OptimizerKind::RmsProp;
                s.weightDecay = 1e-2;
                QTest::addRow("%s, %s", toString(kind).c_str(), toString(k->target).c_str()) << s << k;
            }
    }
    void eachCpuTargetMatchesTheDocumentedRule() {
        QFETCH(OptimizerSpec, s);
        QFETCH(const CpuKernels*, kernels);
        constexpr std::size_t kCount = 1000;
        auto opt = makeOptimizer(s, kCount, *kernels->optimizerLoops);
        std::vector<float> p(kCount), g(kCount);
        std::vector<Reference> ref;
        for (std::size_t i = 0; i < kCount; ++i) {
            p[i] = kStart[i % kStart.size()] + 0.001f * static_cast<float>(i);
            ref.push_back({s, p[i]});
        }
        for (int step = 0; step < 5; ++step) {
            for (std::size_t i = 0; i < kCount; ++i)
                g[i] = kGrads[static_cast<std::size_t>(step) % kGrads.size()][i % kStart.size()] *
                       (1.0f + 0.01f * static_cast<float>(i % 7));
            opt->beginStep();
            opt->update(p.data(), g.data(), 0, kCount);
            for (std::size_t i = 0; i < kCount; ++i) ref[i].step(g[i]);
        }
        for (std::size_t i = 0; i < kCount; ++i)
            QVERIFY2(std::abs(p[i] - ref[i].p) <= 1e-6 + 1e-5 * std::abs(ref[i].p),
                     qPrintable(QString("element %1: got %2, expected %3").arg(i).arg(p[i]).arg(ref[i].p)));
    }

    void perTensorEqualsWholeBuffer() {
        // The same element-wise rule, applied slice by slice or all at once.
        auto whole = makeOptimizer(spec(OptimizerKind::Adam, 1e-2), kStart.size());
        auto sliced = makeOptimizer(spec(OptimizerKind::Adam, 1e-2), kStart.size());
        std::vector<float> a = kStart, b = kStart;
        for (const auto& g : kGrads) {
            whole->beginStep();
            whole->update(a.data(), g.data(), 0, a.size());
            sliced->beginStep();
            sliced->update(b.data(), g.data(), 0, 3);
            sliced->update(b.data(), g.data(), 3, 1);
        }
        QCOMPARE(a, b);
    }

    void refusesInvalidSettings_data() {
        QTest::addColumn<OptimizerSpec>("s");
        QTest::newRow("lr 0") << spec(OptimizerKind::Adam, 0.0);
        QTest::newRow("lr nan") << spec(OptimizerKind::Adam, std::nan(""));
        OptimizerSpec beta = spec(OptimizerKind::Adam, 1e-3);
        beta.beta2 = 1.0;
        QTest::newRow("beta2 1") << beta;
        OptimizerSpec nesterov = spec(OptimizerKind::Sgd, 0.1);
        nesterov.nesterov = true;
        QTest::newRow("nesterov without momentum") << nesterov;
    }

    void refusesInvalidSettings() {
        QFETCH(OptimizerSpec, s);
        QVERIFY_THROWS_EXCEPTION(ConfigError, makeOptimizer(s, 1));
    }
};

QTEST_GUILESS_MAIN(TestOptimizer)
#include "tst_optimizer.moc"
