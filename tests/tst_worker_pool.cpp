// WorkerPool: every task of a run runs exactly once, whatever the thread count (more threads than
// cores included), runs follow each other back to back or after the workers fell asleep, and a
// pool is destroyed cleanly in either state; a task that throws reaches the caller, not std::terminate.
#include <QtTest>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/cpu/worker_pool.h"

using namespace wb;

class TestWorkerPool : public QObject {
    Q_OBJECT

private slots:
    void everyTaskOnce_data() {
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("tasks");
        QTest::newRow("1 thread") << 1 << 16;
        QTest::newRow("2 threads") << 2 << 16;
        QTest::newRow("7 threads, fewer tasks") << 7 << 3;
        QTest::newRow("7 threads") << 7 << 50;
        QTest::newRow("one task") << 4 << 1;
        QTest::newRow("no task") << 4 << 0;
    }

    void everyTaskOnce() {
        QFETCH(int, threads);
        QFETCH(int, tasks);
        WorkerPool pool(threads);
        QCOMPARE(pool.threads(), threads);
        const auto n = static_cast<std::size_t>(tasks);
        std::vector<std::atomic<int>> runs(n);
        for (int round = 0; round < 2000; ++round) {  // back to back, as the steps of an epoch
            pool.run(n, [&](std::size_t i) { runs[i].fetch_add(1, std::memory_order_relaxed); });
            for (std::size_t i = 0; i < n; ++i) QCOMPARE(runs[i].exchange(0), 1);
        }
    }

    void runsAfterTheWorkersSlept() {
        WorkerPool pool(3);
        std::atomic<int> total{0};
        for (int round = 0; round < 3; ++round) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the spin: workers asleep
            pool.run(10, [&](std::size_t) { total.fetch_add(1); });
        }
        QCOMPARE(total.load(), 30);
    }

    // On a worker thread an escaping exception would end the process: run() hands it to the caller,
    // whichever thread ran the failing task, and the pool runs the next job as usual.
    void aTaskThatThrowsReachesTheCaller_data() {
        QTest::addColumn<int>("threads");
        QTest::newRow("1 thread") << 1;
        QTest::newRow("2 threads") << 2;
        QTest::newRow("7 threads") << 7;
    }

    void aTaskThatThrowsReachesTheCaller() {
        QFETCH(int, threads);
        WorkerPool pool(threads);
        for (int round = 0; round < 200; ++round) {
            bool caught = false;
            try {
                pool.run(16, [](std::size_t i) {
                    if (i == 5) throw std::runtime_error("task 5 failed");
                });
            } catch (const std::runtime_error& e) {
                caught = QString(e.what()) == "task 5 failed";
            }
            QVERIFY(caught);
            std::atomic<int> total{0};
            pool.run(16, [&](std::size_t) { total.fetch_add(1); });
            QCOMPARE(total.load(), 16);
        }
    }

    void destroyedAfterRunsOrIdle() {
        { WorkerPool idle(5); }
        {
            WorkerPool busy(5);
            busy.run(8, [](std::size_t) {});
        }  // destroyed right after a run, workers still spinning
        QVERIFY(WorkerPool::hardwareThreads() >= 1);
        WorkerPool defaults(0);
        QCOMPARE(defaults.threads(), WorkerPool::hardwareThreads());
    }
};

QTEST_GUILESS_MAIN(TestWorkerPool)
#include "tst_worker_pool.moc"
