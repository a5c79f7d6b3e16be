// MediaPipe's Landmarks2TransformMatrix (mediapipe/util/tflite/operations/landmarks_to_transform_matrix.cc): from
// landmarks (float32, read as consecutive (x, y, z) triples whatever the tensor's shape), the [1, 4, 4] matrix that
// maps a crop's pixels to the source image, for TransformTensorBilinear. Both versions take a rotation from two
// landmarks, rotate a subset of landmarks by it, and size and centre the crop on their bounding box; they differ in
// how the rotation is measured and the crop is expressed. The options are a FlexBuffers map; a key that is absent
// reads as 0 (or an empty list), as MediaPipe's flexbuffers accessors do, and the kernel's own checks follow.
#include <cmath>
#include <string>
#include <vector>

#include "convert/common/checked_product.h"
#include "convert/tflite/flexbuffer.h"
#include "convert/tflite/op_context.h"

namespace onyx::convert::tflite {
namespace {

// A FlexBuffers map with MediaPipe's defaults for absent keys.
class FlexOptions {
 public:
  explicit FlexOptions(FlexValue map) : map_(map) {}
  Result<int64_t> Int(std::string_view key) const {
    ONYX_ASSIGN_OR_RETURN(std::optional<FlexValue> v, map_.Get(key));
    if (!v) return int64_t{0};
    return v->AsInt();
  }
  Result<double> Float(std::string_view key) const {
    ONYX_ASSIGN_OR_RETURN(std::optional<FlexValue> v, map_.Get(key));
    if (!v) return 0.0;
    return v->AsDouble();
  }
  Result<std::vector<int64_t>> Ints(std::string_view key) const {
    ONYX_ASSIGN_OR_RETURN(std::optional<FlexValue> v, map_.Get(key));
    std::vector<int64_t> out;
    if (!v) return out;
    if (!v->IsVector()) return InvalidArgument(std::string(key) + " is not a vector");
    ONYX_ASSIGN_OR_RETURN(size_t n, v->Size());
    for (size_t i = 0; i < n; ++i) {
      ONYX_ASSIGN_OR_RETURN(FlexValue e, v->At(i));
      ONYX_ASSIGN_OR_RETURN(int64_t k, e.AsInt());
      out.push_back(k);
    }
    return out;
  }

 private:
  FlexValue map_;
};

// Version 1's options (LandmarksToTransformMatrixV1Attributes).
struct V1Options {
  int64_t dimensions = 0, landmarks_range = 0, left = 0, right = 0;
  double bbox_size_multiplier = 0;
  std::vector<int64_t> input_hw, output_hw, subset;
};

// Version 2's options (LandmarksToTransformMatrixV2Attributes).
struct V2Options {
  int64_t left = 0, right = 0, output_height = 0, output_width = 0;
  double target_rotation_radians = 0, scale_x = 0, scale_y = 0;
  std::vector<int64_t> subset;
};

Result<FlexOptions> OptionsMap(std::string_view bytes) {
  if (bytes.empty()) return InvalidArgument("no custom options");
  ONYX_ASSIGN_OR_RETURN(FlexValue root, FlexValue::Root(bytes));
  if (!root.IsMap()) return InvalidArgument("custom options that are not a FlexBuffers map");
  return FlexOptions(root);
}

Result<V1Options> ReadV1Options(std::string_view bytes) {
  ONYX_ASSIGN_OR_RETURN(FlexOptions m, OptionsMap(bytes));
  V1Options o;
  ONYX_ASSIGN_OR_RETURN(o.dimensions, m.Int("dimensions"));
  ONYX_ASSIGN_OR_RETURN(o.landmarks_range, m.Int("landmarks_range"));
  ONYX_ASSIGN_OR_RETURN(o.left, m.Int("left_rotation_idx"));
  ONYX_ASSIGN_OR_RETURN(o.right, m.Int("right_rotation_idx"));
  ONYX_ASSIGN_OR_RETURN(o.bbox_size_multiplier, m.Float("bbox_size_multiplier"));
  ONYX_ASSIGN_OR_RETURN(o.input_hw, m.Ints("input_hw"));
  ONYX_ASSIGN_OR_RETURN(o.output_hw, m.Ints("output_hw"));
  ONYX_ASSIGN_OR_RETURN(o.subset, m.Ints("subset"));
  return o;
}

Result<V2Options> ReadV2Options(std::string_view bytes) {
  ONYX_ASSIGN_OR_RETURN(FlexOptions m, OptionsMap(bytes));
  V2Options o;
  ONYX_ASSIGN_OR_RETURN(o.left, m.Int("left_rotation_idx"));
  ONYX_ASSIGN_OR_RETURN(o.right, m.Int("right_rotation_idx"));
  ONYX_ASSIGN_OR_RETURN(o.output_height, m.Int("output_height"));
  ONYX_ASSIGN_OR_RETURN(o.output_width, m.Int("output_width"));
  ONYX_ASSIGN_OR_RETURN(o.target_rotation_radians, m.Float("target_rotation_radians"));
  ONYX_ASSIGN_OR_RETURN(o.scale_x, m.Float("scale_x"));
  ONYX_ASSIGN_OR_RETURN(o.scale_y, m.Float("scale_y"));
  ONYX_ASSIGN_OR_RETURN(o.subset, m.Ints("subset_idxs"));
  return o;
}

// Builds the subgraph; every intermediate is a [rows, 2] or [1, 1] float value.
class Builder {
 public:
  explicit Builder(OpContext& c) : c_(c) {}

  std::string Op(const std::string& type, const std::vector<std::string>& ins, const std::string& what,
                 std::vector<ir::Attribute> attrs = {}) {
    return c_.b.Op1(type, ins, c_.Name(what), std::move(attrs));
  }
  std::string Float(const std::string& what, float v) { return c_.b.ConstFloat(c_.Name(what), v); }
  std::string Floats(const std::string& what, std::vector<float> v, Shape shape) {
    return c_.b.Constant(c_.Name(what), Tensor::FromVector<float>(v, std::move(shape)));
  }
  std::string Ints(const std::string& what, const std::vector<int64_t>& v) { return c_.b.ConstInts(c_.Name(what), v); }
  // Columns [from, to) of a 2-D value.
  std::string Columns(const std::string& v, int64_t from, int64_t to, const std::string& what) {
    return Op("Slice", {v, Ints("from", {from}), Ints("to", {to}), Ints("axis", {1})}, what);
  }
  std::string Rows(const std::string& v, int64_t from, int64_t to, const std::string& what) {
    return Op("Slice", {v, Ints("from", {from}), Ints("to", {to}), Ints("axis", {0})}, what);
  }
  std::string Gather(const std::string& v, const std::vector<int64_t>& rows, const std::string& what) {
    return Op("Gather", {v, Ints("rows", rows)}, what, {ir::IntAttr("axis", 0)});
  }
  std::string Concat(const std::vector<std::string>& vs, int64_t axis, const std::string& what) {
    return Op("Concat", vs, what, {ir::IntAttr("axis", axis)});
  }
  // [[cos, sin], [-sin, cos]] from [1, 1] values: p @ it is the column-vector rotation [[cos, -sin], [sin, cos]] p
  // of the row vectors p; its transpose rotates the other way.
  std::string RotationRows(const std::string& cos, const std::string& sin) {
    const std::string neg_sin = Op("Neg", {sin}, "neg_sin");
    return Concat({Concat({cos, sin}, 1, "rotation_row"), Concat({neg_sin, cos}, 1, "rotation_row")}, 0, "rotation");
  }
  // The rotated subset's bounding box: its per-axis maximum and minimum, [1, 2] each.
  std::pair<std::string, std::string> Bounds(const std::string& subset, const std::string& rotation) {
    const std::string rotated = Op("MatMul", {subset, rotation}, "rotated");
    const std::vector<ir::Attribute> attrs = {ir::IntsAttr("axes", {0}), ir::IntAttr("keepdims", 1)};
    return {Op("ReduceMax", {rotated}, "max", attrs), Op("ReduceMin", {rotated}, "min", attrs)};
  }
  // The [1, 4, 4] output: first rows [a | 0 | t] (a [2, 2], t [2, 1]), then [0, 0, 1, 0] and [0, 0, 0, 1].
  std::string Matrix(const std::string& a, const std::string& t) {
    const std::string top = Concat({a, Floats("zeros", {0, 0}, {2, 1}), t}, 1, "affine_rows");
    const std::string m = Concat({top, Floats("bottom", {0, 0, 1, 0, 0, 0, 0, 1}, {2, 4})}, 0, "matrix");
    return Op("Reshape", {m, Ints("matrix_shape", {1, 4, 4})}, "matrix");
  }

 private:
  OpContext& c_;
};

// The landmarks as [M, 2] (x, y) rows, M = the element count / 3; every index the options name must be below M
// (MediaPipe reads past the tensor otherwise).
Result<std::string> LandmarkXY(OpContext& c, Builder& g, const std::vector<int64_t>& indices) {
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> shape, c.InShape(0));
  for (int64_t d : shape) {
    if (d < 0) return c.Unsupported("dynamic landmark dims");
  }
  const std::optional<int64_t> product = CheckedProduct(shape);
  if (!product) return c.Error("the landmark dims multiply past 2^63");
  const int64_t total = *product;
  if (total % 3 != 0 || total == 0) {
    return c.Unsupported("landmarks of " + std::to_string(total) + " values (x, y, z triples)");
  }
  const int64_t m = total / 3;
  for (int64_t k : indices) {
    if (k < 0 || k >= m) {
      return c.Error("landmark index " + std::to_string(k) + " outside the " + std::to_string(m) + " landmarks");
    }
  }
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  const std::string points = g.Op("Reshape", {x, g.Ints("points_shape", {m, 3})}, "points");
  return g.Columns(points, 0, 2, "xy");
}

// Version 1 ([1, 1, 1, 3 N] landmarks): alpha = -atan(dy / dx) between the two rotation landmarks; the subset
// rotated by alpha gives the box (max - min) * bbox_size_multiplier and its middle, rotated back by -alpha. The
// output's first rows are those of to_absolute * rotation * scale * to_relative: rotation = [R(-alpha) | middle /
// landmarks_range * 2 - 1], scale = box / landmarks_range, to_relative from output pixels to [-1, 1], to_absolute
// from [-1, 1] to input pixels. (The product's last row is exactly [0, 0, 1], written as [0, 0, 1, 0].)
Status Version1(OpContext& c) {
  auto read = ReadV1Options(c.op().custom_options);
  if (!read.ok()) return c.Error(read.status().ToString());
  const V1Options& o = *read;
  if (o.dimensions != 3) return c.Error("dimensions " + std::to_string(o.dimensions) + " (only 3)");
  if (o.bbox_size_multiplier == 0) return c.Error("bbox_size_multiplier 0");
  if (o.landmarks_range <= 0) return c.Error("landmarks_range " + std::to_string(o.landmarks_range));
  if (o.input_hw.size() < 2 || o.output_hw.size() < 2 || o.input_hw[0] <= 0 || o.input_hw[1] <= 0 ||
      o.output_hw[0] <= 0 || o.output_hw[1] <= 0) {
    return c.Error("input_hw and output_hw need two positive sizes");
  }
  if (o.subset.empty()) return c.Error("empty subset");
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> shape, c.InShape(0));
  if (shape.size() != 4 || shape[0] != 1 || shape[1] != 1 || shape[2] != 1) {
    return c.Unsupported("landmarks that are not [1, 1, 1, N]");
  }
  std::vector<int64_t> indices = o.subset;
  indices.push_back(o.left);
  indices.push_back(o.right);
  Builder g(c);
  ONYX_ASSIGN_OR_RETURN(std::string xy, LandmarkXY(c, g, indices));
  const std::string d = g.Op("Sub", {g.Gather(xy, {o.right}, "right"), g.Gather(xy, {o.left}, "left")}, "delta");
  const std::string slope = g.Op("Div", {g.Columns(d, 1, 2, "dy"), g.Columns(d, 0, 1, "dx")}, "slope");
  const std::string alpha = g.Op("Neg", {g.Op("Atan", {slope}, "atan")}, "alpha");
  const std::string rotation = g.RotationRows(g.Op("Cos", {alpha}, "cos"), g.Op("Sin", {alpha}, "sin"));
  auto [max, min] = g.Bounds(g.Gather(xy, o.subset, "subset"), rotation);
  // The kernel's running bounds start at -100000 / 100000.
  max = g.Op("Max", {max, g.Float("max_start", -100000)}, "max");
  min = g.Op("Min", {min, g.Float("min_start", 100000)}, "min");
  const float range = static_cast<float>(o.landmarks_range);
  const std::string box = g.Op(
      "Mul", {g.Op("Sub", {max, min}, "extent"), g.Float("multiplier", static_cast<float>(o.bbox_size_multiplier))},
      "box");
  std::string middle = g.Op("Div", {g.Op("Add", {max, min}, "sum"), g.Float("two", 2)}, "middle");
  middle = g.Op("MatMul", {middle, g.Op("Transpose", {rotation}, "unrotation")}, "middle");
  std::string shift =
      g.Op("Mul", {g.Op("Div", {middle, g.Float("range", range)}, "relative"), g.Float("two", 2)}, "shift");
  shift = g.Op("Sub", {shift, g.Float("one", 1)}, "shift");
  // [R(-alpha) * scale | shift] over [0, 0, 1]: R(-alpha) (column vectors) is `rotation` itself.
  const std::string scaled =
      g.Op("Mul", {rotation, g.Op("Div", {box, g.Float("range", range)}, "scale")}, "rotation_scale");
  std::string m = g.Concat({scaled, g.Op("Transpose", {shift}, "shift_column")}, 1, "rotation_rows");
  m = g.Concat({m, g.Floats("last_row", {0, 0, 1}, {1, 3})}, 0, "rotation_matrix");
  const float ih = static_cast<float>(o.input_hw[0]), iw = static_cast<float>(o.input_hw[1]);
  const float oh = static_cast<float>(o.output_hw[0]), ow = static_cast<float>(o.output_hw[1]);
  const std::string to_absolute =
      g.Floats("to_absolute", {(iw - 1) / 2, 0, (iw - 1) / 2, 0, (ih - 1) / 2, (ih - 1) / 2, 0, 0, 1}, {3, 3});
  const std::string to_relative = g.Floats("to_relative", {2 / (ow - 1), 0, -1, 0, 2 / (oh - 1), -1, 0, 0, 1}, {3, 3});
  m = g.Op("MatMul", {g.Op("MatMul", {to_absolute, m}, "absolute"), to_relative}, "inverse");
  const std::string rows = g.Rows(m, 0, 2, "affine");
  return c.SetOutput(g.Matrix(g.Columns(rows, 0, 2, "linear"), g.Columns(rows, 2, 3, "translation")));
}

// Version 2 ([1, N, 3] landmarks): r = target_rotation_radians - atan2(dy, dx) between the two rotation landmarks;
// the subset rotated by r gives the crop's size (max - min) and centre (the box's middle rotated back). The output
// is shift(centre) * R(-r) * scale(scale_x * width / output_width, scale_y * height / output_height) *
// shift(-output_width / 2, -output_height / 2). ONNX has no atan2: cos and sin of atan2(dy, dx) are dx / |d| and
// dy / |d| (1 and 0 when |d| = 0, as atan2(0, 0) = 0), and those of r follow by the angle difference formulas.
Status Version2(OpContext& c) {
  auto read = ReadV2Options(c.op().custom_options);
  if (!read.ok()) return c.Error(read.status().ToString());
  const V2Options& o = *read;
  if (o.output_height <= 0 || o.output_width <= 0) return c.Error("output_height and output_width must be positive");
  if (o.scale_x <= 0 || o.scale_y <= 0) return c.Error("scale_x and scale_y must be positive");
  if (o.subset.empty()) return c.Error("empty subset_idxs");
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> shape, c.InShape(0));
  if (shape.size() != 3) return c.Error("landmarks that are not 3-D");
  std::vector<int64_t> indices = o.subset;
  indices.push_back(o.left);
  indices.push_back(o.right);
  Builder g(c);
  ONYX_ASSIGN_OR_RETURN(std::string xy, LandmarkXY(c, g, indices));
  const std::string d = g.Op("Sub", {g.Gather(xy, {o.right}, "right"), g.Gather(xy, {o.left}, "left")}, "delta");
  const std::string dx = g.Columns(d, 0, 1, "dx"), dy = g.Columns(d, 1, 2, "dy");
  const std::string length =
      g.Op("Sqrt", {g.Op("Add", {g.Op("Mul", {dx, dx}, "dx2"), g.Op("Mul", {dy, dy}, "dy2")}, "d2")}, "length");
  const std::string zero = g.Op("Equal", {length, g.Float("zero", 0)}, "coincident");
  const std::string divisor = g.Op("Where", {zero, g.Float("one", 1), length}, "divisor");
  const std::string cos_a = g.Op("Where", {zero, g.Float("one", 1), g.Op("Div", {dx, divisor}, "cos")}, "cos_a");
  const std::string sin_a = g.Op("Div", {dy, divisor}, "sin_a");
  // cos(t - a) = cos t cos a + sin t sin a, sin(t - a) = sin t cos a - cos t sin a.
  const std::string cos_t = g.Float("cos_t", static_cast<float>(std::cos(o.target_rotation_radians)));
  const std::string sin_t = g.Float("sin_t", static_cast<float>(std::sin(o.target_rotation_radians)));
  const std::string cos_r =
      g.Op("Add", {g.Op("Mul", {cos_t, cos_a}, "cc"), g.Op("Mul", {sin_t, sin_a}, "ss")}, "cos_r");
  const std::string sin_r =
      g.Op("Sub", {g.Op("Mul", {sin_t, cos_a}, "sc"), g.Op("Mul", {cos_t, sin_a}, "cs")}, "sin_r");
  // The subset rotated by r: p @ [[cos r, sin r], [-sin r, cos r]]; that matrix, as column vectors, is R(-r).
  const std::string rotation = g.RotationRows(cos_r, sin_r);
  const auto [max, min] = g.Bounds(g.Gather(xy, o.subset, "subset"), rotation);
  const std::string size = g.Op("Sub", {max, min}, "size");
  std::string centre = g.Op("Div", {g.Op("Add", {max, min}, "sum"), g.Float("two", 2)}, "middle");
  centre = g.Op("MatMul", {centre, g.Op("Transpose", {rotation}, "unrotation")}, "centre");
  const float sx = static_cast<float>(o.scale_x) / static_cast<float>(o.output_width);
  const float sy = static_cast<float>(o.scale_y) / static_cast<float>(o.output_height);
  const std::string scale = g.Op("Mul", {size, g.Floats("scale_factors", {sx, sy}, {1, 2})}, "scale");
  const std::string a = g.Op("Mul", {rotation, scale}, "linear");  // R(-r) * diag(scale)
  const std::string half = g.Floats(
      "half_output", {-static_cast<float>(o.output_width) / 2, -static_cast<float>(o.output_height) / 2}, {1, 2});
  const std::string t =
      g.Op("Add", {centre, g.Op("MatMul", {half, g.Op("Transpose", {a}, "linear_t")}, "shifted")}, "translation");
  return c.SetOutput(g.Matrix(a, g.Op("Transpose", {t}, "translation_column")));
}

}  // namespace

// Registered by AddMediapipeOps (ops_mediapipe.cc).
Status Landmarks2TransformMatrix(OpContext& c) {
  if (c.num_inputs() != 1 || c.num_outputs() != 1) return c.Error("needs 1 input and 1 output");
  if (c.op().version == 1) return Version1(c);
  if (c.op().version == 2) return Version2(c);
  return c.Unsupported("version " + std::to_string(c.op().version) + " (1 or 2)");
}

}  // namespace onyx::convert::tflite
