#include "cpu_mlp.h"

#include <algorithm>

#include <Eigen/Core>

#include "errors.h"
#include "math_ops.h"

namespace wb {

namespace {
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Mat = Eigen::Map<RowMajor>;
using ConstMat = Eigen::Map<const RowMajor>;
using ConstRowVec = Eigen::Map<const Eigen::RowVectorXf>;
using RowVec = Eigen::Map<Eigen::RowVectorXf>;
using Index = Eigen::Index;
}  // namespace

CpuMlp::CpuMlp(const MlpParams& initial, Activation activation, std::size_t batchCapacity)
    : layers_(initial.layers),
      values_(initial.values.begin(), initial.values.end()),
      grads_(initial.count(), 0.0f),
      activation_(activation),
      capacity_(batchCapacity) {
    int maxWidth = 1;
    for (const auto& l : layers_) {
        pre_.emplace_back(batchCapacity * static_cast<std::size_t>(l.out));
        post_.emplace_back(batchCapacity * static_cast<std::size_t>(l.out));
        maxWidth = std::max({maxWidth, l.in, l.out});
    }
    delta_.resize(batchCapacity * static_cast<std::size_t>(maxWidth));
    deltaPrev_.resize(delta_.size());
}

MlpParams CpuMlp::params() const {
    MlpParams p;
    p.layers = layers_;
    p.values.assign(values_.begin(), values_.end());
    return p;
}

const float* CpuMlp::forward(const float* x, std::size_t n) {
    if (n > capacity_) throw ConfigError("batch of " + std::to_string(n) + " rows exceeds the buffers' capacity");
    const auto rows = static_cast<Index>(n);
    const float* input = x;
    const std::size_t last = layers_.size() - 1;
    for (std::size_t l = 0; l <= last; ++l) {
        const LayerSlice& s = layers_[l];
        ConstMat in(input, rows, s.in);                            // (n, in)
        ConstMat w(values_.data() + s.weightOffset, s.out, s.in);  // (out, in)
        ConstRowVec b(values_.data() + s.biasOffset, s.out);       // (out)
        Mat z(pre_[l].data(), rows, s.out);                        // (n, out)
        z.noalias() = in * w.transpose();
        z.rowwise() += b;
        if (l == last) return pre_[l].data();  // the logits, no activation
        std::copy_n(pre_[l].data(), n * static_cast<std::size_t>(s.out), post_[l].data());
        activate(activation_, post_[l].data(), n * static_cast<std::size_t>(s.out));
        input = post_[l].data();
    }
    return nullptr;  // unreachable: an MLP has at least its output layer
}

void CpuMlp::backward(const float* x, const float* dlogits, std::size_t n, bool accumulate) {
    const auto rows = static_cast<Index>(n);
    std::copy_n(dlogits, n, delta_.data());  // (n, 1)
    for (std::size_t l = layers_.size(); l-- > 0;) {
        const LayerSlice& s = layers_[l];
        const float* input = l == 0 ? x : post_[l - 1].data();
        ConstMat in(input, rows, s.in);                       // (n, in)
        ConstMat dz(delta_.data(), rows, s.out);              // (n, out)
        Mat gw(grads_.data() + s.weightOffset, s.out, s.in);  // (out, in)
        RowVec gb(grads_.data() + s.biasOffset, s.out);       // (out)
        if (accumulate) {
            gw.noalias() += dz.transpose() * in;
            gb += dz.colwise().sum();
        } else {
            gw.noalias() = dz.transpose() * in;
            gb = dz.colwise().sum();
        }
        if (l == 0) break;                         // no gradient needed for the input
        Mat dPrev(deltaPrev_.data(), rows, s.in);  // (n, in)
        dPrev.noalias() = dz * ConstMat(values_.data() + s.weightOffset, s.out, s.in);
        activationBackward(activation_, pre_[l - 1].data(), post_[l - 1].data(), deltaPrev_.data(),
                           n * static_cast<std::size_t>(s.in));
        std::swap(delta_, deltaPrev_);
    }
}

void CpuMlp::zeroGrads() {
    std::fill(grads_.begin(), grads_.end(), 0.0f);
}

}  // namespace wb
