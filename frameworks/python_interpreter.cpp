#include "frameworks/python_interpreter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/platform/child_process.h"
#include "core/platform/errors.h"
#include "frameworks/probe_signals.h"

namespace wb {

namespace {
std::mutex gMutex;
std::string gPreferred;
std::map<std::pair<std::string, std::string>, FrameworkFacts> gProbes;
thread_local bool tNoProbes = false;  // a NoProbes scope lives on this thread

// Imports the framework and numpy and prints one JSON line of facts; an import error is a fact too.
const char* probeCode(const std::string& framework) {
    if (framework == "torch")
        return "import torch, numpy\n"
               "out.update(version=torch.__version__, cuda=torch.cuda.is_available(),\n"
               "           threads=torch.get_num_threads())\n"
               "if out['cuda']: out['cuda_device'] = torch.cuda.get_device_name(0)\n";
    if (framework == "keras")
        return "import os\nos.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')\n"
               "os.environ['KERAS_BACKEND'] = 'tensorflow'  # the loop runs Keras on TensorFlow\n"
               "import keras, numpy, tensorflow as tf\n"
               "gpus = tf.config.list_physical_devices('GPU')\n"
               "out.update(version=keras.__version__, cuda=bool(gpus))\n"
               "if gpus: out['cuda_device'] = gpus[0].name\n";
    if (framework == "jax")
        return "import jax, numpy\n"
               "devs = jax.devices()\n"
               "out.update(version=jax.__version__, cuda=devs[0].platform == 'gpu')\n"
               "if out['cuda']: out['cuda_device'] = devs[0].device_kind\n";
    throw ConfigError("unknown framework '" + framework + "'");
}

std::string probeScript(const std::string& framework) {
    return std::string(
               "import json, platform, sys\n"
               "out = {'python_version': platform.python_version(), 'executable': sys.executable}\n"
               "try:\n") +
           [&] {
               std::string body, code = probeCode(framework);
               for (std::size_t start = 0; start < code.size();) {
                   const auto nl = code.find('\n', start);
                   body += "    " + code.substr(start, nl - start + 1);
                   start = nl + 1;
               }
               return body;
           }() +
           "except Exception as e:\n"
           "    out['error'] = type(e).__name__ + ': ' + str(e)\n"
           "print(json.dumps(out), flush=True)\n";
}

// Oldest versions whose API the generated loops use (torch: autocast on the CPU, foreach optimizers;
// keras: Keras 3, whose fit weights each batch's loss by its rows).
bool tooOld(const FrameworkFacts& f, std::string& why) {
    const std::map<std::string, std::pair<int, int>> minimum = {{"torch", {1, 12}}, {"keras", {3, 0}}, {"jax", {0, 4}}};
    const auto [major, minor] = minimum.at(f.framework);
    if (f.versionAtLeast(major, minor)) return false;
    why = f.framework + " " + f.version + " is too old: the workbench needs " + std::to_string(major) + "." +
          std::to_string(minor) + " or newer";
    return true;
}

using Clock = std::chrono::steady_clock;

// "20 s", "1.5 s": the timeout as the message says it.
std::string secondsText(std::chrono::milliseconds t) {
    std::ostringstream text;
    text << static_cast<double>(t.count()) / 1000.0 << " s";
    return text.str();
}

// The probe's one line, within `deadline`: read in short slices, so that `cancel` and a signal
// (ProbeSignals) end the wait at once.
ChildProcess::Read readAnswer(ChildProcess& child, std::string& line, Clock::time_point deadline,
                              const CancelFlag* cancel) {
    for (;;) {
        if ((cancel && cancel->load()) || ProbeSignals::arrived()) return ChildProcess::Read::Cancelled;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) return ChildProcess::Read::TimedOut;
        const auto read = child.readLine(line, nullptr, std::min(left, std::chrono::milliseconds(100)));
        if (read != ChildProcess::Read::TimedOut) return read;
    }
}

std::string silent(const std::string& python) {
    return python + " did not answer within " + secondsText(probeTimeout()) + ": is it a Python interpreter?";
}

std::chrono::milliseconds leftUntil(Clock::time_point deadline) {
    // At least a moment: an interpreter that has just printed its answer is let exit by itself.
    return std::max(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()),
                    std::chrono::milliseconds(100));
}

// Why the probe got no line: silent past the timeout, stopped, or ended (with its last stderr line).
std::string noAnswer(ChildProcess& child, ChildProcess::Read read, const std::string& python,
                     Clock::time_point deadline) {
    if (read == ChildProcess::Read::TimedOut) return silent(python);
    if (read == ChildProcess::Read::Cancelled) return "stopped while asking " + python;
    child.wait(leftUntil(deadline));  // its output closed: how it ended, or ended by us at the deadline
    if (Clock::now() >= deadline) return silent(python);
    std::string reason = "the interpreter " + python + " " + child.describeExit();
    const std::string tail = child.stderrTail();
    if (!tail.empty()) reason += ": " + tail.substr(tail.rfind('\n') + 1);
    return reason;
}

// The start of what a program answered, printable, for a message.
std::string excerpt(const std::string& line) {
    std::string text = line.substr(0, 80);
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    return "'" + text + (line.size() > text.size() ? "...'" : "'");
}

void readFactsOf(FrameworkFacts& f, const nlohmann::json& j) {
    f.pythonVersion = j.value("python_version", "");
    f.executable = j.value("executable", "");
    if (j.contains("error")) {
        f.reason = f.framework + " is not importable by " + f.python + " (" + j.at("error").get<std::string>() + ")";
        return;
    }
    f.version = j.value("version", "");
    f.cuda = j.value("cuda", false);
    f.cudaDevice = j.value("cuda_device", "");
    f.threads = j.value("threads", 0);
    f.available = !tooOld(f, f.reason);
}

void readFacts(FrameworkFacts& f, const std::string& line) {
    try {
        readFactsOf(f, nlohmann::json::parse(line));
    } catch (const nlohmann::json::exception&) {
        FrameworkFacts unknown;  // nothing of a half-read answer counts
        unknown.framework = f.framework;
        unknown.python = f.python;
        f = std::move(unknown);
        f.reason = "the interpreter " + f.python + " answered something other than the probe's facts: " + excerpt(line);
    }
}

FrameworkFacts ask(const std::string& framework, const std::string& python, const CancelFlag* cancel) {
    FrameworkFacts f;
    f.framework = framework;
    f.python = python;
    const ProbeSignals signals;  // outlives the child: a Ctrl+C is raised again only once it is gone
    const auto deadline = Clock::now() + probeTimeout();
    std::unique_ptr<ChildProcess> started;
    try {
        started = std::make_unique<ChildProcess>(std::vector<std::string>{python, "-c", probeScript(framework)});
    } catch (const ProcessError& e) {
        f.reason = "no Python interpreter " + python + " (" + e.what() + "); give one with --python or $MLPWB_PYTHON";
        return f;
    }
    ChildProcess& child = *started;
    try {
        std::string line;
        const auto read = readAnswer(child, line, deadline, cancel);
        if (read != ChildProcess::Read::Line) {
            f.stopped = read == ChildProcess::Read::Cancelled;
            f.reason = noAnswer(child, read, python, deadline);
            return f;  // the child's destructor ends its whole process group
        }
        readFacts(f, line);
        // The answer is in; an interpreter that lingers after it is ended with its group.
        child.wait(leftUntil(deadline));
    } catch (const ProcessError& e) {  // a line without end
        f.reason = "the interpreter " + python + " failed: " + e.what();
    }
    return f;
}
}  // namespace

std::string resolvePython(const std::string& chosen) {
    if (!chosen.empty()) return chosen;
    const std::string preferred = preferredPython();
    if (!preferred.empty()) return preferred;
    if (const char* env = std::getenv("MLPWB_PYTHON"); env && *env) return env;
    return "python3";
}

void setPreferredPython(std::string path) {
    std::lock_guard lock(gMutex);
    gPreferred = std::move(path);
}

std::string preferredPython() {
    std::lock_guard lock(gMutex);
    return gPreferred;
}

bool FrameworkFacts::versionAtLeast(int major, int minor) const {
    int ma = 0, mi = 0;
    if (std::sscanf(version.c_str(), "%d.%d", &ma, &mi) < 1) return false;
    return ma > major || (ma == major && mi >= minor);
}

std::vector<std::pair<std::string, std::string>> FrameworkFacts::details() const {
    std::vector<std::pair<std::string, std::string>> d = {{"python", executable.empty() ? python : executable}};
    if (!pythonVersion.empty()) d.emplace_back("python version", pythonVersion);
    if (!version.empty()) d.emplace_back(framework + " version", version);
    if (available) d.emplace_back("devices", cuda ? "cpu, cuda (" + cudaDevice + ")" : "cpu (no CUDA device seen)");
    if (threads > 0) d.emplace_back("cpu threads", std::to_string(threads));
    return d;
}

std::chrono::milliseconds probeTimeout() {
    const char* env = std::getenv("MLPWB_PROBE_TIMEOUT");
    char* end = nullptr;
    const double seconds = env && *env ? std::strtod(env, &end) : 0.0;
    if (env && *env && end && *end == '\0' && std::isfinite(seconds) && seconds > 0 && seconds < 86400)
        return std::chrono::milliseconds(std::llround(seconds * 1000.0));
    return std::chrono::seconds(20);
}

FrameworkFacts probeFramework(const std::string& framework, const std::string& python, const CancelFlag* cancel) {
    {
        std::lock_guard lock(gMutex);
        if (const auto it = gProbes.find({framework, python}); it != gProbes.end()) return it->second;
    }
    if (tNoProbes) {  // reading a file: nothing is run, and nothing is remembered
        FrameworkFacts f;
        f.framework = framework;
        f.python = python;
        f.reason = "not asked: reading a file runs no program";
        return f;
    }
    FrameworkFacts f = ask(framework, python, cancel);  // outside the lock: an import can take seconds
    if (f.stopped) return f;                            // asked again next time: the interpreter did not say anything
    std::lock_guard lock(gMutex);
    return gProbes.emplace(std::make_pair(framework, python), std::move(f)).first->second;
}

NoProbes::NoProbes() : outer_(tNoProbes) {
    tNoProbes = true;
}

NoProbes::~NoProbes() {
    tNoProbes = outer_;
}

void forgetFrameworkProbes() {
    std::lock_guard lock(gMutex);
    gProbes.clear();
}

}  // namespace wb
