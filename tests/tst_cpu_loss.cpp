// BatchLoss (the CPU backend's vectorised loss) against lossAndGrad, the scalar reference with
// libm, for both losses over logits from saturated to tiny, and batch sizes with vector tails.
#include <QtTest>

#include <cmath>
#include <vector>

#include "core/model/cpu_loss.h"
#include "core/platform/errors.h"
#include "core/platform/random.h"

using namespace wb;

Q_DECLARE_METATYPE(wb::LossKind)

class TestCpuLoss : public QObject {
    Q_OBJECT

private slots:
    void matchesScalarLoss_data() {
        QTest::addColumn<LossKind>("kind");
        QTest::addColumn<int>("rows");
        QTest::addColumn<double>("scale");  // of the logits
        for (const int rows : {1, 17, 2048})
            for (const double scale : {0.01, 3.0, 60.0}) {
                const QByteArray tail = QByteArray::number(rows) + " rows, logits ~" + QByteArray::number(scale);
                QTest::newRow("logits, " + tail) << LossKind::BceWithLogits << rows << scale;
                QTest::newRow("sigmoid+bce, " + tail) << LossKind::SigmoidBce << rows << scale;
            }
    }

    void matchesScalarLoss() {
        QFETCH(LossKind, kind);
        QFETCH(int, rows);
        QFETCH(double, scale);
        const auto n = std::size_t(rows);
        Rng rng(3);
        std::vector<float> z(n), y(n);
        for (std::size_t i = 0; i < n; ++i) {
            z[i] = static_cast<float>(rng.normal() * scale);
            y[i] = static_cast<float>(i % 3 == 0);
        }
        std::vector<float> want(n), got(n);
        std::size_t wantCorrect = 0, gotCorrect = 0;
        const double wantSum = lossAndGrad(kind, z.data(), y.data(), n, want.data(), &wantCorrect);
        BatchLoss loss(n + 5);
        const double gotSum = loss(kind, z.data(), y.data(), n, got.data(), gotCorrect);

        QVERIFY2(std::abs(gotSum - wantSum) <= 1e-5 * std::abs(wantSum) + 1e-6,
                 qPrintable(QString("sum %1 vs %2").arg(gotSum).arg(wantSum)));
        for (std::size_t i = 0; i < n; ++i)
            QVERIFY2(std::abs(got[i] - want[i]) <= 1e-5f * std::abs(want[i]) + 1e-9f,
                     qPrintable(QString("dlogit %1: %2 vs %3").arg(i).arg(double(got[i])).arg(double(want[i]))));
        QCOMPARE(gotCorrect, wantCorrect);

        std::size_t withoutGrad = 0;  // null dlogits: the same loss, nothing written
        QCOMPARE(loss(kind, z.data(), y.data(), n, nullptr, withoutGrad), gotSum);
        QCOMPARE(withoutGrad, gotCorrect);
    }

    void rejectsBatchesAboveCapacity() {
        BatchLoss loss(4);
        std::vector<float> z(5, 0.0f), y(5, 0.0f);
        std::size_t correct = 0;
        QVERIFY_THROWS_EXCEPTION(ConfigError, loss(LossKind::BceWithLogits, z.data(), y.data(), 5, nullptr, correct));
    }
};

QTEST_APPLESS_MAIN(TestCpuLoss)
#include "tst_cpu_loss.moc"
