#include "frameworks/loop_process.h"

#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "core/platform/errors.h"
#include "core/train/keep_warm.h"

namespace wb {

namespace {
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The kept interpreter's program: one loop script after another, each as its own __main__ (runpy),
// told apart on stdout by a "loop_start" and a "loop_exit" line. The loops write their lines
// through the channel it hands them (MLPWB_LINES, claim_stdout in script_text.cpp); whatever a
// library prints goes to stderr. Between loops it sets back what a loop may have changed in a
// framework's process-wide state, so each loop starts as it would in an interpreter of its own.
constexpr const char* kLoopServer = R"PY(import sys
if not getattr(sys.flags, "safe_path", False):
    del sys.path[0]  # the working folder: no file there may stand in for a module
import gc, json, os, runpy, traceback


def forget_state():
    """A framework's process-wide settings back to their defaults, its caches of the last loop cleared."""
    dynamo = sys.modules.get("torch._dynamo")
    if dynamo is not None:
        dynamo.reset()  # torch.compile's graphs of the last loop's model
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.backends.cuda.matmul.allow_tf32 = False
    keras = sys.modules.get("keras")
    if keras is not None and hasattr(keras, "mixed_precision"):
        keras.mixed_precision.set_global_policy("float32")
        keras.backend.clear_session()
    tf = sys.modules.get("tensorflow")
    if tf is not None and hasattr(tf, "config"):
        tf.config.experimental.enable_tensor_float_32_execution(True)
    gc.collect()


LINES = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
for number, request in enumerate(iter(sys.stdin.readline, ""), start=1):
    request = json.loads(request)
    LINES.write(json.dumps({"event": "loop_start", "loop": number}) + "\n")
    sys.argv = [request["script"], *request["args"]]
    status = 0
    try:
        runpy.run_path(request["script"], init_globals={"MLPWB_LINES": LINES}, run_name="__main__")
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        traceback.print_exc()
        status = 1
    try:
        forget_state()
    except Exception:
        traceback.print_exc()
        status = status or 1  # not to be kept: its state is unknown
    sys.stderr.flush()
    LINES.write(json.dumps({"event": "loop_exit", "status": status}) + "\n")
)PY";

// The idle kept interpreters, by interpreter, framework and device; let go when the last KeepWarm ends.
class KeptInterpreters {
public:
    static KeptInterpreters& instance() {
        static KeptInterpreters* kept = [] {
            auto* k = new KeptInterpreters;  // never destroyed: a releaser may run at exit
            KeepWarm::addReleaser([k] { k->clear(); });
            return k;
        }();
        return *kept;
    }

    std::unique_ptr<ChildProcess> take(const std::string& key) {
        std::lock_guard lock(mutex_);
        auto& idle = idle_[key];
        if (idle.empty()) return nullptr;
        auto child = std::move(idle.back());
        idle.pop_back();
        return child;
    }

    void give(const std::string& key, std::unique_ptr<ChildProcess> child) {
        std::lock_guard lock(mutex_);
        if (KeepWarm::active()) idle_[key].push_back(std::move(child));
        // else `child` ends here, with its process group
    }

    std::size_t size() {
        std::lock_guard lock(mutex_);
        std::size_t n = 0;
        for (const auto& [key, idle] : idle_) n += idle.size();
        return n;
    }

private:
    void clear() {
        std::map<std::string, std::vector<std::unique_ptr<ChildProcess>>> ending;
        {
            std::lock_guard lock(mutex_);
            ending.swap(idle_);
        }
    }  // the interpreters end here, outside the lock

    std::mutex mutex_;
    std::map<std::string, std::vector<std::unique_ptr<ChildProcess>>> idle_;
};

std::unique_ptr<ChildProcess> startServer(const std::string& python) {
    return std::make_unique<ChildProcess>(std::vector<std::string>{python, "-c", kLoopServer},
                                          ChildProcess::Input::Channel);
}
}  // namespace

LoopProcess::LoopProcess(const std::string& python, const std::string& framework, const std::string& device,
                         const std::string& script, const std::vector<std::string>& args)
    : key_(python + '\n' + framework + '\n' + device), framework_(framework) {
    try {
        start(python, script, args);
    } catch (const ProcessError& e) {
        throw loopError(e);
    }
}

void LoopProcess::start(const std::string& python, const std::string& script, const std::vector<std::string>& args) {
    if (!KeepWarm::active()) {
        std::vector<std::string> argv = {python, script};
        argv.insert(argv.end(), args.begin(), args.end());
        child_ = std::make_unique<ChildProcess>(argv);
        return;
    }
    kept_ = true;
    const std::string request = nlohmann::json{{"script", script}, {"args", args}}.dump();
    child_ = KeptInterpreters::instance().take(key_);
    if (child_) {
        try {
            child_->clearStderrTail();
            child_->writeLine(request);
            return;
        } catch (const ProcessError&) {
            // it ended while it waited (killed from outside): a new one below
        }
    }
    child_ = startServer(python);
    child_->writeLine(request);
}

LoopProcess::~LoopProcess() {
    if (kept_ && ended_ == 0 && child_->running()) KeptInterpreters::instance().give(key_, std::move(child_));
}

ChildProcess::Read LoopProcess::readLine(std::string& line, const CancelFlag* cancel) {
    return readLineFor(line, cancel, std::chrono::hours(24 * 365));
}

ChildProcess::Read LoopProcess::readLineFor(std::string& line, const CancelFlag* cancel, milliseconds timeout) {
    if (ended_) return ChildProcess::Read::EndOfOutput;
    for (;;) {
        const auto read = nextLine(line, cancel, timeout);
        if (!kept_ || read != ChildProcess::Read::Line) return read;
        const auto j = nlohmann::json::parse(line, nullptr, false);
        const std::string event = j.is_object() && j.contains("event") && j["event"].is_string() ? j["event"] : "";
        if (event == "loop_start") {
            loop_ = j.value("loop", 1);
            continue;
        }
        if (event != "loop_exit") return read;
        ended_ = j.value("status", 1);
        return ChildProcess::Read::EndOfOutput;
    }
}

ChildProcess::Read LoopProcess::nextLine(std::string& line, const CancelFlag* cancel, milliseconds timeout) {
    try {
        return child_->readLine(line, cancel, timeout);
    } catch (const ProcessError& e) {  // a line without end
        throw loopError(e);
    }
}

// The interpreter's own failures (it would not start, it wrote a line without end) reach the user as
// the loop's.
FrameworkError LoopProcess::loopError(const ProcessError& e) const {
    return FrameworkError("the " + framework_ + " loop: " + e.what());
}

int LoopProcess::finish(milliseconds timeout) {
    if (!kept_) return child_->wait(timeout);
    const auto deadline = Clock::now() + timeout;
    std::string line;
    while (!ended_) {
        const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
        const auto read = left.count() > 0 ? readLineFor(line, nullptr, left) : ChildProcess::Read::TimedOut;
        if (read == ChildProcess::Read::TimedOut) terminate();
        if (read != ChildProcess::Read::Line && !ended_) return child_->wait();  // the interpreter itself ended
    }
    return *ended_;
}

void LoopProcess::terminate() {
    child_->terminate();
}

std::string LoopProcess::describeEnd() {
    if (ended_) return "exited with status " + std::to_string(*ended_);
    return child_->describeExit();
}

std::string LoopProcess::interpreter() const {
    return loop_ == 1 ? "new" : "kept (loop " + std::to_string(loop_) + ")";
}

std::size_t LoopProcess::keptInterpreters() {
    return KeptInterpreters::instance().size();
}

}  // namespace wb
