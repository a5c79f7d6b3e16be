// TensorFlow image operators: resizing (ResizeBilinear, ResizeNearestNeighbor) and CropAndResize. Nearest-neighbour
// sampling is computed as TF does, in float32 at run time (index = floor or round of x * scale), and gathered, so
// the chosen pixels are TF's exactly even where the ideal coordinate falls on an integer; ONNX Resize's own
// coordinate arithmetic can round those the other way. Detection, sorting and set operators: ops_detection.cc;
// ImageProjectiveTransformV3: ops_image_transform.cc.
#include "convert/common/tensor_layout.h"
#include "convert/tf/emit.h"
#include "convert/tf/nn_common.h"

namespace onyx::convert::tf {
namespace {

// round(v) half away from zero for v >= 0, exactly as roundf: floor(v) + (v - floor(v) >= 0.5). (floor(v + 0.5)
// is not exact: v + 0.5 can round up; ONNX Round rounds half to even.)
std::string RoundHalfUp(OpContext& ctx, const std::string& v, const std::string& what) {
  const std::string fl = ctx.b.Op1("Floor", {v}, ctx.Name(what + "_floor"));
  const std::string frac = ctx.b.Op1("Sub", {v, fl}, ctx.Name(what + "_frac"));
  const std::string up = CastTo(
      ctx,
      ctx.b.Op1("GreaterOrEqual", {frac, ctx.b.ConstFloat(ctx.Name(what + "_half"), 0.5f)}, ctx.Name(what + "_up")),
      DataType::kFloat, what + "_up_f");
  return ctx.b.Op1("Add", {fl, up}, ctx.Name(what + "_round"));
}

// The TF source row (or column) of each output row of a nearest-neighbour resize, as int64 [out]: TF's
// CalculateResizeScale and (Legacy|HalfPixelScalerForNN), in float32:
//   scale = align_corners && out > 1 ? (in - 1) / (out - 1) : in / out
//   src   = min(align_corners ? roundf(x * scale) : floorf(half_pixel ? (x + 0.5) * scale : x * scale), in - 1)
// (with align_corners and out = 1 only x = 0 exists, so (in - 1) / max(out - 1, 1) is equivalent).
std::string NearestSource(OpContext& ctx, const std::string& in, const std::string& out, bool align_corners,
                          bool half_pixel, const std::string& what) {
  const std::string one = ctx.b.ConstInts(ctx.Name(what + "_one"), {1});
  std::string scale;
  if (align_corners) {
    const std::string num =
        CastTo(ctx, ctx.b.Op1("Sub", {in, one}, ctx.Name(what + "_in_m1")), DataType::kFloat, what + "_in_m1_f");
    const std::string den = CastTo(
        ctx, ctx.b.Op1("Max", {ctx.b.Op1("Sub", {out, one}, ctx.Name(what + "_out_m1")), one}, ctx.Name(what + "_den")),
        DataType::kFloat, what + "_den_f");
    scale = ctx.b.Op1("Div", {num, den}, ctx.Name(what + "_scale"));
  } else {
    scale = ctx.b.Op1(
        "Div", {CastTo(ctx, in, DataType::kFloat, what + "_in_f"), CastTo(ctx, out, DataType::kFloat, what + "_out_f")},
        ctx.Name(what + "_scale"));
  }
  const std::string out_scalar =
      ctx.b.Op1("Reshape", {out, ctx.b.ConstInts(ctx.Name(what + "_scalar"), {})}, ctx.Name(what + "_count"));
  std::string x = CastTo(ctx,
                         ctx.b.Op1("Range",
                                   {ctx.b.Constant(ctx.Name(what + "_start"), Tensor::Scalar<int64_t>(0)), out_scalar,
                                    ctx.b.Constant(ctx.Name(what + "_step"), Tensor::Scalar<int64_t>(1))},
                                   ctx.Name(what + "_x")),
                         DataType::kFloat, what + "_x_f");
  if (half_pixel)
    x = ctx.b.Op1("Add", {x, ctx.b.ConstFloat(ctx.Name(what + "_half_pixel"), 0.5f)}, ctx.Name(what + "_center"));
  const std::string src = ctx.b.Op1("Mul", {x, scale}, ctx.Name(what + "_src"));
  const std::string index =
      align_corners ? RoundHalfUp(ctx, src, what) : ctx.b.Op1("Floor", {src}, ctx.Name(what + "_floor"));
  return ctx.b.Op1(
      "Min",
      {CastTo(ctx, index, DataType::kInt64, what + "_index"), ctx.b.Op1("Sub", {in, one}, ctx.Name(what + "_last"))},
      ctx.Name(what + "_source"));
}

// ResizeBilinear / ResizeNearestNeighbor(images NHWC, size [2] int32).
Status ConvertResize(OpContext& ctx, bool bilinear) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue size, ctx.Input(1));
  const bool align_corners = ctx.node.BoolOr("align_corners", false);
  const bool half_pixel = ctx.node.BoolOr("half_pixel_centers", false);
  if (align_corners && half_pixel) {
    return InvalidArgument(ctx.node.Where() + ": align_corners and half_pixel_centers are exclusive");
  }
  const std::string hw = CastTo(ctx, size.name, DataType::kInt64, "size64");
  if (!bilinear) {
    // Gathers of the source rows, then columns; any element type.
    const std::string shape = ctx.b.Op1("Shape", {x.name}, ctx.Name("shape"));
    const std::string rows = NearestSource(ctx, ShapeDim(ctx, shape, 1, "in_h"), ShapeDim(ctx, hw, 0, "out_h"),
                                           align_corners, half_pixel, "row");
    const std::string cols = NearestSource(ctx, ShapeDim(ctx, shape, 2, "in_w"), ShapeDim(ctx, hw, 1, "out_w"),
                                           align_corners, half_pixel, "col");
    const std::string by_rows = ctx.b.Op1("Gather", {x.name, rows}, ctx.Name("gather_rows"), {ir::IntAttr("axis", 1)});
    ctx.SetOutput(0, ctx.b.Op1("Gather", {by_rows, cols}, ctx.Name("gather_cols"), {ir::IntAttr("axis", 2)}), x.type);
    return Status::Ok();
  }
  // Bilinear: ONNX Resize's linear modes are TF's coordinate rules (asymmetric = TF's legacy x * in / out,
  // align_corners, half_pixel = (x + 0.5) * in / out - 0.5 with the source clamped to the image); TF's output is
  // float32 whatever the input type.
  const std::string mode = align_corners ? "align_corners" : half_pixel ? "half_pixel" : "asymmetric";
  const std::string images = x.type == DataType::kFloat ? x.name : CastTo(ctx, x.name, DataType::kFloat, "to_float");
  const std::string nchw = Transposed(ctx, images, ToChannelsFirst(4), "to_nchw");
  const std::string nc = ctx.b.Op1("Slice",
                                   {ctx.b.Op1("Shape", {nchw}, ctx.Name("shape")),
                                    ctx.b.ConstInts(ctx.Name("zero"), {0}), ctx.b.ConstInts(ctx.Name("two"), {2})},
                                   ctx.Name("batch_channels"));
  const std::string sizes = ctx.b.Op1("Concat", {nc, hw}, ctx.Name("sizes"), {ir::IntAttr("axis", 0)});
  const std::string y =
      ctx.b.Op1("Resize", {nchw, "", "", sizes}, ctx.Name("resize"),
                {ir::StringAttr("mode", "linear"), ir::StringAttr("coordinate_transformation_mode", mode)});
  ctx.SetOutput(0, Transposed(ctx, y, ToChannelsLast(4), "to_nhwc"), DataType::kFloat);
  return Status::Ok();
}

Status ResizeBilinear(OpContext& ctx) { return ConvertResize(ctx, true); }
Status ResizeNearestNeighbor(OpContext& ctx) { return ConvertResize(ctx, false); }

// CropAndResize(image [B, H, W, C], boxes [n, 4] normalized (y1, x1, y2, x2), box_ind [n], crop_size [2]) ->
// [n, ch, cw, C] float32. TF's sampling, in float32:
//   in_y = ch > 1 ? y1 * (H - 1) + y * ((y2 - y1) * (H - 1) / (ch - 1)) : 0.5 * (y1 + y2) * (H - 1)
// (x alike); a sample with in_y or in_x outside [0, H - 1] / [0, W - 1] is extrapolation_value; otherwise
// bilinear: lerp of the four neighbours floor/ceil(in_y) x floor/ceil(in_x), or nearest: roundf. Samples are
// gathered from the image flattened to [B * H * W, C] at (b * H + y) * W + x.
Status CropAndResize(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue image, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue boxes, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue box_ind, ctx.Input(2));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> crop, ctx.ConstInts(3, "crop_size"));
  if (crop.size() != 2 || crop[0] < 1 || crop[1] < 1) {
    return InvalidArgument(ctx.node.Where() + ": crop_size must be 2 positive sizes");
  }
  const std::string method = ctx.node.StringOr("method", "bilinear");
  if (method != "bilinear" && method != "nearest") return Unsupported(ctx.node.Where() + ": method '" + method + "'");
  const float extrapolation = ctx.node.FloatOr("extrapolation_value", 0.0f);

  const std::string img =
      image.type == DataType::kFloat ? image.name : CastTo(ctx, image.name, DataType::kFloat, "to_float");
  const std::string shape = ctx.b.Op1("Shape", {image.name}, ctx.Name("shape"));
  const std::string one = ctx.b.ConstInts(ctx.Name("one"), {1});
  const std::string zero_i = ctx.b.ConstInts(ctx.Name("zero_index"), {0});
  auto col = [&](int64_t k, const char* what) {  // boxes[:, k:k+1] -> [n, 1]
    return ctx.b.Op1("Slice",
                     {boxes.name, ctx.b.ConstInts(ctx.Name(std::string(what) + "_at"), {k}),
                      ctx.b.ConstInts(ctx.Name(std::string(what) + "_end"), {k + 1}), one},
                     ctx.Name(what));
  };
  // One axis (0: y, 1: x): returns the sample coordinates [n, size] (float) and the validity mask [n, size].
  struct Axis {
    std::string coord, valid, last;  // last: size - 1 as int64 [1]
  };
  auto axis = [&](int d) {
    const std::string what = d == 0 ? "y" : "x";
    const int64_t out = crop[d];
    const std::string last =
        ctx.b.Op1("Sub", {ShapeDim(ctx, shape, 1 + d, what + "_size"), one}, ctx.Name(what + "_last"));
    const std::string last_f = CastTo(ctx, last, DataType::kFloat, what + "_last_f");
    const std::string lo = col(d, d == 0 ? "y1" : "x1"), hi = col(2 + d, d == 0 ? "y2" : "x2");
    std::string coord;
    if (out > 1) {
      const std::string step = ctx.b.Op1(
          "Div",
          {ctx.b.Op1("Mul", {ctx.b.Op1("Sub", {hi, lo}, ctx.Name(what + "_extent")), last_f}, ctx.Name(what + "_span")),
           ctx.b.ConstFloat(ctx.Name(what + "_intervals"), static_cast<float>(out - 1))},
          ctx.Name(what + "_scale"));
      std::vector<float> steps(static_cast<size_t>(out));
      for (int64_t i = 0; i < out; ++i) steps[static_cast<size_t>(i)] = static_cast<float>(i);
      const std::string ramp = ctx.b.Constant(ctx.Name(what + "_ramp"), Tensor::FromVector<float>(steps, {1, out}));
      coord = ctx.b.Op1("Add",
                        {ctx.b.Op1("Mul", {lo, last_f}, ctx.Name(what + "_origin")),
                         ctx.b.Op1("Mul", {ramp, step}, ctx.Name(what + "_offsets"))},
                        ctx.Name(what + "_coord"));
    } else {
      const std::string mid = ctx.b.Op1(
          "Mul",
          {ctx.b.Op1("Add", {lo, hi}, ctx.Name(what + "_sum")), ctx.b.ConstFloat(ctx.Name(what + "_half"), 0.5f)},
          ctx.Name(what + "_mid"));
      coord = ctx.b.Op1("Mul", {mid, last_f}, ctx.Name(what + "_coord"));
    }
    const std::string valid =
        ctx.b.Op1("And",
                  {ctx.b.Op1("GreaterOrEqual", {coord, ctx.b.ConstFloat(ctx.Name(what + "_zero"), 0.0f)},
                             ctx.Name(what + "_ge0")),
                   ctx.b.Op1("LessOrEqual", {coord, last_f}, ctx.Name(what + "_le_last"))},
                  ctx.Name(what + "_valid"));
    return Axis{coord, valid, last};
  };
  const Axis ya = axis(0), xa = axis(1);
  // Index of a float coordinate, clamped into the image (clamped samples are masked out later).
  auto index = [&](const std::string& v, const Axis& a, const std::string& what) {
    return ctx.b.Op1(
        "Max",
        {ctx.b.Op1("Min", {CastTo(ctx, v, DataType::kInt64, what + "_i"), a.last}, ctx.Name(what + "_lo")), zero_i},
        ctx.Name(what + "_clamped"));
  };
  const std::string height = ShapeDim(ctx, shape, 1, "height"), width = ShapeDim(ctx, shape, 2, "width");
  const std::string batch =
      ctx.b.Op1("Unsqueeze",
                {CastTo(ctx, box_ind.name, DataType::kInt64, "box_ind64"), ctx.b.ConstInts(ctx.Name("axes12"), {1, 2})},
                ctx.Name("batch"));  // [n, 1, 1]
  const std::string batch_rows = ctx.b.Op1("Mul", {batch, height}, ctx.Name("batch_rows"));
  const std::string unsq_y = ctx.b.ConstInts(ctx.Name("axis2"), {2});  // [n, ch] -> [n, ch, 1]
  const std::string unsq_x = ctx.b.ConstInts(ctx.Name("axis1"), {1});  // [n, cw] -> [n, 1, cw]
  const std::string flat_image = ctx.b.Op1(
      "Reshape",
      {img, ctx.b.Op1("Concat", {ctx.b.ConstInts(ctx.Name("minus_one"), {-1}), ShapeDim(ctx, shape, 3, "channels")},
                      ctx.Name("flat_shape"), {ir::IntAttr("axis", 0)})},
      ctx.Name("flat_image"));
  // The pixels at rows `yi` [n, ch] and columns `xi` [n, cw]: [n, ch, cw, C].
  auto sample = [&](const std::string& yi, const std::string& xi, const std::string& what) {
    const std::string row =
        ctx.b.Op1("Mul",
                  {ctx.b.Op1("Add", {batch_rows, ctx.b.Op1("Unsqueeze", {yi, unsq_y}, ctx.Name(what + "_y"))},
                             ctx.Name(what + "_by")),
                   width},
                  ctx.Name(what + "_row"));
    const std::string flat =
        ctx.b.Op1("Add", {row, ctx.b.Op1("Unsqueeze", {xi, unsq_x}, ctx.Name(what + "_x"))}, ctx.Name(what + "_flat"));
    return ctx.b.Op1("Gather", {flat_image, flat}, ctx.Name(what), {ir::IntAttr("axis", 0)});
  };
  std::string value;
  if (method == "nearest") {
    value = sample(index(RoundHalfUp(ctx, ya.coord, "y_near"), ya, "y_near"),
                   index(RoundHalfUp(ctx, xa.coord, "x_near"), xa, "x_near"), "nearest");
  } else {
    const std::string top = ctx.b.Op1("Floor", {ya.coord}, ctx.Name("top"));
    const std::string left = ctx.b.Op1("Floor", {xa.coord}, ctx.Name("left"));
    const std::string ti = index(top, ya, "top"),
                      bi = index(ctx.b.Op1("Ceil", {ya.coord}, ctx.Name("bottom")), ya, "bottom");
    const std::string li = index(left, xa, "left"),
                      ri = index(ctx.b.Op1("Ceil", {xa.coord}, ctx.Name("right")), xa, "right");
    // Lerp weights as [n, ch, 1, 1] and [n, 1, cw, 1].
    const std::string y_lerp =
        ctx.b.Op1("Unsqueeze",
                  {ctx.b.Op1("Sub", {ya.coord, top}, ctx.Name("y_frac")), ctx.b.ConstInts(ctx.Name("axes23"), {2, 3})},
                  ctx.Name("y_lerp"));
    const std::string x_lerp =
        ctx.b.Op1("Unsqueeze",
                  {ctx.b.Op1("Sub", {xa.coord, left}, ctx.Name("x_frac")), ctx.b.ConstInts(ctx.Name("axes13"), {1, 3})},
                  ctx.Name("x_lerp"));
    auto lerp = [&](const std::string& a, const std::string& b, const std::string& t, const std::string& what) {
      return ctx.b.Op1(
          "Add",
          {a, ctx.b.Op1("Mul", {ctx.b.Op1("Sub", {b, a}, ctx.Name(what + "_diff")), t}, ctx.Name(what + "_step"))},
          ctx.Name(what));
    };
    const std::string top_row = lerp(sample(ti, li, "top_left"), sample(ti, ri, "top_right"), x_lerp, "top_lerp");
    const std::string bottom_row =
        lerp(sample(bi, li, "bottom_left"), sample(bi, ri, "bottom_right"), x_lerp, "bottom_lerp");
    value = lerp(top_row, bottom_row, y_lerp, "lerp");
  }
  const std::string valid = ctx.b.Op1("Unsqueeze",
                                      {ctx.b.Op1("And",
                                                 {ctx.b.Op1("Unsqueeze", {ya.valid, unsq_y}, ctx.Name("y_valid3")),
                                                  ctx.b.Op1("Unsqueeze", {xa.valid, unsq_x}, ctx.Name("x_valid3"))},
                                                 ctx.Name("valid")),
                                       ctx.b.ConstInts(ctx.Name("axis3"), {3})},
                                      ctx.Name("valid4"));
  ctx.SetOutput(
      0,
      ctx.b.Op1("Where", {valid, value, ctx.b.ConstFloat(ctx.Name("extrapolation"), extrapolation)}, ctx.Name("crops")),
      DataType::kFloat);
  return Status::Ok();
}

}  // namespace

// ops_image_adjust.cc: AdjustContrastv2.
void AddImageAdjustOps(std::map<std::string, OpFn>& table);

void AddImageOps(std::map<std::string, OpFn>& t) {
  t["ResizeBilinear"] = ResizeBilinear;
  t["ResizeNearestNeighbor"] = ResizeNearestNeighbor;
  t["CropAndResize"] = CropAndResize;
  AddDetectionOps(t);
  AddImageTransformOps(t);
  AddImageAdjustOps(t);
}

}  // namespace onyx::convert::tf
