// CumSum (11, 14) and CumProd (26): running sums and products along the axis given as the second input, with
// the `exclusive` (start from the identity, leave out the current element) and `reverse` attributes.
// Accumulation is sequential in the element's compute type (float for the 16-bit floats); integers wrap.
#include <algorithm>
#include <string>
#include <vector>

#include "ops/common/op_util.h"
#include "ops/common/parallel.h"
#include "ops/reduction/reduction_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {
namespace {

template <bool kProduct>
class CumulativeKernel final : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    exclusive_ = info.GetInt("exclusive", 0) != 0;
    reverse_ = info.GetInt("reverse", 0) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* axis_t, ctx.TensorInput(1));
    if (!IsInteger(axis_t->type()) || axis_t->rank() > 1 || axis_t->size() != 1) {
      return InvalidArgument("input 'axis' (1) must hold one integer (0-D, or 1-D of one element), got " +
                             std::string(DataTypeName(axis_t->type())) + " of shape " + ShapeToString(axis_t->shape()));
    }
    const int64_t rank = x->rank();
    const int64_t axis_value = axis_t->IntAt(0);
    if (axis_value < -rank || axis_value >= rank) {
      return InvalidArgument("input 'axis' (1) is " + std::to_string(axis_value) +
                             ", out of range for input 'x' of rank " + std::to_string(rank));
    }
    const reduction::AxisSplit s = reduction::SplitAt(x->shape(), axis_value < 0 ? axis_value + rank : axis_value);
    Tensor& out = ctx.AllocateOutput(0, x->type(), x->shape());
    return Dispatch<NumericTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = ComputeType<T>;
      const T* src = x->data<T>();
      T* dst = out.data<T>();
      if (s.inner > 1) {
        // Along a strided axis: each position's running value in a row of accumulators, the rows visited in memory
        // order (the same sums, in the same order per position, as the loop below; the inner loop vectorizes).
        ParallelFor(s.outer, s.n * s.inner, [&](int64_t o0, int64_t o1) {
          std::vector<C> acc(static_cast<size_t>(s.inner));
          for (int64_t o = o0; o < o1; ++o) {
            std::fill(acc.begin(), acc.end(), static_cast<C>(kProduct ? 1 : 0));
            for (int64_t k = 0; k < s.n; ++k) {
              const int64_t i = reverse_ ? s.n - 1 - k : k;
              const T* in = src + (o * s.n + i) * s.inner;
              T* o_row = dst + (o * s.n + i) * s.inner;
              for (int64_t j = 0; j < s.inner; ++j) {
                const C v = static_cast<C>(in[j]);
                C& a = acc[static_cast<size_t>(j)];
                if (exclusive_) o_row[j] = static_cast<T>(a);
                a = kProduct ? reduction::WrapMul(a, v) : reduction::WrapAdd(a, v);
                if (!exclusive_) o_row[j] = static_cast<T>(a);
              }
            }
          }
        });
        return Status::Ok();
      }
      for (int64_t o = 0; o < s.outer; ++o) {
        for (int64_t j = 0; j < s.inner; ++j) {
          const int64_t base = o * s.n * s.inner + j;
          C acc = static_cast<C>(kProduct ? 1 : 0);
          for (int64_t k = 0; k < s.n; ++k) {
            const int64_t i = reverse_ ? s.n - 1 - k : k;
            const int64_t at = base + i * s.inner;
            const C v = static_cast<C>(src[at]);
            if (exclusive_) dst[at] = static_cast<T>(acc);
            acc = kProduct ? reduction::WrapMul(acc, v) : reduction::WrapAdd(acc, v);
            if (!exclusive_) dst[at] = static_cast<T>(acc);
          }
        }
      }
      return Status::Ok();
    });
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

}  // namespace

void RegisterCumulativeOps(KernelRegistry& registry) {
  registry.Add("", "CumSum", 11, kLatestVersion, MakeFactory<CumulativeKernel<false>>());
  registry.Add("", "CumProd", 26, kLatestVersion, MakeFactory<CumulativeKernel<true>>());
}

}  // namespace onyx::ops
