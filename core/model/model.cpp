#include "core/model/model.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/platform/enum_names.h"
#include "core/platform/errors.h"
#include "core/platform/json_fields.h"
#include "core/platform/random.h"

namespace wb {

namespace {
constexpr int kMaxWidth = 1024;

const EnumNames<Activation> kActivationNames = {{Activation::Tanh, "tanh"},
                                                {Activation::Relu, "relu"},
                                                {Activation::Sigmoid, "sigmoid"},
                                                {Activation::Gelu, "gelu"},
                                                {Activation::Identity, "identity"}};
const EnumNames<InitKind> kInitNames = {{InitKind::Torch, "torch"}, {InitKind::Glorot, "glorot"}};

void checkClassWeight(float w, std::size_t index, const std::string& text) {
    if (!std::isfinite(w) || w <= 0.0f)
        throw ConfigError("class weight " + std::to_string(index + 1) + " is " + text +
                          "; each class weight must be a positive, finite number");
}
}  // namespace

ClassWeights parseClassWeights(const std::string& text) {
    ClassWeights w;
    if (text.empty()) return w;
    if (text == "balanced") {
        w.balanced = true;
        return w;
    }
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const char* begin = item.c_str();
        char* end = nullptr;
        const float v = std::strtof(begin, &end);
        while (end && (*end == ' ' || *end == '\t')) ++end;
        if (end == begin || *end != '\0')
            throw ConfigError("class weight " + std::to_string(w.values.size() + 1) + " is '" + item +
                              "', not a number; give `balanced` or comma-separated numbers, e.g. 1,2.5,0.5");
        checkClassWeight(v, w.values.size(), item);
        w.values.push_back(v);
    }
    if (w.values.empty() || text.back() == ',')
        throw ConfigError("class weights '" + text + "' have an empty entry; give comma-separated numbers");
    return w;
}

std::string toString(const ClassWeights& w) {
    if (w.values.empty()) return w.balanced ? "balanced" : "";
    std::ostringstream out;
    out.precision(9);
    for (std::size_t i = 0; i < w.values.size(); ++i) out << (i ? "," : "") << w.values[i];
    return out.str();
}

void ModelSpec::validate() const {
    for (std::size_t i = 0; i < hidden.size(); ++i)
        if (hidden[i] < 1 || hidden[i] > kMaxWidth)
            throw ConfigError("hidden layer " + std::to_string(i + 1) + " has width " + std::to_string(hidden[i]) +
                              "; widths must be between 1 and " + std::to_string(kMaxWidth));
    if (outputs < 1 || static_cast<std::size_t>(outputs) > kMaxClasses)
        throw ConfigError("the output layer has width " + std::to_string(outputs) + "; it must be between 1 and " +
                          std::to_string(kMaxClasses));
    for (std::size_t i = 0; i < classWeights.values.size(); ++i)
        checkClassWeight(classWeights.values[i], i, std::to_string(classWeights.values[i]));
}

std::vector<int> ModelSpec::widths(std::size_t inputs) const {
    std::vector<int> w{static_cast<int>(inputs)};
    w.insert(w.end(), hidden.begin(), hidden.end());
    w.push_back(outputs);
    return w;
}

MlpParams MlpParams::zeros(const std::vector<int>& widths) {
    MlpParams p;
    std::size_t offset = 0;
    for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
        LayerSlice s{widths[i], widths[i + 1], offset, 0};
        offset += static_cast<std::size_t>(s.in) * s.out;
        s.biasOffset = offset;
        offset += s.out;
        p.layers.push_back(s);
    }
    p.values.assign(offset, 0.0f);
    return p;
}

std::vector<int> MlpParams::widths() const {
    std::vector<int> w;
    if (layers.empty()) return w;
    w.push_back(layers.front().in);
    for (const auto& l : layers) w.push_back(l.out);
    return w;
}

MlpParams initParams(const ModelSpec& spec, std::size_t inputs, std::uint64_t seed) {
    spec.validate();
    MlpParams p = MlpParams::zeros(spec.widths(inputs));
    Rng rng(seed);
    for (std::size_t i = 0; i < p.layers.size(); ++i) {
        const LayerSlice& l = p.layers[i];
        const std::size_t nWeights = static_cast<std::size_t>(l.in) * l.out;
        if (spec.init == InitKind::Torch) {
            // kaiming_uniform_(a=sqrt(5)) gives bound sqrt(6 / ((1 + 5) fan_in)) = 1/sqrt(fan_in);
            // the bias uses the same bound.
            const float bound = 1.0f / std::sqrt(static_cast<float>(l.in));
            for (std::size_t k = 0; k < nWeights; ++k) p.weight(i)[k] = rng.uniform(-bound, bound);
            for (int k = 0; k < l.out; ++k) p.bias(i)[k] = rng.uniform(-bound, bound);
        } else {
            const float bound = std::sqrt(6.0f / static_cast<float>(l.in + l.out));
            for (std::size_t k = 0; k < nWeights; ++k) p.weight(i)[k] = rng.uniform(-bound, bound);
        }
    }
    return p;
}

std::size_t parameterCount(const ModelSpec& spec, std::size_t inputs) {
    const auto w = spec.widths(inputs);
    std::size_t n = 0;
    for (std::size_t i = 0; i + 1 < w.size(); ++i) n += static_cast<std::size_t>(w[i] + 1) * w[i + 1];
    return n;
}

std::string toString(Activation a) {
    return enumName(kActivationNames, a);
}
std::string toString(InitKind k) {
    return enumName(kInitNames, k);
}
Activation activationFromString(const std::string& s) {
    return enumFromName(kActivationNames, s, "activation");
}
InitKind initKindFromString(const std::string& s) {
    return enumFromName(kInitNames, s, "initialization");
}

void to_json(nlohmann::json& j, const ModelSpec& s) {
    j = {{"hidden", s.hidden}, {"activation", toString(s.activation)}, {"init", toString(s.init)}};
    // Written when not the default, so a binary model's JSON (and its workload) reads as before.
    if (s.outputs != 1) j["outputs"] = s.outputs;
    if (s.regressionLoss != RegressionLoss::Mse) j["regression_loss"] = toString(s.regressionLoss);
    // A run's record holds the numbers it trained with; "class_weights_balanced" says where they came from.
    if (!s.classWeights.values.empty()) j["class_weights"] = s.classWeights.values;
    if (s.classWeights.balanced) {
        if (s.classWeights.values.empty())
            j["class_weights"] = "balanced";
        else
            j["class_weights_balanced"] = true;
    }
}

void from_json(const nlohmann::json& j, ModelSpec& s) {
    s.hidden = requiredList<int>(j, "hidden");
    s.activation = activationFromString(requiredField<std::string>(j, "activation"));
    s.init = initKindFromString(fieldOr(j, "init", std::string("torch")));
    s.outputs = fieldOr(j, "outputs", 1);
    s.regressionLoss = regressionLossFromString(fieldOr(j, "regression_loss", std::string("mse")));
    s.classWeights = {};
    if (const auto it = j.find("class_weights"); it != j.end()) {
        if (it->is_string())
            s.classWeights = parseClassWeights(it->get<std::string>());
        else
            s.classWeights.values = requiredList<float>(j, "class_weights");
    }
    s.classWeights.balanced = s.classWeights.balanced || fieldOr(j, "class_weights_balanced", false);
}

}  // namespace wb
