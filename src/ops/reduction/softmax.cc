// Softmax, LogSoftmax and Hardmax, every version. Before version 13 the input is coerced to 2-D at `axis`
// (default 1) and the operation runs over each row [prod(dims[:axis]), prod(dims[axis:])]; from 13 it runs
// along the single dimension `axis` (default -1).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/ort_order_math.h"
#include "kernels/vector_math.h"
#include "ops/common/op_util.h"
#include "ops/common/parallel.h"
#include "ops/reduction/reduction_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {
namespace {

enum class SoftmaxKind { kSoftmax, kLogSoftmax, kHardmax };

constexpr const char* KindName(SoftmaxKind k) {
  switch (k) {
    case SoftmaxKind::kSoftmax:
      return "Softmax";
    case SoftmaxKind::kLogSoftmax:
      return "LogSoftmax";
    case SoftmaxKind::kHardmax:
      return "Hardmax";
  }
  return "";
}

// Applies the operation to the n values p[0], p[stride], ... p[(n-1)*stride].
template <SoftmaxKind K, typename T>
void ApplyOne(const T* p, T* q, int64_t n, int64_t stride) {
  if (n == 0) return;
  if constexpr (K == SoftmaxKind::kHardmax) {
    // The first maximum wins; a NaN counts as the maximum (as numpy's argmax has it).
    int64_t best_i = 0;
    double best = ToDouble(p[0]);
    for (int64_t i = 1; i < n && !std::isnan(best); ++i) {
      const double v = ToDouble(p[i * stride]);
      if (std::isnan(v) || v > best) {
        best = v;
        best_i = i;
      }
    }
    for (int64_t i = 0; i < n; ++i) q[i * stride] = FromDouble<T>(i == best_i ? 1.0 : 0.0);
  } else {
    double max = -std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < n; ++i) {
      const double v = ToDouble(p[i * stride]);
      if (std::isnan(v) || v > max) max = v;
      if (std::isnan(max)) break;
    }
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += std::exp(ToDouble(p[i * stride]) - max);
    if constexpr (K == SoftmaxKind::kSoftmax) {
      for (int64_t i = 0; i < n; ++i) q[i * stride] = FromDouble<T>(std::exp(ToDouble(p[i * stride]) - max) / sum);
    } else {
      const double log_sum = std::log(sum);
      for (int64_t i = 0; i < n; ++i) q[i * stride] = FromDouble<T>(ToDouble(p[i * stride]) - max - log_sum);
    }
  }
}

// One float row in ONNX Runtime's order (MlasComputeSoftmax, kernels/ort_order_math.h): rows along a strided axis
// are gathered first, as ONNX Runtime transposes that axis last before computing.
template <SoftmaxKind K>
void ApplyOrtOrder(const float* p, float* q, int64_t n, int64_t stride, kernels::MlasFlavor flavor) {
  auto row = [&](const float* in, float* out) {
    if constexpr (K == SoftmaxKind::kSoftmax) {
      kernels::OrtSoftmaxRow(in, out, n, flavor);
    } else {
      kernels::OrtLogSoftmaxRow(in, out, n, flavor);
    }
  };
  if (stride == 1) {
    row(p, q);
    return;
  }
  thread_local std::vector<float> buffer;  // reused from run to run
  buffer.resize(static_cast<size_t>(2 * n));
  for (int64_t i = 0; i < n; ++i) buffer[static_cast<size_t>(i)] = p[i * stride];
  row(buffer.data(), buffer.data() + n);
  for (int64_t i = 0; i < n; ++i) q[i * stride] = buffer[static_cast<size_t>(n + i)];
}

template <SoftmaxKind K>
class SoftmaxKernel final : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ort_order_ = info.ort_summation_order();
    coerce_2d_ = info.since_version() < 13;
    axis_ = info.GetInt("axis", coerce_2d_ ? 1 : -1);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    const int64_t rank = x->rank();
    reduction::AxisSplit s;
    if (coerce_2d_) {
      // Coercion accepts axis == rank too (every row then has one element).
      const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
      if (axis < 0 || axis > rank) {
        return InvalidArgument("attribute 'axis' " + std::to_string(axis_) + " is out of range for input of rank " +
                               std::to_string(rank));
      }
      s = reduction::SplitCoerced2D(x->shape(), axis);
    } else {
      if (axis_ < -rank || axis_ >= rank) {
        return InvalidArgument("attribute 'axis' " + std::to_string(axis_) + " is out of range for input of rank " +
                               std::to_string(rank));
      }
      s = reduction::SplitAt(x->shape(), axis_ < 0 ? axis_ + rank : axis_);
    }
    Tensor& out = ctx.AllocateOutput(0, x->type(), x->shape());
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = x->data<T>();
      T* dst = out.data<T>();
      if constexpr (K != SoftmaxKind::kHardmax && std::is_same_v<T, float>) {
        if (!ort_order_ && s.inner > 1 && s.n > 0) {
          // Along a strided axis (a segmentation map's classes): blocks of kBlock neighbouring rows are gathered
          // into contiguous rows (each cache line of the planes serves the whole block), through the row kernels
          // above, and scattered back; blocks over the threads.
          constexpr int64_t kBlock = 16;
          const int64_t blocks_per_outer = (s.inner + kBlock - 1) / kBlock;
          ParallelFor(s.outer * blocks_per_outer, s.n * kBlock * 8, [&](int64_t lo, int64_t hi) {
            std::vector<float> rows(static_cast<size_t>(kBlock * s.n));
            for (int64_t b = lo; b < hi; ++b) {
              const int64_t o = b / blocks_per_outer, j0 = b % blocks_per_outer * kBlock;
              const int64_t count = std::min(kBlock, s.inner - j0);
              const float* in = src + o * s.n * s.inner + j0;
              float* out_block = dst + o * s.n * s.inner + j0;
              for (int64_t i = 0; i < s.n; ++i) {
                for (int64_t jj = 0; jj < count; ++jj) rows[static_cast<size_t>(jj * s.n + i)] = in[i * s.inner + jj];
              }
              for (int64_t jj = 0; jj < count; ++jj) {
                float* row = rows.data() + jj * s.n;
                if constexpr (K == SoftmaxKind::kSoftmax) {
                  kernels::SoftmaxRow(row, row, s.n);
                } else {
                  kernels::LogSoftmaxRow(row, row, s.n);
                }
              }
              for (int64_t i = 0; i < s.n; ++i) {
                for (int64_t jj = 0; jj < count; ++jj)
                  out_block[i * s.inner + jj] = rows[static_cast<size_t>(jj * s.n + i)];
              }
            }
          });
          return Status::Ok();
        }
      }
      // Rows are independent: split them across threads.
      ParallelFor(s.outer * s.inner, s.n * 8, [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) {
          const int64_t o = r / s.inner;
          const int64_t j = r % s.inner;
          const int64_t base = o * s.n * s.inner + j;
          // Contiguous float rows (the usual last axis, attention scores): the vectorized row kernels, which give
          // the same all-NaN rows as ApplyOne when the maximum is not finite.
          if constexpr (K != SoftmaxKind::kHardmax && std::is_same_v<T, float>) {
            if (ort_order_) {
              ApplyOrtOrder<K>(src + base, dst + base, s.n, s.inner, kernels::OrtMlasFlavor());
              continue;
            }
            if (s.inner == 1) {
              if constexpr (K == SoftmaxKind::kSoftmax) {
                kernels::SoftmaxRow(src + base, dst + base, s.n);
              } else {
                kernels::LogSoftmaxRow(src + base, dst + base, s.n);
              }
              continue;
            }
          }
          ApplyOne<K, T>(src + base, dst + base, s.n, s.inner);
        }
      });
      return Status::Ok();
    });
  }

 private:
  bool ort_order_ = false;  // float rows exactly as ONNX Runtime computes them (KernelInfo::ort_summation_order)
  bool coerce_2d_ = false;
  int64_t axis_ = -1;
};

template <SoftmaxKind K>
void AddSoftmax(KernelRegistry& registry) {
  registry.Add("", KindName(K), 1, kLatestVersion, MakeFactory<SoftmaxKernel<K>>());
}

}  // namespace

void RegisterSoftmaxOps(KernelRegistry& registry) {
  AddSoftmax<SoftmaxKind::kSoftmax>(registry);
  AddSoftmax<SoftmaxKind::kLogSoftmax>(registry);
  AddSoftmax<SoftmaxKind::kHardmax>(registry);
}

}  // namespace onyx::ops
