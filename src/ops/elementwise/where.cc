// Where: out = condition ? X : Y, the three inputs broadcast together; any element type, strings included.
#include "ops/elementwise/elementwise.h"

namespace onyx::ops::elementwise {
namespace {

class WhereKernel : public OpKernel {
 public:
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* cond, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* y, ctx.TensorInput(2));
    if (cond->type() != DataType::kBool) {
      return InvalidArgument("input 'condition' (0) has element type " + std::string(DataTypeName(cond->type())) +
                             ", expected bool");
    }
    ONYX_RETURN_IF_ERROR(CheckSameType(*x, *y, "X", "Y"));
    ONYX_ASSIGN_OR_RETURN(Shape out_shape, BroadcastShapes({cond->shape(), x->shape(), y->shape()}));
    return Dispatch<AllTypes>(x->type(), [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      Tensor& out = ctx.AllocateOutput(0, x->type(), out_shape);
      const bool* pc = cond->data<bool>();
      const T* px = x->data<T>();
      const T* py = y->data<T>();
      T* po = out.data<T>();
      std::vector<int64_t> strides[3] = {BroadcastStrides(cond->shape(), out_shape),
                                         BroadcastStrides(x->shape(), out_shape),
                                         BroadcastStrides(y->shape(), out_shape)};
      ForEachStrided(out_shape, strides,
                     [&](int64_t i, const int64_t* off) { po[i] = pc[off[0]] ? px[off[1]] : py[off[2]]; });
      return Status::Ok();
    });
  }
};

}  // namespace

void RegisterWhereOp(KernelRegistry& registry) {
  registry.Add("", "Where", 9, kLatestVersion, MakeFactory<WhereKernel>());
}

}  // namespace onyx::ops::elementwise
