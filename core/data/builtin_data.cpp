// The built-in seed-like data set. Columns look like real tabular data (varied scales and offsets,
// correlated pairs, binary flags, skewed amounts); labels come from a random tanh teacher network
// on the standardised features plus logistic noise, so a student learns gradually and never
// reaches 100 %. Everything is drawn with wb::Rng, so a seed gives the same data everywhere.
//
// Row i depends only on the seed and i (the rows come one after another from one stream, and the
// label threshold from a separate calibration sample), so a smaller data set is a prefix of a
// larger one with the same seed.
#include "core/data/builtin_data.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "core/platform/errors.h"
#include "core/platform/random.h"

namespace wb {
namespace {

enum class ColumnKind { Gaussian, Correlated, Binary, Skewed };

// How one column is made from its latent standard normal z (and, when correlated, another
// column's latent), and the column's mean and std in closed form, so the teacher sees standardised
// values without a pass over the data.
struct ColumnPlan {
    ColumnKind kind = ColumnKind::Gaussian;
    std::size_t source = 0;  // Correlated: the Gaussian column whose latent it shares
    double rho = 0.0;        // Correlated: correlation with that column
    double scale = 1.0;      // Gaussian/Correlated: x = offset + scale * z; Skewed: x = scale * exp(sigma z)
    double offset = 0.0;
    double threshold = 0.0;  // Binary: x = (z > threshold)
    double sigma = 0.0;      // Skewed
    double mean = 0.0;       // Binary/Skewed: mean and std of the value before `scale`,
    double sd = 1.0;         // so the standardised value is (value - mean) / sd
};

constexpr std::size_t kTeacherHidden = 16;

struct Teacher {
    // Stored input-major so the score loop runs over the hidden units innermost (vectorises).
    std::vector<double> w1;  // (features, kTeacherHidden) row-major
    std::vector<double> b1;  // (kTeacherHidden)
    std::vector<double> w2;  // (kTeacherHidden)
};

constexpr std::size_t kCalibrationRows = 8192;
// Logistic noise scale relative to the std of the teacher's score: sets the best reachable
// accuracy (about 90 %), so no student can reach 100 %.
constexpr double kNoiseRatio = 0.2;
// Teacher weights ~ N(0, (kTeacherGain^2) / features): large enough that many hidden units work in
// tanh's curved part, so the boundary is not a plane and the student needs many epochs.
constexpr double kTeacherGain = 3.0;

// splitmix64: independent seeds for the separate streams (plan, teacher, calibration, rows).
std::uint64_t subSeed(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// Which kind each column is: about 2/3 Gaussian, 1/6 correlated, 1/12 binary, 1/12 skewed,
// at shuffled positions.
std::vector<ColumnKind> planKinds(std::size_t features, Rng& rng) {
    const std::size_t nBinary = features / 12, nSkewed = features / 12, nCorrelated = features / 6;
    std::vector<ColumnKind> byRank(features, ColumnKind::Gaussian);  // (features)
    std::size_t k = 0;
    for (std::size_t i = 0; i < nBinary; ++i) byRank[k++] = ColumnKind::Binary;
    for (std::size_t i = 0; i < nSkewed; ++i) byRank[k++] = ColumnKind::Skewed;
    for (std::size_t i = 0; i < nCorrelated; ++i) byRank[k++] = ColumnKind::Correlated;
    const auto order = permutation(static_cast<std::uint32_t>(features), rng);
    std::vector<ColumnKind> kinds(features);  // (features)
    for (std::size_t c = 0; c < features; ++c) kinds[c] = byRank[order[c]];
    return kinds;
}

void planBinary(ColumnPlan& p, Rng& rng) {
    p.threshold = 2.4 * rng.uniformDouble() - 1.2;  // prevalence between about 12 % and 88 %
    const double prevalence = 0.5 * std::erfc(p.threshold / std::numbers::sqrt2);
    p.mean = prevalence;
    p.sd = std::sqrt(prevalence * (1.0 - prevalence));
}

void planSkewed(ColumnPlan& p, Rng& rng) {
    // Log-normal amounts: mean exp(s^2/2), variance (exp(s^2) - 1) exp(s^2), times the scale.
    p.sigma = 0.4 + 0.4 * rng.uniformDouble();
    p.scale = std::exp(6.0 * rng.uniformDouble());  // 1 .. 400
    const double s2 = p.sigma * p.sigma;
    p.mean = std::exp(0.5 * s2);
    p.sd = std::sqrt((std::exp(s2) - 1.0) * std::exp(s2));
}

std::vector<ColumnPlan> planColumns(std::size_t features, Rng& rng) {
    const auto kinds = planKinds(features, rng);
    std::vector<std::size_t> gaussians;
    for (std::size_t c = 0; c < features; ++c)
        if (kinds[c] == ColumnKind::Gaussian) gaussians.push_back(c);

    std::vector<ColumnPlan> plan(features);  // (features)
    for (std::size_t c = 0; c < features; ++c) {
        ColumnPlan& p = plan[c];
        p.kind = kinds[c];
        // Scales spread over four decades and offsets like measured quantities.
        p.scale = std::exp(std::log(0.01) + std::log(1e4) * rng.uniformDouble());
        p.offset = p.scale * (10.0 * rng.uniformDouble() - 5.0);
        if (p.kind == ColumnKind::Correlated) {
            p.source = gaussians[rng.below(gaussians.size())];  // gaussians is never empty here
            p.rho = (rng.uniformDouble() < 0.5 ? -1.0 : 1.0) * (0.5 + 0.45 * rng.uniformDouble());
        } else if (p.kind == ColumnKind::Binary) {
            planBinary(p, rng);
        } else if (p.kind == ColumnKind::Skewed) {
            planSkewed(p, rng);
        }
    }
    return plan;
}

Teacher makeTeacher(std::size_t features, Rng& rng) {
    Teacher t;
    t.w1.resize(features * kTeacherHidden);
    t.b1.resize(kTeacherHidden);
    t.w2.resize(kTeacherHidden);
    const double gain = kTeacherGain / std::sqrt(static_cast<double>(features));
    for (double& w : t.w1) w = gain * rng.normal();
    for (double& b : t.b1) b = 0.5 * rng.normal();
    for (double& w : t.w2) w = rng.normal() / std::sqrt(static_cast<double>(kTeacherHidden));
    return t;
}

double teacherScore(const Teacher& t, const double* zs, std::size_t features) {
    double a[kTeacherHidden];  // (kTeacherHidden) pre-activations
    std::copy(t.b1.begin(), t.b1.end(), a);
    for (std::size_t c = 0; c < features; ++c) {
        const double* w = t.w1.data() + c * kTeacherHidden;
        for (std::size_t h = 0; h < kTeacherHidden; ++h) a[h] += w[h] * zs[c];
    }
    double score = 0.0;
    for (std::size_t h = 0; h < kTeacherHidden; ++h) score += t.w2[h] * std::tanh(a[h]);
    return score;
}

// One row from its latents z (features): writes the raw values x and the standardised values zs.
void makeRow(const std::vector<ColumnPlan>& plan, const double* z, float* x, double* zs) {
    for (std::size_t c = 0; c < plan.size(); ++c) {
        const ColumnPlan& p = plan[c];
        double v = 0.0;
        switch (p.kind) {
            case ColumnKind::Gaussian:
                zs[c] = z[c];
                v = p.offset + p.scale * z[c];
                break;
            case ColumnKind::Correlated:
                zs[c] = p.rho * z[p.source] + std::sqrt(1.0 - p.rho * p.rho) * z[c];
                v = p.offset + p.scale * zs[c];
                break;
            case ColumnKind::Binary:
                v = z[c] > p.threshold ? 1.0 : 0.0;
                zs[c] = (v - p.mean) / p.sd;
                break;
            case ColumnKind::Skewed: {
                const double e = std::exp(p.sigma * z[c]);
                zs[c] = (e - p.mean) / p.sd;
                v = p.scale * e;
                break;
            }
        }
        x[c] = static_cast<float>(v);
    }
}

// Standard normals in pairs by the Marsaglia polar method: no cos per draw, about three times
// faster than Rng::normal(), which matters for rows x features latents (6.1 M for the default).
class NormalStream {
public:
    explicit NormalStream(Rng& rng) : rng_(rng) {}
    double next() {
        if (hasSpare_) {
            hasSpare_ = false;
            return spare_;
        }
        double a = 0.0, b = 0.0, s = 0.0;
        do {
            a = 2.0 * rng_.uniformDouble() - 1.0;
            b = 2.0 * rng_.uniformDouble() - 1.0;
            s = a * a + b * b;
        } while (s >= 1.0 || s == 0.0);  // inside the unit disc, and log(s) finite
        const double f = std::sqrt(-2.0 * std::log(s) / s);
        spare_ = b * f;
        hasSpare_ = true;
        return a * f;
    }
    Rng& rng() { return rng_; }

private:
    Rng& rng_;
    double spare_ = 0.0;
    bool hasSpare_ = false;
};

// Draws one row's latents (features) plus one uniform for the label noise.
double drawLatents(NormalStream& normals, std::vector<double>& z) {
    for (double& v : z) v = normals.next();
    return normals.rng().uniformDouble();
}

double logisticNoise(double u) {
    u = std::clamp(u, 1e-12, 1.0 - 1e-12);
    return std::log(u / (1.0 - u));
}

struct LabelRule {
    double threshold = 0.0;
    double noiseScale = 0.0;
};

// Threshold and noise from a calibration sample of the teacher's scores: the threshold is a
// seeded quantile in 40..60 %, so classes stay roughly balanced whatever the teacher.
LabelRule calibrate(const std::vector<ColumnPlan>& plan, const Teacher& t, Rng& rng) {
    const std::size_t f = plan.size();
    std::vector<double> z(f), zs(f);               // (features)
    std::vector<float> x(f);                       // (features)
    std::vector<double> scores(kCalibrationRows);  // (kCalibrationRows)
    double sum = 0.0, sumSq = 0.0;
    NormalStream normals(rng);
    for (double& s : scores) {
        drawLatents(normals, z);
        makeRow(plan, z.data(), x.data(), zs.data());
        s = teacherScore(t, zs.data(), f);
        sum += s;
        sumSq += s * s;
    }
    const double n = static_cast<double>(kCalibrationRows);
    const double var = std::max(0.0, sumSq / n - (sum / n) * (sum / n));
    const double q = 0.4 + 0.2 * rng.uniformDouble();
    auto nth = scores.begin() + static_cast<std::ptrdiff_t>(q * (n - 1.0));
    std::nth_element(scores.begin(), nth, scores.end());
    return {*nth, kNoiseRatio * std::sqrt(var)};
}

}  // namespace

Dataset generateSeedLike(std::size_t rows, std::uint64_t seed, std::size_t features) {
    if (rows == 0) throw ConfigError("The built-in data set needs at least one row.");
    if (features == 0 || features > 100000)
        throw ConfigError("The built-in data set needs between 1 and 100000 features, not " + std::to_string(features) +
                          ".");
    Rng planRng(subSeed(seed, 0)), teacherRng(subSeed(seed, 1));
    Rng calibrationRng(subSeed(seed, 2)), rowRng(subSeed(seed, 3));
    const auto plan = planColumns(features, planRng);
    const Teacher teacher = makeTeacher(features, teacherRng);
    const LabelRule rule = calibrate(plan, teacher, calibrationRng);

    Dataset d;
    d.source = "builtin";
    d.rows = rows;
    d.cols = features;
    d.features.resize(rows * features);             // (rows, features)
    d.labels.resize(rows);                          // (rows)
    std::vector<double> z(features), zs(features);  // (features) one row's latents, standardised
    NormalStream normals(rowRng);
    for (std::size_t r = 0; r < rows; ++r) {
        const double u = drawLatents(normals, z);
        makeRow(plan, z.data(), d.features.data() + r * features, zs.data());
        const double score = teacherScore(teacher, zs.data(), features);
        d.labels[r] = score + rule.noiseScale * logisticNoise(u) > rule.threshold ? 1.0f : 0.0f;
    }
    d.columnNames.reserve(features);
    // append, not "f" + to_string(c): the latter trips a GCC 12 -Wrestrict false positive.
    for (std::size_t c = 0; c < features; ++c) d.columnNames.push_back(std::string("f").append(std::to_string(c)));
    d.labelName = "label";
    d.computeHash();
    return d;
}

}  // namespace wb
