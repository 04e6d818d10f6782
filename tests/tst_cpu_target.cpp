// Choosing the CPU kernels' target: the best this binary holds and this processor runs, or the one
// MLPWB_CPU_TARGET names; an unknown or unrunnable name is refused saying which would run.
#include <QtTest>

#include <algorithm>

#include "core/cpu/cpu_target.h"
#include "core/cpu/cpu_tile_kernels.h"
#include "core/platform/errors.h"

using namespace wb;

Q_DECLARE_METATYPE(wb::CpuTarget)

namespace {
QString nameOf(CpuTarget t) {
    return QString::fromStdString(toString(t));
}

bool holds(const std::vector<CpuTarget>& targets, CpuTarget t) {
    return std::find(targets.begin(), targets.end(), t) != targets.end();
}
}  // namespace

class TestCpuTarget : public QObject {
    Q_OBJECT

private slots:
    void theBestRunnableTargetIsChosen() {
        const CpuTargetChoice choice = chooseCpuTarget("");
        QVERIFY(!choice.runnable.empty());
        QCOMPARE(nameOf(choice.chosen), nameOf(choice.runnable.front()));
        QVERIFY(choice.forcedBy.empty());
        for (const CpuTarget t : choice.runnable) QVERIFY(holds(choice.compiled, t));
        // Best first: the lanes never grow along the list.
        const auto kernels = allRunnableCpuKernels();
        QCOMPARE(kernels.size(), choice.runnable.size());
        for (std::size_t i = 1; i < kernels.size(); ++i) QVERIFY(kernels[i]->lanes <= kernels[i - 1]->lanes);
    }

    void eachTargetIsForcedOrRefusedSayingWhy_data() {
        QTest::addColumn<CpuTarget>("target");
        for (const CpuTarget t : {CpuTarget::Baseline, CpuTarget::V3, CpuTarget::V4})
            QTest::newRow(toString(t).c_str()) << t;
    }
    void eachTargetIsForcedOrRefusedSayingWhy() {
        QFETCH(CpuTarget, target);
        const CpuTargetChoice best = chooseCpuTarget("");
        const std::string name = toString(target);
        QCOMPARE(nameOf(cpuTargetFromString(name)), nameOf(target));
        if (holds(best.runnable, target)) {
            const CpuTargetChoice forced = chooseCpuTarget(name);
            QCOMPARE(nameOf(forced.chosen), nameOf(target));
            QCOMPARE(QString::fromStdString(forced.forcedBy),
                     QString("MLPWB_CPU_TARGET=" + QString::fromStdString(name)));
            QCOMPARE(nameOf(runnableCpuKernels(target)->target), nameOf(target));
            return;
        }
        QVERIFY(runnableCpuKernels(target) == nullptr);
        try {
            (void)chooseCpuTarget(name);
            QFAIL("an unrunnable target was chosen");
        } catch (const ConfigError& e) {
            const QString why = holds(best.compiled, target) ? "this processor cannot run it" : "this binary holds no";
            QVERIFY2(QString(e.what()).contains(why), e.what());
            QVERIFY2(QString(e.what()).startsWith("MLPWB_CPU_TARGET=" + QString::fromStdString(name)), e.what());
        }
    }

    void anUnknownTargetIsRefused() {
        QVERIFY_THROWS_EXCEPTION(ConfigError, chooseCpuTarget("avx9"));
        try {
            (void)chooseCpuTarget("V3");  // names are lower case, as `mlpwb info` prints them
            QFAIL("no error");
        } catch (const ConfigError& e) {
            QCOMPARE(QString(e.what()), QString("unknown CPU target 'V3' (expected baseline, v3 or v4)"));
        }
    }

    void theTargetsAreDescribed() {
        QCOMPARE(QString::fromStdString(describe(CpuTarget::V3)), QString("v3 (AVX2 + FMA, 8 lanes)"));
        for (const CpuKernels* k : compiledCpuKernels()) {
            QCOMPARE(k->padLanes * 2, k->lanes);
            QVERIFY(k->multiplyRows && k->accumulateTransposedProduct && k->accumulateColumnSums && k->copyRows);
        }
    }
};

QTEST_APPLESS_MAIN(TestCpuTarget)
#include "tst_cpu_target.moc"
