// Convolutions, pooling, fully connected layers, normalizations. TFLite is channels-last (NHWC / NDHWC): each
// channels-first ONNX op sits between Transposes, which the transpose optimizer cancels between neighbours.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "convert/common/tensor_layout.h"
#include "convert/tflite/op_context.h"

namespace onyx::convert::tflite {
namespace {

// Padding: SAME (0) -> auto_pad SAME_UPPER (TFLite puts the odd pixel at the end, as SAME_UPPER does); VALID (1).
Status AddPadding(OpContext& c, int8_t padding, int spatial, std::vector<ir::Attribute>* attrs) {
  if (padding == 0) {
    attrs->push_back(ir::StringAttr("auto_pad", "SAME_UPPER"));
  } else if (padding == 1) {
    attrs->push_back(ir::IntsAttr("pads", std::vector<int64_t>(static_cast<size_t>(2 * spatial), 0)));
  } else {
    return c.Error("padding " + std::to_string(padding));
  }
  return Status::Ok();
}

Result<std::vector<std::string>> WithBias(OpContext& c, std::vector<std::string> ins, size_t bias_input) {
  if (c.HasInput(bias_input)) {
    ONYX_ASSIGN_OR_RETURN(std::string bias, c.Input(bias_input));
    ins.push_back(bias);
  }
  return ins;
}

// A quantized CONV_2D / DEPTHWISE_CONV_2D (8-bit input, weights and output, int32 bias) reproduces the integer
// kernel: ConvInteger gives the exact int32 accumulator, the bias is added in int32, and the requantization is
// XNNPACK's (LiteRT's CPU path): acc * (s_in * s_w / s_out) in float32, clamped to the fused activation's range,
// rounded half to even (QuantizeLinear with scale 1), plus the output zero point. TFLite's reference kernels use a
// fixed-point multiplier instead, which can differ by one step at ties.
bool IsInt8(TensorType t) { return t == TensorType::kUint8 || t == TensorType::kInt8; }

Result<bool> QuantizedConv(OpContext& c, std::vector<ir::Attribute> attrs, const std::vector<int64_t>& to_oihw,
                           int8_t activation) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* in, c.InTensor(0));
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* w, c.InTensor(1));
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* out, c.OutTensor());
  const TfliteTensor* bias = nullptr;
  if (c.HasInput(2)) {
    ONYX_ASSIGN_OR_RETURN(bias, c.InTensor(2));
  }
  if (!in->quantized() || !w->quantized() || !out->quantized() || !IsInt8(in->type) || !IsInt8(w->type) ||
      !IsInt8(out->type) || w->data.empty() || w->sparsity.valid() || in->quant.scales.size() != 1 ||
      out->quant.scales.size() != 1 || (bias && (bias->type != TensorType::kInt32 || bias->data.empty()))) {
    return false;
  }
  ONYX_ASSIGN_OR_RETURN(Tensor stored, c.ConstInput(1, "filter"));
  ONYX_ASSIGN_OR_RETURN(Tensor weight, TransposeTensor(stored, to_oihw));
  const int64_t channels = weight.dim(0);
  const auto& wq = w->quant;
  if (wq.scales.size() != 1 && static_cast<int64_t>(wq.scales.size()) != channels) return false;
  if (wq.scales.size() > 1 && wq.axis != (to_oihw[0] == 0 ? 0 : 3)) return false;
  // Zero points and multipliers, one per output channel; the zero points as one scalar when they are all equal
  // (per-tensor weights, or per-channel ones with zero points 0): the form ONNX Runtime's ConvInteger accepts (it
  // refuses a zero point per channel).
  if (wq.zero_points.size() != wq.scales.size()) return false;
  const bool one_zero_point =
      std::all_of(wq.zero_points.begin(), wq.zero_points.end(), [&](int64_t z) { return z == wq.zero_points[0]; });
  ONYX_ASSIGN_OR_RETURN(Tensor w_zp, Tensor::Create(weight.type(), one_zero_point ? Shape{} : Shape{channels}));
  std::vector<float> multiplier(static_cast<size_t>(channels));
  for (int64_t o = 0; o < channels; ++o) {
    const size_t q = wq.scales.size() > 1 ? static_cast<size_t>(o) : 0;
    if (!one_zero_point || o == 0) {
      const int64_t at = one_zero_point ? 0 : o;
      if (weight.type() == DataType::kUint8) {
        w_zp.data<uint8_t>()[at] = static_cast<uint8_t>(wq.zero_points[q]);
      } else {
        w_zp.data<int8_t>()[at] = static_cast<int8_t>(wq.zero_points[q]);
      }
    }
    multiplier[static_cast<size_t>(o)] =
        static_cast<float>(static_cast<double>(in->quant.scales[0]) * wq.scales[q] / out->quant.scales[0]);
  }
  ONYX_ASSIGN_OR_RETURN(DataType in_type, OnnxType(in->type));
  ONYX_ASSIGN_OR_RETURN(Tensor x_zp, Tensor::Create(in_type, {}));
  if (in_type == DataType::kUint8)
    x_zp.data<uint8_t>()[0] = static_cast<uint8_t>(in->quant.zero_points[0]);
  else
    x_zp.data<int8_t>()[0] = static_cast<int8_t>(in->quant.zero_points[0]);
  ONYX_ASSIGN_OR_RETURN(std::string x, c.RawInput(0));
  std::string acc = c.b.Op1(
      "ConvInteger",
      {c.ToNchw(x), c.b.Constant(c.Name("weight"), std::move(weight)),
       c.b.Constant(c.Name("x_zero_point"), std::move(x_zp)), c.b.Constant(c.Name("w_zero_point"), std::move(w_zp))},
      c.Name("conv_integer"), std::move(attrs));
  const Shape column = {channels, 1, 1};
  if (bias) {
    ONYX_ASSIGN_OR_RETURN(Tensor b, c.ConstInput(2, "bias"));
    ONYX_ASSIGN_OR_RETURN(b, b.Reshaped(column));
    acc = c.b.Op1("Add", {acc, c.b.Constant(c.Name("bias"), std::move(b))}, c.Name("biased"));
  }
  std::string v =
      c.b.Op1("Cast", {acc}, c.Name("acc_float"), {ir::IntAttr("to", static_cast<int64_t>(DataType::kFloat))});
  v = c.b.Op1("Mul", {v, c.b.Constant(c.Name("multiplier"), Tensor::FromVector<float>(multiplier, column))},
              c.Name("scaled"));
  // The fused activation's range in output steps relative to the zero point (TFLite's CalculateActivationRange).
  const float s = out->quant.scales[0];
  float lo = -1e30f, hi = 1e30f;
  if (activation == 1 || activation == 3) lo = 0;
  if (activation == 2) {
    lo = std::round(-1.0f / s);
    hi = std::round(1.0f / s);
  }
  if (activation == 3) hi = std::round(6.0f / s);
  if (activation == 4) return false;
  if (activation != 0) {
    v = c.b.Op1("Clip", {v, c.b.ConstFloat(c.Name("lo"), lo), c.b.ConstFloat(c.Name("hi"), hi)}, c.Name("activation"));
  }
  ONYX_ASSIGN_OR_RETURN(DataType out_type, OnnxType(out->type));
  ONYX_ASSIGN_OR_RETURN(Tensor y_zp, Tensor::Create(out_type, {}));
  if (out_type == DataType::kUint8)
    y_zp.data<uint8_t>()[0] = static_cast<uint8_t>(out->quant.zero_points[0]);
  else
    y_zp.data<int8_t>()[0] = static_cast<int8_t>(out->quant.zero_points[0]);
  std::string q =
      c.b.Op1("QuantizeLinear",
              {v, c.b.ConstFloat(c.Name("unit_scale"), 1.0f), c.b.Constant(c.Name("y_zero_point"), std::move(y_zp))},
              c.Name("requantize"));
  ONYX_RETURN_IF_ERROR(c.SetRawOutput(c.ToNhwc(q)));
  return true;
}

// CONV_2D (filter OHWI) and DEPTHWISE_CONV_2D (filter 1HW(C*M)).
// Conv2DOptions: padding 0, stride_w 1, stride_h 2, activation 3, dilation_w 4, dilation_h 5.
// DepthwiseConv2DOptions: padding 0, stride_w 1, stride_h 2, depth_multiplier 3, activation 4, dilation_w 5,
// dilation_h 6.
Status Conv(OpContext& c, bool depthwise) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(Tensor filter, c.FloatConst(1, "filter"));
  if (filter.rank() != 4) return c.Error("the filter must be 4-D");
  Tensor weight;
  int64_t group = 1;
  if (depthwise) {
    ONYX_ASSIGN_OR_RETURN(weight, TransposeTensor(filter, {3, 0, 1, 2}));  // [1,H,W,CM] -> [CM,1,H,W]
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> in_shape, c.InShape(0));
    if (in_shape.size() != 4 || in_shape[3] <= 0) return c.Error("the input's channel count must be known");
    group = in_shape[3];
  } else {
    ONYX_ASSIGN_OR_RETURN(weight, TransposeTensor(filter, {0, 3, 1, 2}));  // OHWI -> OIHW
  }
  ONYX_ASSIGN_OR_RETURN(int8_t padding, c.OptByte(0));
  ONYX_ASSIGN_OR_RETURN(int32_t stride_w, c.OptInt(1, 1));
  ONYX_ASSIGN_OR_RETURN(int32_t stride_h, c.OptInt(2, 1));
  ONYX_ASSIGN_OR_RETURN(int8_t activation, c.OptByte(depthwise ? 4 : 3));
  ONYX_ASSIGN_OR_RETURN(int32_t dilation_w, c.OptInt(depthwise ? 5 : 4, 1));
  ONYX_ASSIGN_OR_RETURN(int32_t dilation_h, c.OptInt(depthwise ? 6 : 5, 1));
  std::vector<ir::Attribute> attrs = {ir::IntsAttr("strides", {stride_h, stride_w}),
                                      ir::IntsAttr("dilations", {dilation_h, dilation_w}),
                                      ir::IntsAttr("kernel_shape", {weight.dim(2), weight.dim(3)})};
  if (group > 1) attrs.push_back(ir::IntAttr("group", group));
  ONYX_RETURN_IF_ERROR(AddPadding(c, padding, 2, &attrs));
  ONYX_ASSIGN_OR_RETURN(
      bool integer,
      QuantizedConv(c, attrs, depthwise ? std::vector<int64_t>{3, 0, 1, 2} : std::vector<int64_t>{0, 3, 1, 2},
                    activation));
  if (integer) return Status::Ok();
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> ins,
                        WithBias(c, {c.ToNchw(x), c.b.Constant(c.Name("weight"), std::move(weight))}, 2));
  std::string y = c.b.Op1("Conv", ins, c.Name("conv"), std::move(attrs));
  ONYX_ASSIGN_OR_RETURN(y, c.Activation(activation, y));
  return c.SetOutput(c.ToNhwc(y));
}

// CONV_3D(input NDHWC, filter [D,H,W,I,O], bias?). Conv3DOptions: padding 0, stride_d 1, stride_w 2, stride_h 3,
// activation 4, dilation_d 5, dilation_w 6, dilation_h 7.
Status Conv3D(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(Tensor filter, c.FloatConst(1, "filter"));
  if (filter.rank() != 5) return c.Error("the filter must be 5-D");
  ONYX_ASSIGN_OR_RETURN(Tensor weight, TransposeTensor(filter, {4, 3, 0, 1, 2}));  // -> [O,I,D,H,W]
  ONYX_ASSIGN_OR_RETURN(int8_t padding, c.OptByte(0));
  ONYX_ASSIGN_OR_RETURN(int32_t sd, c.OptInt(1, 1));
  ONYX_ASSIGN_OR_RETURN(int32_t sw, c.OptInt(2, 1));
  ONYX_ASSIGN_OR_RETURN(int32_t sh, c.OptInt(3, 1));
  ONYX_ASSIGN_OR_RETURN(int8_t activation, c.OptByte(4));
  ONYX_ASSIGN_OR_RETURN(int32_t dd, c.OptInt(5, 1));
  ONYX_ASSIGN_OR_RETURN(int32_t dw, c.OptInt(6, 1));
  ONYX_ASSIGN_OR_RETURN(int32_t dh, c.OptInt(7, 1));
  std::vector<ir::Attribute> attrs = {ir::IntsAttr("strides", {sd, sh, sw}), ir::IntsAttr("dilations", {dd, dh, dw}),
                                      ir::IntsAttr("kernel_shape", {weight.dim(2), weight.dim(3), weight.dim(4)})};
  ONYX_RETURN_IF_ERROR(AddPadding(c, padding, 3, &attrs));
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> ins,
                        WithBias(c, {c.ToNchw(x, 5), c.b.Constant(c.Name("weight"), std::move(weight))}, 2));
  std::string y = c.b.Op1("Conv", ins, c.Name("conv3d"), std::move(attrs));
  ONYX_ASSIGN_OR_RETURN(y, c.Activation(activation, y));
  return c.SetOutput(c.ToNhwc(y, 5));
}

// ConvTranspose with explicit pads from TFLite's recorded shapes: total = stride*(in-1) + k - out; TFLite crops
// floor(total/2) at the start (as its SAME convolution pads); a negative total is extra output at the end.
Status TransposeConvCommon(OpContext& c, const std::string& x, Tensor filter, int32_t stride_h, int32_t stride_w,
                           size_t bias_input, int8_t activation) {
  if (filter.rank() != 4) return c.Error("the weights must be 4-D");
  ONYX_ASSIGN_OR_RETURN(Tensor weight, TransposeTensor(filter, {3, 0, 1, 2}));  // [O,H,W,I] -> [I,O,H,W]
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> out, c.OutShape());
  ONYX_ASSIGN_OR_RETURN(int32_t xi, c.InIndex(bias_input == 3 ? 2 : 0));
  const auto& in = c.graph.tensors[static_cast<size_t>(xi)].shape;
  if (out.size() != 4 || in.size() != 4 || in[1] < 0 || in[2] < 0 || out[1] < 0 || out[2] < 0) {
    return c.Error("needs 4-D input and output with known spatial sizes");
  }
  const int64_t strides[2] = {stride_h, stride_w};
  std::vector<int64_t> pads(4, 0), output_padding(2, 0);
  for (int d = 0; d < 2; ++d) {
    const int64_t total = strides[d] * (in[1 + d] - 1) + weight.dim(2 + d) - out[1 + d];
    if (total >= 0) {
      pads[d] = total / 2;
      pads[2 + d] = total - total / 2;
    } else {
      output_padding[d] = -total;
    }
  }
  std::vector<ir::Attribute> attrs = {ir::IntsAttr("strides", {stride_h, stride_w}),
                                      ir::IntsAttr("kernel_shape", {weight.dim(2), weight.dim(3)}),
                                      ir::IntsAttr("pads", pads)};
  if (output_padding[0] || output_padding[1]) attrs.push_back(ir::IntsAttr("output_padding", output_padding));
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> ins,
                        WithBias(c, {c.ToNchw(x), c.b.Constant(c.Name("weight"), std::move(weight))}, bias_input));
  std::string y = c.b.Op1("ConvTranspose", ins, c.Name("conv_transpose"), std::move(attrs));
  ONYX_ASSIGN_OR_RETURN(y, c.Activation(activation, y));
  return c.SetOutput(c.ToNhwc(y));
}

// CONV_3D_TRANSPOSE(output_shape, filter [D,H,W,O,I], input NDHWC, bias?); Conv3DOptions as CONV_3D. The pads
// follow from the recorded shapes as for TRANSPOSE_CONV, with the dilated filter size.
Status Conv3DTranspose(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(2));
  ONYX_ASSIGN_OR_RETURN(Tensor filter, c.FloatConst(1, "filter"));
  if (filter.rank() != 5) return c.Error("the filter must be 5-D");
  ONYX_ASSIGN_OR_RETURN(Tensor weight, TransposeTensor(filter, {4, 3, 0, 1, 2}));  // -> [I,O,D,H,W]
  ONYX_ASSIGN_OR_RETURN(int32_t sd, c.OptInt(1, 1));
  ONYX_ASSIGN_OR_RETURN(int32_t sw, c.OptInt(2, 1));
  ONYX_ASSIGN_OR_RETURN(int32_t sh, c.OptInt(3, 1));
  ONYX_ASSIGN_OR_RETURN(int8_t activation, c.OptByte(4));
  ONYX_ASSIGN_OR_RETURN(int32_t dd, c.OptInt(5, 1));
  ONYX_ASSIGN_OR_RETURN(int32_t dw, c.OptInt(6, 1));
  ONYX_ASSIGN_OR_RETURN(int32_t dh, c.OptInt(7, 1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> out, c.OutShape());
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> in, c.InShape(2));
  if (out.size() != 5 || in.size() != 5) return c.Error("needs 5-D input and output");
  const int64_t strides[3] = {sd, sh, sw}, dilations[3] = {dd, dh, dw};
  std::vector<int64_t> pads(6, 0), output_padding(3, 0);
  bool extra = false;
  for (int d = 0; d < 3; ++d) {
    if (in[1 + d] < 0 || out[1 + d] < 0) return c.Error("needs known spatial sizes");
    const int64_t k = dilations[d] * (weight.dim(2 + d) - 1) + 1;
    const int64_t total = strides[d] * (in[1 + d] - 1) + k - out[1 + d];
    if (total >= 0) {
      pads[d] = total / 2;
      pads[3 + d] = total - total / 2;
    } else {
      output_padding[d] = -total;
      extra = true;
    }
  }
  std::vector<ir::Attribute> attrs = {ir::IntsAttr("strides", {sd, sh, sw}), ir::IntsAttr("dilations", {dd, dh, dw}),
                                      ir::IntsAttr("kernel_shape", {weight.dim(2), weight.dim(3), weight.dim(4)}),
                                      ir::IntsAttr("pads", pads)};
  if (extra) attrs.push_back(ir::IntsAttr("output_padding", output_padding));
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> ins,
                        WithBias(c, {c.ToNchw(x, 5), c.b.Constant(c.Name("weight"), std::move(weight))}, 3));
  std::string y = c.b.Op1("ConvTranspose", ins, c.Name("conv3d_transpose"), std::move(attrs));
  ONYX_ASSIGN_OR_RETURN(y, c.Activation(activation, y));
  return c.SetOutput(c.ToNhwc(y, 5));
}

// TRANSPOSE_CONV(output_shape, weights [O,H,W,I], input, bias?); options: padding 0, stride_w 1, stride_h 2,
// activation 3 (padding follows from the recorded shapes).
Status TransposeConv(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(2));
  ONYX_ASSIGN_OR_RETURN(Tensor filter, c.FloatConst(1, "weights"));
  ONYX_ASSIGN_OR_RETURN(int32_t stride_w, c.OptInt(1, 1));
  ONYX_ASSIGN_OR_RETURN(int32_t stride_h, c.OptInt(2, 1));
  ONYX_ASSIGN_OR_RETURN(int8_t activation, c.OptByte(3));
  return TransposeConvCommon(c, x, std::move(filter), stride_h, stride_w, 3, activation);
}

// MediaPipe's custom Convolution2DTransposeBias(input, weights [O, H, W, I], bias [O]); custom_options hold the
// raw parameter struct {int32 padding (1 SAME, 2 VALID), int32 stride_width, int32 stride_height}.
Status TransposeConvBias(OpContext& c) {
  if (c.op().custom_options.size() < 12) {
    return c.Error("custom options of " + std::to_string(c.op().custom_options.size()) + " bytes");
  }
  int32_t params[3];
  std::memcpy(params, c.op().custom_options.data(), sizeof params);
  if (params[0] != 1 && params[0] != 2) return c.Error("padding " + std::to_string(params[0]));
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(Tensor filter, c.FloatConst(1, "weights"));
  return TransposeConvCommon(c, x, std::move(filter), params[2], params[1], 2, 0);
}

// Pool2DOptions: padding 0, stride_w 1, stride_h 2, filter_width 3, filter_height 4, activation 5.
Status Pool(OpContext& c, const char* kind) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(int8_t padding, c.OptByte(0));
  ONYX_ASSIGN_OR_RETURN(int32_t stride_w, c.OptInt(1, 1));
  ONYX_ASSIGN_OR_RETURN(int32_t stride_h, c.OptInt(2, 1));
  ONYX_ASSIGN_OR_RETURN(int32_t width, c.OptInt(3, 1));
  ONYX_ASSIGN_OR_RETURN(int32_t height, c.OptInt(4, 1));
  ONYX_ASSIGN_OR_RETURN(int8_t activation, c.OptByte(5));
  std::vector<ir::Attribute> attrs = {ir::IntsAttr("kernel_shape", {height, width}),
                                      ir::IntsAttr("strides", {stride_h, stride_w})};
  ONYX_RETURN_IF_ERROR(AddPadding(c, padding, 2, &attrs));
  std::string nchw = c.ToNchw(x);
  std::string y;
  if (std::string(kind) == "L2") {
    // L2_POOL_2D: sqrt(mean(x^2)) over the window's valid elements (AveragePool excludes padding by default).
    std::string sq = c.b.Op1("Mul", {nchw, nchw}, c.Name("square"));
    y = c.b.Op1("Sqrt", {c.b.Op1("AveragePool", {sq}, c.Name("pool"), std::move(attrs))}, c.Name("sqrt"));
  } else {
    y = c.b.Op1(kind, {nchw}, c.Name("pool"), std::move(attrs));
  }
  ONYX_ASSIGN_OR_RETURN(y, c.Activation(activation, y));
  return c.SetOutput(c.ToNhwc(y));
}

// FULLY_CONNECTED(input, weights [O, I], bias?); options: activation 0, weights_format 1, keep_num_dims 2.
Status FullyConnected(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(int8_t activation, c.OptByte(0));
  ONYX_ASSIGN_OR_RETURN(int8_t weights_format, c.OptByte(1));
  ONYX_ASSIGN_OR_RETURN(bool keep_num_dims, c.OptBool(2));
  if (weights_format != 0) return c.Unsupported("shuffled weights");
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string w, c.Input(1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> w_shape, c.InShape(1));
  if (w_shape.size() != 2) return c.Error("the weights must be [outputs, inputs]");
  const std::string flat =
      c.b.Op1("Reshape", {x, c.b.ConstInts(c.Name("flat_shape"), {-1, w_shape[1]})}, c.Name("flatten"));
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> ins, WithBias(c, {flat, w}, 2));
  std::string y = c.b.Op1("Gemm", ins, c.Name("gemm"), {ir::IntAttr("transB", 1)});
  ONYX_ASSIGN_OR_RETURN(y, c.Activation(activation, y));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> out, c.OutShape());
  if (keep_num_dims || out.size() != 2) {
    y = c.b.Op1("Reshape", {y, c.b.ConstInts(c.Name("out_shape"), out)}, c.Name("unflatten"));
  }
  return c.SetOutput(y);
}

// BATCH_MATMUL(x, y); BatchMatMulOptions: adj_x 0, adj_y 1.
Status BatchMatMul(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string y, c.Input(1));
  ONYX_ASSIGN_OR_RETURN(bool adj_x, c.OptBool(0));
  ONYX_ASSIGN_OR_RETURN(bool adj_y, c.OptBool(1));
  auto adjoint = [&](const std::string& v, size_t k) -> Result<std::string> {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> s, c.InShape(k));
    if (s.size() < 2) return c.Error("adjoint of a tensor of rank < 2");
    std::vector<int64_t> perm(s.size());
    for (size_t d = 0; d < s.size(); ++d) perm[d] = static_cast<int64_t>(d);
    std::swap(perm[s.size() - 1], perm[s.size() - 2]);
    return c.b.Op1("Transpose", {v}, c.Name("adjoint"), {ir::IntsAttr("perm", perm)});
  };
  if (adj_x) {
    ONYX_ASSIGN_OR_RETURN(x, adjoint(x, 0));
  }
  if (adj_y) {
    ONYX_ASSIGN_OR_RETURN(y, adjoint(y, 1));
  }
  return c.SetOutput(c.b.Op1("MatMul", {x, y}, c.Name("matmul")));
}

// L2_NORMALIZATION over the last axis: x / max(||x||, 1e-6) (TFLite's epsilon); L2NormOptions: activation 0.
Status L2Normalization(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(int8_t activation, c.OptByte(0));
  std::string norm = c.b.Op1("ReduceL2", {x}, c.Name("norm"), {ir::IntsAttr("axes", {-1}), ir::IntAttr("keepdims", 1)});
  norm = c.b.Op1("Max", {norm, c.b.ConstFloat(c.Name("epsilon"), 1e-6f)}, c.Name("clamped"));
  std::string y = c.b.Op1("Div", {x, norm}, c.Name("normalized"));
  ONYX_ASSIGN_OR_RETURN(y, c.Activation(activation, y));
  return c.SetOutput(y);
}

// LOCAL_RESPONSE_NORMALIZATION over the channels: x / (bias + alpha * sum(x^2 over c-r..c+r))^beta; ONNX LRN
// divides alpha by the window size. Options: radius 0, bias 1, alpha 2, beta 3.
Status LocalResponseNorm(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(int32_t radius, c.OptInt(0));
  ONYX_ASSIGN_OR_RETURN(float bias, c.OptFloat(1));
  ONYX_ASSIGN_OR_RETURN(float alpha, c.OptFloat(2));
  ONYX_ASSIGN_OR_RETURN(float beta, c.OptFloat(3));
  const int64_t size = 2 * static_cast<int64_t>(radius) + 1;
  std::string y = c.b.Op1("LRN", {c.ToNchw(x)}, c.Name("lrn"),
                          {ir::IntAttr("size", size), ir::FloatAttr("alpha", alpha * static_cast<float>(size)),
                           ir::FloatAttr("beta", beta), ir::FloatAttr("bias", bias)});
  return c.SetOutput(c.ToNhwc(y));
}

}  // namespace

void AddNnOps(std::map<int32_t, OpFn>& t) {
  t[op::kConv2d] = [](OpContext& c) { return Conv(c, false); };
  t[op::kDepthwiseConv2d] = [](OpContext& c) { return Conv(c, true); };
  t[op::kConv3d] = Conv3D;
  t[op::kConv3dTranspose] = Conv3DTranspose;
  t[op::kTransposeConv] = TransposeConv;
  t[op::kAveragePool2d] = [](OpContext& c) { return Pool(c, "AveragePool"); };
  t[op::kMaxPool2d] = [](OpContext& c) { return Pool(c, "MaxPool"); };
  t[op::kL2Pool2d] = [](OpContext& c) { return Pool(c, "L2"); };
  t[op::kFullyConnected] = FullyConnected;
  t[op::kBatchMatmul] = BatchMatMul;
  t[op::kL2Normalization] = L2Normalization;
  t[op::kLocalResponseNormalization] = LocalResponseNorm;
}

void AddCustomNnOps(std::map<std::string, OpFn>& t) { t["Convolution2DTransposeBias"] = TransposeConvBias; }

}  // namespace onyx::convert::tflite
