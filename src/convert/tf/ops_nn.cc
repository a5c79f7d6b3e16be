// Convolutions, pooling, matrix products, resizing and softmax. TF computes these channels-last (NHWC); each becomes
// the channels-first ONNX op between Transposes (NHWC -> NCHW -> NHWC), which OptimizeTransposes cancels along
// chains. Filters are constants, re-laid out at conversion: HWIO -> OIHW, depthwise HWCM -> (C*M)1HW.
#include <cmath>

#include "convert/common/tensor_layout.h"
#include "convert/tf/op_context.h"

namespace onyx::convert::tf {
namespace {

const std::vector<int64_t> kToNchw = ToChannelsFirst(4);
const std::vector<int64_t> kToNhwc = ToChannelsLast(4);

std::string Transposed(OpContext& ctx, const std::string& v, const std::vector<int64_t>& perm, const char* what) {
  return ctx.b.Op1("Transpose", {v}, ctx.Name(what), {ir::IntsAttr("perm", perm)});
}

Status RequireNhwc(const OpContext& ctx) {
  const std::string format = ctx.node.StringOr("data_format", "NHWC");
  if (format != "NHWC") return Unsupported(ctx.node.Where() + ": data_format " + format + " (only NHWC)");
  return Status::Ok();
}

// The spatial entries (H, W) of an NHWC 4-vector attribute (strides, dilations, ksize); `fallback` when absent.
Result<std::vector<int64_t>> Spatial(const OpContext& ctx, const std::string& key, int64_t fallback) {
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.node.Ints(key));
  if (v.empty()) return std::vector<int64_t>{fallback, fallback};
  if (v.size() != 4) return InvalidArgument(ctx.node.Where() + ": '" + key + "' must have 4 entries (NHWC)");
  return std::vector<int64_t>{v[1], v[2]};
}

// TF padding as ONNX attributes: SAME -> auto_pad SAME_UPPER (TF puts the odd pixel at the end, as SAME_UPPER does);
// VALID -> no padding; EXPLICIT -> pads from explicit_paddings ([before, after] per NHWC dim).
Status AddPadding(const OpContext& ctx, std::vector<ir::Attribute>* attrs) {
  ONYX_ASSIGN_OR_RETURN(std::string padding, ctx.node.String("padding"));
  if (padding == "SAME") {
    attrs->push_back(ir::StringAttr("auto_pad", "SAME_UPPER"));
  } else if (padding == "VALID") {
    attrs->push_back(ir::IntsAttr("pads", {0, 0, 0, 0}));
  } else if (padding == "EXPLICIT") {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> p, ctx.node.Ints("explicit_paddings"));
    if (p.size() != 8) return InvalidArgument(ctx.node.Where() + ": explicit_paddings must have 8 entries");
    attrs->push_back(ir::IntsAttr("pads", {p[2], p[4], p[3], p[5]}));
  } else {
    return Unsupported(ctx.node.Where() + ": padding '" + padding + "'");
  }
  return Status::Ok();
}

// strides, dilations and kernel_shape of a convolution with an HWxx filter.
Status AddWindow(const OpContext& ctx, const Tensor& filter, std::vector<ir::Attribute>* attrs) {
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> strides, Spatial(ctx, "strides", 1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> dilations, Spatial(ctx, "dilations", 1));
  attrs->push_back(ir::IntsAttr("strides", strides));
  attrs->push_back(ir::IntsAttr("dilations", dilations));
  attrs->push_back(ir::IntsAttr("kernel_shape", {filter.dim(0), filter.dim(1)}));
  return Status::Ok();
}

// The activation a fused op ends with ("Relu", "Relu6", "Elu", "LeakyRelu", "Tanh", "Sigmoid"), applied to `v`.
Result<std::string> Activation(OpContext& ctx, const std::string& kind, const std::string& v) {
  if (kind == "Relu") return ctx.b.Op1("Relu", {v}, ctx.Name("relu"));
  if (kind == "Relu6") {
    return ctx.b.Op1("Clip", {v, ctx.b.ConstFloat(ctx.Name("zero"), 0.0f), ctx.b.ConstFloat(ctx.Name("six"), 6.0f)},
                     ctx.Name("relu6"));
  }
  if (kind == "Elu") return ctx.b.Op1("Elu", {v}, ctx.Name("elu"));
  if (kind == "Tanh") return ctx.b.Op1("Tanh", {v}, ctx.Name("tanh"));
  if (kind == "Sigmoid") return ctx.b.Op1("Sigmoid", {v}, ctx.Name("sigmoid"));
  if (kind == "LeakyRelu") {
    return ctx.b.Op1("LeakyRelu", {v}, ctx.Name("leaky_relu"),
                     {ir::FloatAttr("alpha", ctx.node.FloatOr("leakyrelu_alpha", 0.2f))});
  }
  return Unsupported(ctx.node.Where() + ": fused activation '" + kind + "'");
}

// Per-channel batch normalization (inference) as y = x * multiplier + bias:
// multiplier = scale / sqrt(variance + epsilon), bias = offset - mean * multiplier. The four inputs, starting at
// `first`, must be constants.
Status BatchNormAsAffine(const OpContext& ctx, size_t first, std::vector<float>* multiplier, std::vector<float>* bias) {
  std::vector<std::vector<float>> v;
  for (size_t k = 0; k < 4; ++k) {
    static const char* const kWhat[] = {"scale", "offset", "mean", "variance"};
    ONYX_ASSIGN_OR_RETURN(Tensor t, ctx.ConstInput(first + k, kWhat[k]));
    ONYX_ASSIGN_OR_RETURN(t, ToFloat32(t));
    v.emplace_back(t.data<float>(), t.data<float>() + t.size());
  }
  const size_t c = v[0].size();
  for (const auto& x : v) {
    if (x.size() != c) return InvalidArgument(ctx.node.Where() + ": batch-norm parameters differ in length");
  }
  const float epsilon = ctx.node.FloatOr("epsilon", 1e-3f);
  multiplier->resize(c);
  bias->resize(c);
  for (size_t i = 0; i < c; ++i) {
    (*multiplier)[i] = v[0][i] / std::sqrt(v[3][i] + epsilon);
    (*bias)[i] = v[1][i] - v[2][i] * (*multiplier)[i];
  }
  return Status::Ok();
}

// What a fused op adds after its convolution or product: a bias (BiasAdd's input, or the folded batch norm's),
// a per-output-channel multiplier (a batch norm, folded into the weights), and at most one activation.
struct Fused {
  std::string bias_value;           // BiasAdd's input
  std::vector<float> bn_multiplier;  // FusedBatchNorm: scale the weights' output channels ...
  std::vector<float> bn_bias;        // ... and add this bias
  std::string activation;
};

// The fused_ops of _FusedConv2D / FusedDepthwiseConv2dNative / _FusedMatMul: BiasAdd or FusedBatchNorm (their
// arguments from input `first_arg`), then at most one activation.
Result<Fused> FusedOps(const OpContext& ctx, size_t first_arg) {
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> ops, ctx.node.Strings("fused_ops"));
  Fused f;
  size_t k = 0;
  if (k < ops.size() && ops[k] == "BiasAdd") {
    ONYX_ASSIGN_OR_RETURN(TfValue b, ctx.Input(first_arg));
    f.bias_value = b.name;
    ++k;
  } else if (k < ops.size() && ops[k] == "FusedBatchNorm") {
    ONYX_RETURN_IF_ERROR(BatchNormAsAffine(ctx, first_arg, &f.bn_multiplier, &f.bn_bias));
    ++k;
  }
  const bool any_first = k > 0;
  if (k < ops.size()) f.activation = ops[k++];
  if (k < ops.size() || (!ops.empty() && !any_first && f.activation.empty())) {
    std::string list;
    for (const auto& o : ops) list += (list.empty() ? "" : ", ") + o;
    return Unsupported(ctx.node.Where() + ": fused_ops [" + list +
                       "] (supported: BiasAdd or FusedBatchNorm, then one activation)");
  }
  return f;
}

// Conv2D and DepthwiseConv2dNative, plain or fused.
Status ConvertConv(OpContext& ctx, bool depthwise, bool fused) {
  ONYX_RETURN_IF_ERROR(RequireNhwc(ctx));
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(Tensor filter, ctx.ConstInput(1, "filter"));
  if (filter.rank() != 4) return InvalidArgument(ctx.node.Where() + ": the filter must be 4-D (HWIO)");
  ONYX_ASSIGN_OR_RETURN(filter, ToFloat32(filter));
  Tensor weight;
  int64_t group = 1;
  if (depthwise) {
    // [H, W, C, M] -> [C, M, H, W] -> [C*M, 1, H, W], group C.
    ONYX_ASSIGN_OR_RETURN(Tensor cmhw, TransposeTensor(filter, {2, 3, 0, 1}));
    group = filter.dim(2);
    ONYX_ASSIGN_OR_RETURN(weight, cmhw.Reshaped({filter.dim(2) * filter.dim(3), 1, filter.dim(0), filter.dim(1)}));
  } else {
    ONYX_ASSIGN_OR_RETURN(weight, TransposeTensor(filter, {3, 2, 0, 1}));
  }
  std::vector<ir::Attribute> attrs;
  ONYX_RETURN_IF_ERROR(AddWindow(ctx, filter, &attrs));
  if (group > 1) attrs.push_back(ir::IntAttr("group", group));
  ONYX_RETURN_IF_ERROR(AddPadding(ctx, &attrs));
  Fused f;
  if (fused) {
    ONYX_ASSIGN_OR_RETURN(f, FusedOps(ctx, 2));
  }
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
  std::vector<std::string> inputs = {Transposed(ctx, x.name, kToNchw, "to_nchw"),
                                     ctx.b.Constant(ctx.Name("weight"), std::move(weight))};
  if (!f.bias_value.empty()) inputs.push_back(f.bias_value);
  std::string y = ctx.b.Op1("Conv", inputs, ctx.Name("conv"), std::move(attrs));
  if (!f.activation.empty()) {
    ONYX_ASSIGN_OR_RETURN(y, Activation(ctx, f.activation, y));
  }
  ctx.SetOutput(0, Transposed(ctx, y, kToNhwc, "to_nhwc"), DataType::kFloat);
  return Status::Ok();
}

Status Conv2D(OpContext& ctx) { return ConvertConv(ctx, false, false); }
Status FusedConv2D(OpContext& ctx) { return ConvertConv(ctx, false, true); }
Status DepthwiseConv2D(OpContext& ctx) { return ConvertConv(ctx, true, false); }
Status FusedDepthwiseConv2D(OpContext& ctx) { return ConvertConv(ctx, true, true); }

// Conv2DBackpropInput(input_sizes, filter [H, W, C_result, C_in], out_backprop): a transposed convolution.
Status Conv2DBackpropInput(OpContext& ctx) {
  ONYX_RETURN_IF_ERROR(RequireNhwc(ctx));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ctx.ConstInts(0, "input_sizes"));
  ONYX_ASSIGN_OR_RETURN(Tensor filter, ctx.ConstInput(1, "filter"));
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(2));
  if (sizes.size() != 4 || filter.rank() != 4) {
    return InvalidArgument(ctx.node.Where() + ": input_sizes must have 4 entries and the filter 4 dims");
  }
  ONYX_ASSIGN_OR_RETURN(filter, ToFloat32(filter));
  // ONNX ConvTranspose weights are [C_in, C_out, kH, kW].
  ONYX_ASSIGN_OR_RETURN(Tensor weight, TransposeTensor(filter, {3, 2, 0, 1}));
  std::vector<ir::Attribute> attrs;
  ONYX_RETURN_IF_ERROR(AddWindow(ctx, filter, &attrs));
  attrs.push_back(ir::IntsAttr("output_shape", {sizes[1], sizes[2]}));
  ONYX_ASSIGN_OR_RETURN(std::string padding, ctx.node.String("padding"));
  if (padding == "SAME") {
    attrs.push_back(ir::StringAttr("auto_pad", "SAME_UPPER"));
  } else if (padding != "VALID") {
    return Unsupported(ctx.node.Where() + ": padding '" + padding + "'");
  }
  const std::string y =
      ctx.b.Op1("ConvTranspose",
                {Transposed(ctx, x.name, kToNchw, "to_nchw"), ctx.b.Constant(ctx.Name("weight"), std::move(weight))},
                ctx.Name("conv_transpose"), std::move(attrs));
  ctx.SetOutput(0, Transposed(ctx, y, kToNhwc, "to_nhwc"), DataType::kFloat);
  return Status::Ok();
}

Status Pool(OpContext& ctx, const char* onnx_op) {
  ONYX_RETURN_IF_ERROR(RequireNhwc(ctx));
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  std::vector<ir::Attribute> attrs;
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> ksize, Spatial(ctx, "ksize", 1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> strides, Spatial(ctx, "strides", 1));
  attrs.push_back(ir::IntsAttr("kernel_shape", ksize));
  attrs.push_back(ir::IntsAttr("strides", strides));
  // TF averages over the window's valid pixels only: ONNX's count_include_pad=0, the default.
  ONYX_RETURN_IF_ERROR(AddPadding(ctx, &attrs));
  const std::string y = ctx.b.Op1(onnx_op, {Transposed(ctx, x.name, kToNchw, "to_nchw")}, ctx.Name("pool"),
                                  std::move(attrs));
  ctx.SetOutput(0, Transposed(ctx, y, kToNhwc, "to_nhwc"), x.type);
  return Status::Ok();
}

Status AvgPool(OpContext& ctx) { return Pool(ctx, "AveragePool"); }
Status MaxPool(OpContext& ctx) { return Pool(ctx, "MaxPool"); }

// MatMul / _FusedMatMul: 2-D products (TF's batched products are BatchMatMul), as Gemm.
Status ConvertMatMul(OpContext& ctx, bool fused) {
  ONYX_ASSIGN_OR_RETURN(TfValue a, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue w, ctx.Input(1));
  Fused f;
  if (fused) {
    ONYX_ASSIGN_OR_RETURN(f, FusedOps(ctx, 2));
  }
  if (!f.bn_multiplier.empty()) return Unsupported(ctx.node.Where() + ": a batch norm fused into a MatMul");
  std::vector<std::string> inputs = {a.name, w.name};
  if (!f.bias_value.empty()) inputs.push_back(f.bias_value);
  std::string y = ctx.b.Op1("Gemm", inputs, ctx.Name("gemm"),
                            {ir::IntAttr("transA", ctx.node.BoolOr("transpose_a", false) ? 1 : 0),
                             ir::IntAttr("transB", ctx.node.BoolOr("transpose_b", false) ? 1 : 0)});
  if (!f.activation.empty()) {
    ONYX_ASSIGN_OR_RETURN(y, Activation(ctx, f.activation, y));
  }
  ctx.SetOutput(0, y, a.type);
  return Status::Ok();
}

Status MatMul(OpContext& ctx) { return ConvertMatMul(ctx, false); }
Status FusedMatMul(OpContext& ctx) { return ConvertMatMul(ctx, true); }

Status BatchMatMul(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue a, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue b, ctx.Input(1));
  if (ctx.node.BoolOr("adj_x", false) || ctx.node.BoolOr("adj_y", false)) {
    return Unsupported(ctx.node.Where() + ": adj_x/adj_y");
  }
  ctx.SetOutput(0, ctx.b.Op1("MatMul", {a.name, b.name}, ctx.Name("matmul")), a.type);
  return Status::Ok();
}

// FusedBatchNorm / V2 / V3 at inference (is_training false), NHWC: x * multiplier + bias along the last axis.
Status FusedBatchNorm(OpContext& ctx) {
  ONYX_RETURN_IF_ERROR(RequireNhwc(ctx));
  if (ctx.node.BoolOr("is_training", false)) return Unsupported(ctx.node.Where() + ": is_training (batch statistics)");
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  std::vector<float> multiplier, bias;
  ONYX_RETURN_IF_ERROR(BatchNormAsAffine(ctx, 1, &multiplier, &bias));
  const int64_t c = static_cast<int64_t>(multiplier.size());
  const std::string scaled =
      ctx.b.Op1("Mul", {x.name, ctx.b.Constant(ctx.Name("multiplier"), Tensor::FromVector<float>(multiplier, {c}))},
                ctx.Name("scale"));
  ctx.SetOutput(0,
                ctx.b.Op1("Add", {scaled, ctx.b.Constant(ctx.Name("bias"), Tensor::FromVector<float>(bias, {c}))},
                          ctx.Name()),
                x.type);
  return Status::Ok();
}

// BiasAdd adds along the last (channel) axis: ONNX broadcasting does the same.
Status BiasAdd(OpContext& ctx) {
  ONYX_RETURN_IF_ERROR(RequireNhwc(ctx));
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue bias, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("Add", {x.name, bias.name}, ctx.Name("bias_add")), x.type);
  return Status::Ok();
}

Status Softmax(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ctx.SetOutput(0, ctx.b.Op1("Softmax", {x.name}, ctx.Name("softmax"), {ir::IntAttr("axis", -1)}), x.type);
  return Status::Ok();
}

// ResizeBilinear / ResizeNearestNeighbor(images NHWC, size [2] int32): ONNX Resize on NCHW with sizes
// [N, C, new H, new W]. align_corners and half_pixel_centers choose the coordinate transformation.
Status ConvertResize(OpContext& ctx, bool bilinear) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue size, ctx.Input(1));
  const bool align_corners = ctx.node.BoolOr("align_corners", false);
  const bool half_pixel = ctx.node.BoolOr("half_pixel_centers", false);
  if (align_corners && half_pixel) {
    return InvalidArgument(ctx.node.Where() + ": align_corners and half_pixel_centers are exclusive");
  }
  std::string mode = align_corners ? "align_corners" : "asymmetric";
  if (half_pixel) mode = bilinear ? "half_pixel" : "tf_half_pixel_for_nn";
  const std::string nchw = Transposed(ctx, x.name, kToNchw, "to_nchw");
  const std::string shape = ctx.b.Op1("Shape", {nchw}, ctx.Name("shape"));
  const std::string nc = ctx.b.Op1("Slice", {shape, ctx.b.ConstInts(ctx.Name("zero"), {0}),
                                             ctx.b.ConstInts(ctx.Name("two"), {2})},
                                   ctx.Name("batch_channels"));
  const std::string hw = ctx.b.Op1("Cast", {size.name}, ctx.Name("size64"), {ir::IntAttr("to", 7)});
  const std::string sizes = ctx.b.Op1("Concat", {nc, hw}, ctx.Name("sizes"), {ir::IntAttr("axis", 0)});
  std::vector<ir::Attribute> attrs = {ir::StringAttr("mode", bilinear ? "linear" : "nearest"),
                                      ir::StringAttr("coordinate_transformation_mode", mode)};
  if (!bilinear) attrs.push_back(ir::StringAttr("nearest_mode", align_corners ? "round_prefer_ceil" : "floor"));
  const std::string y = ctx.b.Op1("Resize", {nchw, "", "", sizes}, ctx.Name("resize"), std::move(attrs));
  ctx.SetOutput(0, Transposed(ctx, y, kToNhwc, "to_nhwc"), x.type);
  return Status::Ok();
}

Status ResizeBilinear(OpContext& ctx) { return ConvertResize(ctx, true); }
Status ResizeNearestNeighbor(OpContext& ctx) { return ConvertResize(ctx, false); }

}  // namespace

void AddNnOps(std::map<std::string, OpFn>& t) {
  t["Conv2D"] = Conv2D;
  t["_FusedConv2D"] = FusedConv2D;
  t["DepthwiseConv2dNative"] = DepthwiseConv2D;
  t["FusedDepthwiseConv2dNative"] = FusedDepthwiseConv2D;
  t["Conv2DBackpropInput"] = Conv2DBackpropInput;
  t["AvgPool"] = AvgPool;
  t["MaxPool"] = MaxPool;
  t["MatMul"] = MatMul;
  t["_FusedMatMul"] = FusedMatMul;
  t["BatchMatMul"] = BatchMatMul;
  t["BatchMatMulV2"] = BatchMatMul;
  t["BiasAdd"] = BiasAdd;
  t["FusedBatchNorm"] = FusedBatchNorm;
  t["FusedBatchNormV2"] = FusedBatchNorm;
  t["FusedBatchNormV3"] = FusedBatchNorm;
  t["Softmax"] = Softmax;
  t["ResizeBilinear"] = ResizeBilinear;
  t["ResizeNearestNeighbor"] = ResizeNearestNeighbor;
}

}  // namespace onyx::convert::tf
