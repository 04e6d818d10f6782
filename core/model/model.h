// The model: an MLP with any number of hidden layers and one output per logit the task needs (1 for
// binary and regression, K for K classes), and its parameters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/data/task.h"

namespace wb {

enum class Activation { Tanh, Relu, Sigmoid, Gelu, Identity };
enum class InitKind { Torch, Glorot };  // nn.Linear's default vs Keras' glorot_uniform + zero bias

// Per-class weights of a multiclass loss, PyTorch's CrossEntropyLoss(weight=w) / NLLLoss(weight=w):
// none (the default), `balanced` (scikit-learn's rows / (K count_k) over the training split, resolved
// when a run starts) or K positive numbers in the data's class order (label_coding's sorted order).
struct ClassWeights {
    bool balanced = false;
    std::vector<float> values;  // (K); after a balanced run starts, the numbers it resolved to
    bool empty() const { return !balanced && values.empty(); }
    bool operator==(const ClassWeights&) const = default;
};

// "balanced", or comma-separated positive finite numbers ("1,2.5,0.5"); "" = none. Throws
// ConfigError naming the bad entry.
ClassWeights parseClassWeights(const std::string& text);
// The text parseClassWeights reads back: "", "balanced" (unresolved) or the numbers.
std::string toString(const ClassWeights& w);

struct ModelSpec {
    std::vector<int> hidden{20, 10};  // widths of the hidden layers, each 1..1024
    Activation activation = Activation::Tanh;
    InitKind init = InitKind::Torch;
    // Width of the output layer: set from the data's task when a run starts (PreparedData::outputs).
    int outputs = 1;
    RegressionLoss regressionLoss = RegressionLoss::Mse;  // the loss when the task is a regression
    ClassWeights classWeights;                            // multiclass only (checked when a run starts)

    // Throws ConfigError for a width outside 1..1024, outputs outside 1..kMaxClasses or a class
    // weight that is not a positive finite number.
    void validate() const;
    // Layer widths from input to output: {inputs, hidden..., outputs}.
    std::vector<int> widths(std::size_t inputs) const;
};

// One nn.Linear: where its weight (out, in) and bias (out) live in the flat parameter buffer.
struct LayerSlice {
    int in = 0;
    int out = 0;
    std::size_t weightOffset = 0;  // (out, in) row-major, as PyTorch stores it
    std::size_t biasOffset = 0;    // (out)
};

// All parameters in one flat float buffer (so a multi-tensor optimizer is one loop, and a device
// copy is one memcpy), with a view per layer.
struct MlpParams {
    std::vector<LayerSlice> layers;
    std::vector<float> values;

    static MlpParams zeros(const std::vector<int>& widths);
    std::size_t count() const { return values.size(); }
    std::vector<int> widths() const;
    float* weight(std::size_t layer) { return values.data() + layers[layer].weightOffset; }
    float* bias(std::size_t layer) { return values.data() + layers[layer].biasOffset; }
    const float* weight(std::size_t layer) const { return values.data() + layers[layer].weightOffset; }
    const float* bias(std::size_t layer) const { return values.data() + layers[layer].biasOffset; }
};

// Initial parameters, deterministic in `seed`:
// Torch: weight and bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (kaiming_uniform with a = sqrt(5));
// Glorot: weight ~ U(-sqrt(6/(fan_in+fan_out)), +...), bias 0.
MlpParams initParams(const ModelSpec& spec, std::size_t inputs, std::uint64_t seed);

// Number of parameters of `spec` on `inputs` features (shown live in the GUI).
std::size_t parameterCount(const ModelSpec& spec, std::size_t inputs);

std::string toString(Activation a);
std::string toString(InitKind k);
Activation activationFromString(const std::string& s);  // throws ConfigError
InitKind initKindFromString(const std::string& s);      // throws ConfigError

void to_json(nlohmann::json& j, const ModelSpec& s);
void from_json(const nlohmann::json& j, ModelSpec& s);

}  // namespace wb
