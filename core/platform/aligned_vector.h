// A std::vector whose storage starts on a 64-byte boundary. Eigen's vectorised matrix products
// split their work by the alignment of the operands, so buffers that land at different alignments
// from run to run round differently: aligned buffers make the same seed give bit-identical runs.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace wb {

template <typename T>
struct Aligned64Allocator {
    using value_type = T;
    static constexpr std::align_val_t kAlignment{64};

    Aligned64Allocator() = default;
    template <typename U>
    Aligned64Allocator(const Aligned64Allocator<U>&) noexcept {}

    T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
    void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, kAlignment); }
    template <typename U>
    bool operator==(const Aligned64Allocator<U>&) const noexcept {
        return true;
    }
};

template <typename T>
using AlignedVector = std::vector<T, Aligned64Allocator<T>>;

}  // namespace wb
