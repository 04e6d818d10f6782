// What the fused and the persistent twins are compared with: the CPU backend's step (CpuMlp and the
// optimizer, an independent implementation), the tolerance rule, and shuffled orders of the rows.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "core/cpu/cpu_mlp.h"
#include "core/model/math_ops.h"
#include "core/model/model.h"
#include "core/model/optimizer.h"
#include "tests/fused_fixture.h"

namespace wb::test {

// The independent reference: what the CPU backend does for one step.
class Reference {
public:
    Reference(const MlpParams& p, Activation a, LossKind loss, const OptimizerSpec& opt, std::size_t batch)
        : mlp_(p, a, batch), optimizer_(makeOptimizer(opt, p.count())), loss_(loss), dlogits_(batch) {}

    double step(const float* x, const float* y, std::size_t n, std::size_t& correct) {
        mlp_.zeroGrads();
        const float* logits = mlp_.forward(x, n);
        std::size_t right = 0;
        const double loss = lossAndGrad(loss_, logits, y, n, dlogits_.data(), &right);
        correct += right;
        mlp_.backward(x, dlogits_.data(), n, false);
        optimizer_->beginStep();
        optimizer_->update(mlp_.values(), mlp_.grads().data(), 0, mlp_.count());
        return loss;
    }
    std::vector<float> params() const { return {mlp_.values(), mlp_.values() + mlp_.count()}; }

private:
    CpuMlp mlp_;
    std::unique_ptr<Optimizer> optimizer_;
    LossKind loss_;
    std::vector<float> dlogits_;
};

// The largest difference over the parameters in units of what is allowed: 1e-5 relative plus 1e-6
// absolute, plus, for optimizers that normalise the gradient (Adam, AdamW, RMSprop), a thousandth
// of the distance they can move a parameter (lr per step): a gradient that is near zero by
// cancellation carries a large relative rounding error, which their normalisation turns into an
// update of order lr. A wrong gradient or update shows up as a whole lr per step.
inline double worstDifference(const std::vector<float>& a, const std::vector<float>& b, const OptimizerSpec& opt,
                              int steps) {
    const bool normalising = opt.kind != OptimizerKind::Sgd;
    const double amplified = normalising ? 1e-3 * opt.lr * steps : 0.0;
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double ref = b[i];
        const double d = std::abs(static_cast<double>(a[i]) - ref) / (1e-5 * std::abs(ref) + 1e-6 + amplified);
        if (!(d <= worst)) worst = d;  // NaN counts as the worst
    }
    return worst;
}

inline std::vector<std::uint32_t> permutation(std::size_t n, unsigned seed) {
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), std::mt19937(seed));
    return order;
}

inline Data gathered(const Data& d, const std::vector<std::uint32_t>& order) {
    Data g = d;
    for (std::size_t i = 0; i < order.size(); ++i) {
        std::copy_n(d.x.data() + order[i] * d.cols, d.cols, g.x.data() + i * d.cols);
        g.y[i] = d.y[order[i]];
    }
    return g;
}

}  // namespace wb::test
