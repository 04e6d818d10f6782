// The one quoting of shell words (core/platform/shell_quote.h) against a corpus of hostile strings: each one,
// written into a script by shellCommand, reaches the program byte for byte under bash and under sh,
// through a builtin and through execve, and runs nothing (a marker file that must never appear). The
// same for what uses it: the SLURM batch script and the trial commands a dry run prints.
#include <QtTest>

#include <sys/stat.h>

#include "core/platform/errors.h"
#include "core/platform/shell_quote.h"
#include "sweep/slurm_engine.h"
#include "sweep/trial_command.h"

namespace {
// Every command a corpus string tries to run creates this file in the scripts' working folder.
constexpr const char* kMarker = "MARKER";

// The corpus: what a shell would read as syntax, at the start, the middle or the end of a word.
QList<QPair<const char*, QByteArray>> hostileCorpus() {
    QByteArray longWord;  // 100,000 bytes of everything below, over and over (under 128 KiB: one argv string)
    while (longWord.size() < 100000) longWord += "x'\"$(touch MARKER)`touch MARKER`;&|<>*?[~!#\\\n\t\r\xff ";
    longWord.truncate(100000);
    return {
        {"newline", "a\nb"},
        {"a newline that ends a command", "x\ntouch MARKER\n"},
        {"only a newline", "\n"},
        {"carriage return", "a\rb"},
        {"CRLF and a command", "x\r\ntouch MARKER\r\n"},
        {"single quote", "it's"},
        {"breaking out of single quotes", "x'; touch MARKER; '"},
        {"a lone single quote", "'"},
        {"single quotes only", "''''"},
        {"double quotes", "say \"hi\" \"; touch MARKER; \""},
        {"command substitution", "$(touch MARKER)"},
        {"backticks", "`touch MARKER`"},
        {"variables", "$HOME ${PATH} $0 $1 $@ $* $$ $? $! $-"},
        {"arithmetic", "$((1+1))"},
        {"ANSI-C quoting", "$'\\n'touch MARKER"},
        {"semicolon", "; touch MARKER"},
        {"and", "&& touch MARKER"},
        {"or", "|| touch MARKER"},
        {"pipe", "| touch MARKER"},
        {"background", "& touch MARKER &"},
        {"redirections", "> MARKER 2>&1 >> MARKER < /dev/null"},
        {"process substitution", "<(touch MARKER)"},
        {"here-document", "<<EOF\ntouch MARKER\nEOF"},
        {"star", "*"},
        {"globs", "*?[a-z]**/.*"},
        {"brace expansion", "{a,b}{1..3}"},
        {"tilde", "~"},
        {"tilde and a user", "~root/x"},
        {"a leading dash", "-n"},
        {"two leading dashes", "--help"},
        {"echo's flag", "-e"},
        {"spaces", "  a  b  "},
        {"only a space", " "},
        {"tab", "a\tb"},
        {"history", "!!"},
        {"negation", "! touch MARKER"},
        {"backslash", "\\"},
        {"backslash and newline", "a\\\nb"},
        {"a trailing backslash", "x\\"},
        {"hash", "# not a comment"},
        {"hash inside", "a#b"},
        {"empty", ""},
        {"a leading equals sign", "=x"},
        {"an assignment", "a=$(touch MARKER)"},
        {"percent", "%s%n%d %1"},
        {"not UTF-8", "\xff\xfe"},
        {"a lone continuation byte", "\x80"},
        {"an overlong slash", "\xc0\xaf"},
        {"UTF-8", "h\xc3\xa9llo \xe2\x9c\x93"},
        {"control bytes", "\x01\x02\x1b[31m\x7f"},
        {"eval", "eval touch MARKER"},
        {"very long", longWord},
    };
}

std::string str(const QByteArray& bytes) {
    return bytes.toStdString();
}

// The program's arguments as printf '%s\0' writes them.
QByteArray nulJoined(const std::vector<std::string>& words) {
    QByteArray out;
    for (const auto& w : words) out += QByteArray::fromStdString(w) + '\0';
    return out;
}
}  // namespace

class TestShellQuote : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    QString marker() const { return dir_.path() + "/" + kMarker; }

    // Runs `script` with `shell` (SLURM_ARRAY_TASK_ID=5 set, as in an array task); its stdout.
    QByteArray run(const QString& shell, const std::string& script) {
        const QString path = dir_.path() + "/script.sh";
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return "cannot write the script";
        f.write(QByteArray::fromStdString(script));
        f.close();
        QProcess p;
        p.setWorkingDirectory(dir_.path());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("SLURM_ARRAY_TASK_ID", "5");
        p.setProcessEnvironment(env);
        p.start(shell, {path});
        if (!p.waitForFinished(60000)) {
            p.kill();
            p.waitForFinished();
            return "the script did not finish";
        }
        return p.readAllStandardOutput() + p.readAllStandardError();
    }

    // An executable at `path` (its folder made) that prints its arguments, each followed by a NUL.
    static bool writeStub(const QString& path) {
        if (!QDir().mkpath(QFileInfo(path).path())) return false;
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
        f.write("#!/bin/sh\nexec printf '%s\\0' \"$@\"\n");
        f.close();
        return ::chmod(path.toLocal8Bit().constData(), 0755) == 0;
    }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }
    void init() { QFile::remove(marker()); }

    void plainWordsStayReadable_data() {
        QTest::addColumn<QByteArray>("word");
        QTest::addColumn<QByteArray>("quoted");
        QTest::newRow("an option") << QByteArray("--lr=0.001") << QByteArray("--lr=0.001");
        QTest::newRow("a path") << QByteArray("/srv/sweeps/a_b-c.d/x") << QByteArray("/srv/sweeps/a_b-c.d/x");
        QTest::newRow("safe punctuation") << QByteArray("a@b%c+d=e:f,g") << QByteArray("a@b%c+d=e:f,g");
        QTest::newRow("empty") << QByteArray("") << QByteArray("''");
        QTest::newRow("a space") << QByteArray("a b") << QByteArray("'a b'");
        QTest::newRow("a single quote") << QByteArray("it's") << QByteArray("'it'\\''s'");
        QTest::newRow("a tilde") << QByteArray("~") << QByteArray("'~'");
        QTest::newRow("a leading equals sign") << QByteArray("=ls") << QByteArray("'=ls'");
        QTest::newRow("a dollar") << QByteArray("$x") << QByteArray("'$x'");
        QTest::newRow("a newline") << QByteArray("a\nb") << QByteArray("'a\nb'");
        QTest::newRow("not UTF-8") << QByteArray("\xff") << QByteArray("'\xff'");
    }
    void plainWordsStayReadable() {
        QFETCH(QByteArray, word);
        QFETCH(QByteArray, quoted);
        QCOMPARE(QByteArray::fromStdString(wb::shellQuote(str(word))), quoted);
    }

    void theProgramIsNeverReadAsSyntax_data() {
        QTest::addColumn<QByteArray>("program");
        QTest::addColumn<QByteArray>("quoted");
        QTest::newRow("a name") << QByteArray("mlpwb") << QByteArray("mlpwb");
        QTest::newRow("a path") << QByteArray("/usr/bin/mlpwb") << QByteArray("/usr/bin/mlpwb");
        QTest::newRow("an assignment") << QByteArray("a=b") << QByteArray("'a=b'");
        QTest::newRow("a job") << QByteArray("%1") << QByteArray("'%1'");
        QTest::newRow("a reserved word") << QByteArray("time") << QByteArray("'time'");
        QTest::newRow("another") << QByteArray("if") << QByteArray("'if'");
    }
    void theProgramIsNeverReadAsSyntax() {
        QFETCH(QByteArray, program);
        QFETCH(QByteArray, quoted);
        QCOMPARE(QByteArray::fromStdString(wb::shellCommand({str(program), "a=b"})), quoted + " a=b");
    }

    void aNulByteIsRefused() {
        QVERIFY_THROWS_EXCEPTION(wb::ConfigError, wb::shellQuote(std::string("a\0b", 3)));
        QVERIFY_THROWS_EXCEPTION(wb::ConfigError, wb::shellCommand({"printf", std::string("\0", 1)}));
    }

    void hostileWordsArriveByteForByte_data() {
        QTest::addColumn<QString>("shell");
        QTest::addColumn<QByteArray>("word");
        for (const char* shell : {"/bin/bash", "/bin/sh"})
            for (const auto& [name, word] : hostileCorpus())
                QTest::newRow(qPrintable(QString("%1 (%2)").arg(name, shell))) << QString(shell) << word;
    }
    void hostileWordsArriveByteForByte() {
        QFETCH(QString, shell);
        QFETCH(QByteArray, word);
        const std::string w = str(word);
        // printf as the shell's builtin, then as a program (execve): the word between two others.
        const std::vector<std::string> builtin = {"printf", "%s\\0", "before", w, "after"};
        const std::vector<std::string> program = {"/usr/bin/env", "printf", "%s\\0", "before", w, "after"};
        const QByteArray out =
            run(shell, wb::shellCommand(builtin) + "\n" + wb::shellCommand(program) + "\n# " + "the end\n");
        const QByteArray once = nulJoined({"before", w, "after"});
        QCOMPARE(out.size(), 2 * once.size());
        QCOMPARE(out, once + once);
        QVERIFY2(!QFile::exists(marker()), "a word ran a command");
    }

    // The harness catches what it looks for: the quoting the dry run had (each word in '...', a ' left
    // as it is) lets a word run a command, and the marker appears.
    void naiveQuotingIsCaught() {
        const std::string w = "x'; touch MARKER; '";
        run("/bin/bash", "printf '%s\\0' '" + w + "'\n");
        QVERIFY(QFile::exists(marker()));
    }

    // The SLURM batch script, as submitted: hostile options in #SBATCH lines (comments to the shell),
    // a sweep folder and an mlpwb path full of shell syntax, a hostile sweep name. Run by bash as an
    // array task is, it runs exactly one command, the stub in mlpwb's place, with intact arguments.
    void theBatchScriptRunsOneCommandWithIntactArguments() {
        const std::string sweepDir = "sw$(touch${IFS}MARKER)`touch${IFS}MARKER`;&|<>*?[x]~!{a,b}";
        const QString stub = QString::fromUtf8("bin it's \"$(touch MARKER)\" `x`;\n!/mlpwb");
        QVERIFY(writeStub(dir_.path() + "/" + stub));
        wb::sweep::SlurmOptions options;
        options.mlpwbPath = str((dir_.path() + "/" + stub).toUtf8());
        options.sbatchArgs = {std::string("--comment=$(touch MARKER) `touch MARKER`; touch MARKER | x && y '\""),
                              "--x=*?[a]~!#\\ '", "--partition=gpu"};
        const std::string absoluteDir = str(dir_.path().toUtf8()) + "/" + sweepDir;
        QDir::setCurrent(dir_.path());  // the folder as given, relative: the script names it absolute
        const std::string script = wb::sweep::sbatchScript(sweepDir, "n'; touch MARKER; '\nx", {0, 1, 2, 5}, options);
        for (const auto& a : options.sbatchArgs)
            QVERIFY2(script.find("\n#SBATCH " + a + "\n") != std::string::npos, script.c_str());
        // Every line before the command is a comment to bash (#!, #, #SBATCH).
        const std::size_t exec = script.find("\nexec ");
        QVERIFY2(exec != std::string::npos, script.c_str());
        std::size_t at = 0;
        while (at < exec) {
            QVERIFY2(script[at] == '#', script.c_str());
            at = script.find('\n', at) + 1;
        }
        QCOMPARE(run("/bin/bash", script), nulJoined({"sweep", "run-trial", absoluteDir, "5", "--engine", "slurm"}));
        QVERIFY2(!QFile::exists(marker()), script.c_str());
    }

    void aLineBreakInAnSbatchOptionIsRefused_data() {
        QTest::addColumn<QByteArray>("arg");
        QTest::addColumn<QString>("expected");
        QTest::newRow("newline") << QByteArray("--x\nrm -rf y")
                                 << "--slurm-arg \"--x\\nrm -rf y\": holds a newline, which would end its #SBATCH line";
        QTest::newRow("carriage return") << QByteArray("--x\rrm -rf y")
                                         << "--slurm-arg \"--x\\rrm -rf y\": holds a carriage return";
        QTest::newRow("NUL") << QByteArray("--x\0y", 5) << "--slurm-arg \"--x\\0y\": holds a NUL byte";
        QTest::newRow("a newline at the end")
            << QByteArray("--partition=gpu\n") << "--slurm-arg \"--partition=gpu\\n\": holds a newline";
    }
    void aLineBreakInAnSbatchOptionIsRefused() {
        QFETCH(QByteArray, arg);
        QFETCH(QString, expected);
        wb::sweep::SlurmOptions options;
        options.mlpwbPath = "/usr/bin/mlpwb";
        options.sbatchArgs = {"--partition=gpu", str(arg)};
        try {
            wb::sweep::sbatchScript("/srv/sweep", "s", {0}, options);
            QFAIL("the option was written into the script");
        } catch (const wb::ConfigError& e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.startsWith(expected), e.what());
            QVERIFY2(!message.contains('\n') && !message.contains('\r'), e.what());  // one line
        }
    }

    // The folder is in the #SBATCH --output line, which sbatch splits at blanks, unquotes, ends at #
    // (the logs went to a file beside the folder) and reads %a, %j, ... in as patterns.
    void aFolderSbatchWouldMisreadIsRefused_data() {
        QTest::addColumn<QByteArray>("folder");
        QTest::newRow("newline") << QByteArray("/srv/a\nb");
        QTest::newRow("carriage return") << QByteArray("/srv/a\rb");
        QTest::newRow("space") << QByteArray("/srv/a b");
        QTest::newRow("tab") << QByteArray("/srv/a\tb");
        QTest::newRow("single quote") << QByteArray("/srv/it's");
        QTest::newRow("double quote") << QByteArray("/srv/a\"b");
        QTest::newRow("backslash") << QByteArray("/srv/a\\b");
        QTest::newRow("hash") << QByteArray("/srv/a#b");
        QTest::newRow("percent") << QByteArray("/srv/s%j");
    }
    void aFolderSbatchWouldMisreadIsRefused() {
        QFETCH(QByteArray, folder);
        wb::sweep::SlurmOptions options;
        options.mlpwbPath = "/usr/bin/mlpwb";
        try {
            wb::sweep::sbatchScript(str(folder), "s", {0}, options);
            QFAIL("the folder was written into the script");
        } catch (const wb::ConfigError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).startsWith("the SLURM engine needs a sweep folder path without"),
                     e.what());
            QVERIFY2(!QByteArray(e.what()).contains('\n') && !QByteArray(e.what()).contains('\r'), e.what());
        }
    }

    // What `mlpwb sweep --dry-run` prints for a trial: pasted into bash or sh, `mlpwb train` gets the
    // trial's arguments as they are, whatever a value holds.
    void aTrialCommandArrivesIntact_data() {
        QTest::addColumn<QString>("shell");
        for (const char* shell : {"/bin/bash", "/bin/sh"}) QTest::newRow(shell) << QString(shell);
    }
    void aTrialCommandArrivesIntact() {
        QFETCH(QString, shell);
        const QString stub = dir_.path() + "/" + "my bin $(touch MARKER)/mlpwb";
        QVERIFY(writeStub(stub));
        wb::sweep::PlannedTrial trial;
        trial.args = {"--builtin=true", "--lr=0.001"};
        for (const auto& [name, word] : hostileCorpus())
            if (!word.contains('\0')) trial.args.push_back("--name=" + str(word));
        const std::string line = wb::sweep::trialCommand(trial, str(stub.toUtf8()));
        std::vector<std::string> expected = {"train"};
        expected.insert(expected.end(), trial.args.begin(), trial.args.end());
        QCOMPARE(run(shell, line + "\n"), nulJoined(expected));
        QVERIFY(!QFile::exists(marker()));
        QVERIFY(wb::sweep::trialCommand(trial).rfind("mlpwb train --builtin=true --lr=0.001 ", 0) == 0);
    }
};

QTEST_GUILESS_MAIN(TestShellQuote)
#include "tst_shell_quote.moc"
