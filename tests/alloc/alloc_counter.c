// A malloc-counting hook for measuring heap allocations per run (tests/alloc/steady_state_alloc.sh, `onyx bench`
// prints "allocs_per_run" when it finds onyx_alloc_counter_count). Built as a shared object and loaded with
// LD_PRELOAD: the process's malloc family resolves here first, counts each allocation in one global atomic (so
// OpenMP worker threads and oneDNN's allocations are counted too) and forwards to glibc's own entry points.
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t count, size_t size);
extern void* __libc_realloc(void* p, size_t size);
extern void* __libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void* p);

static atomic_ullong allocations;

__attribute__((visibility("default"))) unsigned long long onyx_alloc_counter_count(void) {
  return atomic_load_explicit(&allocations, memory_order_relaxed);
}

static void count(void) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); }

void* malloc(size_t size) {
  count();
  return __libc_malloc(size);
}

void* calloc(size_t n, size_t size) {
  count();
  return __libc_calloc(n, size);
}

void* realloc(void* p, size_t size) {
  count();
  return __libc_realloc(p, size);
}

void free(void* p) { __libc_free(p); }

void* memalign(size_t alignment, size_t size) {
  count();
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
  count();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  count();
  void* p = __libc_memalign(alignment, size);
  if (p == NULL && size != 0) return ENOMEM;
  *out = p;
  return 0;
}
