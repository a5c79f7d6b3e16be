// Keras masks in the converted graph: the helpers layers use to honour a mask, or to refuse it.
#include "convert/keras/layer_context.h"

namespace onyx::convert::keras {

Status MaskNotConvertible(const LayerCall& c, const KTensor& x, const std::string& why) {
  return Unsupported(c.Where() + ": its input carries the mask of layer '" + x.mask_origin +
                     "' (Masking / Embedding(mask_zero=True)), which Keras applies here; " + why +
                     " is not converted, and ignoring the mask would give different results");
}

std::string CompactMaskedSteps(Context& ctx, const KTensor& x, const std::string& n, std::string* lengths) {
  GraphBuilder& b = ctx.b;
  const auto to = [](DataType t) { return ir::IntAttr("to", static_cast<int64_t>(t)); };
  std::string maskf = b.Op1("Cast", {x.mask}, n + "/mask_float", {to(DataType::kFloat)});  // [N, T]
  std::string shape = b.Op1("Shape", {x.value}, n + "/shape");
  std::string steps = b.Op1("Slice", {shape, b.ConstInts(n + "/one", {1}), b.ConstInts(n + "/two", {2})},
                            n + "/steps");  // [1] int64: T
  std::string t_scalar = b.Op1("Squeeze", {steps, b.ConstInts(n + "/steps_axes", {0})}, n + "/steps_scalar");
  std::string zero = b.Constant(n + "/zero", Tensor::Scalar<int64_t>(0));
  std::string one = b.Constant(n + "/one_step", Tensor::Scalar<int64_t>(1));
  std::string index = b.Op1("Cast", {b.Op1("Range", {zero, t_scalar, one}, n + "/range")}, n + "/index",
                            {to(DataType::kFloat)});  // [T]: 0, 1, ...
  std::string t_float = b.Op1("Cast", {t_scalar}, n + "/steps_float", {to(DataType::kFloat)});
  // Sort key: the step index, plus T for masked steps: unmasked steps first, each group in time order. The keys
  // are distinct, so the ascending TopK order is fully determined.
  std::string masked = b.Op1("Sub", {b.ConstFloat(n + "/one_f", 1.0f), maskf}, n + "/masked");
  std::string key = b.Op1("Add", {index, b.Op1("Mul", {masked, t_float}, n + "/masked_offset")}, n + "/key");
  auto topk = b.Op("TopK", {key, steps}, n + "/order",
                   {ir::IntAttr("axis", 1), ir::IntAttr("largest", 0), ir::IntAttr("sorted", 1)}, 2);
  std::string idx = b.Op1("Unsqueeze", {topk[1], b.ConstInts(n + "/idx_axes", {2})}, n + "/order3");
  idx = b.Op1("Expand", {idx, shape}, n + "/order_full");
  std::string compact = b.Op1("GatherElements", {x.value, idx}, n + "/compact", {ir::IntAttr("axis", 1)});
  std::string count =
      b.Op1("ReduceSum", {maskf, b.ConstInts(n + "/sum_axes", {1})}, n + "/count", {ir::IntAttr("keepdims", 0)});
  *lengths = b.Op1("Cast", {count}, n + "/lengths", {to(DataType::kInt32)});
  return compact;
}

}  // namespace onyx::convert::keras
