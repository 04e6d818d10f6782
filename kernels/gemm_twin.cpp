// gemm=custom's host side: argument checks shared with the launcher, and the CPU twin, which runs
// gemm_custom.h's staging, accumulation and epilogue tile by tile with one lane, as the kernel's
// blocks do with 256.
#include <algorithm>
#include <string>
#include <vector>

#include "core/platform/errors.h"
#include "kernels/gemm_custom.h"

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

namespace {
constexpr int kTargetBlocks = 128;     // about one block per SM of a large GPU
constexpr int kMinStagesPerSlice = 4;  // a slice shorter than this costs more than it saves
constexpr int kMaxSlices = 64;

// The split of a shape, whether or not a workspace is given.
GemmSplit splitOf(const GemmArgs& g) {
    GemmSplit s;
    s.sliceK = g.k;
    const long tiles = static_cast<long>((g.m + kGemmTile - 1) / kGemmTile) * ((g.n + kGemmTile - 1) / kGemmTile);
    const int stages = (g.k + kGemmTileK - 1) / kGemmTileK;
    if (tiles == 0 || tiles >= kTargetBlocks / 2 || stages < 2 * kMinStagesPerSlice) return s;
    long want = (kTargetBlocks + tiles - 1) / tiles;
    want = std::min<long>({want, stages / kMinStagesPerSlice, kMaxSlices});
    if (want < 2) return s;
    const int stagesPerSlice = (stages + static_cast<int>(want) - 1) / static_cast<int>(want);
    s.sliceK = stagesPerSlice * kGemmTileK;
    s.slices = (g.k + s.sliceK - 1) / s.sliceK;  // no empty slice
    return s;
}
}  // namespace

GemmSplit gemmSplit(const GemmArgs& g) {
    if (!g.workspace) return GemmSplit{1, g.k};
    return splitOf(g);
}

std::size_t gemmWorkspaceBytes(const GemmArgs& g) {
    const GemmSplit s = splitOf(g);
    if (s.slices <= 1) return 0;
    return static_cast<std::size_t>(s.slices) * static_cast<std::size_t>(g.m) * static_cast<std::size_t>(g.n) *
           sizeof(float);
}

void gemmTwin(const GemmArgs& g) {
    checkGemmArgs(g);
    if (g.m == 0 || g.n == 0) return;
    const GemmSplit split = gemmSplit(g);
    struct Outputs {
        float v[2][2];
    };
    gemm::Stage as{}, bs{};
    std::vector<Outputs> acc(static_cast<std::size_t>(kGemmThreads));  // one block's threads' 2 x 2 sums
    for (int z = 0; z < split.slices; ++z)
        for (int row0 = 0; row0 < g.m; row0 += kGemmTile)
            for (int col0 = 0; col0 < g.n; col0 += kGemmTile) {
                std::fill(acc.begin(), acc.end(), Outputs{{{0.0f, 0.0f}, {0.0f, 0.0f}}});
                const int kEnd = std::min(g.k, (z + 1) * split.sliceK);
                for (int k0 = z * split.sliceK; k0 < kEnd; k0 += kGemmTileK) {
                    gemm::stageTiles(g, row0, col0, k0, as, bs, 0, 1);
                    for (int t = 0; t < kGemmThreads; ++t)
                        gemm::accumulate(as, bs, t % kGemmThreadsX, t / kGemmThreadsX,
                                         acc[static_cast<std::size_t>(t)].v);
                }
                for (int t = 0; t < kGemmThreads; ++t) {
                    const int tx = t % kGemmThreadsX, ty = t / kGemmThreadsX;
                    for (int r = 0; r < 2; ++r)
                        for (int c = 0; c < 2; ++c) {
                            const int i = row0 + ty + r * kGemmThreadsX, j = col0 + tx + c * kGemmThreadsX;
                            const float sum = acc[static_cast<std::size_t>(t)].v[r][c];
                            if (split.slices > 1)
                                gemm::storePartial(g, z, i, j, sum);
                            else
                                gemm::epilogue(g, i, j, sum);
                        }
                }
            }
    if (split.slices <= 1) return;
    const std::size_t elements = static_cast<std::size_t>(g.m) * static_cast<std::size_t>(g.n);
    for (std::size_t e = 0; e < elements; ++e) gemm::reducePartials(g, split.slices, e);
}

}  // namespace wb
