// The operator walk: TFLite operators come in execution order; each becomes ONNX nodes. Constants (weights) become
// initializers when first read; DEQUANTIZE of a float16 constant is folded into a float32 initializer.
#include "convert/tflite/converter.h"

#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "convert/common/converted_model.h"
#include "convert/common/graph_builder.h"
#include "convert/common/tensor_layout.h"
#include "convert/tflite/tflite_model.h"
#include "core/mapped_file.h"

namespace onyx::convert::tflite {
namespace {

const std::vector<int64_t> kToNchw = ToChannelsFirst(4);
const std::vector<int64_t> kToNhwc = ToChannelsLast(4);

Result<DataType> OnnxType(TensorType t) {
  switch (t) {
    case TensorType::kFloat32: return DataType::kFloat;
    case TensorType::kFloat16: return DataType::kFloat16;
    case TensorType::kInt32: return DataType::kInt32;
    case TensorType::kUint8: return DataType::kUint8;
    case TensorType::kInt64: return DataType::kInt64;
    case TensorType::kBool: return DataType::kBool;
    case TensorType::kInt16: return DataType::kInt16;
    case TensorType::kInt8: return DataType::kInt8;
    default: return Unsupported("TFLite tensor type " + std::to_string(static_cast<int>(t)));
  }
}

std::string OpName(const TfliteOperator& op) {
  static const std::map<int32_t, const char*> names = {
      {op::kAdd, "ADD"}, {op::kAveragePool2D, "AVERAGE_POOL_2D"}, {op::kConcatenation, "CONCATENATION"},
      {op::kConv2D, "CONV_2D"}, {op::kDepthwiseConv2D, "DEPTHWISE_CONV_2D"}, {op::kDequantize, "DEQUANTIZE"},
      {op::kFullyConnected, "FULLY_CONNECTED"}, {op::kLogistic, "LOGISTIC"}, {op::kMaxPool2D, "MAX_POOL_2D"},
      {op::kMul, "MUL"}, {op::kRelu, "RELU"}, {op::kReluN1To1, "RELU_N1_TO_1"}, {op::kRelu6, "RELU6"},
      {op::kReshape, "RESHAPE"}, {op::kResizeBilinear, "RESIZE_BILINEAR"}, {op::kSoftmax, "SOFTMAX"},
      {op::kTanh, "TANH"}, {op::kPad, "PAD"}, {op::kTranspose, "TRANSPOSE"}, {op::kMean, "MEAN"},
      {op::kSub, "SUB"}, {op::kDiv, "DIV"}, {op::kPrelu, "PRELU"}, {op::kMaximum, "MAXIMUM"},
      {op::kMinimum, "MINIMUM"}, {op::kResizeNearestNeighbor, "RESIZE_NEAREST_NEIGHBOR"},
      {op::kLeakyRelu, "LEAKY_RELU"}, {op::kHardSwish, "HARD_SWISH"}};
  if (op.builtin_code == op::kCustom) return "CUSTOM(" + op.custom_code + ")";
  auto it = names.find(op.builtin_code);
  return it != names.end() ? it->second : "builtin operator " + std::to_string(op.builtin_code);
}

bool Supported(const TfliteOperator& op) {
  if (op.builtin_code == op::kCustom) return op.custom_code == "Convolution2DTransposeBias";
  return OpName(op).rfind("builtin operator ", 0) != 0;
}

class Converter {
 public:
  Converter(const TfliteModel& m, GraphBuilder& b) : m_(m), b_(b), values_(m.tensors.size()) {}

  Status AddInputs(ir::Graph& graph) {
    for (int32_t i : m_.inputs) {
      const TfliteTensor& t = m_.tensors[static_cast<size_t>(i)];
      ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t.type));
      std::vector<ir::Dim> dims;
      for (size_t d = 0; d < t.shape.size(); ++d) {
        dims.push_back(t.shape[d] >= 0 ? ir::Dim::Value(t.shape[d]) : ir::Dim::Param("unk__" + std::to_string(d)));
      }
      b_.Reserve(t.name);
      graph.inputs.push_back({t.name, ir::TypeInfo::Tensor(type, dims), {}, {}});
      values_[static_cast<size_t>(i)] = t.name;
    }
    return Status::Ok();
  }

  Status Convert(const TfliteOperator& op, size_t index) {
    op_ = &op;
    where_ = "operator " + std::to_string(index) + " (" + OpName(op) + ")";
    switch (op.builtin_code) {
      case op::kDequantize: return Dequantize();
      case op::kConv2D: return Conv(false);
      case op::kDepthwiseConv2D: return Conv(true);
      case op::kAveragePool2D: return Pool("AveragePool");
      case op::kMaxPool2D: return Pool("MaxPool");
      case op::kAdd: return Binary("Add", 0);
      case op::kSub: return Binary("Sub", 0);
      case op::kMul: return Binary("Mul", 0);
      case op::kDiv: return Binary("Div", 0);
      case op::kMaximum: return Binary("Max", -1);
      case op::kMinimum: return Binary("Min", -1);
      case op::kPrelu: return Binary("PRelu", -1);
      case op::kRelu: return Unary("Relu");
      case op::kLogistic: return Unary("Sigmoid");
      case op::kTanh: return Unary("Tanh");
      case op::kHardSwish: return Unary("HardSwish");
      case op::kRelu6: return Clip(0, 6);
      case op::kReluN1To1: return Clip(-1, 1);
      case op::kLeakyRelu: return LeakyRelu();
      case op::kSoftmax: return Softmax();
      case op::kConcatenation: return Concatenation();
      case op::kReshape: return Reshape();
      case op::kPad: return Pad();
      case op::kTranspose: return Transpose();
      case op::kMean: return Mean();
      case op::kResizeBilinear: return Resize(true);
      case op::kResizeNearestNeighbor: return Resize(false);
      case op::kFullyConnected: return FullyConnected();
      case op::kCustom: return TransposeConvBias();
      default: return Unsupported(where_);
    }
  }

  // The ONNX value of a tensor (constants become initializers on first use).
  Result<std::string> Value(int32_t i) {
    if (i < 0) return InvalidArgument(where_ + ": a required input is omitted");
    std::string& v = values_[static_cast<size_t>(i)];
    if (!v.empty()) return v;
    const TfliteTensor& t = m_.tensors[static_cast<size_t>(i)];
    if (t.data.empty()) return InvalidArgument(where_ + ": tensor '" + t.name + "' is read before it is computed");
    ONYX_ASSIGN_OR_RETURN(Tensor c, Constant(i));
    v = b_.Constant(t.name, std::move(c));
    return v;
  }

  const std::string& value_of(int32_t i) const { return values_[static_cast<size_t>(i)]; }

 private:
  const TfliteTensor& T(int32_t i) const { return m_.tensors[static_cast<size_t>(i)]; }

  Result<int32_t> In(size_t k) const {
    if (k >= op_->inputs.size()) return InvalidArgument(where_ + ": needs at least " + std::to_string(k + 1) + " inputs");
    return op_->inputs[k];
  }
  Result<std::string> InValue(size_t k) {
    ONYX_ASSIGN_OR_RETURN(int32_t i, In(k));
    return Value(i);
  }
  int32_t Out(size_t k = 0) const { return op_->outputs.at(k); }
  void SetOut(const std::string& v, size_t k = 0) { values_[static_cast<size_t>(Out(k))] = v; }
  std::string Name(const std::string& what) const { return T(Out()).name + "/" + what; }

  // A constant tensor's value: float16 data become float16 tensors; every other type is copied as stored.
  Result<Tensor> Constant(int32_t i) const {
    const TfliteTensor& t = T(i);
    if (t.quantized) return Unsupported(where_ + ": quantized constant '" + t.name + "' (int8/uint8 models)");
    ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t.type));
    Shape shape(t.shape.begin(), t.shape.end());
    ONYX_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(type, shape));
    if (out.nbytes() != t.data.size()) {
      return InvalidArgument(where_ + ": constant '" + t.name + "' has " + std::to_string(t.data.size()) +
                             " bytes, its shape " + ShapeToString(shape) + " needs " + std::to_string(out.nbytes()));
    }
    if (type == DataType::kBool) {
      for (int64_t k = 0; k < out.size(); ++k) out.data<bool>()[k] = t.data[static_cast<size_t>(k)] != 0;
    } else if (!t.data.empty()) {
      std::memcpy(out.raw(), t.data.data(), t.data.size());
    }
    return out;
  }

  Result<Tensor> ConstantInput(size_t k, const std::string& what) const {
    ONYX_ASSIGN_OR_RETURN(int32_t i, In(k));
    if (i < 0 || T(i).data.empty()) {
      return Unsupported(where_ + ": the " + what + " must be a constant to convert");
    }
    return Constant(i);
  }

  // Applies a fused activation (schema.fbs ActivationFunctionType) to `v`.
  Result<std::string> Activation(int8_t kind, const std::string& v) {
    switch (kind) {
      case 0: return v;
      case 1: return b_.Op1("Relu", {v}, Name("relu"));
      case 2: return b_.Op1("Clip", {v, b_.ConstFloat(Name("lo"), -1), b_.ConstFloat(Name("hi"), 1)}, Name("relu1"));
      case 3: return b_.Op1("Clip", {v, b_.ConstFloat(Name("lo"), 0), b_.ConstFloat(Name("hi"), 6)}, Name("relu6"));
      case 4: return b_.Op1("Tanh", {v}, Name("tanh"));
      default: return Unsupported(where_ + ": fused activation " + std::to_string(kind));
    }
  }

  Result<FlatTable> Options() const {
    if (!op_->options.valid()) return InvalidArgument(where_ + ": has no options");
    return op_->options;
  }

  std::string ToNchw(const std::string& v) { return b_.Op1("Transpose", {v}, Name("to_nchw"), {ir::IntsAttr("perm", kToNchw)}); }
  std::string ToNhwc(const std::string& v) { return b_.Op1("Transpose", {v}, Name("to_nhwc"), {ir::IntsAttr("perm", kToNhwc)}); }

  // DEQUANTIZE: a float16 constant is folded into float32; a float16 activation is cast.
  Status Dequantize() {
    ONYX_ASSIGN_OR_RETURN(int32_t i, In(0));
    const TfliteTensor& t = T(i);
    if (t.quantized || (t.type != TensorType::kFloat16 && t.type != TensorType::kFloat32)) {
      return Unsupported(where_ + ": dequantizing quantized integers (int8/uint8 models)");
    }
    if (!t.data.empty() && values_[static_cast<size_t>(i)].empty()) {
      ONYX_ASSIGN_OR_RETURN(Tensor half, Constant(i));
      ONYX_ASSIGN_OR_RETURN(Tensor f, ToFloat32(half));
      folded_[Out()] = f;
      SetOut(b_.Constant(T(Out()).name, std::move(f)));
      return Status::Ok();
    }
    ONYX_ASSIGN_OR_RETURN(std::string v, Value(i));
    SetOut(b_.Op1("Cast", {v}, Name("dequantize"), {ir::IntAttr("to", static_cast<int64_t>(DataType::kFloat))}));
    return Status::Ok();
  }

  // Padding: SAME (0) -> auto_pad SAME_UPPER (TFLite puts the odd pixel at the end, as SAME_UPPER does); VALID (1).
  Status AddPadding(int8_t padding, std::vector<ir::Attribute>* attrs) {
    if (padding == 0) {
      attrs->push_back(ir::StringAttr("auto_pad", "SAME_UPPER"));
    } else if (padding == 1) {
      attrs->push_back(ir::IntsAttr("pads", {0, 0, 0, 0}));
    } else {
      return InvalidArgument(where_ + ": padding " + std::to_string(padding));
    }
    return Status::Ok();
  }

  // CONV_2D (filter OHWI) and DEPTHWISE_CONV_2D (filter 1HW(C*M)).
  // Conv2DOptions: padding 0, stride_w 1, stride_h 2, activation 3, dilation_w 4, dilation_h 5.
  // DepthwiseConv2DOptions: padding 0, stride_w 1, stride_h 2, depth_multiplier 3, activation 4, dilation_w 5,
  // dilation_h 6.
  Status Conv(bool depthwise) {
    ONYX_ASSIGN_OR_RETURN(FlatTable o, Options());
    ONYX_ASSIGN_OR_RETURN(std::string x, InValue(0));
    ONYX_ASSIGN_OR_RETURN(int32_t wi, In(1));
    ONYX_ASSIGN_OR_RETURN(Tensor filter, FilterFloat(wi));
    if (filter.rank() != 4) return InvalidArgument(where_ + ": the filter must be 4-D");
    Tensor weight;
    int64_t group = 1;
    if (depthwise) {
      ONYX_ASSIGN_OR_RETURN(weight, TransposeTensor(filter, {3, 0, 1, 2}));  // [1,H,W,CM] -> [CM,1,H,W]
      ONYX_ASSIGN_OR_RETURN(int32_t xi, In(0));
      if (T(xi).shape.size() != 4 || T(xi).shape[3] <= 0) {
        return InvalidArgument(where_ + ": the input's channel count must be known");
      }
      group = T(xi).shape[3];
    } else {
      ONYX_ASSIGN_OR_RETURN(weight, TransposeTensor(filter, {0, 3, 1, 2}));  // OHWI -> OIHW
    }
    ONYX_ASSIGN_OR_RETURN(int8_t padding, o.Int8(0));
    ONYX_ASSIGN_OR_RETURN(int32_t stride_w, o.Int32(1, 1));
    ONYX_ASSIGN_OR_RETURN(int32_t stride_h, o.Int32(2, 1));
    ONYX_ASSIGN_OR_RETURN(int8_t activation, o.Int8(depthwise ? 4 : 3));
    ONYX_ASSIGN_OR_RETURN(int32_t dilation_w, o.Int32(depthwise ? 5 : 4, 1));
    ONYX_ASSIGN_OR_RETURN(int32_t dilation_h, o.Int32(depthwise ? 6 : 5, 1));
    std::vector<ir::Attribute> attrs = {ir::IntsAttr("strides", {stride_h, stride_w}),
                                        ir::IntsAttr("dilations", {dilation_h, dilation_w}),
                                        ir::IntsAttr("kernel_shape", {weight.dim(2), weight.dim(3)})};
    if (group > 1) attrs.push_back(ir::IntAttr("group", group));
    ONYX_RETURN_IF_ERROR(AddPadding(padding, &attrs));
    std::vector<std::string> ins = {ToNchw(x), b_.Constant(Name("weight"), std::move(weight))};
    if (op_->inputs.size() > 2 && op_->inputs[2] >= 0) {
      ONYX_ASSIGN_OR_RETURN(std::string bias, InValue(2));
      ins.push_back(bias);
    }
    std::string y = b_.Op1("Conv", ins, Name("conv"), std::move(attrs));
    ONYX_ASSIGN_OR_RETURN(y, Activation(activation, y));
    SetOut(ToNhwc(y));
    return Status::Ok();
  }

  // A weight as float32: a constant (float32/float16) or the folded output of a DEQUANTIZE.
  Result<Tensor> FilterFloat(int32_t i) {
    if (!T(i).data.empty()) {
      ONYX_ASSIGN_OR_RETURN(Tensor c, Constant(i));
      return ToFloat32(c);
    }
    auto folded = folded_.find(i);
    if (folded != folded_.end()) return folded->second;
    return Unsupported(where_ + ": the filter must be a constant to convert");
  }

  // Pool2DOptions: padding 0, stride_w 1, stride_h 2, filter_width 3, filter_height 4, activation 5.
  Status Pool(const char* onnx_op) {
    ONYX_ASSIGN_OR_RETURN(FlatTable o, Options());
    ONYX_ASSIGN_OR_RETURN(std::string x, InValue(0));
    ONYX_ASSIGN_OR_RETURN(int8_t padding, o.Int8(0));
    ONYX_ASSIGN_OR_RETURN(int32_t stride_w, o.Int32(1, 1));
    ONYX_ASSIGN_OR_RETURN(int32_t stride_h, o.Int32(2, 1));
    ONYX_ASSIGN_OR_RETURN(int32_t width, o.Int32(3, 1));
    ONYX_ASSIGN_OR_RETURN(int32_t height, o.Int32(4, 1));
    ONYX_ASSIGN_OR_RETURN(int8_t activation, o.Int8(5));
    std::vector<ir::Attribute> attrs = {ir::IntsAttr("kernel_shape", {height, width}),
                                        ir::IntsAttr("strides", {stride_h, stride_w})};
    ONYX_RETURN_IF_ERROR(AddPadding(padding, &attrs));
    std::string y = b_.Op1(onnx_op, {ToNchw(x)}, Name("pool"), std::move(attrs));
    ONYX_ASSIGN_OR_RETURN(y, Activation(activation, y));
    SetOut(ToNhwc(y));
    return Status::Ok();
  }

  // Binary ops; `activation_field` is the options' fused activation (-1: none).
  Status Binary(const char* onnx_op, int activation_field) {
    ONYX_ASSIGN_OR_RETURN(std::string a, InValue(0));
    ONYX_ASSIGN_OR_RETURN(std::string b, InValue(1));
    std::string y = b_.Op1(onnx_op, {a, b}, Name(onnx_op));
    if (activation_field >= 0 && op_->options.valid()) {
      ONYX_ASSIGN_OR_RETURN(int8_t activation, op_->options.Int8(activation_field));
      ONYX_ASSIGN_OR_RETURN(y, Activation(activation, y));
    }
    SetOut(y);
    return Status::Ok();
  }

  Status Unary(const char* onnx_op) {
    ONYX_ASSIGN_OR_RETURN(std::string x, InValue(0));
    SetOut(b_.Op1(onnx_op, {x}, Name(onnx_op)));
    return Status::Ok();
  }

  Status Clip(float lo, float hi) {
    ONYX_ASSIGN_OR_RETURN(std::string x, InValue(0));
    SetOut(b_.Op1("Clip", {x, b_.ConstFloat(Name("lo"), lo), b_.ConstFloat(Name("hi"), hi)}, Name("clip")));
    return Status::Ok();
  }

  // LeakyReluOptions: alpha 0.
  Status LeakyRelu() {
    ONYX_ASSIGN_OR_RETURN(std::string x, InValue(0));
    float alpha = 0.2f;
    if (op_->options.valid()) {
      ONYX_ASSIGN_OR_RETURN(alpha, op_->options.Float(0, 0.2f));
    }
    SetOut(b_.Op1("LeakyRelu", {x}, Name("leaky_relu"), {ir::FloatAttr("alpha", alpha)}));
    return Status::Ok();
  }

  // SoftmaxOptions: beta 0 (softmax of beta * x).
  Status Softmax() {
    ONYX_ASSIGN_OR_RETURN(std::string x, InValue(0));
    float beta = 1.0f;
    if (op_->options.valid()) {
      ONYX_ASSIGN_OR_RETURN(beta, op_->options.Float(0, 1.0f));
    }
    if (beta != 1.0f) x = b_.Op1("Mul", {x, b_.ConstFloat(Name("beta"), beta)}, Name("scaled"));
    SetOut(b_.Op1("Softmax", {x}, Name("softmax"), {ir::IntAttr("axis", -1)}));
    return Status::Ok();
  }

  // ConcatenationOptions: axis 0, activation 1.
  Status Concatenation() {
    ONYX_ASSIGN_OR_RETURN(FlatTable o, Options());
    ONYX_ASSIGN_OR_RETURN(int32_t axis, o.Int32(0));
    ONYX_ASSIGN_OR_RETURN(int8_t activation, o.Int8(1));
    std::vector<std::string> ins;
    for (size_t k = 0; k < op_->inputs.size(); ++k) {
      ONYX_ASSIGN_OR_RETURN(std::string v, InValue(k));
      ins.push_back(v);
    }
    std::string y = b_.Op1("Concat", ins, Name("concat"), {ir::IntAttr("axis", axis)});
    ONYX_ASSIGN_OR_RETURN(y, Activation(activation, y));
    SetOut(y);
    return Status::Ok();
  }

  // RESHAPE: the target shape from the second input, else ReshapeOptions.new_shape (0), else the output's shape.
  Status Reshape() {
    ONYX_ASSIGN_OR_RETURN(std::string x, InValue(0));
    std::vector<int64_t> shape;
    if (op_->inputs.size() > 1 && op_->inputs[1] >= 0 && !T(op_->inputs[1]).data.empty()) {
      ONYX_ASSIGN_OR_RETURN(Tensor s, Constant(op_->inputs[1]));
      shape = s.ToInt64Vector();
    } else if (op_->options.valid() && op_->options.Has(0)) {
      ONYX_ASSIGN_OR_RETURN(std::vector<int32_t> s, op_->options.Int32s(0));
      shape.assign(s.begin(), s.end());
    } else {
      const auto& s = T(Out()).shape;
      shape.assign(s.begin(), s.end());
    }
    SetOut(b_.Op1("Reshape", {x, b_.ConstInts(Name("shape"), shape)}, Name("reshape"), {ir::IntAttr("allowzero", 1)}));
    return Status::Ok();
  }

  // PAD(input, paddings [rank, 2]).
  Status Pad() {
    ONYX_ASSIGN_OR_RETURN(std::string x, InValue(0));
    ONYX_ASSIGN_OR_RETURN(Tensor p, ConstantInput(1, "paddings"));
    if (p.rank() != 2 || p.dim(1) != 2) return InvalidArgument(where_ + ": paddings must be [rank, 2]");
    const int64_t rank = p.dim(0);
    std::vector<int64_t> pads(static_cast<size_t>(2 * rank));
    for (int64_t d = 0; d < rank; ++d) {
      pads[static_cast<size_t>(d)] = p.IntAt(2 * d);
      pads[static_cast<size_t>(rank + d)] = p.IntAt(2 * d + 1);
    }
    SetOut(b_.Op1("Pad", {x, b_.ConstInts(Name("pads"), pads)}, Name("pad")));
    return Status::Ok();
  }

  Status Transpose() {
    ONYX_ASSIGN_OR_RETURN(std::string x, InValue(0));
    ONYX_ASSIGN_OR_RETURN(Tensor perm, ConstantInput(1, "permutation"));
    SetOut(b_.Op1("Transpose", {x}, Name("transpose"), {ir::IntsAttr("perm", perm.ToInt64Vector())}));
    return Status::Ok();
  }

  // MEAN(input, axes); ReducerOptions: keep_dims 0.
  Status Mean() {
    ONYX_ASSIGN_OR_RETURN(std::string x, InValue(0));
    ONYX_ASSIGN_OR_RETURN(Tensor axes, ConstantInput(1, "axes"));
    bool keep = false;
    if (op_->options.valid()) {
      ONYX_ASSIGN_OR_RETURN(keep, op_->options.Bool(0));
    }
    SetOut(b_.Op1("ReduceMean", {x}, Name("mean"),
                  {ir::IntsAttr("axes", axes.ToInt64Vector()), ir::IntAttr("keepdims", keep ? 1 : 0)}));
    return Status::Ok();
  }

  // RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR(input, size [2]); options: align_corners (bilinear: field 2,
  // after two deprecated fields; nearest: 0), half_pixel_centers (bilinear 3, nearest 1).
  Status Resize(bool bilinear) {
    ONYX_ASSIGN_OR_RETURN(std::string x, InValue(0));
    ONYX_ASSIGN_OR_RETURN(Tensor size, ConstantInput(1, "size"));
    bool align_corners = false, half_pixel = false;
    if (op_->options.valid()) {
      ONYX_ASSIGN_OR_RETURN(align_corners, op_->options.Bool(bilinear ? 2 : 0));
      ONYX_ASSIGN_OR_RETURN(half_pixel, op_->options.Bool(bilinear ? 3 : 1));
    }
    ONYX_ASSIGN_OR_RETURN(int32_t xi, In(0));
    const auto& in_shape = T(xi).shape;
    const std::vector<int64_t> hw = size.ToInt64Vector();
    if (in_shape.size() != 4 || in_shape[0] < 0 || in_shape[3] < 0 || hw.size() != 2) {
      return InvalidArgument(where_ + ": needs a 4-D input with known batch and channels, and a size of 2");
    }
    std::string mode = align_corners ? "align_corners" : "asymmetric";
    if (half_pixel) mode = bilinear ? "half_pixel" : "tf_half_pixel_for_nn";
    std::vector<ir::Attribute> attrs = {ir::StringAttr("mode", bilinear ? "linear" : "nearest"),
                                        ir::StringAttr("coordinate_transformation_mode", mode)};
    if (!bilinear) attrs.push_back(ir::StringAttr("nearest_mode", align_corners ? "round_prefer_ceil" : "floor"));
    const std::string sizes = b_.ConstInts(Name("sizes"), {in_shape[0], in_shape[3], hw[0], hw[1]});
    SetOut(ToNhwc(b_.Op1("Resize", {ToNchw(x), "", "", sizes}, Name("resize"), std::move(attrs))));
    return Status::Ok();
  }

  // FULLY_CONNECTED(input, weights [O, I], bias?); options: activation 0, weights_format 1, keep_num_dims 2.
  Status FullyConnected() {
    ONYX_ASSIGN_OR_RETURN(FlatTable o, Options());
    ONYX_ASSIGN_OR_RETURN(int8_t activation, o.Int8(0));
    ONYX_ASSIGN_OR_RETURN(int8_t weights_format, o.Int8(1));
    ONYX_ASSIGN_OR_RETURN(bool keep_num_dims, o.Bool(2));
    if (weights_format != 0) return Unsupported(where_ + ": shuffled weights");
    ONYX_ASSIGN_OR_RETURN(std::string x, InValue(0));
    ONYX_ASSIGN_OR_RETURN(std::string w, InValue(1));
    ONYX_ASSIGN_OR_RETURN(int32_t wi, In(1));
    if (T(wi).shape.size() != 2) return InvalidArgument(where_ + ": the weights must be [outputs, inputs]");
    const int64_t inputs = T(wi).shape[1];
    const std::string flat = b_.Op1("Reshape", {x, b_.ConstInts(Name("flat_shape"), {-1, inputs})}, Name("flatten"));
    std::vector<std::string> ins = {flat, w};
    if (op_->inputs.size() > 2 && op_->inputs[2] >= 0) {
      ONYX_ASSIGN_OR_RETURN(std::string bias, InValue(2));
      ins.push_back(bias);
    }
    std::string y = b_.Op1("Gemm", ins, Name("gemm"), {ir::IntAttr("transB", 1)});
    ONYX_ASSIGN_OR_RETURN(y, Activation(activation, y));
    if (keep_num_dims) {
      const auto& s = T(Out()).shape;
      y = b_.Op1("Reshape", {y, b_.ConstInts(Name("out_shape"), std::vector<int64_t>(s.begin(), s.end()))},
                 Name("unflatten"));
    }
    SetOut(y);
    return Status::Ok();
  }

  // MediaPipe's custom Convolution2DTransposeBias(input, weights [O, H, W, I], bias [O]); custom_options hold the
  // raw parameter struct {int32 padding (1 SAME, 2 VALID), int32 stride_width, int32 stride_height}.
  Status TransposeConvBias() {
    if (op_->custom_options.size() < 12) return InvalidArgument(where_ + ": custom options of " +
                                                                std::to_string(op_->custom_options.size()) + " bytes");
    int32_t params[3];
    std::memcpy(params, op_->custom_options.data(), sizeof params);
    ONYX_ASSIGN_OR_RETURN(std::string x, InValue(0));
    ONYX_ASSIGN_OR_RETURN(int32_t wi, In(1));
    ONYX_ASSIGN_OR_RETURN(Tensor filter, FilterFloat(wi));
    if (filter.rank() != 4) return InvalidArgument(where_ + ": the weights must be 4-D");
    ONYX_ASSIGN_OR_RETURN(Tensor weight, TransposeTensor(filter, {3, 0, 1, 2}));  // [O,H,W,I] -> [I,O,H,W]
    const auto& out_shape = T(Out()).shape;
    if (out_shape.size() != 4) return InvalidArgument(where_ + ": the output must be 4-D");
    std::vector<ir::Attribute> attrs = {ir::IntsAttr("strides", {params[2], params[1]}),
                                        ir::IntsAttr("kernel_shape", {weight.dim(2), weight.dim(3)}),
                                        ir::IntsAttr("output_shape", {out_shape[1], out_shape[2]})};
    if (params[0] == 1) {
      attrs.push_back(ir::StringAttr("auto_pad", "SAME_UPPER"));
    } else if (params[0] != 2) {
      return InvalidArgument(where_ + ": padding " + std::to_string(params[0]));
    }
    std::vector<std::string> ins = {ToNchw(x), b_.Constant(Name("weight"), std::move(weight))};
    if (op_->inputs.size() > 2 && op_->inputs[2] >= 0) {
      ONYX_ASSIGN_OR_RETURN(std::string bias, InValue(2));
      ins.push_back(bias);
    }
    SetOut(ToNhwc(b_.Op1("ConvTranspose", ins, Name("conv_transpose"), std::move(attrs))));
    return Status::Ok();
  }

  const TfliteModel& m_;
  GraphBuilder& b_;
  std::vector<std::string> values_;  // ONNX value per tensor index, "" until produced
  std::map<int32_t, Tensor> folded_;  // float32 values of DEQUANTIZE outputs folded at conversion, by tensor index
  const TfliteOperator* op_ = nullptr;
  std::string where_;
};

}  // namespace

Result<ir::Model> ConvertTfliteFile(const std::string& path, int64_t opset, TfliteConvertReport* report) {
  if (opset < 13 || opset > 21) return InvalidArgument("opset " + std::to_string(opset) + " is outside 13..21");
  ONYX_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  auto parsed = ParseTflite(bytes);
  if (!parsed.ok()) return parsed.status().WithContext(path);
  const TfliteModel& m = *parsed;
  if (m.subgraphs > 1) return Unsupported(path + ": " + std::to_string(m.subgraphs) + " subgraphs (control flow)");
  std::set<std::string> missing;
  for (const auto& op : m.operators) {
    if (!Supported(op)) missing.insert(OpName(op));
  }
  ONYX_RETURN_IF_ERROR(MissingOperators(path, "TFLite", missing));

  ir::Model model = NewConvertedModel(std::filesystem::path(path).stem().string());
  GraphBuilder b(&model.graph);
  for (int32_t o : m.outputs) b.Reserve(m.tensors[static_cast<size_t>(o)].name);  // kept for the graph outputs
  Converter c(m, b);
  ONYX_RETURN_IF_ERROR(c.AddInputs(model.graph));
  for (size_t k = 0; k < m.operators.size(); ++k) {
    Status st = c.Convert(m.operators[k], k);
    if (!st.ok()) return st.WithContext(path);
  }
  for (int32_t o : m.outputs) {
    const TfliteTensor& t = m.tensors[static_cast<size_t>(o)];
    ONYX_ASSIGN_OR_RETURN(std::string v, c.Value(o));
    b.OpTo("Identity", {v}, {t.name}, t.name);
    ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t.type));
    ir::ValueInfo vi;
    vi.name = t.name;
    // TFLite records every tensor's shape: the outputs declare it (-1 dims as symbolic ones).
    std::vector<ir::Dim> dims;
    for (size_t d = 0; d < t.shape.size(); ++d) {
      dims.push_back(t.shape[d] >= 0 ? ir::Dim::Value(t.shape[d]) : ir::Dim::Param(t.name + "_dim" + std::to_string(d)));
    }
    vi.type = ir::TypeInfo::Tensor(type, t.shape.empty() ? std::nullopt : std::optional<std::vector<ir::Dim>>(dims));
    model.graph.outputs.push_back(vi);
  }
  ONYX_ASSIGN_OR_RETURN(const TransposeStats stats, FinishConvertedModel(model, opset));
  if (report) {
    report->operators = static_cast<int>(m.operators.size());
    report->nodes = static_cast<int>(model.graph.nodes.size());
    report->transposes_before = stats.before;
    report->transposes_after = stats.after;
  }
  return model;
}

}  // namespace onyx::convert::tflite
