// TopK, every version: k is an attribute in version 1 and the second input from 10; `largest` and `sorted`
// appear in 11. Equal values keep their order along the axis (the lower index first). A NaN ranks above every
// number (first for largest, last for smallest), which keeps the ordering total. The result is always sorted,
// which sorted=0 (order unspecified) allows.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "ops/common/float_rank.h"
#include "ops/common/op_util.h"
#include "ops/common/parallel.h"
#include "ops/reduction/reduction_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {
namespace {

// x ranks above y: NaN above everything else, then numeric order.
template <typename C>
bool RanksAbove(C x, C y) {
  const bool nx = reduction::IsNan(x);
  const bool ny = reduction::IsNan(y);
  if (nx || ny) return nx && !ny;
  return x > y;
}

class TopKKernel final : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    k_from_input_ = info.since_version() >= 10;
    if (!k_from_input_) {
      ONYX_ASSIGN_OR_RETURN(k_attr_, info.GetRequiredInt("k"));
      if (k_attr_ < 0) return info.Error("attribute 'k' is " + std::to_string(k_attr_) + ", expected >= 0");
    }
    axis_ = info.GetInt("axis", -1);
    largest_ = info.GetInt("largest", 1) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    int64_t k = k_attr_;
    if (k_from_input_) {
      ONYX_ASSIGN_OR_RETURN(const Tensor* k_t, ctx.TensorInput(1));
      if (!IsInteger(k_t->type()) || k_t->rank() > 1 || k_t->size() != 1) {
        return InvalidArgument("input 'K' (1) must hold one integer (1-D of one element), got " +
                               std::string(DataTypeName(k_t->type())) + " of shape " + ShapeToString(k_t->shape()));
      }
      k = k_t->IntAt(0);
    }
    const int64_t rank = x->rank();
    if (axis_ < -rank || axis_ >= rank) {
      return InvalidArgument("attribute 'axis' " + std::to_string(axis_) + " is out of range for input 'X' of rank " +
                             std::to_string(rank));
    }
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    const reduction::AxisSplit s = reduction::SplitAt(x->shape(), axis);
    if (k < 0 || k > s.n) {
      return InvalidArgument("k is " + std::to_string(k) + ", expected 0 <= k <= " + std::to_string(s.n) +
                             " (the size of axis " + std::to_string(axis) + " of input 'X' of shape " +
                             ShapeToString(x->shape()) + ")");
    }
    Shape out_shape = x->shape();
    out_shape[static_cast<size_t>(axis)] = k;
    Tensor& values = ctx.AllocateOutput(0, x->type(), out_shape);
    Tensor& indices = ctx.AllocateOutput(1, DataType::kInt64, out_shape);
    return Dispatch<NumericTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = ComputeType<T>;
      const T* src = x->data<T>();
      T* vdst = values.data<T>();
      int64_t* idst = indices.data<int64_t>();
      if constexpr (std::is_same_v<T, float>) {
        if (s.n <= int64_t{0xFFFFFFFF}) {
          TopKFloat(src, s, k, vdst, idst);
          return Status::Ok();
        }
      }
      std::vector<int64_t> order(static_cast<size_t>(s.n));
      for (int64_t o = 0; o < s.outer; ++o) {
        for (int64_t j = 0; j < s.inner; ++j) {
          const T* p = src + o * s.n * s.inner + j;
          auto key = [&](int64_t i) { return static_cast<C>(p[i * s.inner]); };
          auto before = [&](int64_t a, int64_t b) {
            const C ka = key(a);
            const C kb = key(b);
            if (largest_ ? RanksAbove(ka, kb) : RanksAbove(kb, ka)) return true;
            if (largest_ ? RanksAbove(kb, ka) : RanksAbove(ka, kb)) return false;
            return a < b;
          };
          std::iota(order.begin(), order.end(), int64_t{0});
          std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
          const int64_t out_base = o * k * s.inner + j;
          for (int64_t r = 0; r < k; ++r) {
            const int64_t i = order[static_cast<size_t>(r)];
            vdst[out_base + r * s.inner] = p[i * s.inner];
            idst[out_base + r * s.inner] = i;
          }
        }
      }
      return Status::Ok();
    });
  }

 private:
  // float32: each line (outer x inner) on the threads, its candidates as 64-bit ranks compared directly instead of
  // indices compared through their values (TopK of 5 over 64 rows of 1000: the comparisons were most of the time):
  // the value's bits in an order integers compare as RanksAbove does (NaN above +inf, -0 as +0; complemented for
  // smallest), then the lower index first.
  void TopKFloat(const float* src, const reduction::AxisSplit& s, int64_t k, float* vdst, int64_t* idst) const {
    const uint32_t flip = largest_ ? 0u : 0xFFFFFFFFu;
    auto rank = [flip](float v, int64_t i) {
      const uint32_t bits = v != v ? 0xFFFFFFFFu : OrderedFloatBits(v);  // NaN above +inf
      return RankOf(bits ^ flip, i);
    };
    ParallelFor(s.outer * s.inner, s.n * 4, [&](int64_t lo, int64_t hi) {
      thread_local std::vector<uint64_t> ranks;
      ranks.resize(static_cast<size_t>(s.n));
      for (int64_t line = lo; line < hi; ++line) {
        const int64_t o = line / s.inner, j = line % s.inner;
        const float* p = src + o * s.n * s.inner + j;
        for (int64_t i = 0; i < s.n; ++i) ranks[static_cast<size_t>(i)] = rank(p[i * s.inner], i);
        std::partial_sort(ranks.begin(), ranks.begin() + k, ranks.end(), std::greater<uint64_t>());
        const int64_t out_base = o * k * s.inner + j;
        for (int64_t r = 0; r < k; ++r) {
          const int64_t i = IndexOfRank(ranks[static_cast<size_t>(r)]);
          vdst[out_base + r * s.inner] = p[i * s.inner];
          idst[out_base + r * s.inner] = i;
        }
      }
    });
  }

  bool k_from_input_ = true;
  int64_t k_attr_ = 0;
  int64_t axis_ = -1;
  bool largest_ = true;
};

}  // namespace

void RegisterTopKOps(KernelRegistry& registry) {
  registry.Add("", "TopK", 1, kLatestVersion, MakeFactory<TopKKernel>());
}

}  // namespace onyx::ops
