#include "convert/tflite/tflite_model.h"

#include <algorithm>

#include "convert/common/checked_product.h"

namespace onyx::convert::tflite {
namespace {

struct OpCode {
  int32_t builtin = 0;
  std::string custom;
  int32_t version = 1;
};

// Tensor: shape 0, type 1, buffer 2, name 3, quantization 4, is_variable 5, sparsity 6, shape_signature 7.
Result<TfliteTensor> ParseTensor(const FlatTable& t, size_t index, const std::vector<FlatTable>& buffers) {
  TfliteTensor tensor;
  ONYX_ASSIGN_OR_RETURN(tensor.shape, t.Int32s(0));
  ONYX_ASSIGN_OR_RETURN(int8_t type, t.Int8(1, 0));
  if (type < 0 || type > static_cast<int8_t>(TensorType::kInt4)) {
    return InvalidArgument("tensor " + std::to_string(index) + " has type " + std::to_string(type));
  }
  tensor.type = static_cast<TensorType>(type);
  ONYX_ASSIGN_OR_RETURN(int64_t buffer, t.Int(2, 4, false, 0));
  ONYX_ASSIGN_OR_RETURN(tensor.name, t.String(3));
  if (tensor.name.empty()) tensor.name = "tensor_" + std::to_string(index);
  ONYX_ASSIGN_OR_RETURN(FlatTable quant, t.Table(4));
  if (quant.valid()) {
    // QuantizationParameters: min 0, max 1, scale 2, zero_point 3, details (union) 4-5, quantized_dimension 6.
    ONYX_ASSIGN_OR_RETURN(tensor.quant.scales, quant.Floats(2));
    ONYX_ASSIGN_OR_RETURN(tensor.quant.zero_points, quant.Int64s(3));
    ONYX_ASSIGN_OR_RETURN(tensor.quant.axis, quant.Int32(6, 0));
    if (tensor.quant.zero_points.empty()) tensor.quant.zero_points.assign(tensor.quant.scales.size(), 0);
    if (tensor.quant.zero_points.size() != tensor.quant.scales.size()) {
      return InvalidArgument("tensor '" + tensor.name + "' has " + std::to_string(tensor.quant.scales.size()) +
                             " scales but " + std::to_string(tensor.quant.zero_points.size()) + " zero points");
    }
    if (tensor.quant.scales.size() > 1 &&
        (tensor.quant.axis < 0 || tensor.quant.axis >= static_cast<int32_t>(tensor.shape.size()) ||
         tensor.shape[static_cast<size_t>(tensor.quant.axis)] != static_cast<int32_t>(tensor.quant.scales.size()))) {
      return InvalidArgument("tensor '" + tensor.name + "' has " + std::to_string(tensor.quant.scales.size()) +
                             " scales that do not match its dimension " + std::to_string(tensor.quant.axis));
    }
  }
  ONYX_ASSIGN_OR_RETURN(tensor.is_variable, t.Bool(5));
  ONYX_ASSIGN_OR_RETURN(tensor.sparsity, t.Table(6));
  ONYX_ASSIGN_OR_RETURN(tensor.shape_signature, t.Int32s(7));
  if (buffer < 0 || static_cast<size_t>(buffer) >= std::max<size_t>(buffers.size(), 1)) {
    return InvalidArgument("tensor '" + tensor.name + "' refers to buffer " + std::to_string(buffer) + " of " +
                           std::to_string(buffers.size()));
  }
  if (buffer > 0) {
    // Buffer: data 0 (offset 1 / size 2 for data outside the FlatBuffer in models over 2 GB: not supported).
    const FlatTable& b = buffers[static_cast<size_t>(buffer)];
    ONYX_ASSIGN_OR_RETURN(tensor.data, b.Bytes(0));
    ONYX_ASSIGN_OR_RETURN(int64_t outside, b.Int(1, 8, false, 0));
    if (tensor.data.empty() && outside > 1) {
      return Unsupported("tensor '" + tensor.name + "' keeps its data outside the FlatBuffer (models over 2 GB)");
    }
  }
  std::vector<int64_t> stated;  // the known dims but zeros: a zero would hide an overflow of the others' product
  for (int32_t d : tensor.shape) {
    if (d < -1) return InvalidArgument("tensor '" + tensor.name + "' has a negative dim");
    if (d > 0) stated.push_back(d);
  }
  // Every size the converters derive from one tensor's dims (products of some of them, times an element's bytes or
  // an option such as a filter size of at most 2^31) then fits in int64: 2^31 elements of 16 bytes is far below.
  if (!CheckedProduct(stated, int64_t{1} << 31)) {
    return InvalidArgument("tensor " + std::to_string(index) + " has a shape whose dims multiply past 2^32 elements");
  }
  return tensor;
}

// SubGraph: tensors 0, inputs 1, outputs 2, operators 3, name 4.
Result<TfliteSubgraph> ParseSubgraph(const FlatTable& g, const std::vector<FlatTable>& buffers,
                                     const std::vector<OpCode>& op_codes) {
  TfliteSubgraph out;
  ONYX_ASSIGN_OR_RETURN(std::vector<FlatTable> tensors, g.Tables(0));
  ONYX_ASSIGN_OR_RETURN(out.inputs, g.Int32s(1));
  ONYX_ASSIGN_OR_RETURN(out.outputs, g.Int32s(2));
  ONYX_ASSIGN_OR_RETURN(std::vector<FlatTable> ops, g.Tables(3));
  ONYX_ASSIGN_OR_RETURN(out.name, g.String(4));
  for (size_t i = 0; i < tensors.size(); ++i) {
    ONYX_ASSIGN_OR_RETURN(TfliteTensor t, ParseTensor(tensors[i], i, buffers));
    out.tensors.push_back(std::move(t));
  }
  const int32_t count = static_cast<int32_t>(out.tensors.size());
  auto check_index = [&](int32_t i, const std::string& where, bool optional) -> Status {
    if (i < (optional ? -1 : 0) || i >= count) {
      return InvalidArgument(where + " refers to tensor " + std::to_string(i) + " of " + std::to_string(count));
    }
    return Status::Ok();
  };
  // Subgraph inputs and outputs are never omitted (-1 is only for operators' optional inputs).
  for (int32_t i : out.inputs) ONYX_RETURN_IF_ERROR(check_index(i, "a subgraph input", false));
  for (int32_t i : out.outputs) ONYX_RETURN_IF_ERROR(check_index(i, "a subgraph output", false));
  for (size_t k = 0; k < ops.size(); ++k) {
    const FlatTable& o = ops[k];
    // Operator: opcode_index 0, inputs 1, outputs 2, builtin_options (union) 3-4, custom_options 5,
    // custom_options_format 6, mutating_variable_inputs 7, intermediates 8, large_custom_options 9-10,
    // builtin_options_2 (union) 11-12.
    TfliteOperator op;
    ONYX_ASSIGN_OR_RETURN(int64_t code_index, o.Int(0, 4, false, 0));
    if (code_index >= static_cast<int64_t>(op_codes.size())) {
      return InvalidArgument("operator " + std::to_string(k) + " has opcode index " + std::to_string(code_index) +
                             " of " + std::to_string(op_codes.size()));
    }
    const OpCode& code = op_codes[static_cast<size_t>(code_index)];
    op.builtin_code = code.builtin;
    op.custom_code = code.custom;
    op.version = code.version;
    const std::string where = "operator " + std::to_string(k) + " (" + BuiltinName(op.builtin_code) + ")";
    ONYX_ASSIGN_OR_RETURN(op.inputs, o.Int32s(1));
    ONYX_ASSIGN_OR_RETURN(op.outputs, o.Int32s(2));
    ONYX_ASSIGN_OR_RETURN(op.options, o.Table(4));
    ONYX_ASSIGN_OR_RETURN(op.custom_options, o.Bytes(5));
    ONYX_ASSIGN_OR_RETURN(op.options2, o.Table(12));
    for (int32_t i : op.inputs) ONYX_RETURN_IF_ERROR(check_index(i, where, true));
    for (int32_t i : op.outputs) ONYX_RETURN_IF_ERROR(check_index(i, where + "'s output", false));
    out.operators.push_back(std::move(op));
  }
  return out;
}

}  // namespace

Result<TfliteModel> ParseTflite(std::string_view bytes) {
  if (bytes.size() < 8 || bytes.substr(4, 4) != "TFL3") {
    return InvalidArgument("not a TensorFlow Lite model (no 'TFL3' identifier)");
  }
  ONYX_ASSIGN_OR_RETURN(FlatTable model, FlatTable::Root(bytes));
  TfliteModel out;
  // Model: version 0, operator_codes 1, subgraphs 2, description 3, buffers 4.
  ONYX_ASSIGN_OR_RETURN(int64_t version, model.Int(0, 4, false, 0));
  out.version = static_cast<uint32_t>(version);
  ONYX_ASSIGN_OR_RETURN(out.description, model.String(3));
  ONYX_ASSIGN_OR_RETURN(std::vector<FlatTable> codes, model.Tables(1));
  ONYX_ASSIGN_OR_RETURN(std::vector<FlatTable> subgraphs, model.Tables(2));
  ONYX_ASSIGN_OR_RETURN(std::vector<FlatTable> buffers, model.Tables(4));
  if (subgraphs.empty()) return InvalidArgument("the model has no subgraph");

  // OperatorCode: deprecated_builtin_code (byte) 0, custom_code 1, version 2, builtin_code (int) 3; the code is the
  // larger of the two (old files fill only the byte, new ones both or only the int for codes above 127).
  std::vector<OpCode> op_codes;
  for (const auto& c : codes) {
    ONYX_ASSIGN_OR_RETURN(int8_t old_code, c.Int8(0, 0));
    ONYX_ASSIGN_OR_RETURN(int32_t new_code, c.Int32(3, 0));
    ONYX_ASSIGN_OR_RETURN(std::string custom, c.String(1));
    ONYX_ASSIGN_OR_RETURN(int32_t version, c.Int32(2, 1));
    op_codes.push_back({std::max<int32_t>(old_code, new_code), custom, version});
  }
  for (size_t s = 0; s < subgraphs.size(); ++s) {
    auto g = ParseSubgraph(subgraphs[s], buffers, op_codes);
    if (!g.ok()) return s == 0 ? g.status() : g.status().WithContext("subgraph " + std::to_string(s));
    out.subgraphs.push_back(std::move(*g));
  }
  return out;
}

}  // namespace onyx::convert::tflite
