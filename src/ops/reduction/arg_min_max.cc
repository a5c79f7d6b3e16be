// ArgMax and ArgMin, every version: int64 indices along `axis` (keepdims, and select_last_index from 12).
// A NaN counts as the extreme value for both, as numpy's argmax/argmin treat it: the first NaN wins (the last one
// with select_last_index).
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/vector_math.h"
#include "ops/common/op_util.h"
#include "ops/common/parallel.h"
#include "ops/reduction/reduction_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {
namespace {

using reduction::IsNan;

template <bool kMax>
class ArgExtremeKernel final : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    axis_ = info.GetInt("axis", 0);
    keepdims_ = info.GetInt("keepdims", 1) != 0;
    select_last_index_ = info.GetInt("select_last_index", 0) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
    auto axis_or = NormalizeAxis(axis_, data->rank());
    if (!axis_or.ok()) return axis_or.status().WithContext("attribute 'axis'");
    const int64_t axis = *axis_or;
    const reduction::AxisSplit s = reduction::SplitAt(data->shape(), axis);

    Shape out_shape;
    for (int64_t d = 0; d < data->rank(); ++d) {
      if (d != axis) {
        out_shape.push_back(data->dim(d));
      } else if (keepdims_) {
        out_shape.push_back(1);
      }
    }
    if (s.n == 0 && s.outer * s.inner > 0) {
      return InvalidArgument("input 'data' (0) of shape " + ShapeToString(data->shape()) +
                             " has no elements along axis " + std::to_string(axis) + ": there is no index to return");
    }
    Tensor& out = ctx.AllocateOutput(0, DataType::kInt64, out_shape);
    int64_t* dst = out.data<int64_t>();
    if (data->type() == DataType::kFloat && s.n > 0 && s.n < (int64_t{1} << 31)) {
      ArgFloat(data->data<float>(), s, dst);
      return Status::Ok();
    }
    return Dispatch<NumericTypes>(data->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = ComputeType<T>;
      const T* src = data->data<T>();
      for (int64_t o = 0; o < s.outer; ++o) {
        for (int64_t j = 0; j < s.inner; ++j) {
          const T* p = src + o * s.n * s.inner + j;
          int64_t best_i = 0;
          C best = static_cast<C>(p[0]);
          for (int64_t i = 1; i < s.n; ++i) {
            const C v = static_cast<C>(p[i * s.inner]);
            bool take;
            if (IsNan(best)) {
              take = select_last_index_ && IsNan(v);
            } else if (IsNan(v)) {
              take = true;
            } else if (select_last_index_) {
              take = kMax ? v >= best : v <= best;
            } else {
              take = kMax ? v > best : v < best;
            }
            if (take) {
              best = v;
              best_i = i;
            }
          }
          dst[o * s.inner + j] = best_i;
        }
      }
      return Status::Ok();
    });
  }

 private:
  // Float: along a contiguous axis, the extreme from vector_math's row reduction, then its first (last) index;
  // along a strided one, vector_math's column update: all positions of a plane in vectors, row after row (in memory
  // order, instead of a strided walk per position, and without a branch per element).
  void ArgFloat(const float* src, const reduction::AxisSplit& s, int64_t* dst) const {
    if (s.inner == 1) {
      ParallelFor(s.outer, s.n, [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o) {
          const float* p = src + o * s.n;
          const float m = kMax ? kernels::ReduceRowMax(p, s.n) : kernels::ReduceRowMin(p, s.n);
          auto matches = [&](float v) { return std::isnan(m) ? std::isnan(v) : v == m; };
          int64_t found = 0;
          if (select_last_index_) {
            for (int64_t i = s.n - 1; i >= 0; --i) {
              if (matches(p[i])) {
                found = i;
                break;
              }
            }
          } else {
            for (int64_t i = 0; i < s.n; ++i) {
              if (matches(p[i])) {
                found = i;
                break;
              }
            }
          }
          dst[o] = found;
        }
      });
      return;
    }
    for (int64_t o = 0; o < s.outer; ++o) {
      const float* plane = src + o * s.n * s.inner;
      ParallelFor(s.inner, s.n, [&](int64_t begin, int64_t end) {
        kernels::ArgExtremeColumns(plane + begin, s.n, s.inner, end - begin, kMax, select_last_index_,
                                   dst + o * s.inner + begin);
      });
    }
  }

  int64_t axis_ = 0;
  bool keepdims_ = true;
  bool select_last_index_ = false;
};

}  // namespace

void RegisterArgMinMaxOps(KernelRegistry& registry) {
  registry.Add("", "ArgMax", 1, kLatestVersion, MakeFactory<ArgExtremeKernel<true>>());
  registry.Add("", "ArgMin", 1, kLatestVersion, MakeFactory<ArgExtremeKernel<false>>());
}

}  // namespace onyx::ops
