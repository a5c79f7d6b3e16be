// std::vector storage aligned to a cache line: packed weights that AVX-512 kernels load a whole 64-byte line at a
// time from (glibc's malloc aligns to 16 bytes only; a 64-byte load across two lines costs two L1 accesses).
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace onyx {

template <typename T, size_t kAlign = 64>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() noexcept = default;
  template <typename U>
  AlignedAllocator(const AlignedAllocator<U, kAlign>&) noexcept {}
  template <typename U>
  struct rebind {
    using other = AlignedAllocator<U, kAlign>;
  };
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(kAlign))); }
  void deallocate(T* p, size_t) noexcept { ::operator delete(p, std::align_val_t(kAlign)); }
  template <typename U>
  bool operator==(const AlignedAllocator<U, kAlign>&) const noexcept {
    return true;
  }
};

template <typename T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace onyx
