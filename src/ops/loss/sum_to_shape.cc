// Helper operators of onyx's internal domain, emitted by the Gradient expansion (src/ir/gradient.cc):
//   SumToShapeOf(G, X): G summed over the axes along which X was broadcast to G's shape (undoes broadcasting);
//   FillLike(X) <value>: a tensor of X's shape and type filled with `value`;
//   ReluGrad(G, X): G where X > 0, else 0.
#include "ir/gradient.h"
#include "ops/common/op_util.h"
#include "ops/loss/loss_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::loss {
namespace {

Status SumToShapeOf(const KernelInfo&, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* g, ctx.TensorInput(0));
  ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(1));
  ONYX_ASSIGN_OR_RETURN(Shape both, BroadcastShapes(g->shape(), x->shape()));
  if (both != g->shape()) {
    return InvalidArgument("gradient of shape " + ShapeToString(g->shape()) + " does not cover input shape " +
                           ShapeToString(x->shape()));
  }
  Tensor& out = ctx.AllocateOutput(0, g->type(), x->shape());
  return Dispatch<FloatTypes>(g->type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = ComputeType<T>;
    std::vector<A> acc(static_cast<size_t>(out.size()), A(0));
    std::vector<int64_t> strides[1] = {BroadcastStrides(x->shape(), g->shape())};
    const T* pg = g->data<T>();
    ForEachStrided(g->shape(), strides, [&](int64_t i, const int64_t* off) { acc[static_cast<size_t>(off[0])] += static_cast<A>(pg[i]); });
    T* po = out.data<T>();
    for (int64_t i = 0; i < out.size(); ++i) po[i] = static_cast<T>(acc[static_cast<size_t>(i)]);
    return Status::Ok();
  });
}

Status FillLike(const KernelInfo& info, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
  const double value = info.GetFloat("value", 0.0f);
  Tensor& out = ctx.AllocateOutput(0, x->type(), x->shape());
  return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < out.size(); ++i) out.data<T>()[i] = FromDouble<T>(value);
    return Status::Ok();
  });
}

Status ReluGrad(const KernelInfo&, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* g, ctx.TensorInput(0));
  ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(1));
  if (g->shape() != x->shape() || g->type() != x->type()) {
    return InvalidArgument("ReluGrad needs matching gradient and input, got " + ShapeToString(g->shape()) + " and " +
                           ShapeToString(x->shape()));
  }
  Tensor& out = ctx.AllocateOutput(0, g->type(), g->shape());
  return Dispatch<FloatTypes>(g->type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < out.size(); ++i) {
      out.data<T>()[i] = ToDouble(x->data<T>()[i]) > 0 ? g->data<T>()[i] : FromDouble<T>(0.0);
    }
    return Status::Ok();
  });
}

}  // namespace

void RegisterSumToShapeOps(KernelRegistry& registry) {
  registry.AddFn(ir::kInternalDomain, "SumToShapeOf", 1, kLatestVersion, SumToShapeOf);
  registry.AddFn(ir::kInternalDomain, "FillLike", 1, kLatestVersion, FillLike);
  registry.AddFn(ir::kInternalDomain, "ReluGrad", 1, kLatestVersion, ReluGrad);
}

}  // namespace onyx::ops::loss
