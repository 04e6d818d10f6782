#include "frameworks/framework_backend.h"

#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "core/data/npy_io.h"
#include "core/model/safetensors.h"
#include "core/platform/errors.h"
#include "frameworks/framework_loop.h"
#include "frameworks/loop_process.h"
#include "frameworks/python_interpreter.h"

namespace wb {

namespace {
namespace fs = std::filesystem;

// A private folder for the hand-over files, removed with everything in it when the run ends.
class TempFolder {
public:
    TempFolder() {
        std::string pattern = (fs::temp_directory_path() / "mlpwb-framework-XXXXXX").string();
        if (!::mkdtemp(pattern.data()))
            throw IoError("cannot create a temporary folder under " + fs::temp_directory_path().string());
        path_ = pattern;
    }
    ~TempFolder() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    TempFolder(const TempFolder&) = delete;
    TempFolder& operator=(const TempFolder&) = delete;
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    fs::path path_;
};

void writeText(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    if (!f.flush()) throw IoError("cannot write " + path);
}

double number(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return (it == j.end() || it->is_null()) ? std::nan("") : it->get<double>();
}

// A regression's sums of errors; 0 where the line has none (a classification's).
double errorSum(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return (it == j.end() || it->is_null()) ? 0.0 : it->get<double>();
}

// The loop is generated from the configuration alone, so the configuration says what the prepared
// data is: the output layer's width and, beyond binary, the task. A binary run's stays as it came.
void followTask(RunConfig& c, const PreparedData& d) {
    c.model.outputs = d.outputs();
    if (d.task != Task::Binary)
        c.data.task = d.task == Task::Regression ? TaskChoice::Regression : TaskChoice::Multiclass;
}

class FrameworkBackend final : public Backend {
public:
    explicit FrameworkBackend(std::string framework)
        : framework_(std::move(framework)), loop_(frameworkLoop(framework_, FrameworkFacts{}, FrameworkOptions{})) {}
    ~FrameworkBackend() override { process_.reset(); }  // ends (or keeps) the interpreter before its folder goes

    std::string name() const override { return framework_; }
    std::string deviceName() const override { return deviceName_; }

    void setup(const TrainingProblem& problem) override {
        if (!problem.data || problem.data->trainRows() == 0) throw ConfigError("no training rows");
        if (!problem.config) throw ConfigError("the " + framework_ + " backend needs the run's configuration");
        config_ = *problem.config;
        followTask(config_, *problem.data);
        config_.execution = problem.execution;
        config_.train.batchSize = problem.batchSize;
        python_ = resolvePython(config_.framework.python);
        facts_ = probeFramework(framework_, python_, problem.cancel);
        if (facts_.stopped) {  // Stop or Ctrl+C while the interpreter was asked: a cancelled run
            cancelledInSetup_ = true;
            return;
        }
        if (!facts_.available) throw FrameworkError(framework_ + " backend unavailable: " + facts_.reason);
        loop_ = frameworkLoop(framework_, facts_, config_.framework);
        initial_ = problem.initialParams;
        writeHandOver(*problem.data);
        start(problem.data->valRows() > 0);
        waitUntilReady(problem.cancel);
    }

    EpochResult trainEpoch(const std::vector<std::uint32_t>*, const CancelFlag& cancel) override {
        EpochResult r;
        if (cancelledInSetup_ || !readLine(&cancel)) {
            r.cancelled = true;
            return r;
        }
        const auto j = nlohmann::json::parse(line_);
        r.samples = j.at("samples").get<std::size_t>();
        r.correct = j.at("correct").get<std::size_t>();
        r.lossSum = number(j, "loss_sum");
        r.squaredError = errorSum(j, "squared_error");
        r.absoluteError = errorSum(j, "absolute_error");
        r.wallMs = j.at("wall_ms").get<double>();
        if (!j.at("val_correct").is_null())
            r.validation = EvalResult{number(j, "val_loss_sum"), j.at("val_correct").get<std::size_t>(),
                                      errorSum(j, "val_squared_error"), errorSum(j, "val_absolute_error")};
        ++epochsRead_;
        // The loop sums its losses on the device and reads them once per epoch, so it learns of a
        // non-finite loss at the epoch's end: the step reported is the epoch's last.
        if (!std::isfinite(r.lossSum)) r.nonFiniteStep = stepsPerEpoch();
        return r;
    }

    EvalResult evaluate(const float*, const float*, std::size_t) override {
        throw ConfigError("the " + framework_ + " backend validates inside its epochs only");
    }

    // After the last epoch the loop writes its weights and exits; a run ended early keeps its start.
    MlpParams parameters() const override {
        if (!process_ || epochsRead_ < config_.train.epochs) return initial_;
        const int status = process_->finish(std::chrono::seconds(60));
        if (status != 0) throw FrameworkError(failure("after its last epoch"));
        return loadSafetensors(folder_->file("final.safetensors"));  // 1..kMaxClasses outputs
    }

    std::vector<IgnoredSwitch> notApplicable(const ExecutionSettings& s) const override { return loop_.ignored(s); }

    std::vector<std::pair<std::string, std::string>> environment() const override {
        std::vector<std::pair<std::string, std::string>> env = {
            {"python", facts_.executable.empty() ? python_ : facts_.executable},
            {"python_version", facts_.pythonVersion},
            {"framework", framework_},
            {framework_ + "_version", facts_.version},
            {"framework_device", loop_.device}};
        if (process_) env.emplace_back("framework_interpreter", process_->interpreter());
        for (const auto& [k, v] : ready_) env.emplace_back("framework_" + k, v);
        return env;
    }

private:
    // The prepared rows (.npy), the initial weights and the generated loop, in a private folder.
    void writeHandOver(const PreparedData& d) {
        folder_ = std::make_unique<TempFolder>();
        writeNpy(folder_->file("train_x.npy"), d.trainX.data(), {d.trainRows(), d.cols});
        writeNpy(folder_->file("train_y.npy"), d.trainY.data(), {d.trainRows()});
        if (d.valRows() > 0) {
            writeNpy(folder_->file("val_x.npy"), d.valX.data(), {d.valRows(), d.cols});
            writeNpy(folder_->file("val_y.npy"), d.valY.data(), {d.valRows()});
        }
        saveSafetensors(folder_->file("init.safetensors"), initial_);
        writeText(folder_->file("loop.py"), loop_.script(config_));
        rows_ = d.trainRows();
    }

    void start(bool validation) {
        std::vector<std::string> args = {"--data",         folder_->file("train_x.npy"),
                                         "--labels",       folder_->file("train_y.npy"),
                                         "--init-weights", folder_->file("init.safetensors"),
                                         "--epochs",       std::to_string(config_.train.epochs),
                                         "--device",       loop_.device,
                                         "--save-weights", folder_->file("final.safetensors")};
        if (validation)
            args.insert(args.end(),
                        {"--val-data", folder_->file("val_x.npy"), "--val-labels", folder_->file("val_y.npy")});
        process_ = std::make_unique<LoopProcess>(python_, framework_, loop_.device, folder_->file("loop.py"), args);
    }

    // The loop's first line, after its imports and data loading: facts for the RunRecord.
    void waitUntilReady(const CancelFlag* cancel) {
        if (!readLine(cancel)) {
            cancelledInSetup_ = true;
            return;
        }
        const auto j = nlohmann::json::parse(line_);
        if (j.value("event", "") != "ready")
            throw FrameworkError(framework_ + " loop began with an unexpected line: " + line_);
        for (const auto& [k, v] : j.items())
            if (k != "event" && k != "python") ready_.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
        deviceName_ = j.value("device_name", loop_.device);
    }

    // The next line of the loop's stdout; false when cancelled (the process group is ended then).
    // Throws FrameworkError with the end of stderr when the loop ended without one.
    bool readLine(const CancelFlag* cancel) {
        switch (process_->readLine(line_, cancel)) {
            case ChildProcess::Read::Line: return true;
            case ChildProcess::Read::Cancelled: process_->terminate(); return false;
            default:
                throw FrameworkError(failure(epochsRead_ == 0 ? "before its first epoch"
                                                              : "during epoch " + std::to_string(epochsRead_ + 1)));
        }
    }

    std::string failure(const std::string& when) const {
        std::string message = "the " + framework_ + " loop (" + python_ + ") " + process_->describeEnd() + " " + when;
        const std::string tail = process_->stderrTail();
        return tail.empty() ? message : message + ":\n" + tail;
    }

    int stepsPerEpoch() const {
        const auto batch = static_cast<std::size_t>(config_.train.batchSize);
        return static_cast<int>((rows_ + batch - 1) / batch);
    }

    std::string framework_, python_, deviceName_ = "cpu", line_;
    RunConfig config_;
    FrameworkFacts facts_;
    FrameworkLoop loop_;
    MlpParams initial_;
    std::size_t rows_ = 0;
    int epochsRead_ = 0;
    bool cancelledInSetup_ = false;
    std::vector<std::pair<std::string, std::string>> ready_;
    std::unique_ptr<TempFolder> folder_;
    std::unique_ptr<LoopProcess> process_;
};
}  // namespace

BackendInfo probeFrameworkBackend(const std::string& framework) {
    const FrameworkFacts f = probeFramework(framework, resolvePython());
    BackendInfo info;
    info.name = framework;
    info.available = f.available;
    info.reason = f.reason;
    info.device = f.available ? framework + " " + f.version + (f.cuda ? " (cpu, cuda)" : " (cpu)") : "";
    info.details = f.details();
    return info;
}

std::unique_ptr<Backend> makeFrameworkBackend(const std::string& framework) {
    return std::make_unique<FrameworkBackend>(framework);  // throws ConfigError for an unknown framework
}

std::vector<IgnoredSwitch> frameworkIgnoredSwitches(const std::string& framework, const ExecutionSettings& s) {
    return frameworkLoop(framework, probeFramework(framework, resolvePython()), FrameworkOptions{}).ignored(s);
}

std::string frameworkScript(const RunConfig& config) {
    if (!isFrameworkBackend(config.backend))
        throw ConfigError("no framework loop for backend '" + config.backend + "' (valid: torch, keras, jax)");
    return frameworkScript(config, probeFramework(config.backend, resolvePython(config.framework.python)));
}

std::string frameworkScript(const RunConfig& config, const FrameworkFacts& facts) {
    if (!isFrameworkBackend(config.backend))
        throw ConfigError("no framework loop for backend '" + config.backend + "' (valid: torch, keras, jax)");
    return frameworkLoop(config.backend, facts, config.framework).script(config);
}

// The keys FrameworkBackend::environment() writes, read back.
FrameworkFacts recordedFrameworkFacts(const std::string& framework,
                                      const std::map<std::string, std::string>& environment) {
    FrameworkFacts f;
    f.framework = framework;
    const auto value = [&](const std::string& key) {
        const auto it = environment.find(key);
        return it == environment.end() ? std::string() : it->second;
    };
    if (value("framework") != framework || value(framework + "_version").empty()) return f;
    f.python = value("python");
    f.executable = f.python;
    f.pythonVersion = value("python_version");
    f.version = value(framework + "_version");
    f.cuda = value("framework_device") == "cuda";
    f.available = true;
    return f;
}

void registerFrameworkBackends() {
    static std::once_flag once;
    std::call_once(once, [] {
        for (const EngineFacts& engine : engines()) {
            if (!engine.framework) continue;
            const std::string name = engine.name;
            BackendRegistry::instance().add(
                name, [name] { return probeFrameworkBackend(name); },
                [name](int) { return makeFrameworkBackend(name); },
                [name](const ExecutionSettings& s) { return frameworkIgnoredSwitches(name, s); });
        }
    });
}

}  // namespace wb
