#include "visualize/op_category.h"

#include <algorithm>

namespace onyx::visualize {

namespace {

template <size_t N>
bool OneOf(std::string_view op, const std::string_view (&names)[N]) {
  return std::find(names, names + N, op) != names + N;
}

// clang-format off
constexpr std::string_view kActivations[] = {
    "Relu", "LeakyRelu", "PRelu", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Elu", "Selu", "Celu", "Gelu", "FastGelu",
    "BiasGelu", "HardSigmoid", "HardSwish", "Softplus", "Softsign", "Mish", "ThresholdedRelu", "Clip", "Swish",
    "QuickGelu", "Hardmax", "Shrink", "QLinearSigmoid"};
constexpr std::string_view kPools[] = {"LpPool", "GlobalLpPool", "MaxRoiPool"};
constexpr std::string_view kNormalizations[] = {
    "BatchNormalization", "InstanceNormalization", "LpNormalization", "LRN", "MeanVarianceNormalization", "Dropout",
    "EmbedLayerNormalization", "RMSNormalization"};
constexpr std::string_view kShapeOps[] = {
    "Reshape", "Transpose", "Concat", "Split", "Slice", "Gather", "GatherElements", "GatherND", "Squeeze", "Unsqueeze",
    "Flatten", "Expand", "Shape", "Size", "Pad", "Tile", "Resize", "Upsample", "DepthToSpace", "SpaceToDepth",
    "Identity", "ScatterND", "ScatterElements", "Scatter", "Cast", "CastLike", "ConstantOfShape", "Range", "NonZero",
    "Compress", "SplitToSequence", "ConcatFromSequence", "Trilu", "ReverseSequence", "CenterCropPad", "Col2Im",
    "OneHot", "Where"};
constexpr std::string_view kControl[] = {"If", "Loop", "Scan", "SequenceMap"};
// clang-format on

}  // namespace

OpCategory CategoryOf(std::string_view op) {
  if (OneOf(op, kControl)) return OpCategory::kControl;
  if (op == "Constant") return OpCategory::kConstant;
  if (op.find("Conv") != std::string_view::npos || op.find("MatMul") != std::string_view::npos ||
      op.find("Gemm") != std::string_view::npos || op == "Attention" || op == "MultiHeadAttention" || op == "LSTM" ||
      op == "GRU" || op == "RNN" || op == "Einsum") {
    return OpCategory::kLayer;
  }
  if (OneOf(op, kActivations)) return OpCategory::kActivation;
  if (op.find("Pool") != std::string_view::npos || OneOf(op, kPools)) return OpCategory::kPool;
  // LayerNormalization, SkipLayerNormalization, GroupNormalization, SimplifiedLayerNormalization...
  if (op.find("Normalization") != std::string_view::npos || OneOf(op, kNormalizations)) {
    return OpCategory::kNormalization;
  }
  if (OneOf(op, kShapeOps)) return OpCategory::kShape;
  return OpCategory::kOther;
}

CategoryStyle StyleOf(OpCategory category) {
  switch (category) {
    case OpCategory::kLayer:
      return {"#dce6f3", "#335588"};
    case OpCategory::kActivation:
      return {"#f4dcd8", "#702921"};
    case OpCategory::kNormalization:
      return {"#dcebe2", "#335544"};
    case OpCategory::kPool:
      return {"#e2edd9", "#335533"};
    case OpCategory::kShape:
      return {"#ede3dd", "#6c4f47"};
    case OpCategory::kControl:
      return {"#e9e3f3", "#5c4a80"};
    case OpCategory::kConstant:
      return {"#eeeeee", "#777777"};
    case OpCategory::kOther:
      break;
  }
  return {"#ffffff", "#777777"};
}

}  // namespace onyx::visualize
