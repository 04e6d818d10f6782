// gemm=custom's host side: argument checks shared with the launcher, and the CPU twin, which runs
// gemm_custom.h's staging, accumulation and epilogue tile by tile with one lane, as the kernel's
// blocks do with 256.
#include <algorithm>
#include <string>
#include <vector>

#include "errors.h"
#include "gemm_custom.h"

namespace wb {

namespace {
void require(bool ok, const std::string& what) {
    if (!ok) throw ConfigError("custom GEMM: " + what);
}
}  // namespace

void checkGemmArgs(const GemmArgs& g) {
    require(g.m >= 0 && g.n >= 0 && g.k >= 0, "negative size");
    require((g.m + kGemmTile - 1) / kGemmTile <= kGemmMaxGridY,
            std::to_string(g.m) + " rows exceed the grid's " + std::to_string(kGemmMaxGridY * kGemmTile));
    require(g.c != nullptr || g.m == 0 || g.n == 0, "C is missing");
    require(g.ldc >= g.n, "ldc " + std::to_string(g.ldc) + " is below n " + std::to_string(g.n));
    if (g.k > 0 && g.m > 0 && g.n > 0) {
        require(g.a != nullptr && g.b != nullptr, "A or B is missing");
        require(g.lda >= (g.transA ? g.m : g.k), "lda " + std::to_string(g.lda) + " is too small");
        require(g.ldb >= (g.transB ? g.k : g.n), "ldb " + std::to_string(g.ldb) + " is too small");
    }
}

void gemmTwin(const GemmArgs& g) {
    checkGemmArgs(g);
    if (g.m == 0 || g.n == 0) return;
    struct Outputs {
        float v[2][2];
    };
    gemm::Stage as{}, bs{};
    std::vector<Outputs> acc(static_cast<std::size_t>(kGemmThreads));  // one block's threads' 2 x 2 sums
    for (int row0 = 0; row0 < g.m; row0 += kGemmTile)
        for (int col0 = 0; col0 < g.n; col0 += kGemmTile) {
            std::fill(acc.begin(), acc.end(), Outputs{{{0.0f, 0.0f}, {0.0f, 0.0f}}});
            for (int k0 = 0; k0 < g.k; k0 += kGemmTileK) {
                gemm::stageTiles(g, row0, col0, k0, as, bs, 0, 1);
                for (int t = 0; t < kGemmThreads; ++t)
                    gemm::accumulate(as, bs, t % kGemmThreadsX, t / kGemmThreadsX, acc[static_cast<std::size_t>(t)].v);
            }
            for (int t = 0; t < kGemmThreads; ++t) {
                const int tx = t % kGemmThreadsX, ty = t / kGemmThreadsX;
                for (int r = 0; r < 2; ++r)
                    for (int c = 0; c < 2; ++c)
                        gemm::epilogue(g, row0 + ty + r * kGemmThreadsX, col0 + tx + c * kGemmThreadsX,
                                       acc[static_cast<std::size_t>(t)].v[r][c]);
            }
        }
}

}  // namespace wb
