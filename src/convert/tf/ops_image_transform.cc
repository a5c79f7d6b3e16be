// ImageProjectiveTransformV3(images [B, H, W, C], transforms [1 or B, 8], output_shape [2], fill_value): each
// output pixel (x, y) samples the input at ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1,
// as TF's ProjectiveGenerator does, in float32: the coordinate is first mapped by fill_mode (CONSTANT: kept,
// NEAREST: clamped, REFLECT / WRAP: folded back as TF (after scipy) does, then clamped), then read by
// interpolation (NEAREST: std::round, half away from zero; BILINEAR: the four neighbours floor .. floor + 1);
// reads outside the image, and pixels with k = 0, are fill_value. Everything is elementwise over the
// [T, out_h, out_w] grid, and the reads are Gathers from the image flattened to [B * H * W, C].
#include "convert/tf/nn_common.h"

namespace onyx::convert::tf {
namespace {

class TransformBuilder {
 public:
  explicit TransformBuilder(OpContext& ctx) : ctx_(ctx) {}

  std::string Op(const std::string& op, const std::vector<std::string>& in, const std::string& what,
                 std::vector<ir::Attribute> attrs = {}) {
    return ctx_.b.Op1(op, in, ctx_.Name(what), std::move(attrs));
  }
  std::string F(float v, const std::string& what) { return ctx_.b.ConstFloat(ctx_.Name(what), v); }
  std::string Ints(const std::vector<int64_t>& v, const std::string& what) {
    return ctx_.b.ConstInts(ctx_.Name(what), v);
  }
  std::string Cast(const std::string& v, DataType t, const std::string& what) {
    return Op("Cast", {v}, what, {ir::IntAttr("to", static_cast<int64_t>(t))});
  }

  // round(v) half away from zero, exactly: sign(v) * (floor(|v|) + (|v| - floor(|v|) >= 0.5)).
  std::string RoundAway(const std::string& v, const std::string& what) {
    const std::string a = Op("Abs", {v}, what + "_abs");
    const std::string fl = Op("Floor", {a}, what + "_floor");
    const std::string up =
        Cast(Op("GreaterOrEqual", {Op("Sub", {a, fl}, what + "_frac"), F(0.5f, what + "_half")}, what + "_up"),
             DataType::kFloat, what + "_up_f");
    return Op("Mul", {Op("Sign", {v}, what + "_sign"), Op("Add", {fl, up}, what + "_mag")}, what + "_round");
  }

  // TF's MapCoordinate for fill_mode over a float coordinate; `len` is the axis length as float [1].
  Result<std::string> Map(const std::string& mode, const std::string& v, const std::string& len,
                          const std::string& what) {
    if (mode == "CONSTANT") return v;
    const std::string last = Op("Sub", {len, F(1, what + "_one")}, what + "_last");
    std::string r = v;
    if (mode == "REFLECT") {
      // v < 0: a = 2L * trunc(-v / 2L) + v; a < -L ? a + 2L : -a - 1. v > L - 1: b = v - 2L * trunc(v / 2L);
      // b >= L ? 2L - b - 1 : b. (The truncated quotients are of non-negative values: Floor.)
      const std::string sz2 = Op("Mul", {len, F(2, what + "_two")}, what + "_sz2");
      const std::string a = Op(
          "Add",
          {Op("Mul", {sz2, Op("Floor", {Op("Div", {Op("Neg", {v}, what + "_neg"), sz2}, what + "_nq")}, what + "_nfl")},
              what + "_nm"),
           v},
          what + "_a");
      const std::string neg_branch = Op(
          "Where",
          {Op("Less", {a, Op("Neg", {len}, what + "_minus_len")}, what + "_below"), Op("Add", {a, sz2}, what + "_a_up"),
           Op("Sub", {Op("Neg", {a}, what + "_na"), F(1, what + "_one_b")}, what + "_mirror")},
          what + "_neg_branch");
      const std::string b = Op(
          "Sub", {v, Op("Mul", {sz2, Op("Floor", {Op("Div", {v, sz2}, what + "_pq")}, what + "_pfl")}, what + "_pm")},
          what + "_b");
      const std::string pos_branch =
          Op("Where",
             {Op("GreaterOrEqual", {b, len}, what + "_beyond"),
              Op("Sub", {Op("Sub", {sz2, b}, what + "_sz2_b"), F(1, what + "_one_c")}, what + "_mirror2"), b},
             what + "_pos_branch");
      r = Op("Where",
             {Op("Less", {v, F(0, what + "_zero")}, what + "_is_neg"), neg_branch,
              Op("Where", {Op("Greater", {v, last}, what + "_is_pos"), pos_branch, v}, what + "_upper")},
             what + "_reflected");
    } else if (mode == "WRAP") {
      // v < 0: v + L * (trunc(-v / (L - 1)) + 1); v > L - 1: v - L * trunc(v / (L - 1)).
      const std::string neg_branch = Op(
          "Add",
          {v, Op("Mul",
                 {len, Op("Add",
                          {Op("Floor", {Op("Div", {Op("Neg", {v}, what + "_neg"), last}, what + "_nq")}, what + "_nfl"),
                           F(1, what + "_one_b")},
                          what + "_periods")},
                 what + "_shift")},
          what + "_neg_branch");
      const std::string pos_branch =
          Op("Sub",
             {v, Op("Mul", {len, Op("Floor", {Op("Div", {v, last}, what + "_pq")}, what + "_pfl")}, what + "_pshift")},
             what + "_pos_branch");
      r = Op("Where",
             {Op("Less", {v, F(0, what + "_zero")}, what + "_is_neg"), neg_branch,
              Op("Where", {Op("Greater", {v, last}, what + "_is_pos"), pos_branch, v}, what + "_upper")},
             what + "_wrapped");
    } else if (mode != "NEAREST") {
      return Unsupported(ctx_.node.Where() + ": fill_mode '" + mode + "'");
    }
    // Clamp into [0, L - 1] (lengths of 1 land here too: every branch above clamps to 0).
    return Op("Max", {Op("Min", {r, last}, what + "_min"), F(0, what + "_zero_c")}, what + "_mapped");
  }

  OpContext& ctx() { return ctx_; }

 private:
  OpContext& ctx_;
};

Status ImageProjectiveTransformV3(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue images, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue transforms, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue output_shape, ctx.Input(2));
  ONYX_ASSIGN_OR_RETURN(TfValue fill_value, ctx.Input(3));
  ONYX_ASSIGN_OR_RETURN(std::string interpolation, ctx.node.String("interpolation"));
  const std::string fill_mode = ctx.node.StringOr("fill_mode", "CONSTANT");
  if (interpolation != "NEAREST" && interpolation != "BILINEAR") {
    return Unsupported(ctx.node.Where() + ": interpolation '" + interpolation + "'");
  }
  TransformBuilder t(ctx);
  const DataType type = images.type;
  const bool bilinear = interpolation == "BILINEAR";

  const std::string shape = t.Op("Shape", {images.name}, "shape");
  const std::string batch = ShapeDim(ctx, shape, 0, "batch"), height = ShapeDim(ctx, shape, 1, "height");
  const std::string width = ShapeDim(ctx, shape, 2, "width");
  const std::string height_f = t.Cast(height, DataType::kFloat, "height_f");
  const std::string width_f = t.Cast(width, DataType::kFloat, "width_f");
  const std::string out_hw = t.Cast(output_shape.name, DataType::kInt64, "out_hw");
  const std::string scalar = t.Ints({}, "scalar");
  const std::string zero64 = ctx.b.Constant(ctx.Name("start"), Tensor::Scalar<int64_t>(0));
  const std::string one64 = ctx.b.Constant(ctx.Name("step"), Tensor::Scalar<int64_t>(1));
  auto range = [&](const std::string& n, const std::string& what) {  // 0 .. n - 1 for a 1-element n
    return t.Op("Range", {zero64, t.Op("Reshape", {n, scalar}, what + "_n"), one64}, what);
  };
  const std::string xs = t.Op("Reshape",
                              {t.Cast(range(ShapeDim(ctx, out_hw, 1, "out_w"), "x_range"), DataType::kFloat, "x_f"),
                               t.Ints({1, 1, -1}, "x_shape")},
                              "xs");
  const std::string ys = t.Op("Reshape",
                              {t.Cast(range(ShapeDim(ctx, out_hw, 0, "out_h"), "y_range"), DataType::kFloat, "y_f"),
                               t.Ints({1, -1, 1}, "y_shape")},
                              "ys");
  const std::string tf32 =
      transforms.type == DataType::kFloat ? transforms.name : t.Cast(transforms.name, DataType::kFloat, "transforms_f");
  auto coef = [&](int64_t k) {  // transforms[:, k] as [T, 1, 1]
    const std::string n = "c" + std::to_string(k);
    return t.Op("Reshape",
                {t.Op("Slice", {tf32, t.Ints({k}, n + "_at"), t.Ints({k + 1}, n + "_end"), t.Ints({1}, n + "_axis")},
                      n + "_col"),
                 t.Ints({-1, 1, 1}, n + "_shape")},
                n);
  };
  auto affine = [&](int64_t k, const std::string& what) {  // c[k] * x + c[k + 1] * y (+ c[k + 2] or 1)
    const std::string sum = t.Op(
        "Add", {t.Op("Mul", {coef(k), xs}, what + "_cx"), t.Op("Mul", {coef(k + 1), ys}, what + "_cy")}, what + "_xy");
    return t.Op("Add", {sum, k == 6 ? t.F(1, what + "_one") : coef(k + 2)}, what);
  };
  const std::string projection = affine(6, "projection");
  const std::string finite = t.Op("Not", {t.Op("Equal", {projection, t.F(0, "zero")}, "at_infinity")}, "finite");
  const std::string in_x = t.Op("Div", {affine(0, "num_x"), projection}, "in_x");
  const std::string in_y = t.Op("Div", {affine(3, "num_y"), projection}, "in_y");
  ONYX_ASSIGN_OR_RETURN(const std::string x, t.Map(fill_mode, in_x, width_f, "map_x"));
  ONYX_ASSIGN_OR_RETURN(const std::string y, t.Map(fill_mode, in_y, height_f, "map_y"));

  // The image as [B * H * W, C] in the computation type, the fill value likewise.
  const DataType compute = bilinear ? DataType::kFloat : type;
  const std::string image = type == compute ? images.name : t.Cast(images.name, compute, "image_f");
  const std::string flat_image =
      t.Op("Reshape",
           {image, t.Op("Concat", {t.Ints({-1}, "minus_one"), ShapeDim(ctx, shape, 3, "channels")}, "flat_shape",
                        {ir::IntAttr("axis", 0)})},
           "flat_image");
  const std::string fill = fill_value.type == compute ? fill_value.name : t.Cast(fill_value.name, compute, "fill");
  const std::string batch_rows =
      t.Op("Mul", {t.Op("Reshape", {range(batch, "batch_range"), t.Ints({-1, 1, 1}, "b_shape")}, "b"), height},
           "batch_rows");
  const std::string last_axis = t.Ints({-1}, "last_axis");
  const std::string zero_f = t.F(0, "zero_index");
  // The pixels at integral float coordinates (yi, xi) [T, oh, ow], fill_value outside the image: [B, oh, ow, C].
  int reads = 0;
  auto read = [&](const std::string& yi, const std::string& xi) {
    const std::string w = "read" + std::to_string(reads++);
    auto inside = [&](const std::string& v, const std::string& len, const std::string& n) {
      return t.Op("And", {t.Op("GreaterOrEqual", {v, zero_f}, n + "_ge0"), t.Op("Less", {v, len}, n + "_lt_len")},
                  n + "_in");
    };
    const std::string valid = t.Op(
        "And", {finite, t.Op("And", {inside(yi, height_f, w + "_y"), inside(xi, width_f, w + "_x")}, w + "_in_image")},
        w + "_valid");
    const std::string yv = t.Cast(t.Op("Where", {valid, yi, zero_f}, w + "_y_safe"), DataType::kInt64, w + "_y64");
    const std::string xv = t.Cast(t.Op("Where", {valid, xi, zero_f}, w + "_x_safe"), DataType::kInt64, w + "_x64");
    const std::string flat = t.Op(
        "Add", {t.Op("Mul", {t.Op("Add", {batch_rows, yv}, w + "_row"), width}, w + "_row_start"), xv}, w + "_flat");
    const std::string pixels = t.Op("Gather", {flat_image, flat}, w + "_gather", {ir::IntAttr("axis", 0)});
    return t.Op("Where", {t.Op("Unsqueeze", {valid, last_axis}, w + "_valid4"), pixels, fill}, w);
  };
  std::string out;
  if (!bilinear) {
    out = read(t.RoundAway(y, "round_y"), t.RoundAway(x, "round_x"));
  } else {
    const std::string yf = t.Op("Floor", {y}, "y_floor"), xf = t.Op("Floor", {x}, "x_floor");
    const std::string yc = t.Op("Add", {yf, t.F(1, "one_y")}, "y_ceil"),
                      xc = t.Op("Add", {xf, t.F(1, "one_x")}, "x_ceil");
    auto weight = [&](const std::string& a, const std::string& b, const std::string& n) {
      return t.Op("Unsqueeze", {t.Op("Sub", {a, b}, n + "_diff"), last_axis}, n);
    };
    const std::string wxc = weight(xc, x, "w_x_ceil"), wxf = weight(x, xf, "w_x_floor");
    auto row = [&](const std::string& yi, const std::string& n) {
      return t.Op("Add",
                  {t.Op("Mul", {wxc, read(yi, xf)}, n + "_left"), t.Op("Mul", {wxf, read(yi, xc)}, n + "_right")}, n);
    };
    const std::string top = row(yf, "value_y_floor"), bottom = row(yc, "value_y_ceil");
    out = t.Op("Add",
               {t.Op("Mul", {weight(yc, y, "w_y_ceil"), top}, "top_part"),
                t.Op("Mul", {weight(y, yf, "w_y_floor"), bottom}, "bottom_part")},
               "bilinear");
    // Pixels at infinity are fill_value (their weights are not finite).
    out = t.Op("Where", {t.Op("Unsqueeze", {finite, last_axis}, "finite4"), out, fill}, "projected");
    if (type != DataType::kFloat) out = t.Cast(out, type, "to_type");
  }
  ctx.SetOutput(0, out, type);
  return Status::Ok();
}

}  // namespace

void AddImageTransformOps(std::map<std::string, OpFn>& t) {
  t["ImageProjectiveTransformV3"] = ImageProjectiveTransformV3;
}

}  // namespace onyx::convert::tf
