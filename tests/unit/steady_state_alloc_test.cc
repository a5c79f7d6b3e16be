// Heap allocations per run in steady state (issue 18): after warm-up runs of the same shapes, Session::RunInto
// should allocate nothing in onyx (runtime and kernels). The binary's malloc family is interposed here (one global
// atomic counter, so OpenMP workers and oneDNN count too) and counts only between StartCounting and StopCounting.
// oneDNN's entry points that onyx calls per run (dnnl_primitive_execute, the sgemm and integer gemm functions) are
// interposed too, so that what oneDNN allocates inside them (its execution context, gemm packing buffers: nothing onyx
// can change from outside) is counted apart: onyx's own count must be 0, oneDNN's stays under a ceiling.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <oneapi/dnnl/dnnl.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "runtime/session.h"
#include "text/parser.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ONYX_ALLOC_HOOK 0  // the sanitizers own malloc
#else
#define ONYX_ALLOC_HOOK 1
#endif

namespace {

std::atomic<bool> g_counting{false};
std::atomic<unsigned long long> g_allocations{0};
std::atomic<unsigned long long> g_library_allocations{0};  // made while a thread is inside oneDNN
std::atomic<int> g_threads_in_library{0};

inline void CountAllocation() {
  if (!g_counting.load(std::memory_order_relaxed)) return;
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (g_threads_in_library.load(std::memory_order_relaxed) > 0) {
    g_library_allocations.fetch_add(1, std::memory_order_relaxed);
  }
}

// oneDNN's function `name` itself (the next definition after this binary's), called with the library marked busy.
template <typename Fn, typename... Args>
dnnl_status_t CallLibrary(const char* name, Args... args) {
  static const auto real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
  if (real == nullptr) return dnnl_runtime_error;
  g_threads_in_library.fetch_add(1, std::memory_order_relaxed);
  const dnnl_status_t status = real(args...);
  g_threads_in_library.fetch_sub(1, std::memory_order_relaxed);
  return status;
}

}  // namespace

#if ONYX_ALLOC_HOOK
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* p);

void* malloc(size_t size) noexcept {
  CountAllocation();
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) noexcept {
  CountAllocation();
  return __libc_calloc(count, size);
}
void* realloc(void* p, size_t size) noexcept {
  CountAllocation();
  return __libc_realloc(p, size);
}
void free(void* p) noexcept { __libc_free(p); }
void* memalign(size_t alignment, size_t size) noexcept {
  CountAllocation();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) noexcept {
  CountAllocation();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) noexcept {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  CountAllocation();
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr && size != 0) return ENOMEM;
  *out = p;
  return 0;
}

dnnl_status_t dnnl_primitive_execute(const_dnnl_primitive_t primitive, dnnl_stream_t stream, int nargs,
                                     const dnnl_exec_arg_t* args) {
  using Fn = dnnl_status_t (*)(const_dnnl_primitive_t, dnnl_stream_t, int, const dnnl_exec_arg_t*);
  return CallLibrary<Fn>("dnnl_primitive_execute", primitive, stream, nargs, args);
}
dnnl_status_t dnnl_sgemm(char ta, char tb, dnnl_dim_t m, dnnl_dim_t n, dnnl_dim_t k, float alpha, const float* a,
                         dnnl_dim_t lda, const float* b, dnnl_dim_t ldb, float beta, float* c, dnnl_dim_t ldc) {
  using Fn = dnnl_status_t (*)(char, char, dnnl_dim_t, dnnl_dim_t, dnnl_dim_t, float, const float*, dnnl_dim_t,
                               const float*, dnnl_dim_t, float, float*, dnnl_dim_t);
  return CallLibrary<Fn>("dnnl_sgemm", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
dnnl_status_t dnnl_gemm_u8s8s32(char ta, char tb, char offsetc, dnnl_dim_t m, dnnl_dim_t n, dnnl_dim_t k, float alpha,
                                const uint8_t* a, dnnl_dim_t lda, uint8_t ao, const int8_t* b, dnnl_dim_t ldb,
                                int8_t bo, float beta, int32_t* c, dnnl_dim_t ldc, const int32_t* co) {
  using Fn = dnnl_status_t (*)(char, char, char, dnnl_dim_t, dnnl_dim_t, dnnl_dim_t, float, const uint8_t*, dnnl_dim_t,
                               uint8_t, const int8_t*, dnnl_dim_t, int8_t, float, int32_t*, dnnl_dim_t, const int32_t*);
  return CallLibrary<Fn>("dnnl_gemm_u8s8s32", ta, tb, offsetc, m, n, k, alpha, a, lda, ao, b, ldb, bo, beta, c, ldc,
                         co);
}
dnnl_status_t dnnl_gemm_s8s8s32(char ta, char tb, char offsetc, dnnl_dim_t m, dnnl_dim_t n, dnnl_dim_t k, float alpha,
                                const int8_t* a, dnnl_dim_t lda, int8_t ao, const int8_t* b, dnnl_dim_t ldb, int8_t bo,
                                float beta, int32_t* c, dnnl_dim_t ldc, const int32_t* co) {
  using Fn = dnnl_status_t (*)(char, char, char, dnnl_dim_t, dnnl_dim_t, dnnl_dim_t, float, const int8_t*, dnnl_dim_t,
                               int8_t, const int8_t*, dnnl_dim_t, int8_t, float, int32_t*, dnnl_dim_t, const int32_t*);
  return CallLibrary<Fn>("dnnl_gemm_s8s8s32", ta, tb, offsetc, m, n, k, alpha, a, lda, ao, b, ldb, bo, beta, c, ldc,
                         co);
}
}  // extern "C"
#endif

namespace onyx {
namespace {

constexpr int kWarmupRuns = 2;
constexpr int kCountedRuns = 5;

// Turns every graph input but x into an initializer: small deterministic floats, or for int64 inputs (Slice
// bounds) 0 for "starts" and 16 for "ends".
void MakeWeights(ir::Model& model) {
  auto& inputs = model.graph.inputs;
  for (size_t i = inputs.size(); i-- > 0;) {
    if (inputs[i].name == "x") continue;
    const ir::TypeInfo& type = *inputs[i].type;
    Shape shape;
    for (const auto& d : *type.shape) shape.push_back(d.value);
    Tensor t = Tensor::Allocate(type.elem_type, shape);
    for (int64_t k = 0; k < t.size(); ++k) {
      if (type.elem_type == DataType::kInt64) {
        t.data<int64_t>()[k] = inputs[i].name == "starts" ? 0 : 16;
      } else {
        t.data<float>()[k] = inputs[i].name == "scale" ? 1.0f : 0.02f * static_cast<float>((k * 7) % 11) - 0.1f;
      }
    }
    ir::NamedTensor init;
    init.name = inputs[i].name;
    init.tensor = t;
    model.graph.initializers.push_back(std::move(init));
    inputs.erase(inputs.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

struct Counted {
  unsigned long long per_run_max = 0;  // the most allocations one counted run made
  unsigned long long own_max = 0;      // the most of them onyx made itself (not inside oneDNN)
  unsigned long long total = 0;
};

// Runs `text` (input "x" of `x_shape`, random values) kWarmupRuns times, then kCountedRuns times counting.
Counted CountRunAllocations(const std::string& text, const Shape& x_shape, int threads,
                            optimizer::OptLevel level = optimizer::OptLevel::kAll) {
  Counted counted;
  auto model = text::ParseModel(text);
  EXPECT_TRUE(model.ok()) << model.status().message();
  if (!model.ok()) return counted;
  MakeWeights(*model);
  SessionOptions options;
  options.intra_op_num_threads = threads;
  options.optimization_level = level;
  auto session = Session::Create(*model, options);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return counted;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Tensor x = Tensor::Allocate(DataType::kFloat, x_shape);
  for (int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = dist(rng);
  const std::vector<std::pair<std::string, Value>> feeds = {{"x", x}};
  // The outputs' tensors, allocated once from a first Run.
  std::vector<Value> first;
  Status st = (*session)->Run(feeds, {}, &first);
  EXPECT_TRUE(st.ok()) << st.message();
  if (!st.ok()) return counted;
  std::vector<Tensor> outs;
  for (const Value& v : first) outs.push_back(Tensor::Allocate(v.tensor().type(), v.tensor().shape()));
  for (int r = 0; r < kWarmupRuns; ++r) EXPECT_TRUE((*session)->RunInto(feeds, {}, outs).ok());
  for (int r = 0; r < kCountedRuns; ++r) {
    g_allocations.store(0);
    g_library_allocations.store(0);
    g_counting.store(true);
    st = (*session)->RunInto(feeds, {}, outs);
    g_counting.store(false);
    EXPECT_TRUE(st.ok()) << st.message();
    const unsigned long long n = g_allocations.load();
    counted.total += n;
    counted.per_run_max = std::max(counted.per_run_max, n);
    counted.own_max = std::max(counted.own_max, n - g_library_allocations.load());
  }
  // RunInto writes what Run returns.
  for (size_t o = 0; o < outs.size(); ++o) {
    const Tensor& want = first[o].tensor();
    EXPECT_EQ(outs[o].shape(), want.shape());
    for (int64_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(outs[o].data<float>()[i], want.data<float>()[i]) << "output " << o << " element " << i;
      if (outs[o].data<float>()[i] != want.data<float>()[i]) break;
    }
  }
  return counted;
}

// Elementwise operators and Softmax over equal shapes: kernels that allocate nothing but their outputs, so that
// any allocation left is the runtime's.
const char* kElementwiseModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4,32] x, float[4,32] w) => (float[4,32] y, float[4,32] z) {
  r = Relu(x)
  a = Add(r, w)
  s = Softmax<axis = -1>(a)
  m = Mul(s, x)
  t = Tanh(m)
  z = Sigmoid(t)
  y = Sub(z, a)
}
)";

// Elementwise, Softmax, LayerNormalization, MatMul and Gemm: kernels that allocate nothing but their outputs.
// Inputs other than x become initializers (MakeWeights).
const char* kDenseModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4,32] x, float[32,32] w, float[32] scale, float[32] bias, int64[1] starts, int64[1] ends)
    => (float[4,16] y, float[4,32] z) {
  h = MatMul(x, w)
  r = Relu(h)
  a = Add(r, x)
  n = LayerNormalization<axis = -1>(a, scale, bias)
  s = Softmax<axis = -1>(n)
  m = Mul(s, n)
  z = Sigmoid(m)
  g = Gemm<transB = 1>(z, w)
  y = Slice(g, starts, ends)
}
)";

// Conv, pooling (the blocked-layout convolution at level all on AVX-512 machines) and a channel Concat.
const char* kConvModel = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,16,14,14] x, float[16,16,3,3] w) => (float[1,32] y) {
  c1 = Conv<pads = [1,1,1,1]>(x, w)
  r1 = Relu(c1)
  c2 = Conv<pads = [1,1,1,1]>(r1, w)
  r2 = Relu(c2)
  p = MaxPool<kernel_shape = [2,2], strides = [2,2]>(r2)
  a = AveragePool<kernel_shape = [2,2], strides = [2,2]>(r1)
  k = Concat<axis = 1>(p, a)
  q = GlobalAveragePool(k)
  y = Flatten(q)
}
)";

bool HookActive() { return ONYX_ALLOC_HOOK != 0; }

TEST(SteadyStateAlloc, HookCountsAllocations) {
  if (!HookActive()) GTEST_SKIP() << "malloc is the sanitizer's here";
  // Through volatile pointers, so that the compiler cannot elide the allocations.
  void* (*volatile do_malloc)(size_t) = &std::malloc;
  void* (*volatile do_aligned_alloc)(size_t, size_t) = &std::aligned_alloc;
  g_allocations.store(0);
  g_counting.store(true);
  void* p = do_malloc(100);
  void* q = do_aligned_alloc(64, 128);
  std::string* volatile s = new std::string(100, 'x');
  g_counting.store(false);
  std::free(p);
  std::free(q);
  delete s;
  EXPECT_EQ(g_allocations.load(), 4u);  // malloc, aligned_alloc, new, the string's buffer
}

TEST(SteadyStateAlloc, ElementwiseModelMakesNoAllocationsPerRun) {
  if (!HookActive()) GTEST_SKIP() << "malloc is the sanitizer's here";
  for (int threads : {1, 2}) {
    const Counted c = CountRunAllocations(kElementwiseModel, {4, 32}, threads);
    std::printf("elementwise model, %d thread(s): %llu allocations per run at most\n", threads, c.per_run_max);
    EXPECT_EQ(c.per_run_max, 0u) << threads << " thread(s)";
  }
}

TEST(SteadyStateAlloc, DenseModelMakesNoAllocationsOfItsOwn) {
  // MatMul, Gemm, LayerNormalization and Slice keep what they derive from the input shapes; what is left is oneDNN's
  // sgemm (its packing buffers), which the ceiling bounds.
  if (!HookActive()) GTEST_SKIP() << "malloc is the sanitizer's here";
  for (int threads : {1, 2}) {
    const Counted c = CountRunAllocations(kDenseModel, {4, 32}, threads);
    std::printf("dense model, %d thread(s): %llu allocations per run at most, %llu of them onyx's\n", threads,
                c.per_run_max, c.own_max);
    EXPECT_EQ(c.own_max, 0u) << threads << " thread(s)";
    EXPECT_LE(c.per_run_max, 4u) << threads << " thread(s)";
  }
}

TEST(SteadyStateAlloc, ConvModelMakesNoAllocationsOfItsOwn) {
  // The blocked convolution, pooling and reorders keep their oneDNN arguments (kernels::DnnlArgs); oneDNN's
  // dnnl_primitive_execute still allocates its execution context inside (a few per primitive execution).
  if (!HookActive()) GTEST_SKIP() << "malloc is the sanitizer's here";
  for (int threads : {1, 2}) {
    const Counted c = CountRunAllocations(kConvModel, {1, 16, 14, 14}, threads);
    std::printf("conv model, %d thread(s): %llu allocations per run at most, %llu of them onyx's\n", threads,
                c.per_run_max, c.own_max);
    EXPECT_EQ(c.own_max, 0u) << threads << " thread(s)";
    EXPECT_LE(c.per_run_max, 36u) << threads << " thread(s)";
  }
}

// An attention block as exporters write it: Slice of a fused QKV product, Reshape and Transpose into heads, the
// scaled product and Softmax (fused into one attention kernel by the optimizer), back through Transpose and Reshape,
// a bias broadcast over the rows, LayerNormalization, then Gather and Flatten.
const char* kAttentionModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,8,32] x, float[32,96] wqkv, float[32] bias, float[32] scale) => (float[2,8,32] y, float[2,32] f) {
  heads = Constant<value = int64[4] {2, 8, 4, 8}>()
  back = Constant<value = int64[3] {2, 8, 32}>()
  s0 = Constant<value = int64[1] {0}>()
  s1 = Constant<value = int64[1] {32}>()
  s2 = Constant<value = int64[1] {64}>()
  s3 = Constant<value = int64[1] {96}>()
  axis = Constant<value = int64[1] {2}>()
  root = Constant<value = float {2.828427}>()
  row = Constant<value = int64 {3}>()
  qkv = MatMul(x, wqkv)
  q0 = Slice(qkv, s0, s1, axis)
  k0 = Slice(qkv, s1, s2, axis)
  v0 = Slice(qkv, s2, s3, axis)
  q1 = Reshape(q0, heads)
  k1 = Reshape(k0, heads)
  v1 = Reshape(v0, heads)
  q = Transpose<perm = [0, 2, 1, 3]>(q1)
  k = Transpose<perm = [0, 2, 3, 1]>(k1)
  v = Transpose<perm = [0, 2, 1, 3]>(v1)
  scores = MatMul(q, k)
  scaled = Div(scores, root)
  p = Softmax<axis = -1>(scaled)
  o = MatMul(p, v)
  ot = Transpose<perm = [0, 2, 1, 3]>(o)
  o2 = Reshape(ot, back)
  a = Add(o2, bias)
  y = LayerNormalization<axis = -1>(a, scale, bias)
  r = Gather<axis = 1>(y, row)
  f = Flatten<axis = 1>(r)
}
)";

TEST(SteadyStateAlloc, AttentionModelMakesNoAllocationsOfItsOwn) {
  if (!HookActive()) GTEST_SKIP() << "malloc is the sanitizer's here";
  for (const auto level : {optimizer::OptLevel::kAll, optimizer::OptLevel::kDisabled}) {
    for (int threads : {1, 2}) {
      const Counted c = CountRunAllocations(kAttentionModel, {2, 8, 32}, threads, level);
      std::printf("attention model (%s), %d thread(s): %llu allocations per run at most, %llu of them onyx's\n",
                  std::string(optimizer::OptLevelName(level)).c_str(), threads, c.per_run_max, c.own_max);
      EXPECT_EQ(c.own_max, 0u) << threads << " thread(s)";
      EXPECT_LE(c.per_run_max, 24u) << threads << " thread(s)";
    }
  }
}

// Split, Unsqueeze, Squeeze and Concat (a decoder's cache handling): plans kept per input shape, views of the input.
const char* kShapeOpsModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,8,32] x) => (float[2,8,48] y, float[2,8,16] z) {
  axes = Constant<value = int64[1] {0}>()
  halves = Constant<value = int64[2] {16, 16}>()
  a, b = Split<axis = 2>(x, halves)
  u = Unsqueeze(a, axes)
  s = Squeeze(u, axes)
  y = Concat<axis = 2>(s, b, a)
  z = Mul(b, s)
}
)";

TEST(SteadyStateAlloc, ShapeOpsModelMakesNoAllocations) {
  if (!HookActive()) GTEST_SKIP() << "malloc is the sanitizer's here";
  for (const auto level : {optimizer::OptLevel::kAll, optimizer::OptLevel::kDisabled}) {
    for (int threads : {1, 2}) {
      const Counted c = CountRunAllocations(kShapeOpsModel, {2, 8, 32}, threads, level);
      std::printf("shape-ops model (%s), %d thread(s): %llu allocations per run at most\n",
                  std::string(optimizer::OptLevelName(level)).c_str(), threads, c.per_run_max);
      EXPECT_EQ(c.per_run_max, 0u) << threads << " thread(s)";
    }
  }
}

}  // namespace
}  // namespace onyx
