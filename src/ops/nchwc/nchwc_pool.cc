// NchwcPool: MaxPool, AveragePool and their global forms on blocked float32 tensors [N, C/b, H, W, b], computed
// here b channels at a time (each window position one vector of the block). The padding channels stay zero (the
// pool of zeros).
//
// Why not oneDNN's pooling: on an AMD EPYC (AVX2) its jit:avx2 kernel took 0.76 ms for SqueezeNet's first 3x3
// stride-2 max pooling (64 x 111 x 111), ONNX Runtime's NCHWc kernel 0.16 ms; these loops are memory-bound like
// ORT's. NaN propagates through max (as in ONNX's reference), which vmaxps-based kernels may drop.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/nchwc_ops.h"
#include "kernels/cpu_isa.h"
#include "ops/common/parallel.h"
#include "ops/nchwc/nchwc_block.h"
#include "ops/nchwc/nchwc_ops.h"
#include "ops/nn/window.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::nchwc {
namespace {

enum class PoolMode { kMax, kAvgIncludePad, kAvgExcludePad };

// The portable rows (CPUs without AVX2): a pixel of a block is kBlock / 4 vectors of GCC's vector extension, 4 lanes
// (SSE, NEON: what every build has). x86 CPUs with AVX2 run the intrinsic rows of nchwc_pool_rows.inc instead.
using Vec4 = float __attribute__((vector_size(16)));
using Mask4 = int32_t __attribute__((vector_size(16)));

// The window of every output index along both axes (two integer divisions each: computed once per shape).
struct PoolGeometry {
  nn::WindowAxis h, w;
  std::vector<nn::IndexRange> h_taps, w_taps;
  bool full_3x3 = false;  // a 3x3 undilated window: the unrolled path for pixels whose window is whole
};

// Output rows [begin, end) (plane x H_out) of planes [H, W, kBlock] of x into [H_out, W_out, kBlock] of y: per output
// pixel, the window's valid taps, each a pixel of vectors of type V. Max keeps NaN: a window holding one gives NaN,
// as ONNX's reference does. Inlined into each instruction-set variant.
template <PoolMode kMode, int kBlock, typename V, typename M>
__attribute__((always_inline)) inline void PoolRows(const float* x, float* y, const PoolGeometry& g, int64_t begin,
                                                    int64_t end) {
  constexpr int kParts = kBlock * static_cast<int>(sizeof(float)) / static_cast<int>(sizeof(V));
  const nn::WindowAxis& ah = g.h;
  const nn::WindowAxis& aw = g.w;
  for (int64_t row = begin; row < end; ++row) {
    const int64_t plane = row / ah.out, oh = row % ah.out;
    const nn::IndexRange rh = g.h_taps[static_cast<size_t>(oh)];
    const float* in = x + (plane * ah.in + oh * ah.stride - ah.pad_begin) * aw.in * kBlock;
    float* out = y + (plane * ah.out + oh) * aw.out * kBlock;
    for (int64_t ow = 0; ow < aw.out; ++ow, out += kBlock) {
      const nn::IndexRange rw = g.w_taps[static_cast<size_t>(ow)];
      const int64_t w0 = ow * aw.stride - aw.pad_begin;
      V acc[kParts];
      M nan[kParts];
#pragma GCC unroll 4
      for (int p = 0; p < kParts; ++p) {
        // A window wholly in the padding gives the lowest float, as the plain kernel does.
        acc[p] = kMode == PoolMode::kMax ? V{} + std::numeric_limits<float>::lowest() : V{};
        nan[p] = M{};
      }
      auto tap = [&](const float* pixel) __attribute__((always_inline)) {
#pragma GCC unroll 4
        for (int p = 0; p < kParts; ++p) {
          V v;
          std::memcpy(&v, pixel + p * static_cast<int>(sizeof(V) / sizeof(float)), sizeof(V));
          if constexpr (kMode == PoolMode::kMax) {
            acc[p] = acc[p] > v ? acc[p] : v;
            nan[p] |= v != v;
          } else {
            acc[p] += v;
          }
        }
      };
      if (g.full_3x3 && rh.last - rh.first == 3 && rw.last - rw.first == 3) {
        // The common window (3x3, undilated) inside the image: constant trip counts, unrolled.
        const float* corner = in + w0 * kBlock;
#pragma GCC unroll 3
        for (int th = 0; th < 3; ++th) {
#pragma GCC unroll 3
          for (int tw = 0; tw < 3; ++tw) tap(corner + (th * aw.in + tw) * kBlock);
        }
      } else {
        for (int64_t th = rh.first; th < rh.last; ++th) {
          const float* in_row = in + th * ah.dilation * aw.in * kBlock;
          for (int64_t tw = rw.first; tw < rw.last; ++tw) tap(in_row + (w0 + tw * aw.dilation) * kBlock);
        }
      }
      float scale = 1.0f;
      if constexpr (kMode != PoolMode::kMax) {
        const int64_t count =
            kMode == PoolMode::kAvgIncludePad ? ah.kernel * aw.kernel : (rh.last - rh.first) * (rw.last - rw.first);
        scale = count > 0 ? 1.0f / static_cast<float>(count) : 0.0f;
      }
#pragma GCC unroll 4
      for (int p = 0; p < kParts; ++p) {
        V r = acc[p];
        if constexpr (kMode == PoolMode::kMax) {
          r = nan[p] != 0 ? V{} + std::numeric_limits<float>::quiet_NaN() : r;
        } else {
          r *= scale;
        }
        std::memcpy(out + p * static_cast<int>(sizeof(V) / sizeof(float)), &r, sizeof(V));
      }
    }
  }
}

template <PoolMode kMode, int kBlock>
void PoolRowsBaseline(const float* x, float* y, const PoolGeometry& g, int64_t begin, int64_t end) {
  PoolRows<kMode, kBlock, Vec4, Mask4>(x, y, g, begin, end);
}

#if defined(__x86_64__)
// The vector rows for AVX2 (a pixel of a block of 8 one register, of 16 two) and AVX-512 (a block of 16 one register),
// as intrinsics: max and a NaN mask per tap. GCC's generic vectors of PoolRows ran a block of 16 as two AVX2 halves;
// as one 64-byte generic vector it ran 6x slower (its helper lambda, outside a target region, split it into SSE
// pieces). AVX-512 on an Intel Xeon (Ice Lake), SqueezeNet's three max poolings: 0.42-0.45 -> 0.37-0.39 ms.
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2_pool {
struct V {
  using T = __m256;
  using M = __m256;  // all-ones lanes where a tap was NaN
  static constexpr int kLanes = 8;
  static T Set1(float f) { return _mm256_set1_ps(f); }
  static T Load(const float* p) { return _mm256_loadu_ps(p); }
  static void Store(float* p, T v) { _mm256_storeu_ps(p, v); }
  static T Max(T acc, T v) { return _mm256_max_ps(acc, v); }  // acc > v ? acc : v (v where either is NaN)
  static T Add(T a, T b) { return _mm256_add_ps(a, b); }
  static T Mul(T a, T b) { return _mm256_mul_ps(a, b); }
  static M NoNan() { return _mm256_setzero_ps(); }
  static M OrNan(M nan, T v) { return _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q)); }
  static T WithNan(T acc, M nan) {
    return _mm256_blendv_ps(acc, _mm256_set1_ps(std::numeric_limits<float>::quiet_NaN()), nan);
  }
};
#include "ops/nchwc/nchwc_pool_rows.inc"
}  // namespace avx2_pool
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
namespace avx512_pool {
struct V {
  using T = __m512;
  // The largest magnitude's bits among the taps (sign cleared): above infinity's where a tap was NaN. Two integer
  // operations per tap (AND, unsigned max), beside the float maxima; a compare into a mask register and a mask OR per
  // tap made SqueezeNet's first max pooling ~1.4x as slow as without any NaN check (Zen 5), this ~1.2x.
  using M = __m512i;
  static constexpr int kLanes = 16;
  static T Set1(float f) { return _mm512_set1_ps(f); }
  static T Load(const float* p) { return _mm512_loadu_ps(p); }
  static void Store(float* p, T v) { _mm512_storeu_ps(p, v); }
  static T Max(T acc, T v) { return _mm512_max_ps(acc, v); }  // acc > v ? acc : v (v where either is NaN)
  static T Add(T a, T b) { return _mm512_add_ps(a, b); }
  static T Mul(T a, T b) { return _mm512_mul_ps(a, b); }
  static M NoNan() { return _mm512_setzero_si512(); }
  static M OrNan(M nan, T v) {
    return _mm512_max_epu32(nan, _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7fffffff)));
  }
  static T WithNan(T acc, M nan) {
    return _mm512_mask_mov_ps(acc, _mm512_cmpgt_epi32_mask(nan, _mm512_set1_epi32(0x7f800000)),
                              _mm512_set1_ps(std::numeric_limits<float>::quiet_NaN()));
  }
};
#include "ops/nchwc/nchwc_pool_rows.inc"
}  // namespace avx512_pool
#pragma GCC pop_options
#endif

template <PoolMode kMode, int kBlock>
void PoolImages(const float* x, float* y, int64_t planes, const PoolGeometry& g) {
  auto rows = &PoolRowsBaseline<kMode, kBlock>;
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx2) rows = &avx2_pool::PoolRowsVector<kMode, kBlock>;
  // The blocked layout has 16 channels only where the effective ISA is AVX-512 (ONYX_MAX_ISA caps it).
  if constexpr (kBlock == 16) {
    if (kernels::EffectiveIsa() == kernels::Isa::kAvx512) rows = &avx512_pool::PoolRowsVector<kMode, kBlock>;
  }
#endif
  const int64_t work = g.w.out * g.h.kernel * g.w.kernel * kBlock;
  ParallelFor(planes * g.h.out, work, [&](int64_t begin, int64_t end) { rows(x, y, g, begin, end); });
}

template <PoolMode kMode>
void PoolImages(const float* x, float* y, int64_t planes, int64_t block, const PoolGeometry& g) {
  if (block == 16) {
    PoolImages<kMode, 16>(x, y, planes, g);
  } else {
    PoolImages<kMode, 8>(x, y, planes, g);
  }
}

class NchwcPoolKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(block_, ParseBlock(info));
    const std::string mode = info.GetString("mode");
    if (mode == "max" || mode == "global_max") {
      mode_ = PoolMode::kMax;
    } else if (mode == "avg") {
      mode_ = info.GetInt("count_include_pad", 0) != 0 ? PoolMode::kAvgIncludePad : PoolMode::kAvgExcludePad;
    } else if (mode == "global_avg") {
      mode_ = PoolMode::kAvgExcludePad;
    } else {
      return info.Error("unknown pooling mode '" + mode + "'");
    }
    global_ = mode.rfind("global_", 0) == 0;
    if (!global_) ONYX_RETURN_IF_ERROR(attrs_.Parse(info, true));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->type() != DataType::kFloat || x->rank() != 5 || x->dim(4) != block_) {
      return InvalidArgument("input 0 has shape " + ShapeToString(x->shape()) + ", expected a blocked float32 tensor");
    }
    std::shared_ptr<const Built> built;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (built_ == nullptr || built_->input_shape != x->shape()) {
        ONYX_ASSIGN_OR_RETURN(built_, Build(x->shape()));
      }
      built = built_;
    }
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, built->output_shape);
    if (y.size() == 0) return Status::Ok();
    // The threads split the channel blocks (PoolImages: ParallelFor's grain keeps tiny ones on one thread). Not
    // PrimitiveThreads' convolution threshold: a pooling reads its input once, and in a session of several threads
    // that input was just written by all of them, so one thread would fetch the other cores' share through their
    // caches. SqueezeNet's global pooling (170K reads) took 24 us on one thread of a 2-thread session and 11 on
    // both; MobileNet-v2's (63K) 12 and 7 us (Sapphire Rapids Xeon).
    const int64_t planes = x->dim(0) * x->dim(1);
    switch (mode_) {
      case PoolMode::kMax:
        PoolImages<PoolMode::kMax>(x->data<float>(), y.data<float>(), planes, block_, built->geometry);
        break;
      case PoolMode::kAvgIncludePad:
        PoolImages<PoolMode::kAvgIncludePad>(x->data<float>(), y.data<float>(), planes, block_, built->geometry);
        break;
      case PoolMode::kAvgExcludePad:
        PoolImages<PoolMode::kAvgExcludePad>(x->data<float>(), y.data<float>(), planes, block_, built->geometry);
        break;
    }
    return Status::Ok();
  }

 private:
  // The pooling of one input shape.
  struct Built {
    Shape input_shape;   // blocked [N, C/b, H, W, b]
    Shape output_shape;  // blocked
    PoolGeometry geometry;
  };

  Result<std::shared_ptr<const Built>> Build(const Shape& input_shape) const {
    auto built = std::make_shared<Built>();
    built->input_shape = input_shape;
    const Shape spatial{input_shape[2], input_shape[3]};
    std::vector<nn::WindowAxis> axes;
    if (global_) {
      for (int64_t d : spatial) axes.push_back(nn::WindowAxis{d, d, 1, 1, 0, 0, 1});
    } else {
      ONYX_ASSIGN_OR_RETURN(axes, nn::ResolveWindow(attrs_, spatial, {}));
      if (axes.size() != 2) return InvalidArgument("NchwcPool: expected a 2-D window");
    }
    PoolGeometry& g = built->geometry;
    g.h = axes[0];
    g.w = axes[1];
    for (int64_t o = 0; o < g.h.out; ++o) g.h_taps.push_back(nn::ValidTapRange(g.h, o));
    for (int64_t o = 0; o < g.w.out; ++o) g.w_taps.push_back(nn::ValidTapRange(g.w, o));
    g.full_3x3 = g.h.kernel == 3 && g.w.kernel == 3 && g.h.dilation == 1 && g.w.dilation == 1;
    built->output_shape = {input_shape[0], input_shape[1], axes[0].out, axes[1].out, block_};
    return std::shared_ptr<const Built>(std::move(built));
  }

  PoolMode mode_ = PoolMode::kMax;
  int block_ = ir::nchwc::kDefaultBlock;
  bool global_ = false;
  nn::WindowAttrs attrs_;
  std::mutex mutex_;  // guards built_
  std::shared_ptr<const Built> built_;
};

}  // namespace

void RegisterNchwcPool(KernelRegistry& registry) {
  registry.Add(ir::kInternalDomain, kPool, 1, 1, MakeFactory<NchwcPoolKernel>());
}

}  // namespace onyx::ops::nchwc
