// Unique: the distinct elements (or slices along an axis) of X, sorted or in order of first occurrence, with
// first-occurrence indices, inverse indices and counts. NaNs compare equal to each other and after all numbers.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops/common/op_util.h"
#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::movement {
namespace {

// -1, 0 or 1, a total order (NaN last, NaN == NaN).
template <typename T>
int Compare(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, std::string> || std::is_integral_v<T>) {
    return a < b ? -1 : (b < a ? 1 : 0);
  } else {
    const auto x = static_cast<ComputeType<T>>(a), y = static_cast<ComputeType<T>>(b);
    const bool xn = std::isnan(x), yn = std::isnan(y);
    if (xn || yn) return xn == yn ? 0 : (xn ? 1 : -1);
    return x < y ? -1 : (y < x ? 1 : 0);
  }
}

class UniqueKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    sorted_ = info.GetInt("sorted", 1) != 0;
    has_axis_ = info.HasAttribute("axis");
    axis_ = info.GetInt("axis", 0);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    // Items are slices X[outer, item, inner]; without an axis, the elements of the flattened X.
    Shape view = has_axis_ ? x->shape() : Shape{x->size()};
    size_t ax = 0;
    if (has_axis_) {
      if (x->rank() == 0) return InvalidArgument("input 'X' (0) is a scalar; an axis cannot be given");
      ONYX_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(axis_, x->rank()));
      ax = static_cast<size_t>(a);
    }
    const int64_t outer = DimProduct(view, 0, ax), n = view[ax], inner = DimProduct(view, ax + 1, view.size());
    return Dispatch<AllTypes>(x->type(), [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      const T* in = x->data<T>();
      auto compare_items = [&](int64_t a, int64_t b) {
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t i = 0; i < inner; ++i) {
            const int c = Compare(in[(o * n + a) * inner + i], in[(o * n + b) * inner + i]);
            if (c != 0) return c;
          }
        }
        return 0;
      };
      std::vector<int64_t> order(static_cast<size_t>(n));
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return compare_items(a, b) < 0; });
      // Groups of equal items in sorted order; each group's first member is its first occurrence.
      std::vector<int64_t> first, counts;
      std::vector<int64_t> group_of(static_cast<size_t>(n));
      for (size_t i = 0; i < order.size(); ++i) {
        if (i == 0 || compare_items(order[i - 1], order[i]) != 0) {
          first.push_back(order[i]);
          counts.push_back(0);
        }
        ++counts.back();
        group_of[static_cast<size_t>(order[i])] = static_cast<int64_t>(first.size()) - 1;
      }
      const int64_t u = static_cast<int64_t>(first.size());
      std::vector<int64_t> rank_of(static_cast<size_t>(u));  // output position of each group
      std::vector<int64_t> groups(static_cast<size_t>(u));
      std::iota(groups.begin(), groups.end(), 0);
      if (!sorted_) {
        std::sort(groups.begin(), groups.end(),
                  [&](int64_t a, int64_t b) { return first[static_cast<size_t>(a)] < first[static_cast<size_t>(b)]; });
      }
      for (int64_t p = 0; p < u; ++p) rank_of[static_cast<size_t>(groups[static_cast<size_t>(p)])] = p;

      Shape y_shape = view;
      y_shape[ax] = u;
      Tensor& y = ctx.AllocateOutput(0, x->type(), y_shape);
      T* yo = y.data<T>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t p = 0; p < u; ++p) {
          const int64_t src = first[static_cast<size_t>(groups[static_cast<size_t>(p)])];
          for (int64_t i = 0; i < inner; ++i) yo[(o * u + p) * inner + i] = in[(o * n + src) * inner + i];
        }
      }
      if (ctx.num_outputs() > 1) {
        int64_t* idx = ctx.AllocateOutput(1, DataType::kInt64, {u}).data<int64_t>();
        for (int64_t p = 0; p < u; ++p) idx[p] = first[static_cast<size_t>(groups[static_cast<size_t>(p)])];
      }
      if (ctx.num_outputs() > 2) {
        int64_t* inv = ctx.AllocateOutput(2, DataType::kInt64, {n}).data<int64_t>();
        for (int64_t j = 0; j < n; ++j) inv[j] = rank_of[static_cast<size_t>(group_of[static_cast<size_t>(j)])];
      }
      if (ctx.num_outputs() > 3) {
        int64_t* cnt = ctx.AllocateOutput(3, DataType::kInt64, {u}).data<int64_t>();
        for (int64_t p = 0; p < u; ++p) cnt[p] = counts[static_cast<size_t>(groups[static_cast<size_t>(p)])];
      }
      return Status::Ok();
    });
  }

 private:
  bool sorted_ = true;
  bool has_axis_ = false;
  int64_t axis_ = 0;
};

}  // namespace

void RegisterUniqueOps(KernelRegistry& registry) {
  registry.Add("", "Unique", 11, kLatestVersion, MakeFactory<UniqueKernel>());
}

}  // namespace onyx::ops::movement
