// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp,
// ReduceSumSquare: every version. Axes are an attribute in old versions and an optional input in new ones
// (ReduceSum from 13, the others from 18), where noop_with_empty_axes also appears.
//
// A reduction over an empty set of values gives the operation's identity (0 for sums, 1 for products, -inf or
// the type's minimum for max, +inf or the maximum for min, -inf for the log-sums, NaN for a float mean).
// With noop_with_empty_axes and no axes the reduction runs over the empty set of axes: every output element
// reduces exactly one input element, so ReduceSum/Max/Min/Mean/Prod return the input and the composite ones
// apply their element-wise part (ReduceSumSquare gives x*x, ReduceL1 |x|, ReduceLogSum log x), as the
// function bodies of those operators do.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/ort_order_math.h"
#include "kernels/sgemm_ort_order.h"
#include "kernels/vector_math.h"
#include "ops/common/op_util.h"
#include "ops/common/parallel.h"
#include "ops/reduction/reduction_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {
namespace {

using reduction::CastFromDouble;
using reduction::IsNan;
using reduction::kIsFloat;

enum class ReduceKind { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

// The last step of the sum-based reductions on their sum of `count` terms, in the sum's type (double for onyx's own
// sums, float in ONNX Runtime's order): the mean divides, L2 takes the square root, LogSum the logarithm; the others
// keep the sum.
template <ReduceKind K, typename F>
F FinishSum(F sum, int64_t count) {
  if constexpr (K == ReduceKind::kMean) {
    return sum / static_cast<F>(count);  // 0/0 = NaN for an empty float mean
  } else if constexpr (K == ReduceKind::kL2) {
    return std::sqrt(sum);
  } else if constexpr (K == ReduceKind::kLogSum) {
    return std::log(sum);
  } else {
    return sum;
  }
}

// What one value adds to a sum: its square (SumSquare, L2), its magnitude (L1), or itself; computed in the value's
// own type (double for the general loop, float where ONNX Runtime's order is reproduced: Eigen's cwiseAbs2 /
// cwiseAbs, or its v * v and |v| per element).
template <ReduceKind K, typename V>
inline V SumTerm(V v) {
  if constexpr (K == ReduceKind::kSumSquare || K == ReduceKind::kL2) {
    return v * v;
  } else if constexpr (K == ReduceKind::kL1) {
    return std::fabs(v);
  } else {  // kSum, kMean, kLogSum
    return v;
  }
}

// Reduces `count` elements into one value; each(f) calls f(element) for every one of them, in order.
template <ReduceKind K, typename T, typename Each>
T ReduceOne(int64_t count, const Each& each) {
  if constexpr (K == ReduceKind::kMax || K == ReduceKind::kMin) {
    constexpr bool kMax = K == ReduceKind::kMax;
    if constexpr (std::is_same_v<T, bool>) {
      bool acc = !kMax;
      each([&](bool v) { acc = kMax ? (acc || v) : (acc && v); });
      return acc;
    } else {
      using C = ComputeType<T>;
      C acc;
      if constexpr (kIsFloat<T>) {
        acc = kMax ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::infinity();
      } else {
        acc = kMax ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max();
      }
      bool nan = false;  // NaN propagates, as numpy's maximum/minimum do
      each([&](T x) {
        const C v = static_cast<C>(x);
        if (IsNan(v)) nan = true;
        if (kMax ? v > acc : v < acc) acc = v;
      });
      if constexpr (kIsFloat<T>) {
        if (nan) return static_cast<T>(std::numeric_limits<C>::quiet_NaN());
      }
      return static_cast<T>(acc);
    }
  } else if constexpr (std::is_integral_v<T> &&
                       (K == ReduceKind::kSum || K == ReduceKind::kMean || K == ReduceKind::kProd ||
                        K == ReduceKind::kSumSquare || K == ReduceKind::kL1)) {
    // Integer sums and products wrap around like numpy's; unsigned 64-bit arithmetic gives exactly that after
    // the final narrowing, without signed-overflow undefined behaviour.
    uint64_t acc = K == ReduceKind::kProd ? 1 : 0;
    each([&](T v) {
      const uint64_t u = static_cast<uint64_t>(v);
      if constexpr (K == ReduceKind::kSum || K == ReduceKind::kMean) {
        acc += u;
      } else if constexpr (K == ReduceKind::kProd) {
        acc *= u;
      } else if constexpr (K == ReduceKind::kSumSquare) {
        acc += u * u;
      } else {  // kL1
        if constexpr (std::is_signed_v<T>) {
          acc += v < 0 ? uint64_t{0} - u : u;
        } else {
          acc += u;
        }
      }
    });
    if constexpr (K == ReduceKind::kMean) {
      if (count == 0) return T{0};
      if constexpr (std::is_signed_v<T>) {
        return static_cast<T>(static_cast<int64_t>(acc) / count);
      } else {
        return static_cast<T>(acc / static_cast<uint64_t>(count));
      }
    } else {
      return static_cast<T>(acc);
    }
  } else if constexpr (K == ReduceKind::kLogSumExp) {
    // Shifting by the (finite) maximum keeps exp from overflowing.
    double max = -std::numeric_limits<double>::infinity();
    each([&](T v) { max = std::max(max, ToDouble(v)); });
    const double shift = std::isfinite(max) ? max : 0.0;
    double sum = 0;
    each([&](T v) { sum += std::exp(ToDouble(v) - shift); });
    return CastFromDouble<T>(std::log(sum) + shift);
  } else {
    double acc = K == ReduceKind::kProd ? 1.0 : 0.0;
    each([&](T x) {
      const double v = ToDouble(x);
      if constexpr (K == ReduceKind::kProd) {
        acc *= v;
      } else {
        acc += SumTerm<K>(v);
      }
    });
    return CastFromDouble<T>(FinishSum<K>(acc, count));
  }
}

// Where a reduction reads and writes: the output shape, the kept dimensions (iterated in output order) and the
// reduced ones, each with their input strides. Blocks of moderate size get their element offsets listed once;
// larger ones (a full reduction of a big tensor) are walked dimension by dimension instead.
struct ReducePlan {
  Shape out_shape;
  Shape kept_shape;
  std::vector<int64_t> kept_strides;
  Shape reduced_shape;
  std::vector<int64_t> reduced_strides;
  int64_t reduced_count = 1;
  std::vector<int64_t> reduced_offsets;  // empty when the block is walked
};

constexpr int64_t kMaxListedOffsets = int64_t{1} << 16;

ReducePlan MakePlan(const Shape& in_shape, const std::vector<bool>& reduce, bool keepdims) {
  ReducePlan plan;
  const std::vector<int64_t> strides = RowMajorStrides(in_shape);
  for (size_t d = 0; d < in_shape.size(); ++d) {
    if (reduce[d]) {
      plan.reduced_shape.push_back(in_shape[d]);
      plan.reduced_strides.push_back(strides[d]);
      plan.reduced_count *= in_shape[d];
      if (keepdims) plan.out_shape.push_back(1);
    } else {
      plan.kept_shape.push_back(in_shape[d]);
      plan.kept_strides.push_back(strides[d]);
      plan.out_shape.push_back(in_shape[d]);
    }
  }
  if (plan.reduced_count <= kMaxListedOffsets) {
    const std::vector<int64_t> stride_list[1] = {plan.reduced_strides};
    plan.reduced_offsets.reserve(static_cast<size_t>(plan.reduced_count));
    ForEachStrided(plan.reduced_shape, stride_list,
                   [&](int64_t, const int64_t* off) { plan.reduced_offsets.push_back(off[0]); });
  }
  return plan;
}

template <ReduceKind K, typename T>
void RunReduce(const Tensor& in, const ReducePlan& plan, Tensor& out) {
  const T* src = in.data<T>();
  T* dst = out.data<T>();
  const bool listed = static_cast<int64_t>(plan.reduced_offsets.size()) == plan.reduced_count;
  const std::vector<int64_t> reduced_stride_list[1] = {plan.reduced_strides};
  const std::vector<int64_t> kept_stride_list[1] = {plan.kept_strides};
  ForEachStrided(plan.kept_shape, kept_stride_list, [&](int64_t i, const int64_t* kept_off) {
    const T* base = src + kept_off[0];
    auto each = [&](auto&& f) {
      if (listed) {
        for (int64_t o : plan.reduced_offsets) f(base[o]);
      } else {
        ForEachStrided(plan.reduced_shape, reduced_stride_list, [&](int64_t, const int64_t* off) { f(base[off[0]]); });
      }
    };
    dst[i] = ReduceOne<K, T>(plan.reduced_count, each);
  });
}

// ---- Float sums in ONNX Runtime's order (KernelInfo::ort_summation_order). ONNX Runtime merges runs of adjacent
// reduced (R) or kept (K) dims and picks a loop by the merged shape, the operator and its thread count
// (reduction_ops.cc). ReduceSum and ReduceMean: KR sums each contiguous row with Eigen's vectorized sum
// (kernels::OrtEigenSum); RK adds whole rows one after another; KRK is a 1 x K by K x N product with a row of ones
// (MLAS's SGEMM, kernels/sgemm_ort_order.h); RKR adds the Eigen sums of the row pieces one after another. Whatever
// it reduces entirely is one Eigen sum (of the squares for ReduceSumSquare/L2, of the magnitudes for L1); the rest
// (ReduceSumSquare, L1, L2 and LogSum on partial axes, more than three runs, RK/KRK/RKR below their size thresholds)
// goes through its generic loop: one element after another from 0, in row-major order. Then the mean divides by the
// float count, L2 takes the square root, LogSum the logarithm, all in float.

// A row starting `offset` floats into a tensor: Eigen's sum starts its packets at the next 16-byte boundary
// (ONNX Runtime's tensors are at least that aligned).
inline int64_t EigenAlignedStart(int64_t offset) { return (4 - offset % 4) % 4; }

template <ReduceKind K>
constexpr bool kOrtOrderFloat = K == ReduceKind::kSum || K == ReduceKind::kMean || K == ReduceKind::kSumSquare ||
                                K == ReduceKind::kL1 || K == ReduceKind::kL2 || K == ReduceKind::kLogSum;

template <ReduceKind K>
void ReduceFloatOrtOrder(const float* x, const Shape& in_shape, const std::vector<bool>& reduce, const ReducePlan& plan,
                         float* y) {
  static_assert(kOrtOrderFloat<K>);
  constexpr bool kFastLoops = K == ReduceKind::kSum || K == ReduceKind::kMean;  // ONNX Runtime's FastReduce* ones
  auto finish = [](float sum, int64_t count) { return FinishSum<K>(sum, count); };
  // Buffers of the calling thread, reused from run to run (steady-state runs allocate nothing).
  thread_local std::vector<int64_t> runs;  // merged dims, alternating R/K starting with reduce[0]
  thread_local std::vector<float> scratch;
  runs.clear();
  for (size_t d = 0; d < in_shape.size(); ++d) {
    if (d > 0 && reduce[d] == reduce[d - 1]) {
      runs.back() *= in_shape[d];
    } else {
      runs.push_back(in_shape[d]);
    }
  }
  const bool first_reduced = !reduce.empty() && reduce[0];
  const int64_t dop = std::max(omp_get_max_threads(), 1);
  const int64_t out_count = NumElements(plan.out_shape);
  if (runs.size() == 1 && first_reduced) {  // everything: one Eigen sum
    if constexpr (K == ReduceKind::kSum || K == ReduceKind::kMean || K == ReduceKind::kLogSum) {
      y[0] = finish(kernels::OrtEigenSum(x, runs[0], 0), runs[0]);
    } else {
      scratch.resize(static_cast<size_t>(runs[0]));
      for (size_t i = 0; i < scratch.size(); ++i) scratch[i] = SumTerm<K>(x[i]);
      y[0] = finish(kernels::OrtEigenSum(scratch.data(), runs[0], 0), runs[0]);
    }
    return;
  }
  if (kFastLoops && runs.size() == 2 && !first_reduced) {  // KR
    const int64_t n = runs[1];
    ParallelFor(runs[0], n, [&](int64_t lo, int64_t hi) {
      for (int64_t d = lo; d < hi; ++d) y[d] = finish(kernels::OrtEigenSum(x + d * n, n, EigenAlignedStart(d * n)), n);
    });
    return;
  }
  if (kFastLoops && runs.size() == 2 && runs[0] > dop * 16 && std::max(runs[0], runs[1]) > dop * 256) {  // RK
    const int64_t rows = runs[0], n = runs[1];
    std::copy(x, x + n, y);
    for (int64_t r = 1; r < rows; ++r) {
      for (int64_t j = 0; j < n; ++j) y[j] += x[r * n + j];
    }
    if constexpr (K == ReduceKind::kMean) {
      for (int64_t j = 0; j < n; ++j) y[j] /= static_cast<float>(rows);
    }
    return;
  }
  if (kFastLoops && runs.size() == 3 && !first_reduced && runs[0] >= std::max<int64_t>(2, dop)) {  // KRK
    const int64_t k = runs[1], n = runs[2];
    scratch.assign(static_cast<size_t>(k), 1.0f);
    for (int64_t d = 0; d < runs[0]; ++d) {
      kernels::SgemmOrtOrder(false, false, 1, n, k, 1.0f, scratch.data(), k, x + d * k * n, n, 0.0f, y + d * n, n);
    }
    if constexpr (K == ReduceKind::kMean) {
      for (int64_t i = 0; i < out_count; ++i) y[i] /= static_cast<float>(k);
    }
    return;
  }
  if (kFastLoops && runs.size() == 3 && first_reduced && runs[1] >= std::max<int64_t>(2, dop)) {  // RKR
    const int64_t d0 = runs[0], d1 = runs[1], d2 = runs[2];
    for (int64_t d = 0; d < d1; ++d) {
      float sum = 0.0f;
      for (int64_t i = 0; i < d0; ++i) {
        const int64_t offset = i * d1 * d2 + d * d2;
        sum += kernels::OrtEigenSum(x + offset, d2, EigenAlignedStart(offset));
      }
      y[d] = finish(sum, d0 * d2);
    }
    return;
  }
  // ONNX Runtime's generic loop: one element after another, in row-major order, from 0.
  const bool listed = static_cast<int64_t>(plan.reduced_offsets.size()) == plan.reduced_count;
  const std::vector<int64_t> reduced_stride_list[1] = {plan.reduced_strides};
  const std::vector<int64_t> kept_stride_list[1] = {plan.kept_strides};
  ForEachStrided(plan.kept_shape, kept_stride_list, [&](int64_t i, const int64_t* kept_off) {
    const float* base = x + kept_off[0];
    float sum = 0.0f;
    if (listed) {
      for (int64_t o : plan.reduced_offsets) sum += SumTerm<K>(base[o]);
    } else {
      ForEachStrided(plan.reduced_shape, reduced_stride_list,
                     [&](int64_t, const int64_t* off) { sum += SumTerm<K>(base[off[0]]); });
    }
    y[i] = finish(sum, plan.reduced_count);
  });
}

// Float reductions over trailing axes (every reduced axis after every kept one: a last axis, the spatial axes of
// NCHW, everything): each output reduces one contiguous row, through vector_math's row reductions, rows spread over
// the threads. The results are those of ReduceOne (max and min exactly; sums in double, to double rounding).
template <ReduceKind K>
bool ReduceTrailingFloat(const Tensor& in, const std::vector<bool>& reduce, const ReducePlan& plan, Tensor& out) {
  if constexpr (K == ReduceKind::kProd) {
    return false;
  } else {
    if (in.type() != DataType::kFloat || plan.reduced_count == 0) return false;
    bool seen_reduced = false;
    for (bool r : reduce) {
      if (seen_reduced && !r) return false;
      seen_reduced = seen_reduced || r;
    }
    const int64_t n = plan.reduced_count, rows = out.size();
    const float* x = in.data<float>();
    float* y = out.data<float>();
    ParallelFor(rows, n, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const float* row = x + r * n;
        if constexpr (K == ReduceKind::kMax) {
          y[r] = kernels::ReduceRowMax(row, n);
        } else if constexpr (K == ReduceKind::kMin) {
          y[r] = kernels::ReduceRowMin(row, n);
        } else if constexpr (K == ReduceKind::kLogSumExp) {
          const float max = kernels::ReduceRowMax(row, n);
          const float shift = std::isfinite(max) ? max : 0.0f;
          y[r] = CastFromDouble<float>(std::log(kernels::ReduceRowSumExp(row, n, shift)) + shift);
        } else {
          double acc;
          if constexpr (K == ReduceKind::kSumSquare || K == ReduceKind::kL2) {
            acc = kernels::ReduceRowSumSquares(row, n);
          } else if constexpr (K == ReduceKind::kL1) {
            acc = kernels::ReduceRowSumAbs(row, n);
          } else {
            acc = kernels::ReduceRowSum(row, n);
          }
          y[r] = CastFromDouble<float>(FinishSum<K>(acc, n));
        }
      }
    });
    return true;
  }
}

// Float reductions over one run of middle axes ([outer, R, inner] with inner > 1: channels of NCHW, the sequence of
// [B, S, D]): each output column accumulates the R rows in order, columns in chunks over the threads. Max and Min
// through vector_math's pairwise kernels (NaN wins, as ReduceRowMax); sums in double per column, as the generic
// loop adds them (the same bits). LogSumExp and Prod stay generic.
template <ReduceKind K>
bool ReduceMiddleFloat(const Tensor& in, const std::vector<bool>& reduce, const ReducePlan& plan, Tensor& out) {
  if constexpr (K == ReduceKind::kProd || K == ReduceKind::kLogSumExp) {
    return false;
  } else {
    if (in.type() != DataType::kFloat || plan.reduced_count == 0 || out.size() == 0) return false;
    // The reduced axes: one contiguous run with kept axes after it.
    const auto first = std::find(reduce.begin(), reduce.end(), true);
    const auto last = std::find(first, reduce.end(), false);
    if (first == reduce.end() || last == reduce.end() || std::find(last, reduce.end(), true) != reduce.end()) {
      return false;
    }
    const Shape& shape = in.shape();
    int64_t outer = 1, inner = 1;
    for (auto it = reduce.begin(); it != first; ++it) outer *= shape[static_cast<size_t>(it - reduce.begin())];
    for (auto it = last; it != reduce.end(); ++it) inner *= shape[static_cast<size_t>(it - reduce.begin())];
    const int64_t r_count = plan.reduced_count;
    if (inner <= 1) return false;
    const float* x = in.data<float>();
    float* y = out.data<float>();
    constexpr int64_t kChunk = 1024;  // columns per task: the accumulators stay in L1
    const int64_t chunks = (inner + kChunk - 1) / kChunk;
    ParallelFor(outer * chunks, kChunk * r_count, [&](int64_t begin, int64_t end) {
      thread_local std::vector<double> sums;
      for (int64_t task = begin; task < end; ++task) {
        const int64_t o = task / chunks, j0 = task % chunks * kChunk, cols = std::min(kChunk, inner - j0);
        const float* block = x + o * r_count * inner + j0;
        float* dst = y + o * inner + j0;
        if constexpr (K == ReduceKind::kMax || K == ReduceKind::kMin) {
          std::copy_n(block, cols, dst);
          for (int64_t r = 1; r < r_count; ++r) {
            if constexpr (K == ReduceKind::kMax) {
              kernels::MaxPair(dst, block + r * inner, dst, cols);
            } else {
              kernels::MinPair(dst, block + r * inner, dst, cols);
            }
          }
          for (int64_t j = 0; j < cols; ++j) {  // the generic loop's NaN (the pairs keep an operand's)
            if (std::isnan(dst[j])) dst[j] = std::numeric_limits<float>::quiet_NaN();
          }
        } else {
          sums.assign(static_cast<size_t>(cols), 0.0);
          double* acc = sums.data();
          for (int64_t r = 0; r < r_count; ++r) {
            const float* row = block + r * inner;
            for (int64_t j = 0; j < cols; ++j) acc[j] += SumTerm<K>(static_cast<double>(row[j]));
          }
          for (int64_t j = 0; j < cols; ++j) dst[j] = CastFromDouble<float>(FinishSum<K>(acc[j], r_count));
        }
      }
    });
    return true;
  }
}

constexpr const char* KindName(ReduceKind k) {
  switch (k) {
    case ReduceKind::kSum:
      return "ReduceSum";
    case ReduceKind::kMean:
      return "ReduceMean";
    case ReduceKind::kMax:
      return "ReduceMax";
    case ReduceKind::kMin:
      return "ReduceMin";
    case ReduceKind::kProd:
      return "ReduceProd";
    case ReduceKind::kL1:
      return "ReduceL1";
    case ReduceKind::kL2:
      return "ReduceL2";
    case ReduceKind::kLogSum:
      return "ReduceLogSum";
    case ReduceKind::kLogSumExp:
      return "ReduceLogSumExp";
    case ReduceKind::kSumSquare:
      return "ReduceSumSquare";
  }
  return "";
}

// The version from which axes come as an input instead of an attribute.
constexpr int AxesInputVersion(ReduceKind k) { return k == ReduceKind::kSum ? 13 : 18; }

template <ReduceKind K>
class ReduceKernel final : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ort_order_ = info.ort_summation_order();
    axes_from_input_ = info.since_version() >= AxesInputVersion(K);
    keepdims_ = info.GetInt("keepdims", 1) != 0;
    if (axes_from_input_) {
      if (info.HasAttribute("axes")) {
        return info.Error("attribute 'axes' is not allowed from version " + std::to_string(AxesInputVersion(K)) +
                          " (axes is the second input)");
      }
      noop_with_empty_axes_ = info.GetInt("noop_with_empty_axes", 0) != 0;
    } else {
      axes_attr_ = info.GetInts("axes");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
    const int64_t rank = data->rank();

    std::vector<int64_t> axes = axes_attr_;
    const char* axes_source = "attribute 'axes'";
    if (axes_from_input_ && ctx.has_input(1)) {
      ONYX_ASSIGN_OR_RETURN(const Tensor* axes_tensor, ctx.TensorInput(1));
      axes_source = "input 'axes' (1)";
      if (!IsInteger(axes_tensor->type()) || axes_tensor->rank() > 1) {
        return InvalidArgument(std::string(axes_source) + " must be a 0-D or 1-D integer tensor, got " +
                               std::string(DataTypeName(axes_tensor->type())) + " of shape " +
                               ShapeToString(axes_tensor->shape()));
      }
      axes = axes_tensor->ToInt64Vector();
    }

    std::vector<bool> reduce(static_cast<size_t>(rank), false);
    if (axes.empty()) {
      if (!(axes_from_input_ && noop_with_empty_axes_)) reduce.assign(reduce.size(), true);
    } else {
      auto normalized = NormalizeAxes(axes, rank);
      if (!normalized.ok()) return normalized.status().WithContext(axes_source);
      for (int64_t a : *normalized) reduce[static_cast<size_t>(a)] = true;
    }

    const ReducePlan plan = MakePlan(data->shape(), reduce, keepdims_);
    Tensor& out = ctx.AllocateOutput(0, data->type(), plan.out_shape);
    if constexpr (kOrtOrderFloat<K>) {
      // Empty reductions keep the generic path (ONNX Runtime fills their identity too).
      const bool reduces = std::find(reduce.begin(), reduce.end(), true) != reduce.end();
      if (ort_order_ && reduces && data->type() == DataType::kFloat && plan.reduced_count > 0 && out.size() > 0 &&
          plan.reduced_count * out.size() == data->size()) {
        ReduceFloatOrtOrder<K>(data->data<float>(), data->shape(), reduce, plan, out.data<float>());
        return Status::Ok();
      }
    }
    if (ReduceTrailingFloat<K>(*data, reduce, plan, out)) return Status::Ok();
    if (ReduceMiddleFloat<K>(*data, reduce, plan, out)) return Status::Ok();
    if constexpr (K == ReduceKind::kMax || K == ReduceKind::kMin) {
      return Dispatch<AllFixedTypes>(data->type(), [&](auto tag) {
        RunReduce<K, typename decltype(tag)::type>(*data, plan, out);
        return Status::Ok();
      });
    } else {
      return Dispatch<NumericTypes>(data->type(), [&](auto tag) {
        RunReduce<K, typename decltype(tag)::type>(*data, plan, out);
        return Status::Ok();
      });
    }
  }

 private:
  bool ort_order_ = false;  // float sums and means in ONNX Runtime's order (KernelInfo::ort_summation_order)
  bool axes_from_input_ = false;
  bool keepdims_ = true;
  bool noop_with_empty_axes_ = false;
  std::vector<int64_t> axes_attr_;
};

template <ReduceKind K>
void AddReduce(KernelRegistry& registry) {
  registry.Add("", KindName(K), 1, kLatestVersion, MakeFactory<ReduceKernel<K>>());
}

}  // namespace

void RegisterReduceOps(KernelRegistry& registry) {
  AddReduce<ReduceKind::kSum>(registry);
  AddReduce<ReduceKind::kMean>(registry);
  AddReduce<ReduceKind::kMax>(registry);
  AddReduce<ReduceKind::kMin>(registry);
  AddReduce<ReduceKind::kProd>(registry);
  AddReduce<ReduceKind::kL1>(registry);
  AddReduce<ReduceKind::kL2>(registry);
  AddReduce<ReduceKind::kLogSum>(registry);
  AddReduce<ReduceKind::kLogSumExp>(registry);
  AddReduce<ReduceKind::kSumSquare>(registry);
}

}  // namespace onyx::ops
