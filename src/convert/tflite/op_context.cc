#include "convert/tflite/op_context.h"

#include <cstring>

#include "convert/common/tensor_layout.h"

namespace onyx::convert::tflite {

Result<DataType> OnnxType(TensorType t) {
  switch (t) {
    case TensorType::kFloat32:
      return DataType::kFloat;
    case TensorType::kFloat16:
      return DataType::kFloat16;
    case TensorType::kFloat64:
      return DataType::kDouble;
    case TensorType::kInt32:
      return DataType::kInt32;
    case TensorType::kUint8:
      return DataType::kUint8;
    case TensorType::kInt64:
      return DataType::kInt64;
    case TensorType::kBool:
      return DataType::kBool;
    case TensorType::kInt16:
      return DataType::kInt16;
    case TensorType::kInt8:
      return DataType::kInt8;
    case TensorType::kUint16:
      return DataType::kUint16;
    case TensorType::kUint32:
      return DataType::kUint32;
    case TensorType::kUint64:
      return DataType::kUint64;
    case TensorType::kString:
      return DataType::kString;
    default:
      return Unsupported("TFLite tensor type " + std::to_string(static_cast<int>(t)));
  }
}

namespace {

// A TFLite string tensor's buffer: int32 count N, N + 1 int32 offsets from the buffer's start, then the bytes.
Status DecodeStrings(const TfliteTensor& t, Tensor& out) {
  const std::string_view d = t.data;
  auto read = [&](size_t at) -> Result<int32_t> {
    if (at + 4 > d.size()) return InvalidArgument("string tensor '" + t.name + "' is truncated");
    int32_t v;
    std::memcpy(&v, d.data() + at, 4);
    return v;
  };
  ONYX_ASSIGN_OR_RETURN(int32_t n, read(0));
  if (n != out.size()) {
    return InvalidArgument("string tensor '" + t.name + "' holds " + std::to_string(n) + " strings, its shape " +
                           std::to_string(out.size()));
  }
  for (int32_t k = 0; k < n; ++k) {
    ONYX_ASSIGN_OR_RETURN(int32_t begin, read(4 + 4 * static_cast<size_t>(k)));
    ONYX_ASSIGN_OR_RETURN(int32_t end, read(8 + 4 * static_cast<size_t>(k)));
    if (begin < 0 || end < begin || static_cast<size_t>(end) > d.size()) {
      return InvalidArgument("string tensor '" + t.name + "' has bad offsets");
    }
    out.data<std::string>()[k] = std::string(d.substr(static_cast<size_t>(begin), static_cast<size_t>(end - begin)));
  }
  return Status::Ok();
}

}  // namespace

OpContext::OpContext(const TfliteModel& m, int subgraph, GraphBuilder& builder, std::string prefix, int nesting,
                     ConversionState* shared)
    : b(builder),
      model(m),
      graph(m.subgraphs[static_cast<size_t>(subgraph)]),
      subgraph_index(subgraph),
      depth(nesting),
      state(shared),
      instances(&shared->instances),
      prefix_(std::move(prefix)),
      raw_(graph.tensors.size()),
      real_(graph.tensors.size()) {}

void OpContext::Begin(const TfliteOperator& op, size_t index) {
  op_ = &op;
  std::string name = op.builtin_code == op::kCustom ? "CUSTOM(" + op.custom_code + ")" : BuiltinName(op.builtin_code);
  where_ = (subgraph_index == 0 ? "" : "subgraph " + std::to_string(subgraph_index) + " ") + "operator " +
           std::to_string(index) + " (" + name + ")";
  b.set_doc(name);
}

Result<const TfliteTensor*> OpContext::TensorAt(int32_t i) const {
  if (i < 0 || static_cast<size_t>(i) >= graph.tensors.size()) {
    return InvalidArgument(where_ + ": tensor index " + std::to_string(i) + " of " +
                           std::to_string(graph.tensors.size()));
  }
  return &graph.tensors[static_cast<size_t>(i)];
}

Result<int32_t> OpContext::InIndex(size_t k) const {
  if (k >= op_->inputs.size()) return Error("needs at least " + std::to_string(k + 1) + " inputs");
  if (op_->inputs[k] < 0) return Error("input " + std::to_string(k) + " is required but omitted");
  return op_->inputs[k];
}

Result<const TfliteTensor*> OpContext::InTensor(size_t k) const {
  ONYX_ASSIGN_OR_RETURN(int32_t i, InIndex(k));
  return TensorAt(i);
}

Result<const TfliteTensor*> OpContext::OutTensor(size_t k) const {
  if (k >= op_->outputs.size()) return Error("needs at least " + std::to_string(k + 1) + " outputs");
  return TensorAt(op_->outputs[k]);
}

Result<std::vector<int64_t>> OpContext::InShape(size_t k) const {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, InTensor(k));
  return std::vector<int64_t>(t->shape.begin(), t->shape.end());
}

Result<std::vector<int64_t>> OpContext::OutShape(size_t k) const {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, OutTensor(k));
  return std::vector<int64_t>(t->shape.begin(), t->shape.end());
}

Result<std::string> OpContext::Input(size_t k) {
  ONYX_ASSIGN_OR_RETURN(int32_t i, InIndex(k));
  return TensorValue(i, false);
}

Result<std::string> OpContext::RawInput(size_t k) {
  ONYX_ASSIGN_OR_RETURN(int32_t i, InIndex(k));
  return TensorValue(i, true);
}

bool OpContext::IsConstInput(size_t k) const {
  if (!HasInput(k)) return false;
  const TfliteTensor& t = graph.tensors[static_cast<size_t>(op_->inputs[k])];
  return !t.data.empty() || folded_.count(op_->inputs[k]) > 0;
}

Result<Tensor> OpContext::ConstInput(size_t k, const std::string& what) {
  ONYX_ASSIGN_OR_RETURN(int32_t i, InIndex(k));
  if (graph.tensors[static_cast<size_t>(i)].data.empty()) {
    return Unsupported("the " + what + " must be a constant to convert");
  }
  return ConstantOf(i);
}

Result<std::vector<int64_t>> OpContext::ConstInts(size_t k, const std::string& what) {
  ONYX_ASSIGN_OR_RETURN(Tensor t, ConstInput(k, what));
  if (t.type() != DataType::kInt32 && t.type() != DataType::kInt64) return Error("the " + what + " must be integers");
  std::vector<int64_t> out(static_cast<size_t>(t.size()));
  for (int64_t j = 0; j < t.size(); ++j) out[static_cast<size_t>(j)] = t.IntAt(j);
  return out;
}

Result<Tensor> OpContext::FloatConst(size_t k, const std::string& what) {
  ONYX_ASSIGN_OR_RETURN(int32_t i, InIndex(k));
  auto folded = folded_.find(i);
  if (folded != folded_.end()) return folded->second;
  if (graph.tensors[static_cast<size_t>(i)].data.empty()) {
    return Unsupported("the " + what + " must be a constant to convert");
  }
  return RealConstantOf(i);
}

Result<Tensor> OpContext::ConstantOf(int32_t i) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, TensorAt(i));
  ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t->type));
  if (t->sparsity.valid()) {
    auto dense = DensifySparse(*t, type);
    if (!dense.ok()) return dense.status().WithContext(where_);
    return dense;
  }
  Shape shape(t->shape.begin(), t->shape.end());
  if (type != DataType::kString) {
    // The bytes the shape needs, checked against the buffer before anything is allocated: a crafted shape can claim
    // gigabytes that the file does not hold.
    ONYX_ASSIGN_OR_RETURN(int64_t count, CheckedNumElements(shape));
    const size_t needed = DataTypeStorageBytes(type, static_cast<size_t>(count));
    if (needed != t->data.size()) {
      return Error("constant '" + t->name + "' has " + std::to_string(t->data.size()) + " bytes, its shape " +
                   ShapeToString(shape) + " needs " + std::to_string(needed));
    }
  }
  if (type == DataType::kString) {
    // TFLite's string buffer holds a count and one 4-byte offset per string (plus the end): a shape claiming more
    // strings than that is refused before a std::string is allocated for each.
    ONYX_ASSIGN_OR_RETURN(int64_t count, CheckedNumElements(shape));
    if (t->data.size() < 8 || static_cast<uint64_t>(count) > (t->data.size() - 8) / 4) {
      return Error("constant '" + t->name + "' has " + std::to_string(t->data.size()) + " bytes, too few for the " +
                   std::to_string(count) + " strings of its shape " + ShapeToString(shape));
    }
  }
  ONYX_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(type, shape));
  if (type == DataType::kString) {
    ONYX_RETURN_IF_ERROR(DecodeStrings(*t, out));
    return out;
  }
  if (out.nbytes() != t->data.size()) {
    return Error("constant '" + t->name + "' has " + std::to_string(t->data.size()) + " bytes, its shape " +
                 ShapeToString(shape) + " needs " + std::to_string(out.nbytes()));
  }
  if (type == DataType::kBool) {
    for (int64_t j = 0; j < out.size(); ++j) out.data<bool>()[j] = t->data[static_cast<size_t>(j)] != 0;
  } else if (!t->data.empty()) {
    std::memcpy(out.raw(), t->data.data(), t->data.size());
  }
  return out;
}

Result<Tensor> OpContext::RealConstantOf(int32_t i) {
  ONYX_ASSIGN_OR_RETURN(Tensor stored, ConstantOf(i));
  const TfliteTensor& t = graph.tensors[static_cast<size_t>(i)];
  if (!t.quantized()) {
    if (stored.type() == DataType::kFloat16 || stored.type() == DataType::kDouble) return ToFloat32(stored);
    return stored;
  }
  // real = scale * (q - zero_point), per tensor or per channel along quant.axis.
  ONYX_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(DataType::kFloat, stored.shape()));
  const auto& q = t.quant;
  int64_t inner = 1, channels = 1;
  if (q.scales.size() > 1) {
    channels = stored.dim(q.axis);
    for (int64_t d = q.axis + 1; d < stored.rank(); ++d) inner *= stored.dim(d);
  }
  for (int64_t j = 0; j < stored.size(); ++j) {
    const size_t c = static_cast<size_t>(q.scales.size() > 1 ? (j / inner) % channels : 0);
    out.data<float>()[j] =
        static_cast<float>(static_cast<double>(q.scales[c]) * static_cast<double>(stored.IntAt(j) - q.zero_points[c]));
  }
  return out;
}

Result<std::string> OpContext::TensorValue(int32_t i, bool raw) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, TensorAt(i));
  const size_t at = static_cast<size_t>(i);
  const bool quantized = t->quantized();
  if (!raw && quantized && !real_[at].empty()) return real_[at];
  if (!raw && !quantized) raw = true;
  if (raw && !raw_[at].empty()) return raw_[at];
  if (raw_[at].empty()) {
    auto folded = folded_.find(i);
    if (folded != folded_.end()) {
      // Folded values are real (float32): the raw view of a quantized one would need re-quantizing.
      if (quantized && raw) return Unsupported("the stored integers of folded tensor '" + t->name + "'");
      std::string& slot = quantized ? real_[at] : raw_[at];
      slot = b.Constant(prefix_ + t->name, folded->second);
      return slot;
    }
    if (t->data.empty()) {
      return Error("tensor '" + t->name + "' is read before it is computed");
    }
    if (quantized && !raw) {
      ONYX_ASSIGN_OR_RETURN(Tensor real, RealConstantOf(i));
      real_[at] = b.Constant(prefix_ + t->name + "/dequantized", std::move(real));
      return real_[at];
    }
    ONYX_ASSIGN_OR_RETURN(Tensor c, ConstantOf(i));
    raw_[at] = b.Constant(prefix_ + t->name, std::move(c));
    if (raw) return raw_[at];
  }
  ONYX_ASSIGN_OR_RETURN(real_[at], Dequantize(raw_[at], *t));
  return real_[at];
}

Status OpContext::SetTensorValue(int32_t index, const std::string& value) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, TensorAt(index));
  (void)t;
  raw_[static_cast<size_t>(index)] = value;
  real_[static_cast<size_t>(index)].clear();
  return Status::Ok();
}

// int16 activations (TFLite's 16x8 quantization) need QuantizeLinear / DequantizeLinear of int16: opset 21. The
// graph is still built at 17 and converted (the opset converter checks element types at the destination opset only,
// so the int16 nodes pass through the opset-19 forms).
Status OpContext::RequireInt16Opset(const TfliteTensor& t) const {
  if (state->opset >= 21) return Status::Ok();
  return onyx::Unsupported(where_ + ": int16 quantized tensor '" + t.name +
                           "' (16x8 quantization) needs QuantizeLinear / DequantizeLinear of opset 21: convert with "
                           "--opset 21");
}

// Per-tensor parameters only for activations: ONNX QuantizeLinear takes a zero point of the output type.
Result<std::string> OpContext::Quantize(const std::string& real, const TfliteTensor& t) {
  if (t.quant.scales.size() != 1) return Unsupported("per-channel quantized activation '" + t.name + "'");
  Tensor zp;
  if (t.type == TensorType::kUint8) {
    if (t.quant.zero_points[0] < 0 || t.quant.zero_points[0] > 255) return Error("zero point out of uint8 range");
    zp = Tensor::Scalar<uint8_t>(static_cast<uint8_t>(t.quant.zero_points[0]));
  } else if (t.type == TensorType::kInt8) {
    if (t.quant.zero_points[0] < -128 || t.quant.zero_points[0] > 127) return Error("zero point out of int8 range");
    zp = Tensor::Scalar<int8_t>(static_cast<int8_t>(t.quant.zero_points[0]));
  } else if (t.type == TensorType::kInt16) {
    ONYX_RETURN_IF_ERROR(RequireInt16Opset(t));
    if (t.quant.zero_points[0] < -32768 || t.quant.zero_points[0] > 32767) return Error("zero point out of range");
    zp = Tensor::Scalar<int16_t>(static_cast<int16_t>(t.quant.zero_points[0]));
  } else {
    // int32 results have no QuantizeLinear.
    return Unsupported("quantized output '" + t.name + "' of a type other than int8/uint8/int16");
  }
  const std::string scale = b.ConstFloat(prefix_ + t.name + "/scale", t.quant.scales[0]);
  const std::string zero = b.Constant(prefix_ + t.name + "/zero_point", std::move(zp));
  return b.Op1("QuantizeLinear", {real, scale, zero}, prefix_ + t.name + "/quantize");
}

Result<std::string> OpContext::Dequantize(const std::string& raw, const TfliteTensor& t) {
  ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t.type));
  if (type == DataType::kInt16) ONYX_RETURN_IF_ERROR(RequireInt16Opset(t));
  if (type != DataType::kUint8 && type != DataType::kInt8 && type != DataType::kInt16 && type != DataType::kInt32) {
    return Unsupported("dequantizing '" + t.name + "' of type " + std::string(DataTypeName(type)));
  }
  const size_t n = t.quant.scales.size();
  Tensor zp;
  ONYX_ASSIGN_OR_RETURN(zp, Tensor::Create(type, n == 1 ? Shape{} : Shape{static_cast<int64_t>(n)}));
  for (size_t c = 0; c < n; ++c) {
    const int64_t z = t.quant.zero_points[c];
    if (type == DataType::kUint8) zp.data<uint8_t>()[c] = static_cast<uint8_t>(z);
    if (type == DataType::kInt8) zp.data<int8_t>()[c] = static_cast<int8_t>(z);
    if (type == DataType::kInt16) zp.data<int16_t>()[c] = static_cast<int16_t>(z);
    if (type == DataType::kInt32) zp.data<int32_t>()[c] = static_cast<int32_t>(z);
  }
  Tensor scales = Tensor::FromVector<float>(t.quant.scales, n == 1 ? Shape{} : Shape{static_cast<int64_t>(n)});
  std::vector<ir::Attribute> attrs;
  if (n > 1) attrs.push_back(ir::IntAttr("axis", t.quant.axis));
  const std::string scale = b.Constant(prefix_ + t.name + "/scale", std::move(scales));
  const std::string zero = b.Constant(prefix_ + t.name + "/zero_point", std::move(zp));
  return b.Op1("DequantizeLinear", {raw, scale, zero}, prefix_ + t.name + "/dequantize", std::move(attrs));
}

Status OpContext::SetOutput(const std::string& value, size_t k) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, OutTensor(k));
  const size_t at = static_cast<size_t>(op_->outputs[k]);
  if (!t->quantized()) {
    raw_[at] = value;
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(raw_[at], Quantize(value, *t));
  real_[at].clear();
  return Status::Ok();
}

Status OpContext::SetRawOutput(const std::string& value, size_t k) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, OutTensor(k));
  (void)t;
  raw_[static_cast<size_t>(op_->outputs[k])] = value;
  return Status::Ok();
}

Status OpContext::SetFoldedOutput(Tensor value, size_t k) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, OutTensor(k));
  (void)t;
  folded_[op_->outputs[k]] = std::move(value);
  return Status::Ok();
}

Status OpContext::SetResource(const std::string& key, size_t k) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, OutTensor(k));
  (void)t;
  resources_[op_->outputs[k]] = key;
  return Status::Ok();
}

Result<std::string> OpContext::ResourceInput(size_t k) const {
  ONYX_ASSIGN_OR_RETURN(int32_t i, InIndex(k));
  auto it = resources_.find(i);
  if (it == resources_.end()) {
    return Unsupported("input " + std::to_string(k) +
                       " is a resource not made by this subgraph's VAR_HANDLE / HASHTABLE");
  }
  return it->second;
}

Result<int32_t> OpContext::OptInt(int field, int32_t fallback) const {
  if (!op_->options.valid()) return fallback;
  return op_->options.Int32(field, fallback);
}
Result<int8_t> OpContext::OptByte(int field, int8_t fallback) const {
  if (!op_->options.valid()) return fallback;
  return op_->options.Int8(field, fallback);
}
Result<bool> OpContext::OptBool(int field, bool fallback) const {
  if (!op_->options.valid()) return fallback;
  return op_->options.Bool(field, fallback);
}
Result<float> OpContext::OptFloat(int field, float fallback) const {
  if (!op_->options.valid()) return fallback;
  return op_->options.Float(field, fallback);
}

Result<std::string> OpContext::Activation(int8_t kind, const std::string& v) {
  switch (kind) {
    case 0:
      return v;
    case 1:
      return b.Op1("Relu", {v}, Name("relu"));
    case 2:
      return b.Op1("Clip", {v, b.ConstFloat(Name("lo"), -1), b.ConstFloat(Name("hi"), 1)}, Name("relu_n1_to_1"));
    case 3:
      return b.Op1("Clip", {v, b.ConstFloat(Name("lo"), 0), b.ConstFloat(Name("hi"), 6)}, Name("relu6"));
    case 4:
      return b.Op1("Tanh", {v}, Name("tanh"));
    default:
      return Unsupported("fused activation " + std::to_string(kind));
  }
}

std::string OpContext::ToNchw(const std::string& v, int64_t rank) {
  return b.Op1("Transpose", {v}, Name("to_nchw"), {ir::IntsAttr("perm", ToChannelsFirst(rank))});
}
std::string OpContext::ToNhwc(const std::string& v, int64_t rank) {
  return b.Op1("Transpose", {v}, Name("to_nhwc"), {ir::IntsAttr("perm", ToChannelsLast(rank))});
}

std::string OpContext::Name(const std::string& what) const {
  std::string base = "op";
  if (op_ && !op_->outputs.empty() && op_->outputs[0] >= 0 &&
      static_cast<size_t>(op_->outputs[0]) < graph.tensors.size()) {
    base = graph.tensors[static_cast<size_t>(op_->outputs[0])].name;
  }
  return prefix_ + base + "/" + what;
}

Status OpContext::AddGraphInputs(ir::Graph& g, bool declare_shapes) {
  for (int32_t i : graph.inputs) {
    ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, TensorAt(i));
    ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t->type));
    std::vector<ir::Dim> dims;
    // The recorded shape (TFLite stores 1 for a dynamic batch; shape_signature's -1 would make every shape-derived
    // constant of the converters dynamic).
    const auto& sig = t->shape;
    for (size_t d = 0; d < sig.size(); ++d) {
      dims.push_back(sig[d] >= 0 ? ir::Dim::Value(sig[d]) : ir::Dim::Param("unk__" + std::to_string(d)));
    }
    const std::string name = prefix_ + t->name;
    b.Reserve(name);
    g.inputs.push_back(
        {name, declare_shapes ? ir::TypeInfo::Tensor(type, dims) : ir::TypeInfo::Tensor(type, std::nullopt), {}, {}});
    raw_[static_cast<size_t>(i)] = name;
  }
  return Status::Ok();
}

Result<std::string> Int64Input(OpContext& c, size_t k, const std::string& what) {
  if (c.IsConstInput(k)) {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> v, c.ConstInts(k, what));
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> shape, c.InShape(k));
    Tensor t = Tensor::FromVector<int64_t>(v, Shape(shape.begin(), shape.end()));
    return c.b.Constant(c.Name(what), std::move(t));
  }
  ONYX_ASSIGN_OR_RETURN(std::string v, c.Input(k));
  return c.b.Op1("Cast", {v}, c.Name(what), {ir::IntAttr("to", static_cast<int64_t>(DataType::kInt64))});
}

Result<std::string> ScalarConst(OpContext& c, DataType type, double value, const std::string& what) {
  Tensor t;
  switch (type) {
    case DataType::kFloat:
      t = Tensor::Scalar<float>(static_cast<float>(value));
      break;
    case DataType::kDouble:
      t = Tensor::Scalar<double>(value);
      break;
    case DataType::kInt8:
      t = Tensor::Scalar<int8_t>(static_cast<int8_t>(value));
      break;
    case DataType::kUint8:
      t = Tensor::Scalar<uint8_t>(static_cast<uint8_t>(value));
      break;
    case DataType::kInt16:
      t = Tensor::Scalar<int16_t>(static_cast<int16_t>(value));
      break;
    case DataType::kUint16:
      t = Tensor::Scalar<uint16_t>(static_cast<uint16_t>(value));
      break;
    case DataType::kInt32:
      t = Tensor::Scalar<int32_t>(static_cast<int32_t>(value));
      break;
    case DataType::kUint32:
      t = Tensor::Scalar<uint32_t>(static_cast<uint32_t>(value));
      break;
    case DataType::kInt64:
      t = Tensor::Scalar<int64_t>(static_cast<int64_t>(value));
      break;
    default:
      return c.Unsupported("a constant of ONNX type " + std::to_string(static_cast<int>(type)));
  }
  return c.b.Constant(c.Name(what), std::move(t));
}

}  // namespace onyx::convert::tflite
