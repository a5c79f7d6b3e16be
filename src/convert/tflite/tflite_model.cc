#include "convert/tflite/tflite_model.h"

namespace onyx::convert::tflite {

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
  out.subgraphs = static_cast<int>(subgraphs.size());
  if (subgraphs.empty()) return InvalidArgument("the model has no subgraph");

  // OperatorCode: deprecated_builtin_code (byte) 0, custom_code 1, version 2, builtin_code (int) 3; the code is the
  // larger of the two (old files fill only the byte, new ones both or only the int for codes above 127).
  std::vector<std::pair<int32_t, std::string>> op_codes;
  for (const auto& c : codes) {
    ONYX_ASSIGN_OR_RETURN(int8_t old_code, c.Int8(0, 0));
    ONYX_ASSIGN_OR_RETURN(int32_t new_code, c.Int32(3, 0));
    ONYX_ASSIGN_OR_RETURN(std::string custom, c.String(1));
    op_codes.push_back({std::max<int32_t>(old_code, new_code), custom});
  }

  const FlatTable& g = subgraphs[0];
  // SubGraph: tensors 0, inputs 1, outputs 2, operators 3, name 4.
  ONYX_ASSIGN_OR_RETURN(std::vector<FlatTable> tensors, g.Tables(0));
  ONYX_ASSIGN_OR_RETURN(out.inputs, g.Int32s(1));
  ONYX_ASSIGN_OR_RETURN(out.outputs, g.Int32s(2));
  ONYX_ASSIGN_OR_RETURN(std::vector<FlatTable> ops, g.Tables(3));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const FlatTable& t = tensors[i];
    // Tensor: shape 0, type 1, buffer 2, name 3, quantization 4.
    TfliteTensor tensor;
    ONYX_ASSIGN_OR_RETURN(tensor.shape, t.Int32s(0));
    ONYX_ASSIGN_OR_RETURN(int8_t type, t.Int8(1, 0));
    tensor.type = static_cast<TensorType>(type);
    ONYX_ASSIGN_OR_RETURN(int64_t buffer, t.Int(2, 4, false, 0));
    ONYX_ASSIGN_OR_RETURN(tensor.name, t.String(3));
    if (tensor.name.empty()) tensor.name = "tensor_" + std::to_string(i);
    ONYX_ASSIGN_OR_RETURN(FlatTable quant, t.Table(4));
    if (quant.valid()) {
      // QuantizationParameters: min 0, max 1, scale 2, zero_point 3.
      ONYX_ASSIGN_OR_RETURN(std::string_view scales, quant.Bytes(2));
      tensor.quantized = !scales.empty();
    }
    if (buffer < 0 || static_cast<size_t>(buffer) >= std::max<size_t>(buffers.size(), 1)) {
      return InvalidArgument("tensor '" + tensor.name + "' refers to buffer " + std::to_string(buffer) + " of " +
                             std::to_string(buffers.size()));
    }
    if (buffer > 0) {
      // Buffer: data 0 (offset 1 / size 2 for data outside the FlatBuffer in models over 2 GB: not supported).
      ONYX_ASSIGN_OR_RETURN(tensor.data, buffers[static_cast<size_t>(buffer)].Bytes(0));
      if (tensor.data.empty() && buffers[static_cast<size_t>(buffer)].Has(1)) {
        return Unsupported("tensor '" + tensor.name + "' keeps its data outside the FlatBuffer (models over 2 GB)");
      }
    }
    for (int32_t d : tensor.shape) {
      if (d < -1) return InvalidArgument("tensor '" + tensor.name + "' has a negative dim");
    }
    out.tensors.push_back(std::move(tensor));
  }
  auto check_index = [&](int32_t i, const std::string& where) -> Status {
    if (i < -1 || i >= static_cast<int32_t>(out.tensors.size())) {
      return InvalidArgument(where + " refers to tensor " + std::to_string(i) + " of " +
                             std::to_string(out.tensors.size()));
    }
    return Status::Ok();
  };
  for (int32_t i : out.inputs) ONYX_RETURN_IF_ERROR(check_index(i, "a subgraph input"));
  for (int32_t i : out.outputs) ONYX_RETURN_IF_ERROR(check_index(i, "a subgraph output"));
  for (size_t k = 0; k < ops.size(); ++k) {
    const FlatTable& o = ops[k];
    // Operator: opcode_index 0, inputs 1, outputs 2, builtin_options_type 3, builtin_options 4, custom_options 5.
    TfliteOperator op;
    ONYX_ASSIGN_OR_RETURN(int64_t code_index, o.Int(0, 4, false, 0));
    if (code_index >= static_cast<int64_t>(op_codes.size())) {
      return InvalidArgument("operator " + std::to_string(k) + " has opcode index " + std::to_string(code_index) +
                             " of " + std::to_string(op_codes.size()));
    }
    op.builtin_code = op_codes[static_cast<size_t>(code_index)].first;
    op.custom_code = op_codes[static_cast<size_t>(code_index)].second;
    ONYX_ASSIGN_OR_RETURN(op.inputs, o.Int32s(1));
    ONYX_ASSIGN_OR_RETURN(op.outputs, o.Int32s(2));
    ONYX_ASSIGN_OR_RETURN(op.options, o.Table(4));
    ONYX_ASSIGN_OR_RETURN(op.custom_options, o.Bytes(5));
    for (int32_t i : op.inputs) ONYX_RETURN_IF_ERROR(check_index(i, "operator " + std::to_string(k)));
    for (int32_t i : op.outputs) {
      ONYX_RETURN_IF_ERROR(check_index(i, "operator " + std::to_string(k)));
      if (i < 0) return InvalidArgument("operator " + std::to_string(k) + " has an omitted output");
    }
    out.operators.push_back(std::move(op));
  }
  return out;
}

}  // namespace onyx::convert::tflite
