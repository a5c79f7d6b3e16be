// Optional, OptionalHasElement, OptionalGetElement. At run time an optional holding a value is that value
// itself and an empty optional is Value::None(), so wrapping and unwrapping move no data.
#include "ops/sequence/sequence.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::sequence {
namespace {

class OptionalKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    if (!info.has_input(0) && !info.HasAttribute("type")) {
      return info.Error("an Optional without an input needs the 'type' attribute");
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ctx.SetOutput(0, ctx.has_input(0) ? ctx.input_value(0) : Value::None());
    return Status::Ok();
  }
};

// True when the input is given and is not an empty optional. Version 18 also takes plain tensors and
// sequences (always true) and an omitted input (false).
Status OptionalHasElement(const KernelInfo&, KernelContext& ctx) {
  const bool has = ctx.has_input(0) && !ctx.input_value(0).is_none();
  ctx.SetOutput(0, Tensor::Scalar<bool>(has));
  return Status::Ok();
}

// The value held by an optional; an error for an empty one. Version 18 passes plain tensors and sequences through.
Status OptionalGetElement(const KernelInfo&, KernelContext& ctx) {
  if (!ctx.has_input(0)) return InvalidArgument("input 'input' (0) is missing");
  const Value& v = ctx.input_value(0);
  if (v.is_none()) return InvalidArgument("input 'input' (0) is an empty optional; it has no element to get");
  ctx.SetOutput(0, v);
  return Status::Ok();
}

}  // namespace

void RegisterOptionalOps(KernelRegistry& registry) {
  registry.Add("", "Optional", 15, kLatestVersion, MakeFactory<OptionalKernel>());
  registry.AddFn("", "OptionalHasElement", 15, kLatestVersion, OptionalHasElement);
  registry.AddFn("", "OptionalGetElement", 15, kLatestVersion, OptionalGetElement);
}

}  // namespace onyx::ops::sequence
