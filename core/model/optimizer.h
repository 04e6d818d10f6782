// Optimizers with PyTorch's update formulas and defaults (torch.optim.Adam, AdamW, SGD, RMSprop,
// single-tensor "for-loop" implementation, so results match PyTorch to float rounding).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace wb {

enum class OptimizerKind { Adam, AdamW, Sgd, RmsProp };

struct OptimizerSpec {
    OptimizerKind kind = OptimizerKind::Adam;
    double lr = 1e-3;
    double beta1 = 0.9, beta2 = 0.999;  // Adam, AdamW
    double eps = 1e-8;                  // Adam, AdamW, RMSprop
    double weightDecay = 0.0;           // all (AdamW: decoupled)
    double momentum = 0.0;              // SGD, RMSprop
    double dampening = 0.0;             // SGD
    bool nesterov = false;              // SGD
    double alpha = 0.99;                // RMSprop
    bool centered = false;              // RMSprop

    // PyTorch's defaults for `kind` (lr 1e-3 Adam/AdamW/SGD, 1e-2 RMSprop; AdamW weight decay 1e-2).
    static OptimizerSpec defaults(OptimizerKind kind);
    // Throws ConfigError for out-of-range values or options that do not apply together
    // (Nesterov without momentum or with dampening, as PyTorch refuses).
    void validate() const;
};

// Updates parameters in place. Holds its state (moments) for one flat parameter buffer;
// `step` can be called on the whole buffer (multi-tensor) or tensor by tensor (per-tensor) with
// the same result, because every formula is element-wise.
class Optimizer {
public:
    virtual ~Optimizer() = default;
    // Starts a new step: advances the step counter used for bias correction.
    virtual void beginStep() = 0;
    // Updates params[offset, offset + n) from grads[offset, offset + n).
    virtual void update(float* params, const float* grads, std::size_t offset, std::size_t n) = 0;
    long stepCount() const { return step_; }

protected:
    long step_ = 0;
};

namespace stepmath {
struct OptimizerScalars;
struct StepScalars;
}  // namespace stepmath

// The update loops an Optimizer runs (optimizer_loops.h), as a table: the CPU backend gives the
// chosen CPU target's (cpu/cpu_tile_kernels.h), everyone else the build's baseline copy.
struct OptimizerLoops {
    void (*adam)(const stepmath::OptimizerScalars&, const stepmath::StepScalars&, float* p, const float* g, float* m,
                 float* v, std::size_t offset, std::size_t n);
    void (*sgd)(const stepmath::OptimizerScalars&, const stepmath::StepScalars&, float* p, const float* g, float* buf,
                std::size_t offset, std::size_t n);
    void (*rmsprop)(const stepmath::OptimizerScalars&, float* p, const float* g, float* sq, float* avg, float* buf,
                    std::size_t offset, std::size_t n);
};
const OptimizerLoops& baselineOptimizerLoops();

// `loops` outlives the optimizer.
std::unique_ptr<Optimizer> makeOptimizer(const OptimizerSpec& spec, std::size_t paramCount,
                                         const OptimizerLoops& loops = baselineOptimizerLoops());

std::string toString(OptimizerKind k);
OptimizerKind optimizerKindFromString(const std::string& s);  // throws ConfigError

void to_json(nlohmann::json& j, const OptimizerSpec& s);
void from_json(const nlohmann::json& j, OptimizerSpec& s);

}  // namespace wb
