// Det: determinants of the square matrices in the last two axes of X ([*, M, M] -> [*]), by LU decomposition with
// partial pivoting, computed in double whatever the element type (numpy's reference computes in double too).
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ops/recurrent/recurrent_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::recurrent {
namespace {

// Destroys `a` (n x n, row-major).
double LuDeterminant(std::vector<double>& a, int64_t n) {
  double det = 1.0;
  for (int64_t col = 0; col < n; ++col) {
    int64_t pivot = col;
    double best = std::abs(a[static_cast<size_t>(col * n + col)]);
    for (int64_t row = col + 1; row < n; ++row) {
      const double v = std::abs(a[static_cast<size_t>(row * n + col)]);
      if (v > best || std::isnan(v)) {
        best = v;
        pivot = row;
        if (std::isnan(v)) break;
      }
    }
    if (pivot != col) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[static_cast<size_t>(col * n + j)], a[static_cast<size_t>(pivot * n + j)]);
      det = -det;
    }
    const double diag = a[static_cast<size_t>(col * n + col)];
    det *= diag;
    if (diag == 0.0) return det;  // singular (keeps the sign of a zero, as LAPACK's product would)
    for (int64_t row = col + 1; row < n; ++row) {
      const double f = a[static_cast<size_t>(row * n + col)] / diag;
      if (f == 0.0) continue;
      for (int64_t j = col + 1; j < n; ++j) a[static_cast<size_t>(row * n + j)] -= f * a[static_cast<size_t>(col * n + j)];
    }
  }
  return det;
}

Status DetCompute(const KernelInfo& /*info*/, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
  if (x->rank() < 2 || x->dim(x->rank() - 1) != x->dim(x->rank() - 2)) {
    return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x->shape()) +
                           ", expected [*, M, M] (square matrices in the last two axes)");
  }
  const int64_t n = x->dim(x->rank() - 1);
  const Shape out_shape(x->shape().begin(), x->shape().end() - 2);
  const int64_t count = NumElements(out_shape);
  Tensor& y = ctx.AllocateOutput(0, x->type(), out_shape);
  return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* px = x->data<T>();
    T* py = y.data<T>();
    std::vector<double> a(static_cast<size_t>(n * n));
    for (int64_t m = 0; m < count; ++m) {
      for (int64_t i = 0; i < n * n; ++i) a[static_cast<size_t>(i)] = ToDouble(px[m * n * n + i]);
      py[m] = FromDouble<T>(LuDeterminant(a, n));
    }
    return Status::Ok();
  });
}

}  // namespace

void RegisterDetOps(KernelRegistry& registry) { registry.AddFn("", "Det", 11, kLatestVersion, DetCompute); }

}  // namespace onyx::ops::recurrent
