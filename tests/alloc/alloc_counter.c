// A malloc-counting hook for measuring heap allocations per run (tests/alloc/steady_state_alloc.sh, `onyx bench`
// prints "allocs_per_run" when it finds onyx_alloc_counter_count). Built as a shared object and loaded with
// LD_PRELOAD: the process's malloc family resolves here first, counts each allocation in one global atomic (so
// OpenMP worker threads and oneDNN's allocations are counted too) and forwards to glibc's own entry points.
//
// It also tells oneDNN's own allocations from onyx's: the oneDNN entry points onyx calls per run
// (dnnl_primitive_execute and the sgemm / integer gemm functions) resolve here too, and an allocation made while
// any thread is inside one of them counts as the library's (with one run at a time, as `onyx bench` runs, that is
// oneDNN's execution context and its worker threads). With ONYX_ALLOC_REPORT=FILE, each reading of
// onyx_alloc_counter_count appends "TOTAL LIBRARY" (the counts so far) to FILE.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t count, size_t size);
extern void* __libc_realloc(void* p, size_t size);
extern void* __libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void* p);

static atomic_ullong allocations;
static atomic_ullong library_allocations;
static atomic_int threads_in_library;
static __thread int reporting;  // set while onyx_alloc_counter_count writes its report: not counted

__attribute__((visibility("default"))) unsigned long long onyx_alloc_counter_library_count(void) {
  return atomic_load_explicit(&library_allocations, memory_order_relaxed);
}

__attribute__((visibility("default"))) unsigned long long onyx_alloc_counter_count(void) {
  const unsigned long long total = atomic_load_explicit(&allocations, memory_order_relaxed);
  const unsigned long long library = onyx_alloc_counter_library_count();
  const char* path = getenv("ONYX_ALLOC_REPORT");
  if (path != NULL) {
    reporting = 1;
    FILE* f = fopen(path, "a");
    if (f != NULL) {
      fprintf(f, "%llu %llu\n", total, library);
      fclose(f);
    }
    reporting = 0;
  }
  return total;
}

static void count(void) {
  if (reporting) return;
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  if (atomic_load_explicit(&threads_in_library, memory_order_relaxed) > 0) {
    atomic_fetch_add_explicit(&library_allocations, 1, memory_order_relaxed);
  }
}

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

// ---- oneDNN's entry points (its C API, oneapi/dnnl/dnnl.h; the types spelled out so that no header is needed).

typedef int64_t dim_t;

#define ENTER(name, type)                                \
  static type real = NULL;                               \
  if (real == NULL) real = (type)dlsym(RTLD_NEXT, name); \
  if (real == NULL) return 5; /* dnnl_runtime_error */   \
  atomic_fetch_add_explicit(&threads_in_library, 1, memory_order_relaxed)
#define LEAVE() atomic_fetch_sub_explicit(&threads_in_library, 1, memory_order_relaxed)

typedef int (*ExecuteFn)(const void*, void*, int, const void*);
int dnnl_primitive_execute(const void* primitive, void* stream, int nargs, const void* args) {
  ENTER("dnnl_primitive_execute", ExecuteFn);
  const int status = real(primitive, stream, nargs, args);
  LEAVE();
  return status;
}

typedef int (*SgemmFn)(char, char, dim_t, dim_t, dim_t, float, const float*, dim_t, const float*, dim_t, float, float*,
                       dim_t);
int dnnl_sgemm(char ta, char tb, dim_t m, dim_t n, dim_t k, float alpha, const float* a, dim_t lda, const float* b,
               dim_t ldb, float beta, float* c, dim_t ldc) {
  ENTER("dnnl_sgemm", SgemmFn);
  const int status = real(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  LEAVE();
  return status;
}

typedef int (*GemmU8Fn)(char, char, char, dim_t, dim_t, dim_t, float, const uint8_t*, dim_t, uint8_t, const int8_t*,
                        dim_t, int8_t, float, int32_t*, dim_t, const int32_t*);
int dnnl_gemm_u8s8s32(char ta, char tb, char offsetc, dim_t m, dim_t n, dim_t k, float alpha, const uint8_t* a,
                      dim_t lda, uint8_t ao, const int8_t* b, dim_t ldb, int8_t bo, float beta, int32_t* c, dim_t ldc,
                      const int32_t* co) {
  ENTER("dnnl_gemm_u8s8s32", GemmU8Fn);
  const int status = real(ta, tb, offsetc, m, n, k, alpha, a, lda, ao, b, ldb, bo, beta, c, ldc, co);
  LEAVE();
  return status;
}

typedef int (*GemmS8Fn)(char, char, char, dim_t, dim_t, dim_t, float, const int8_t*, dim_t, int8_t, const int8_t*,
                        dim_t, int8_t, float, int32_t*, dim_t, const int32_t*);
int dnnl_gemm_s8s8s32(char ta, char tb, char offsetc, dim_t m, dim_t n, dim_t k, float alpha, const int8_t* a,
                      dim_t lda, int8_t ao, const int8_t* b, dim_t ldb, int8_t bo, float beta, int32_t* c, dim_t ldc,
                      const int32_t* co) {
  ENTER("dnnl_gemm_s8s8s32", GemmS8Fn);
  const int status = real(ta, tb, offsetc, m, n, k, alpha, a, lda, ao, b, ldb, bo, beta, c, ldc, co);
  LEAVE();
  return status;
}
