// The note an ablation attaches to a precision step on CUDA when the model is too small for a faster
// multiply to shorten a step (core/model/precision_note.h): given for the seed's widths, with its numbers;
// not for fp32, other backends or a model whose products outlast a launch; and kept as data
// ({switch, reason}) through the ablation file.
#include <QtTest>

#include "core/measure/ablation_result.h"
#include "core/model/precision_note.h"

using namespace wb;

namespace {
const std::vector<int> kSeed{61, 20, 10, 1};

ExecutionSettings withPrecision(Precision p) {
    ExecutionSettings s;
    s.precision = p;
    return s;
}
}  // namespace

class TestPrecisionNote : public QObject {
    Q_OBJECT

private slots:
    // 2 * 3 * 2048 * (61*20 + 20*10 + 10*1) = 17,571,840 FLOP.
    void stepFlopCountsTheThreeProducts() { QCOMPARE(stepProductFlop(kSeed, 2048), 17571840.0); }

    void seedWidthsGetTheNote_data() {
        QTest::addColumn<int>("precision");
        QTest::newRow("tf32") << static_cast<int>(Precision::Tf32);
        QTest::newRow("bf16") << static_cast<int>(Precision::Bf16);
        QTest::newRow("fp16") << static_cast<int>(Precision::Fp16);
    }
    void seedWidthsGetTheNote() {
        QFETCH(int, precision);
        const auto note = precisionNote("cuda", withPrecision(static_cast<Precision>(precision)), kSeed, 2048);
        QVERIFY(note.has_value());
        QCOMPARE(QString::fromStdString(note->name), QString("precision"));
        const QString reason = QString::fromStdString(note->reason);
        QVERIFY2(reason.contains("61, 20, 10, 1") && reason.contains("17.6 MFLOP") && reason.contains("1.76 us"),
                 qPrintable(reason));
    }

    void noNoteWhereTheRuleDoesNotApply() {
        QVERIFY(!precisionNote("cuda", withPrecision(Precision::Fp32), kSeed, 2048));  // nothing changed
        QVERIFY(!precisionNote("cpu", withPrecision(Precision::Fp16), kSeed, 2048));   // not its cost model
        // 6 * 2048 * 2 * 512 * 512 = 6.4 GFLOP: far longer than a launch, tensor cores can help.
        QVERIFY(!precisionNote("cuda", withPrecision(Precision::Fp16), {512, 512, 512, 1}, 2048));
        // The seed's widths at a batch 2x larger: 35 MFLOP, 3.5 us at the floor rate, over a launch.
        QVERIFY(!precisionNote("cuda", withPrecision(Precision::Fp16), kSeed, 4096));
    }

    // The note is data in the ablation file ("notes": [{"switch", "reason"}]), absent when empty.
    void notesRoundTripThroughTheAblationFile() {
        AblationResult r;
        r.backend = "cuda";
        AblationStep plain;
        plain.name = "baseline";
        AblationStep noted;
        noted.name = "precision=fp16";
        noted.notes.push_back(*precisionNote("cuda", withPrecision(Precision::Fp16), kSeed, 2048));
        r.steps = {plain, noted};
        const nlohmann::json j = r.toJson();
        QVERIFY(!j["steps"][0].contains("notes"));
        QCOMPARE(QString::fromStdString(j["steps"][1]["notes"][0]["switch"].get<std::string>()), QString("precision"));
        const AblationResult back = AblationResult::fromJson(j);
        QVERIFY(back.steps[0].notes.empty());
        QVERIFY(back.steps[1].notes == noted.notes);
    }
};

QTEST_GUILESS_MAIN(TestPrecisionNote)
#include "tst_precision_note.moc"
