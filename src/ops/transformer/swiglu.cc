// SwiGLU (opset 28): y = Swish(a) * b with Swish(x) = x * sigmoid(alpha * x); a and b broadcast numpy-style.
#include <cmath>
#include <string>

#include "ops/common/op_util.h"
#include "ops/transformer/transformer_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::transformer {
namespace {

class SwiGluKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    alpha_ = info.GetFloat("alpha", 1.0f);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* a, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* b, ctx.TensorInput(1));
    if (a->type() != b->type()) {
      return InvalidArgument("inputs 'a' (" + std::string(DataTypeName(a->type())) + ") and 'b' (" +
                             std::string(DataTypeName(b->type())) + ") must have the same element type");
    }
    ONYX_ASSIGN_OR_RETURN(const Shape shape, BroadcastShapes(a->shape(), b->shape()));
    return Dispatch<FloatTypes>(a->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using CT = ComputeType<T>;
      const CT alpha = static_cast<CT>(alpha_);
      Tensor& y = ctx.AllocateOutput(0, a->type(), shape);
      BroadcastBinary<T, T, T>(*a, *b, y, [alpha](T av, T bv) {
        const CT x = static_cast<CT>(av);
        const CT gate = static_cast<CT>(T(x / (CT(1) + std::exp(-alpha * x))));
        return T(gate * static_cast<CT>(bv));
      });
      return Status::Ok();
    });
  }

 private:
  float alpha_ = 1.0f;
};

}  // namespace

void RegisterSwiGluOps(KernelRegistry& registry) {
  registry.Add("", "SwiGLU", 28, kLatestVersion, MakeFactory<SwiGluKernel>());
}

}  // namespace onyx::ops::transformer
