// RANDOM_UNIFORM and RANDOM_STANDARD_NORMAL(shape): ONNX's RandomUniformLike / RandomNormalLike over a tensor of
// that shape (the shape may be computed at run time). The draws cannot match TFLite's (Philox streams differ):
// only the distribution, shape and type carry over. RandomOptions: seed 0, seed2 1 (both 0: a fresh seed each
// run, as ONNX without a seed).
#include "convert/tflite/op_context.h"

namespace onyx::convert::tflite {
namespace {

Status Random(OpContext& c, bool normal) {
  ONYX_ASSIGN_OR_RETURN(std::string shape, Int64Input(c, 0, "shape"));
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor());
  if (t->type != TensorType::kFloat32) return c.Unsupported("random draws of a non-float32 type");
  int64_t seed = 0, seed2 = 0;
  if (c.options().valid()) {
    ONYX_ASSIGN_OR_RETURN(seed, c.options().Int(0, 8, true, 0));
    ONYX_ASSIGN_OR_RETURN(seed2, c.options().Int(1, 8, true, 0));
  }
  std::string like = c.b.Op1("ConstantOfShape", {shape}, c.Name("like"));
  std::vector<ir::Attribute> attrs = {ir::IntAttr("dtype", static_cast<int64_t>(DataType::kFloat))};
  if (seed != 0 || seed2 != 0) attrs.push_back(ir::FloatAttr("seed", static_cast<float>(seed ^ seed2)));
  return c.SetOutput(c.b.Op1(normal ? "RandomNormalLike" : "RandomUniformLike", {like},
                             c.Name(normal ? "random_normal" : "random_uniform"), std::move(attrs)));
}

}  // namespace

void AddRandomOps(std::map<int32_t, OpFn>& t) {
  t[op::kRandomUniform] = [](OpContext& c) { return Random(c, false); };
  t[op::kRandomStandardNormal] = [](OpContext& c) { return Random(c, true); };
}

}  // namespace onyx::convert::tflite
