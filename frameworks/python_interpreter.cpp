#include "python_interpreter.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "errors.h"

namespace wb {

namespace {
std::mutex gMutex;
std::string gPreferred;
std::map<std::pair<std::string, std::string>, FrameworkFacts> gProbes;

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

FrameworkFacts ask(const std::string& framework, const std::string& python) {
    FrameworkFacts f;
    f.framework = framework;
    f.python = python;
    try {
        ChildProcess child({python, "-c", probeScript(framework)});
        std::string line;
        const auto read = child.readLine(line, nullptr, std::chrono::seconds(60));
        if (read != ChildProcess::Read::Line) {
            const std::string how =
                read == ChildProcess::Read::TimedOut ? "did not answer within 60 s" : child.describeExit();
            f.reason = "the interpreter " + python + " " + how;
            const std::string tail = child.stderrTail();
            if (!tail.empty()) f.reason += ": " + tail.substr(tail.rfind('\n') + 1);
            return f;
        }
        child.wait();
        const auto j = nlohmann::json::parse(line);
        f.pythonVersion = j.value("python_version", "");
        f.executable = j.value("executable", "");
        if (j.contains("error")) {
            f.reason = framework + " is not importable by " + python + " (" + j.at("error").get<std::string>() + ")";
            return f;
        }
        f.version = j.value("version", "");
        f.cuda = j.value("cuda", false);
        f.cudaDevice = j.value("cuda_device", "");
        f.threads = j.value("threads", 0);
        f.available = !tooOld(f, f.reason);
    } catch (const FrameworkError& e) {
        f.reason = "no Python interpreter " + python + " (" + e.what() + "); give one with --python or $MLPWB_PYTHON";
    } catch (const nlohmann::json::exception& e) {
        f.reason = "the interpreter " + python + " answered something unexpected (" + e.what() + ")";
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

FrameworkFacts probeFramework(const std::string& framework, const std::string& python) {
    {
        std::lock_guard lock(gMutex);
        if (const auto it = gProbes.find({framework, python}); it != gProbes.end()) return it->second;
    }
    FrameworkFacts f = ask(framework, python);  // outside the lock: an import can take seconds
    std::lock_guard lock(gMutex);
    return gProbes.emplace(std::make_pair(framework, python), std::move(f)).first->second;
}

void forgetFrameworkProbes() {
    std::lock_guard lock(gMutex);
    gProbes.clear();
}

}  // namespace wb
