// confusionMatrix (confusion_matrix.h): hand-computed matrices of a linear model whose logits can
// be read off the features, for one logit (binary, p >= 0.5 at logit 0) and for K logits (argmax,
// the first on a tie); batches beyond one forward pass; shapes that do not fit refused.
#include <QtTest>

#include <vector>

#include "core/measure/confusion_matrix.h"
#include "core/platform/errors.h"

using namespace wb;

namespace {
// A model with no hidden layer: logits = W x + b, W (out, in) row-major.
MlpParams linear(int in, int out, const std::vector<float>& w, const std::vector<float>& b) {
    MlpParams p = MlpParams::zeros({in, out});
    std::copy(w.begin(), w.end(), p.weight(0));
    std::copy(b.begin(), b.end(), p.bias(0));
    return p;
}

using Counts = std::vector<std::size_t>;
}  // namespace

class TestConfusionMatrix : public QObject {
    Q_OBJECT

private slots:
    void multiclassByHand() {
        // logits = (x0, x1, -x0 - x1): the class of the largest.
        const MlpParams p = linear(2, 3, {1, 0, 0, 1, -1, -1}, {0, 0, 0});
        const std::vector<float> x{2, 0, 0, 2, -1, -1, 1, 3, 3, 1, -2, -3, 1, 1};  // (7, 2)
        const std::vector<float> y{0, 1, 2, 0, 2, 1, 0};
        // Predicted:              0  1  2  1  0  2  0 (the last a tie of classes 0 and 1: the first wins)
        const Counts want{2, 1, 0,  //
                          0, 1, 1,  //
                          1, 0, 1};
        QCOMPARE(confusionMatrix(p, Activation::Tanh, x.data(), y.data(), 7, 3), want);
    }

    void binaryAtHalf() {
        // logit = x - 0.5; a logit of exactly 0 is p = 0.5, predicted 1 as the accuracy counts it.
        const MlpParams p = linear(1, 1, {1}, {-0.5f});
        const std::vector<float> x{0, 1, 0.5f, 0.2f}, y{0, 1, 1, 1};
        const Counts want{1, 0,  //
                          1, 2};
        QCOMPARE(confusionMatrix(p, Activation::Tanh, x.data(), y.data(), 4, 2), want);
    }

    void hiddenLayerUsesActivation() {
        // 1 -> 1 -> 1: h = act(x - 1), logit = -h - 0.5. relu keeps h >= 0, so every logit is negative;
        // identity lets x = -3 through as h = -4, logit 3.5, class 1.
        MlpParams p = MlpParams::zeros({1, 1, 1});
        p.weight(0)[0] = 1;
        p.bias(0)[0] = -1;
        p.weight(1)[0] = -1;
        p.bias(1)[0] = -0.5f;
        const std::vector<float> x{-3, 2}, y{1, 0};
        QCOMPARE(confusionMatrix(p, Activation::Relu, x.data(), y.data(), 2, 2), (Counts{1, 0, 1, 0}));
        QCOMPARE(confusionMatrix(p, Activation::Identity, x.data(), y.data(), 2, 2), (Counts{1, 0, 0, 1}));
    }

    void manyBatches() {
        // More rows than one forward pass holds: every row still counted once.
        const MlpParams p = linear(1, 1, {1}, {0});
        const std::size_t rows = 10001;
        std::vector<float> x(rows), y(rows);
        for (std::size_t i = 0; i < rows; ++i) {
            y[i] = static_cast<float>(i % 2);
            x[i] = y[i] > 0 ? 1.0f : -1.0f;
        }
        const Counts m = confusionMatrix(p, Activation::Tanh, x.data(), y.data(), rows, 2);
        QCOMPARE(m, (Counts{rows - rows / 2, 0, 0, rows / 2}));  // 5001 even rows of class 0
    }

    void noRows() {
        const MlpParams p = linear(1, 3, {1, 1, 1}, {0, 0, 0});
        QCOMPARE(confusionMatrix(p, Activation::Tanh, nullptr, nullptr, 0, 3), Counts(9, 0));
    }

    void refused_data() {
        QTest::addColumn<int>("outputs");
        QTest::addColumn<int>("classes");
        QTest::addColumn<float>("label");
        QTest::newRow("3 outputs, 4 classes") << 3 << 4 << 0.0f;
        QTest::newRow("1 output, 3 classes") << 1 << 3 << 0.0f;
        QTest::newRow("one class") << 1 << 1 << 0.0f;
        QTest::newRow("label past the classes") << 3 << 3 << 3.0f;
        QTest::newRow("negative label") << 3 << 3 << -1.0f;
    }
    void refused() {
        QFETCH(int, outputs);
        QFETCH(int, classes);
        QFETCH(float, label);
        const MlpParams p = MlpParams::zeros({1, outputs});
        const float x = 0;
        QVERIFY_THROWS_EXCEPTION(
            ConfigError, confusionMatrix(p, Activation::Tanh, &x, &label, 1, static_cast<std::size_t>(classes)));
    }
};

QTEST_APPLESS_MAIN(TestConfusionMatrix)
#include "tst_confusion_matrix.moc"
