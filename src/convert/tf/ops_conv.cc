// Convolutions, pooling and morphological dilation. TF computes these channels-last (NWC, NHWC, NDHWC); each becomes
// the channels-first ONNX op between Transposes, which OptimizeTransposes cancels along chains. Constant filters
// are re-laid out at conversion: [k..., I, O] -> [O, I, k...], depthwise [H, W, C, M] -> [C*M, 1, H, W].
#include <algorithm>

#include "convert/common/tensor_layout.h"
#include "convert/tf/nn_common.h"

namespace onyx::convert::tf {
namespace {

const char* ChannelsLastFormat(size_t spatial_rank) {
  return spatial_rank == 1 ? "NWC" : spatial_rank == 2 ? "NHWC" : "NDHWC";
}

// [k..., I, O] -> [O, I, k...].
std::vector<int64_t> FilterToOihw(size_t spatial_rank) {
  std::vector<int64_t> perm = {static_cast<int64_t>(spatial_rank) + 1, static_cast<int64_t>(spatial_rank)};
  for (size_t d = 0; d < spatial_rank; ++d) perm.push_back(static_cast<int64_t>(d));
  return perm;
}

// strides and dilations of a convolution: (spatial_rank + 2)-vectors, or Conv1D's (a TF.js op) scalar stride and
// dilation.
Status ConvWindow(const OpContext& ctx, size_t spatial_rank, std::vector<int64_t>* strides,
                  std::vector<int64_t>* dilations) {
  if (ctx.node.op == "Conv1D") {
    *strides = {ctx.node.IntOr("stride", 1)};
    *dilations = {ctx.node.IntOr("dilation", 1)};
    if ((*strides)[0] < 1 || (*dilations)[0] < 1) {
      return InvalidArgument(ctx.node.Where() + ": stride and dilation must be at least 1");
    }
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(*strides, SpatialAttr(ctx, "strides", spatial_rank, 1));
  ONYX_ASSIGN_OR_RETURN(*dilations, SpatialAttr(ctx, "dilations", spatial_rank, 1));
  return Status::Ok();
}

// Conv1D, Conv2D, Conv3D and DepthwiseConv2dNative, plain or fused (2-D only).
Status ConvertConv(OpContext& ctx, size_t spatial_rank, bool depthwise, bool fused) {
  ONYX_RETURN_IF_ERROR(RequireFormat(ctx, ChannelsLastFormat(spatial_rank)));
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue filter_value, ctx.Input(1));
  const int64_t rank = static_cast<int64_t>(spatial_rank) + 2;
  std::vector<ir::Attribute> attrs;
  std::vector<int64_t> strides, dilations;
  ONYX_RETURN_IF_ERROR(ConvWindow(ctx, spatial_rank, &strides, &dilations));
  attrs.push_back(ir::IntsAttr("strides", strides));
  attrs.push_back(ir::IntsAttr("dilations", dilations));
  ONYX_RETURN_IF_ERROR(AddPadding(ctx, spatial_rank, &attrs));
  Fused f;
  if (fused) {
    ONYX_ASSIGN_OR_RETURN(f, FusedOps(ctx, 2));
  }

  std::string weight_value;
  if (filter_value.constant == nullptr && !depthwise && f.bn_multiplier.empty()) {
    // A computed filter is re-laid out at run time (the group count of a depthwise filter must be known here).
    weight_value = Transposed(ctx, filter_value.name, FilterToOihw(spatial_rank), "weight");
  } else {
    ONYX_ASSIGN_OR_RETURN(Tensor filter, ctx.ConstInput(1, "filter"));
    if (filter.rank() != rank) {
      return InvalidArgument(ctx.node.Where() + ": the filter has rank " + std::to_string(filter.rank()) +
                             ", expected " + std::to_string(rank));
    }
    ONYX_ASSIGN_OR_RETURN(filter, ToFloat32(filter));
    Tensor weight;
    if (depthwise) {
      // [H, W, C, M] -> [C, M, H, W] -> [C*M, 1, H, W], group C: output channel c*M + m, as TF orders them.
      ONYX_ASSIGN_OR_RETURN(Tensor cmhw, TransposeTensor(filter, {2, 3, 0, 1}));
      attrs.push_back(ir::IntAttr("group", filter.dim(2)));
      ONYX_ASSIGN_OR_RETURN(weight, cmhw.Reshaped({filter.dim(2) * filter.dim(3), 1, filter.dim(0), filter.dim(1)}));
    } else {
      ONYX_ASSIGN_OR_RETURN(weight, TransposeTensor(filter, FilterToOihw(spatial_rank)));
    }
    std::vector<int64_t> kernel(filter.shape().begin(), filter.shape().begin() + static_cast<int64_t>(spatial_rank));
    attrs.push_back(ir::IntsAttr("kernel_shape", kernel));
    if (!f.bn_multiplier.empty()) {
      // A folded batch norm scales each output channel (dim 0 of OIHW) and brings its own bias.
      const int64_t out_channels = weight.dim(0);
      if (static_cast<int64_t>(f.bn_multiplier.size()) != out_channels) {
        return InvalidArgument(ctx.node.Where() + ": batch norm over " + std::to_string(f.bn_multiplier.size()) +
                               " channels after a convolution with " + std::to_string(out_channels));
      }
      const int64_t per_channel = weight.size() / out_channels;  // `weight` is this conversion's own copy
      for (int64_t o = 0; o < out_channels; ++o) {
        for (int64_t j = 0; j < per_channel; ++j) weight.data<float>()[o * per_channel + j] *= f.bn_multiplier[o];
      }
      f.bias_value = ctx.b.Constant(ctx.Name("bias"), Tensor::FromVector<float>(f.bn_bias, {out_channels}));
    }
    weight_value = ctx.b.Constant(ctx.Name("weight"), std::move(weight));
  }
  std::vector<std::string> inputs = {Transposed(ctx, x.name, ToChannelsFirst(rank), "to_channels_first"), weight_value};
  if (!f.bias_value.empty()) inputs.push_back(f.bias_value);
  std::string y = ctx.b.Op1("Conv", inputs, ctx.Name("conv"), std::move(attrs));
  const bool prelu = f.activation == "Prelu";
  if (!prelu) {
    ONYX_ASSIGN_OR_RETURN(y, ApplyActivation(ctx, f, y));
  }
  y = Transposed(ctx, y, ToChannelsLast(rank), "to_channels_last");
  if (prelu) {
    ONYX_ASSIGN_OR_RETURN(y, ApplyActivation(ctx, f, y));
  }
  ctx.SetOutput(0, y, DataType::kFloat);
  return Status::Ok();
}

Status Conv1D(OpContext& ctx) { return ConvertConv(ctx, 1, false, false); }
Status Conv2D(OpContext& ctx) { return ConvertConv(ctx, 2, false, false); }
Status Conv3D(OpContext& ctx) { return ConvertConv(ctx, 3, false, false); }
Status FusedConv2D(OpContext& ctx) { return ConvertConv(ctx, 2, false, true); }
Status DepthwiseConv2D(OpContext& ctx) { return ConvertConv(ctx, 2, true, false); }
Status FusedDepthwiseConv2D(OpContext& ctx) { return ConvertConv(ctx, 2, true, true); }

// TF's SAME padding of one spatial dim at run time: out = ceil(in / s), total = max((out - 1) * s + k_eff - in, 0),
// `before` = total / 2, `after` the rest. `in` is a 1-element int64 value.
std::pair<std::string, std::string> SamePads(OpContext& ctx, const std::string& in, int64_t k_eff, int64_t s,
                                             const std::string& what) {
  auto c = [&](int64_t v, const char* n) { return ctx.b.ConstInts(ctx.Name(what + n), {v}); };
  const std::string out =
      ctx.b.Op1("Div", {ctx.b.Op1("Add", {in, c(s - 1, "_s_minus_1")}, ctx.Name(what + "_in_plus")), c(s, "_s")},
                ctx.Name(what + "_out"));
  const std::string span =
      ctx.b.Op1("Add",
                {ctx.b.Op1("Mul", {ctx.b.Op1("Sub", {out, c(1, "_one")}, ctx.Name(what + "_out_minus_1")), c(s, "_s2")},
                           ctx.Name(what + "_steps")),
                 c(k_eff, "_k")},
                ctx.Name(what + "_span"));
  const std::string total = ctx.b.Op1("Max", {ctx.b.Op1("Sub", {span, in}, ctx.Name(what + "_excess")), c(0, "_zero")},
                                      ctx.Name(what + "_total"));
  const std::string before = ctx.b.Op1("Div", {total, c(2, "_two")}, ctx.Name(what + "_before"));
  return {before, ctx.b.Op1("Sub", {total, before}, ctx.Name(what + "_after"))};
}

// Conv2DBackpropInput(input_sizes, filter [H, W, C_result, C_in], out_backprop): the gradient of a Conv2D with
// respect to its input, a transposed convolution whose output is cropped to input_sizes as the forward
// convolution's padding says: output[i] = full[i + pad_before], zero where `full` (ConvTranspose without padding)
// has no row i + pad_before (trailing rows no window of the forward convolution read).
Status Conv2DBackpropInput(OpContext& ctx) {
  ONYX_RETURN_IF_ERROR(RequireFormat(ctx, "NHWC"));
  ONYX_ASSIGN_OR_RETURN(TfValue sizes_value, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(Tensor filter, ctx.ConstInput(1, "filter"));
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(2));
  if (filter.rank() != 4) return InvalidArgument(ctx.node.Where() + ": the filter must have 4 dims (HWIO)");
  ONYX_ASSIGN_OR_RETURN(filter, ToFloat32(filter));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> strides, SpatialAttr(ctx, "strides", 2, 1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> dilations, SpatialAttr(ctx, "dilations", 2, 1));
  ONYX_ASSIGN_OR_RETURN(std::string padding, ctx.node.String("padding"));
  std::vector<int64_t> explicit_pads = {0, 0, 0, 0};  // top, left, bottom, right
  if (padding == "EXPLICIT") {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> p, ctx.node.Ints("explicit_paddings"));
    if (p.size() != 8) return InvalidArgument(ctx.node.Where() + ": explicit_paddings must have 8 entries");
    explicit_pads = {p[2], p[4], p[3], p[5]};
  } else if (padding != "SAME" && padding != "VALID") {
    return Unsupported(ctx.node.Where() + ": padding '" + padding + "'");
  }
  const int64_t k_eff[2] = {(filter.dim(0) - 1) * dilations[0] + 1, (filter.dim(1) - 1) * dilations[1] + 1};
  // ONNX ConvTranspose weights are [C_in, C_out, kH, kW].
  ONYX_ASSIGN_OR_RETURN(Tensor weight, TransposeTensor(filter, {3, 2, 0, 1}));
  std::vector<ir::Attribute> attrs = {ir::IntsAttr("strides", strides), ir::IntsAttr("dilations", dilations),
                                      ir::IntsAttr("kernel_shape", {filter.dim(0), filter.dim(1)})};
  const std::string nchw = Transposed(ctx, x.name, ToChannelsFirst(4), "to_nchw");
  const std::string w = ctx.b.Constant(ctx.Name("weight"), std::move(weight));

  if (sizes_value.constant != nullptr) {
    // Known sizes: the padding and the output padding (the trailing rows) as attributes.
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ctx.ConstInts(0, "input_sizes"));
    if (sizes.size() != 4) return InvalidArgument(ctx.node.Where() + ": input_sizes must have 4 entries");
    std::vector<int64_t> pads = explicit_pads, output_padding(2);
    for (int d = 0; d < 2; ++d) {
      const int64_t in = sizes[1 + d], s = strides[d];
      if (padding == "SAME") {
        const int64_t out = (in + s - 1) / s;
        const int64_t total = std::max<int64_t>((out - 1) * s + k_eff[d] - in, 0);
        pads[d] = total / 2;
        pads[2 + d] = total - total / 2;
      }
      const int64_t span = in + pads[d] + pads[2 + d] - k_eff[d];
      if (span < 0) return InvalidArgument(ctx.node.Where() + ": the filter is larger than the padded input");
      output_padding[d] = span % s;
    }
    attrs.push_back(ir::IntsAttr("pads", pads));
    attrs.push_back(ir::IntsAttr("output_padding", output_padding));
    const std::string y = ctx.b.Op1("ConvTranspose", {nchw, w}, ctx.Name("conv_transpose"), std::move(attrs));
    ctx.SetOutput(0, Transposed(ctx, y, ToChannelsLast(4), "to_nhwc"), DataType::kFloat);
    return Status::Ok();
  }

  // Computed sizes (a batch size read at run time, typically): crop and zero-extend the unpadded result.
  attrs.push_back(ir::IntsAttr("pads", {0, 0, 0, 0}));
  const std::string full = ctx.b.Op1("ConvTranspose", {nchw, w}, ctx.Name("conv_transpose"), std::move(attrs));
  const std::string sizes64 = ctx.b.Op1("Cast", {sizes_value.name}, ctx.Name("sizes64"), {ir::IntAttr("to", 7)});
  const std::string hw =
      ctx.b.Op1("Slice", {sizes64, ctx.b.ConstInts(ctx.Name("one"), {1}), ctx.b.ConstInts(ctx.Name("three"), {3})},
                ctx.Name("hw"));
  std::string before;
  if (padding == "SAME") {
    const std::string x_shape = ctx.b.Op1("Shape", {x.name}, ctx.Name("x_shape"));
    std::vector<std::string> b(2);
    for (int d = 0; d < 2; ++d) {
      const std::string what = d == 0 ? "h" : "w";
      const std::string in = ShapeDim(ctx, sizes64, 1 + d, what + "_in");
      // TF's total padding from the forward convolution's output size, the out_backprop's.
      const std::string out = ShapeDim(ctx, x_shape, 1 + d, what + "_out");
      auto c = [&](int64_t v, const char* n) { return ctx.b.ConstInts(ctx.Name(what + n), {v}); };
      const std::string span = ctx.b.Op1(
          "Add",
          {ctx.b.Op1("Mul", {ctx.b.Op1("Sub", {out, c(1, "_one")}, ctx.Name(what + "_steps")), c(strides[d], "_s")},
                     ctx.Name(what + "_stride_span")),
           c(k_eff[d], "_k")},
          ctx.Name(what + "_span"));
      const std::string total = ctx.b.Op1(
          "Max", {ctx.b.Op1("Sub", {span, in}, ctx.Name(what + "_excess")), c(0, "_zero")}, ctx.Name(what + "_total"));
      b[d] = ctx.b.Op1("Div", {total, c(2, "_two")}, ctx.Name(what + "_before"));
    }
    before = ctx.b.Op1("Concat", {b[0], b[1]}, ctx.Name("before"), {ir::IntAttr("axis", 0)});
  } else {
    before = ctx.b.ConstInts(ctx.Name("before"), {explicit_pads[0], explicit_pads[1]});
  }
  const std::string end = ctx.b.Op1("Add", {before, hw}, ctx.Name("end"));
  const std::string cropped =
      ctx.b.Op1("Slice", {full, before, end, ctx.b.ConstInts(ctx.Name("axes"), {2, 3})}, ctx.Name("crop"));
  const std::string full_hw = ctx.b.Op1("Slice",
                                        {ctx.b.Op1("Shape", {full}, ctx.Name("full_shape")),
                                         ctx.b.ConstInts(ctx.Name("two"), {2}), ctx.b.ConstInts(ctx.Name("four"), {4})},
                                        ctx.Name("full_hw"));
  const std::string missing =
      ctx.b.Op1("Max", {ctx.b.Op1("Sub", {end, full_hw}, ctx.Name("overhang")), ctx.b.ConstInts(ctx.Name("zero"), {0})},
                ctx.Name("missing"));
  const std::string pads = ctx.b.Op1("Concat", {ctx.b.ConstInts(ctx.Name("no_pads"), {0, 0, 0, 0, 0, 0}), missing},
                                     ctx.Name("pads"), {ir::IntAttr("axis", 0)});
  const std::string y = ctx.b.Op1("Pad", {cropped, pads}, ctx.Name("extend"));
  ctx.SetOutput(0, Transposed(ctx, y, ToChannelsLast(4), "to_nhwc"), DataType::kFloat);
  return Status::Ok();
}

// AvgPool, MaxPool (2-D) and AvgPool3D, MaxPool3D. TF averages over the window's valid pixels only: ONNX's
// count_include_pad=0, the default; MaxPool pads with -inf as ONNX does.
Status Pool(OpContext& ctx, const char* onnx_op, size_t spatial_rank) {
  ONYX_RETURN_IF_ERROR(RequireFormat(ctx, ChannelsLastFormat(spatial_rank)));
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  const int64_t rank = static_cast<int64_t>(spatial_rank) + 2;
  std::vector<ir::Attribute> attrs;
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> ksize, SpatialAttr(ctx, "ksize", spatial_rank, 1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> strides, SpatialAttr(ctx, "strides", spatial_rank, 1));
  attrs.push_back(ir::IntsAttr("kernel_shape", ksize));
  attrs.push_back(ir::IntsAttr("strides", strides));
  ONYX_RETURN_IF_ERROR(AddPadding(ctx, spatial_rank, &attrs));
  // ONNX MaxPool takes floats (and 8-bit integers, which not every runtime implements): TF's integer max pools
  // run in double, exact for integers of up to 32 bits.
  const bool via_double = !IsFloatingPoint(x.type);
  if (via_double && (x.type == DataType::kInt64 || x.type == DataType::kUint64 || std::string(onnx_op) != "MaxPool")) {
    return Unsupported(ctx.node.Where() + ": " + ctx.node.op + " of " + std::string(DataTypeName(x.type)));
  }
  std::string in = x.name;
  if (via_double)
    in = ctx.b.Op1("Cast", {in}, ctx.Name("to_double"), {ir::IntAttr("to", static_cast<int64_t>(DataType::kDouble))});
  std::string y = ctx.b.Op1(onnx_op, {Transposed(ctx, in, ToChannelsFirst(rank), "to_channels_first")},
                            ctx.Name("pool"), std::move(attrs));
  y = Transposed(ctx, y, ToChannelsLast(rank), "to_channels_last");
  if (via_double)
    y = ctx.b.Op1("Cast", {y}, ctx.Name("from_double"), {ir::IntAttr("to", static_cast<int64_t>(x.type))});
  ctx.SetOutput(0, y, x.type);
  return Status::Ok();
}

Status AvgPool(OpContext& ctx) { return Pool(ctx, "AveragePool", 2); }
Status MaxPool(OpContext& ctx) { return Pool(ctx, "MaxPool", 2); }
Status AvgPool3D(OpContext& ctx) { return Pool(ctx, "AveragePool", 3); }
Status MaxPool3D(OpContext& ctx) { return Pool(ctx, "MaxPool", 3); }

// MaxPoolWithArgmax: ONNX MaxPool's Indices flatten the NCHW input, ((n * C + c) * H + y) * W + x; TF's argmax
// flattens NHWC, (y * W + x) * C + c, plus n * H * W * C with include_batch_in_index.
Status MaxPoolWithArgmax(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  std::vector<ir::Attribute> attrs;
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> ksize, SpatialAttr(ctx, "ksize", 2, 1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> strides, SpatialAttr(ctx, "strides", 2, 1));
  attrs.push_back(ir::IntsAttr("kernel_shape", ksize));
  attrs.push_back(ir::IntsAttr("strides", strides));
  ONYX_RETURN_IF_ERROR(AddPadding(ctx, 2, &attrs));
  const std::vector<std::string> pool = ctx.b.Op("MaxPool", {Transposed(ctx, x.name, ToChannelsFirst(4), "to_nchw")},
                                                 ctx.Name("pool"), std::move(attrs), 2);
  ctx.SetOutput(0, Transposed(ctx, pool[0], ToChannelsLast(4), "to_nhwc"), x.type);
  const std::string onnx_index = Transposed(ctx, pool[1], ToChannelsLast(4), "indices_nhwc");
  const std::string shape = ctx.b.Op1("Shape", {x.name}, ctx.Name("shape"));
  const std::string h = ShapeDim(ctx, shape, 1, "height"), w = ShapeDim(ctx, shape, 2, "width");
  const std::string c = ShapeDim(ctx, shape, 3, "channels");
  const std::string plane = ctx.b.Op1("Mul", {h, w}, ctx.Name("plane"));
  const std::string yx = ctx.b.Op1("Mod", {onnx_index, plane}, ctx.Name("yx"));
  const std::string nc = ctx.b.Op1("Div", {onnx_index, plane}, ctx.Name("nc"));
  const std::string channel = ctx.b.Op1("Mod", {nc, c}, ctx.Name("channel"));
  std::string index =
      ctx.b.Op1("Add", {ctx.b.Op1("Mul", {yx, c}, ctx.Name("yx_c")), channel}, ctx.Name("index_in_image"));
  if (ctx.node.BoolOr("include_batch_in_index", false)) {
    const std::string n = ctx.b.Op1("Div", {nc, c}, ctx.Name("batch"));
    const std::string image = ctx.b.Op1("Mul", {plane, c}, ctx.Name("image_size"));
    index = ctx.b.Op1("Add", {ctx.b.Op1("Mul", {n, image}, ctx.Name("batch_offset")), index}, ctx.Name("index"));
  }
  ONYX_ASSIGN_OR_RETURN(DataType index_type,
                        ctx.node.Has("Targmax") ? ctx.node.Type("Targmax") : Result<DataType>(DataType::kInt64));
  if (index_type != DataType::kInt64) {
    index = ctx.b.Op1("Cast", {index}, ctx.Name("argmax"), {ir::IntAttr("to", static_cast<int64_t>(index_type))});
  }
  ctx.SetOutput(1, index, index_type);
  return Status::Ok();
}

// Dilation2D (grayscale morphological dilation, NHWC, filter [kh, kw, C]):
// out[b, y, x, c] = max over (i, j) of in[b, y*sh + i*rh - pad_top, x*sw + j*rw - pad_left, c] + filter[i, j, c],
// positions outside the image never chosen. As ONNX: pad with -inf, then for each tap a strided Slice plus the
// tap's filter row, and a Max over the taps. Each Slice starts at the tap's offset and ends k_eff - 1 - offset
// before the padded end, so every tap yields exactly the output's size.
Status Dilation2D(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(Tensor filter, ctx.ConstInput(1, "filter"));
  if (filter.rank() != 3) return InvalidArgument(ctx.node.Where() + ": the filter must have 3 dims [H, W, C]");
  if (x.type != DataType::kFloat) {
    return Unsupported(ctx.node.Where() + ": Dilation2D of " + std::string(DataTypeName(x.type)) + " (float32 only)");
  }
  ONYX_ASSIGN_OR_RETURN(filter, ToFloat32(filter));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> strides, SpatialAttr(ctx, "strides", 2, 1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> rates, SpatialAttr(ctx, "rates", 2, 1));
  ONYX_ASSIGN_OR_RETURN(std::string padding, ctx.node.String("padding"));
  const int64_t kh = filter.dim(0), kw = filter.dim(1), channels = filter.dim(2);
  const int64_t k_eff[2] = {(kh - 1) * rates[0] + 1, (kw - 1) * rates[1] + 1};
  std::string padded = x.name;
  if (padding == "SAME") {
    const std::string shape = ctx.b.Op1("Shape", {x.name}, ctx.Name("shape"));
    auto [top, bottom] = SamePads(ctx, ShapeDim(ctx, shape, 1, "height"), k_eff[0], strides[0], "pad_h");
    auto [left, right] = SamePads(ctx, ShapeDim(ctx, shape, 2, "width"), k_eff[1], strides[1], "pad_w");
    const std::string zero = ctx.b.ConstInts(ctx.Name("no_pad"), {0});
    const std::string pads = ctx.b.Op1("Concat", {zero, top, left, zero, zero, bottom, right, zero}, ctx.Name("pads"),
                                       {ir::IntAttr("axis", 0)});
    padded = ctx.b.Op1("Pad", {x.name, pads, ctx.b.ConstFloat(ctx.Name("lowest"), -INFINITY)}, ctx.Name("pad"));
  } else if (padding != "VALID") {
    return Unsupported(ctx.node.Where() + ": padding '" + padding + "'");
  }
  const std::string axes = ctx.b.ConstInts(ctx.Name("axes"), {1, 2});
  const std::string steps = ctx.b.ConstInts(ctx.Name("steps"), strides);
  std::vector<std::string> taps;
  for (int64_t i = 0; i < kh; ++i) {
    for (int64_t j = 0; j < kw; ++j) {
      const int64_t start[2] = {i * rates[0], j * rates[1]};
      std::vector<int64_t> ends(2);
      for (int d = 0; d < 2; ++d) {
        const int64_t short_by = k_eff[d] - 1 - start[d];
        ends[d] = short_by == 0 ? kInt64Max : -short_by;
      }
      const std::string tap = ctx.b.Op1("Slice",
                                        {padded, ctx.b.ConstInts(ctx.Name("start"), {start[0], start[1]}),
                                         ctx.b.ConstInts(ctx.Name("end"), ends), axes, steps},
                                        ctx.Name("tap"));
      std::vector<float> row(filter.data<float>() + (i * kw + j) * channels,
                             filter.data<float>() + (i * kw + j + 1) * channels);
      taps.push_back(
          ctx.b.Op1("Add", {tap, ctx.b.Constant(ctx.Name("filter_tap"), Tensor::FromVector<float>(row, {channels}))},
                    ctx.Name("tap_plus_filter")));
    }
  }
  ctx.SetOutput(0, taps.size() == 1 ? taps[0] : ctx.b.Op1("Max", taps, ctx.Name("max")), x.type);
  return Status::Ok();
}

}  // namespace

void AddConvOps(std::map<std::string, OpFn>& t) {
  t["Conv1D"] = Conv1D;
  t["Conv2D"] = Conv2D;
  t["Conv3D"] = Conv3D;
  t["_FusedConv2D"] = FusedConv2D;
  t["DepthwiseConv2d"] = DepthwiseConv2D;
  t["DepthwiseConv2dNative"] = DepthwiseConv2D;
  t["FusedDepthwiseConv2dNative"] = FusedDepthwiseConv2D;
  t["Conv2DBackpropInput"] = Conv2DBackpropInput;
  t["AvgPool"] = AvgPool;
  t["MaxPool"] = MaxPool;
  t["AvgPool3D"] = AvgPool3D;
  t["MaxPool3D"] = MaxPool3D;
  t["MaxPoolWithArgmax"] = MaxPoolWithArgmax;
  t["Dilation2D"] = Dilation2D;
}

}  // namespace onyx::convert::tf
