// Attributes heap allocations in steady state to their callers (issue 18): an LD_PRELOAD variant of alloc_counter.c
// that also records the call stack of each allocation made between `onyx bench`'s first and second reading of
// onyx_alloc_counter_count (the timed runs), and at the second reading writes the stacks to $ONYX_ALLOC_TRACE (one
// line per allocation: the frames as MODULE+OFFSET, innermost first). tests/alloc/alloc_report.py symbolizes them
// and aggregates by library and by onyx caller.
// With ONYX_ALLOC_PER_EXECUTE=FILE it also writes, for each dnnl_primitive_execute call of the timed runs, the
// primitive's implementation (as ONEDNN_VERBOSE names it), its argument count and the allocations made during the
// call (exact with one run at a time: the other threads are oneDNN's own then).
// usage: cc -O2 -shared -fPIC -o liballoc_tracer.so alloc_tracer.c -ldl -ldnnl
//        ONYX_ALLOC_TRACE=trace.txt LD_PRELOAD=./liballoc_tracer.so onyx bench MODEL --into --runs 5
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t count, size_t size);
extern void* __libc_realloc(void* p, size_t size);
extern void* __libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void* p);

enum { kDepth = 40, kMaxRecords = 1 << 17 };

typedef struct {
  size_t size;
  int depth;
  void* frames[kDepth];
} Record;

static atomic_ullong allocations;
static atomic_int armed;
static atomic_int readings;
static atomic_ulong next_record;
static Record* records;  // mmap'ed: kMaxRecords
static __thread int in_hook;

static void Dump(void) {
  const char* path = getenv("ONYX_ALLOC_TRACE");
  if (path == NULL) return;
  FILE* f = fopen(path, "w");
  if (f == NULL) return;
  unsigned long n = atomic_load(&next_record);
  if (n > kMaxRecords) n = kMaxRecords;
  for (unsigned long i = 0; i < n; ++i) {
    const Record* r = &records[i];
    fprintf(f, "%zu", r->size);
    // Frame 0 is record(), frame 1 the hook (malloc, ...): skip both.
    for (int k = 2; k < r->depth; ++k) {
      Dl_info info;
      if (dladdr(r->frames[k], &info) != 0 && info.dli_fname != NULL) {
        // Return addresses point after the call: -1 lands inside the calling instruction for addr2line.
        fprintf(f, " %s+0x%lx", info.dli_fname, (unsigned long)((char*)r->frames[k] - (char*)info.dli_fbase) - 1);
      } else {
        fprintf(f, " ?+%p", r->frames[k]);
      }
    }
    fputc('\n', f);
  }
  fclose(f);
}

__attribute__((visibility("default"))) unsigned long long onyx_alloc_counter_count(void) {
  const int reading = atomic_fetch_add(&readings, 1);
  if (reading == 0) {
    atomic_store(&armed, 1);
  } else if (reading == 1) {
    atomic_store(&armed, 0);
    in_hook = 1;
    Dump();
    in_hook = 0;
  }
  return atomic_load_explicit(&allocations, memory_order_relaxed);
}

__attribute__((constructor)) static void Init(void) {
  in_hook = 1;
  records = mmap(NULL, sizeof(Record) * kMaxRecords, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (records == MAP_FAILED) records = NULL;
  void* warm[4];
  backtrace(warm, 4);  // loads libgcc_s's unwinder now, not inside a counted allocation
  in_hook = 0;
}

static void record(size_t size) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  if (!atomic_load_explicit(&armed, memory_order_relaxed) || in_hook || records == NULL) return;
  const unsigned long i = atomic_fetch_add(&next_record, 1);
  if (i >= kMaxRecords) return;
  in_hook = 1;
  records[i].size = size;
  records[i].depth = backtrace(records[i].frames, kDepth);
  in_hook = 0;
}

void* malloc(size_t size) {
  record(size);
  return __libc_malloc(size);
}

void* calloc(size_t n, size_t size) {
  record(n * size);
  return __libc_calloc(n, size);
}

void* realloc(void* p, size_t size) {
  record(size);
  return __libc_realloc(p, size);
}

void free(void* p) { __libc_free(p); }

void* memalign(size_t alignment, size_t size) {
  record(size);
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
  record(size);
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  record(size);
  void* p = __libc_memalign(alignment, size);
  if (p == NULL && size != 0) return ENOMEM;
  *out = p;
  return 0;
}

// ---- dnnl_primitive_execute, counted per call (ONYX_ALLOC_PER_EXECUTE).

dnnl_status_t dnnl_primitive_execute(const_dnnl_primitive_t primitive, dnnl_stream_t stream, int nargs,
                                     const dnnl_exec_arg_t* args) {
  typedef dnnl_status_t (*ExecuteFn)(const_dnnl_primitive_t, dnnl_stream_t, int, const dnnl_exec_arg_t*);
  static ExecuteFn real = NULL;
  if (real == NULL) real = (ExecuteFn)dlsym(RTLD_NEXT, "dnnl_primitive_execute");
  if (real == NULL) return dnnl_runtime_error;
  const char* path = getenv("ONYX_ALLOC_PER_EXECUTE");
  const int counting = path != NULL && atomic_load(&armed);
  const unsigned long long before = atomic_load(&allocations);
  const dnnl_status_t status = real(primitive, stream, nargs, args);
  if (!counting) return status;
  const unsigned long long made = atomic_load(&allocations) - before;
  const char* impl = "?";
  const_dnnl_primitive_desc_t pd = NULL;
  if (dnnl_primitive_get_primitive_desc(primitive, &pd) == dnnl_success) {
    const char* name = NULL;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, (void*)&name) == dnnl_success && name != NULL) {
      impl = name;
    }
  }
  in_hook = 1;
  FILE* f = fopen(path, "a");
  if (f != NULL) {
    fprintf(f, "%s %d %llu\n", impl, nargs, made);
    fclose(f);
  }
  in_hook = 0;
  return status;
}
