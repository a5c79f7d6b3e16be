// MediaPipe's custom operators (mediapipe/util/tflite/operations), found in its segmentation, landmark and face mesh
// models: MaxPoolingWithArgmax2D, MaxUnpooling2D, TransformLandmarks (versions 1 and 2) and TransformTensorBilinear
// (version 1 also registered as TransformTensor); Landmarks2TransformMatrix is in ops_mediapipe_landmarks.cc. The first
// two take TFLite's pooling parameter struct as raw custom options, TransformLandmarks version 1 a FlexBuffers map
// (flexbuffer.h); the transforms read the first two rows of a 4x4 matrix input and take their shapes from the recorded
// tensors. Every kernel works on batch 0 of an NHWC tensor.
#include <cstring>
#include <limits>

#include "convert/tflite/flexbuffer.h"
#include "convert/tflite/op_context.h"

namespace onyx::convert::tflite {
namespace {

// TfLitePoolParams as MediaPipe's converter writes it into custom_options: int32 padding (1 SAME, 2 VALID),
// stride_width, stride_height, filter_width, filter_height, activation (schema.fbs ActivationFunctionType), then
// computed padding the kernel recomputes.
struct PoolParams {
  int32_t padding, stride_w, stride_h, filter_w, filter_h, activation;
};

Result<PoolParams> ReadPoolParams(OpContext& c) {
  const std::string_view opts = c.op().custom_options;
  if (opts.size() < sizeof(PoolParams)) {
    return c.Error("custom options of " + std::to_string(opts.size()) + " bytes, the pooling parameters need " +
                   std::to_string(sizeof(PoolParams)));
  }
  PoolParams p;
  std::memcpy(&p, opts.data(), sizeof p);
  if (p.padding != 1 && p.padding != 2) return c.Error("padding " + std::to_string(p.padding));
  // Each factor bounded before the product (int: a crafted file's sizes would overflow it).
  if (p.stride_w < 1 || p.stride_h < 1 || p.filter_w < 1 || p.filter_h < 1 || p.filter_w > 256 || p.filter_h > 256 ||
      p.filter_w * p.filter_h > 256) {
    return c.Error("strides or filter sizes out of range");
  }
  return p;
}

Result<std::vector<int64_t>> Rank4Shape(OpContext& c, size_t k, bool output) {
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> s, output ? c.OutShape(k) : c.InShape(k));
  if (s.size() != 4) return c.Error(std::string(output ? "output " : "input ") + std::to_string(k) + " is not 4-D");
  for (int64_t d : s) {
    if (d < 1) return c.Unsupported("dynamic or empty dims");
  }
  return s;
}

std::string F(OpContext& c, const std::string& what, float v) { return c.b.ConstFloat(c.Name(what), v); }

// MaxPoolingWithArgmax2D(input) -> (output, indices): max pooling whose second output is, per output element, the
// position of the maximum inside its window (y * filter_width + x, the first one in row-major order on ties) as a
// float plus 0.1. SAME padding puts the odd pixel at the end; padded positions never win. Computed without ONNX
// MaxPool's indices (which index the whole tensor): one strided Slice per window position, their Max, and a chain
// of Where picking the first position equal to it.
Status MaxPoolingWithArgmax(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(PoolParams p, ReadPoolParams(c));
  if (c.num_outputs() != 2) return c.Error("needs 2 outputs");
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> in, Rank4Shape(c, 0, false));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> out, Rank4Shape(c, 0, true));
  const int64_t oh = out[1], ow = out[2];
  const int64_t need_h = (oh - 1) * p.stride_h + p.filter_h, need_w = (ow - 1) * p.stride_w + p.filter_w;
  const int64_t top = p.padding == 1 ? std::max<int64_t>(need_h - in[1], 0) / 2 : 0;
  const int64_t left = p.padding == 1 ? std::max<int64_t>(need_w - in[2], 0) / 2 : 0;
  const int64_t bottom = std::max<int64_t>(need_h - in[1] - top, 0),
                right = std::max<int64_t>(need_w - in[2] - left, 0);
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  if (top + left + bottom + right > 0) {
    x = c.b.Op1("Pad",
                {x, c.b.ConstInts(c.Name("pads"), {0, top, left, 0, 0, bottom, right, 0}),
                 F(c, "pad_value", std::numeric_limits<float>::lowest())},
                c.Name("padded"));
  }
  std::vector<std::string> windows;
  for (int64_t ky = 0; ky < p.filter_h; ++ky) {
    for (int64_t kx = 0; kx < p.filter_w; ++kx) {
      windows.push_back(
          c.b.Op1("Slice",
                  {x, c.b.ConstInts(c.Name("starts"), {ky, kx}),
                   c.b.ConstInts(c.Name("ends"), {ky + (oh - 1) * p.stride_h + 1, kx + (ow - 1) * p.stride_w + 1}),
                   c.b.ConstInts(c.Name("axes"), {1, 2}), c.b.ConstInts(c.Name("steps"), {p.stride_h, p.stride_w})},
                  c.Name("window")));
    }
  }
  const std::string max = windows.size() == 1 ? windows[0] : c.b.Op1("Max", windows, c.Name("max"));
  // From the last position to the first, so that the first position holding the maximum is the one kept.
  std::string index = F(c, "index", 0.1f);
  for (size_t k = windows.size(); k-- > 0;) {
    const std::string hit = c.b.Op1("Equal", {windows[k], max}, c.Name("is_max"));
    index = c.b.Op1("Where", {hit, F(c, "index", static_cast<float>(k) + 0.1f), index}, c.Name("argmax"));
  }
  ONYX_ASSIGN_OR_RETURN(std::string y, c.Activation(static_cast<int8_t>(p.activation), max));
  ONYX_RETURN_IF_ERROR(c.SetOutput(y, 0));
  return c.SetOutput(index, 1);
}

// MaxUnpooling2D(input [N, H, W, C], indices) -> [N, H * filter_h, W * filter_w, C]: each input element is written
// at the window position its index names (MaxPoolingWithArgmax2D's), zeros elsewhere. With strides equal to the
// filter (as MediaPipe's models use it) the windows tile the output without overlap: one Where per window position
// gives its plane, and a reshape / transpose interleaves the planes. Indices outside the window are dropped.
Status MaxUnpooling(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(PoolParams p, ReadPoolParams(c));
  if (p.stride_h != p.filter_h || p.stride_w != p.filter_w) {
    return c.Unsupported("strides that differ from the filter size (overlapping windows)");
  }
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> in, Rank4Shape(c, 0, false));
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string indices, c.Input(1));
  // The kernel converts the float index to int (truncation; the indices are non-negative).
  const std::string idx = c.b.Op1("Floor", {indices}, c.Name("index"));
  const std::string zero = F(c, "zero", 0);
  std::vector<std::string> planes;
  for (int64_t k = 0; k < int64_t{p.filter_h} * p.filter_w; ++k) {
    const std::string hit = c.b.Op1("Equal", {idx, F(c, "position", static_cast<float>(k))}, c.Name("at"));
    const std::string plane = c.b.Op1("Where", {hit, x, zero}, c.Name("plane"));
    planes.push_back(c.b.Op1("Unsqueeze", {plane, c.b.ConstInts(c.Name("last"), {-1})}, c.Name("plane")));
  }
  std::string y =
      planes.size() == 1 ? planes[0] : c.b.Op1("Concat", planes, c.Name("planes"), {ir::IntAttr("axis", -1)});
  y = c.b.Op1("Reshape", {y, c.b.ConstInts(c.Name("blocks"), {in[0], in[1], in[2], in[3], p.filter_h, p.filter_w})},
              c.Name("blocks"));
  y = c.b.Op1("Transpose", {y}, c.Name("interleave"), {ir::IntsAttr("perm", {0, 1, 4, 2, 5, 3})});
  y = c.b.Op1("Reshape", {y, c.b.ConstInts(c.Name("shape"), {in[0], in[1] * p.filter_h, in[2] * p.filter_w, in[3]})},
              c.Name("unpooled"));
  return c.SetOutput(y);
}

// The first two rows of a [.., 4, 4] matrix input as the affine map of 2-D points: (x, y) -> (m00 x + m01 y + m03,
// m10 x + m11 y + m13), returned as B [3, 2] so that [x, y, 1] @ B is the image of the point.
std::string AffineRows(OpContext& c, const std::string& matrix) {
  std::string m = c.b.Op1("Reshape", {matrix, c.b.ConstInts(c.Name("square"), {4, 4})}, c.Name("matrix"));
  m = c.b.Op1(
      "Slice",
      {m, c.b.ConstInts(c.Name("row0"), {0}), c.b.ConstInts(c.Name("row2"), {2}), c.b.ConstInts(c.Name("rows"), {0})},
      c.Name("xy_rows"));
  m = c.b.Op1("Transpose", {m}, c.Name("columns"), {ir::IntsAttr("perm", {1, 0})});  // [4, 2]
  return c.b.Op1("Gather", {m, c.b.ConstInts(c.Name("xy1"), {0, 1, 3})}, c.Name("affine"), {ir::IntAttr("axis", 0)});
}

// TransformLandmarks version 1's options: a FlexBuffers map of "dimensions" (int) and "scale" (float).
Status ReadLandmarkOptions(std::string_view bytes, int64_t* dims, double* scale) {
  ONYX_ASSIGN_OR_RETURN(FlexValue root, FlexValue::Root(bytes));
  if (root.IsNull()) return Status::Ok();
  if (!root.IsMap()) return InvalidArgument("custom options that are not a FlexBuffers map");
  ONYX_ASSIGN_OR_RETURN(std::optional<FlexValue> d, root.Get("dimensions"));
  if (d) {
    ONYX_ASSIGN_OR_RETURN(*dims, d->AsInt());
  }
  ONYX_ASSIGN_OR_RETURN(std::optional<FlexValue> s, root.Get("scale"));
  if (s) {
    ONYX_ASSIGN_OR_RETURN(*scale, s->AsDouble());
  }
  return Status::Ok();
}

// TransformLandmarks version 1 ([1, H, W, C] landmarks, C = N * dimensions, a [1, 4, 4] matrix); its flexbuffer
// options: dimensions (2 or 3, default 3) and scale (default 1), which multiplies the matrix's translation. x and y
// go through the affine part, z is kept.
Status TransformLandmarksV1(OpContext& c) {
  int64_t dims = 3;
  double scale = 1;
  if (!c.op().custom_options.empty()) {
    auto options = ReadLandmarkOptions(c.op().custom_options, &dims, &scale);
    if (!options.ok()) return c.Error(options.ToString());
  }
  if (dims != 2 && dims != 3) return c.Error("dimensions " + std::to_string(dims) + " (2 or 3)");
  if (scale == 0) return c.Error("scale 0");
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> in, c.InShape(0));
  if (in.size() != 4 || in[0] != 1 || in[3] % dims != 0) {
    return c.Unsupported("landmarks that are not [1, H, W, N * dimensions]");
  }
  const int64_t n = in[1] * in[2] * in[3] / dims;
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string matrix, c.Input(1));
  // The translation row of [x, y, 1] @ B scaled.
  const Tensor rows =
      Tensor::FromVector<float>({1, 1, 1, 1, static_cast<float>(scale), static_cast<float>(scale)}, {3, 2});
  const std::string affine =
      c.b.Op1("Mul", {AffineRows(c, matrix), c.b.Constant(c.Name("scale"), rows)}, c.Name("affine"));
  std::string points = c.b.Op1("Reshape", {x, c.b.ConstInts(c.Name("points_shape"), {n, dims})}, c.Name("points"));
  std::string xy = points;
  if (dims == 3) {
    xy = c.b.Op1("Slice",
                 {points, c.b.ConstInts(c.Name("from"), {0}), c.b.ConstInts(c.Name("to"), {2}),
                  c.b.ConstInts(c.Name("axis"), {1})},
                 c.Name("xy"));
  }
  const std::string ones =
      c.b.Op1("Expand", {F(c, "one", 1), c.b.ConstInts(c.Name("ones_shape"), {n, 1})}, c.Name("ones"));
  std::string y = c.b.Op1("Concat", {xy, ones}, c.Name("homogeneous"), {ir::IntAttr("axis", 1)});
  y = c.b.Op1("MatMul", {y, affine}, c.Name("transformed"));
  if (dims == 3) {
    const std::string z = c.b.Op1("Slice",
                                  {points, c.b.ConstInts(c.Name("from"), {2}), c.b.ConstInts(c.Name("to"), {3}),
                                   c.b.ConstInts(c.Name("axis"), {1})},
                                  c.Name("z"));
    y = c.b.Op1("Concat", {y, z}, c.Name("xyz"), {ir::IntAttr("axis", 1)});
  }
  y = c.b.Op1("Reshape", {y, c.b.ConstInts(c.Name("shape"), in)}, c.Name("landmarks"));
  return c.SetOutput(y);
}

// TransformLandmarks version 2 ([1, N, D] landmarks of D = 2 or 3 coordinates, a [1, 4, 4] matrix): x and y go
// through the matrix's affine part, z is kept.
Status TransformLandmarks(OpContext& c) {
  if (c.op().version < 2) return TransformLandmarksV1(c);
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> in, c.InShape(0));
  if (in.size() != 3 || in[0] != 1 || (in[2] != 2 && in[2] != 3)) {
    return c.Unsupported("landmarks that are not [1, N, 2 or 3]");
  }
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string matrix, c.Input(1));
  const std::string affine = AffineRows(c, matrix);
  std::string xy = x;
  if (in[2] == 3) {
    xy = c.b.Op1(
        "Slice",
        {x, c.b.ConstInts(c.Name("from"), {0}), c.b.ConstInts(c.Name("to"), {2}), c.b.ConstInts(c.Name("axis"), {2})},
        c.Name("xy"));
  }
  // [x, y, 1] @ B
  const std::string ones =
      c.b.Op1("Expand", {F(c, "one", 1), c.b.ConstInts(c.Name("ones_shape"), {1, in[1], 1})}, c.Name("ones"));
  std::string y = c.b.Op1("Concat", {xy, ones}, c.Name("homogeneous"), {ir::IntAttr("axis", 2)});
  y = c.b.Op1("MatMul", {y, affine}, c.Name("transformed"));
  if (in[2] == 3) {
    const std::string z = c.b.Op1(
        "Slice",
        {x, c.b.ConstInts(c.Name("from"), {2}), c.b.ConstInts(c.Name("to"), {3}), c.b.ConstInts(c.Name("axis"), {2})},
        c.Name("z"));
    y = c.b.Op1("Concat", {y, z}, c.Name("xyz"), {ir::IntAttr("axis", 2)});
  }
  return c.SetOutput(y);
}

// TransformTensorBilinear(input [1, H, W, C], matrix [1, 4, 4]) -> [1, Ho, Wo, C] (the recorded output shape):
// output pixel (x, y) samples the input bilinearly at the matrix's image of (x, y) (version 2: of the pixel centre,
// (x + 0.5, y + 0.5) mapped then shifted by -0.5), corners outside the input reading 0, and the whole pixel is 0
// when that point lies outside [0, W - 1] x [0, H - 1]. ONNX GridSample with align_corners (the same bilinear
// weights and zero padding) times that mask.
Status TransformTensorBilinear(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> in, Rank4Shape(c, 0, false));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> out, Rank4Shape(c, 0, true));
  if (in[0] != 1 || out[0] != 1) return c.Unsupported("a batch other than 1");
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string matrix, c.Input(1));
  const int64_t oh = out[1], ow = out[2];
  const float shift = c.op().version >= 2 ? 0.5f : 0.0f;
  // The pixels (x + shift, y + shift, 1), row-major, [Ho * Wo, 3]: computed in the graph (Range, Expand) rather than
  // stored as a constant, whose size would follow the output shape the file states (a converter must not allocate
  // what a file merely claims; a 256x256 output would also add 768 KB to the model).
  const auto scalar = [&](const char* what, int64_t v) {
    return c.b.Constant(c.Name(what), Tensor::FromVector<int64_t>({v}, {}));
  };
  const auto coordinates = [&](const char* what, int64_t n) {
    std::string v = c.b.Op1("Range", {scalar("from", 0), scalar("to", n), scalar("step", 1)}, c.Name(what));
    v = c.b.Op1("Cast", {v}, c.Name(what), {ir::IntAttr("to", static_cast<int64_t>(DataType::kFloat))});
    if (shift != 0) v = c.b.Op1("Add", {v, F(c, "shift", shift)}, c.Name(what));
    return v;
  };
  const std::string plane = c.b.ConstInts(c.Name("plane"), {oh, ow});
  const auto channel = [&](const std::string& v, const std::vector<int64_t>& as) {
    std::string e = c.b.Op1("Reshape", {v, c.b.ConstInts(c.Name("as"), as)}, c.Name("coordinate"));
    e = c.b.Op1("Expand", {e, plane}, c.Name("coordinate"));
    return c.b.Op1("Unsqueeze", {e, c.b.ConstInts(c.Name("last"), {-1})}, c.Name("coordinate"));
  };
  std::string grid = c.b.Op1("Concat",
                             {channel(coordinates("xs", ow), {1, ow}), channel(coordinates("ys", oh), {oh, 1}),
                              channel(F(c, "one", 1), {1, 1})},
                             c.Name("pixels"), {ir::IntAttr("axis", 2)});
  grid = c.b.Op1("Reshape", {grid, c.b.ConstInts(c.Name("rows"), {-1, 3})}, c.Name("pixels"));
  std::string points = c.b.Op1("MatMul", {grid, AffineRows(c, matrix)}, c.Name("source"));
  if (shift != 0) points = c.b.Op1("Sub", {points, F(c, "half", shift)}, c.Name("source"));
  // Inside [0, W - 1] x [0, H - 1].
  const Tensor hi = Tensor::FromVector<float>({static_cast<float>(in[2] - 1), static_cast<float>(in[1] - 1)}, {2});
  const std::string ge = c.b.Op1("GreaterOrEqual", {points, F(c, "zero", 0)}, c.Name("above"));
  const std::string le = c.b.Op1("LessOrEqual", {points, c.b.Constant(c.Name("limit"), hi)}, c.Name("below"));
  std::string inside = c.b.Op1("And", {ge, le}, c.Name("inside"));
  inside = c.b.Op1("Cast", {inside}, c.Name("inside"), {ir::IntAttr("to", static_cast<int64_t>(DataType::kFloat))});
  inside = c.b.Op1("ReduceMin", {inside}, c.Name("inside"), {ir::IntsAttr("axes", {1}), ir::IntAttr("keepdims", 1)});
  inside = c.b.Op1("Reshape", {inside, c.b.ConstInts(c.Name("mask_shape"), {1, oh, ow, 1})}, c.Name("mask"));
  // GridSample's normalized coordinates with align_corners: -1 is pixel 0, 1 is pixel size - 1.
  const auto scale = [](int64_t n) { return n > 1 ? 2.0f / static_cast<float>(n - 1) : 0.0f; };
  const Tensor s = Tensor::FromVector<float>({scale(in[2]), scale(in[1])}, {2});
  std::string g = c.b.Op1("Mul", {points, c.b.Constant(c.Name("scale"), s)}, c.Name("grid"));
  g = c.b.Op1("Sub", {g, F(c, "one", 1)}, c.Name("grid"));
  g = c.b.Op1("Reshape", {g, c.b.ConstInts(c.Name("grid_shape"), {1, oh, ow, 2})}, c.Name("grid"));
  std::string y = c.b.Op1("GridSample", {c.ToNchw(x), g}, c.Name("sample"),
                          {ir::IntAttr("align_corners", 1), ir::StringAttr("padding_mode", "zeros")});
  y = c.b.Op1("Mul", {c.ToNhwc(y), inside}, c.Name("masked"));
  return c.SetOutput(y);
}

}  // namespace

void AddMediapipeOps(std::map<std::string, OpFn>& t) {
  t["MaxPoolingWithArgmax2D"] = MaxPoolingWithArgmax;
  t["MaxUnpooling2D"] = MaxUnpooling;
  t["Landmarks2TransformMatrix"] = Landmarks2TransformMatrix;
  t["TransformLandmarks"] = TransformLandmarks;
  t["TransformTensorBilinear"] = TransformTensorBilinear;
  t["TransformTensor"] = TransformTensorBilinear;  // version 1's registration name
}

}  // namespace onyx::convert::tflite
