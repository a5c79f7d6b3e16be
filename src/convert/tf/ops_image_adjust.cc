// TensorFlow's image adjustments (registered from AddImageOps): AdjustContrastv2.
#include "convert/tf/op_context.h"

namespace onyx::convert::tf {
namespace {

// AdjustContrastv2(images [..., H, W, C], contrast_factor): (x - mean) * factor + mean, the mean taken per image
// and channel over H and W.
Status AdjustContrastv2(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue factor, ctx.Input(1));
  if (x.type != DataType::kFloat || factor.type != DataType::kFloat) {
    return Unsupported(ctx.node.Where() + ": images of element type " + std::string(DataTypeName(x.type)) +
                       " (float32 images and factor expected)");
  }
  const std::string mean =
      ctx.b.Op1("ReduceMean", {x.name}, ctx.Name("mean"), {ir::IntsAttr("axes", {-3, -2}), ir::IntAttr("keepdims", 1)});
  const std::string scaled =
      ctx.b.Op1("Mul", {ctx.b.Op1("Sub", {x.name, mean}, ctx.Name("centered")), factor.name}, ctx.Name("scaled"));
  ctx.SetOutput(0, ctx.b.Op1("Add", {scaled, mean}, ctx.Name()), DataType::kFloat);
  return Status::Ok();
}

}  // namespace

void AddImageAdjustOps(std::map<std::string, OpFn>& t) { t["AdjustContrastv2"] = AdjustContrastv2; }

}  // namespace onyx::convert::tf
