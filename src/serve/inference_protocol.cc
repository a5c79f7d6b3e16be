#include "serve/inference_protocol.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace onyx::serve {
namespace {

using nlohmann::json;

struct DatatypeName {
  DataType type;
  const char* name;
};
constexpr DatatypeName kDatatypes[] = {
    {DataType::kBool, "BOOL"},     {DataType::kUint8, "UINT8"},   {DataType::kUint16, "UINT16"},
    {DataType::kUint32, "UINT32"}, {DataType::kUint64, "UINT64"}, {DataType::kInt8, "INT8"},
    {DataType::kInt16, "INT16"},   {DataType::kInt32, "INT32"},   {DataType::kInt64, "INT64"},
    {DataType::kFloat16, "FP16"},  {DataType::kFloat, "FP32"},    {DataType::kDouble, "FP64"},
    {DataType::kString, "BYTES"},  {DataType::kBFloat16, "BF16"},
};

// Nested "data" arrays (as Triton accepts) flatten in row-major order; deeper nesting than any tensor has is refused
// so that a hostile body cannot recurse without bound.
Status Flatten(const json& data, std::vector<const json*>* out, int depth) {
  if (!data.is_array()) {
    out->push_back(&data);
    return Status::Ok();
  }
  if (depth > 64) return InvalidArgument("'data' is nested more than 64 arrays deep");
  for (const auto& item : data) ONYX_RETURN_IF_ERROR(Flatten(item, out, depth + 1));
  return Status::Ok();
}

// The element count of a requested shape, refusing negative dims and counts past int64.
Result<int64_t> ElementCount(const Shape& shape) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) return InvalidArgument("shape " + ShapeToString(shape) + " has a negative dim");
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / d) {
      return InvalidArgument("shape " + ShapeToString(shape) + " has too many elements");
    }
    count *= d;
  }
  return count;
}

template <typename T>
Status ElementFromJson(const json& v, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) return InvalidArgument("expected true or false, got " + v.dump());
    *out = v.get<bool>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) return InvalidArgument("expected a string, got " + v.dump());
    *out = v.get<std::string>();
  } else if constexpr (std::is_integral_v<T>) {
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
        return InvalidArgument(v.dump() + " is out of the element type's range");
      }
      *out = static_cast<T>(u);
    } else if (v.is_number_integer()) {
      const int64_t i = v.get<int64_t>();
      if (i < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
          (i > 0 && static_cast<uint64_t>(i) > static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
        return InvalidArgument(v.dump() + " is out of the element type's range");
      }
      *out = static_cast<T>(i);
    } else {
      return InvalidArgument("expected an integer, got " + v.dump());
    }
  } else {
    // Floating types. JSON has no NaN: null stands for it (what responses write for NaN).
    double d;
    if (v.is_null()) {
      d = std::numeric_limits<double>::quiet_NaN();
    } else if (v.is_number()) {
      d = v.get<double>();
    } else {
      return InvalidArgument("expected a number, got " + v.dump());
    }
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      *out = T(static_cast<float>(d));
    } else {
      *out = static_cast<T>(d);
    }
  }
  return Status::Ok();
}

template <typename T>
json ElementToJson(const T& v) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string> || std::is_integral_v<T>) {
    return json(v);
  } else {
    const double d = ToDouble(v);
    if (std::isnan(d)) return json(nullptr);
    return json(d);
  }
}

// The element count of `shape`, at most `max_elements`.
Result<int64_t> LimitedElementCount(const Shape& shape, int64_t max_elements) {
  ONYX_ASSIGN_OR_RETURN(const int64_t count, ElementCount(shape));
  if (count > max_elements) {
    return InvalidArgument("shape " + ShapeToString(shape) + " has " + std::to_string(count) +
                           " elements, over the server's limit of " + std::to_string(max_elements));
  }
  return count;
}

Result<Tensor> TensorFromJsonData(DataType type, const Shape& shape, const json& data, int64_t max_elements) {
  // Check the count before allocating: memory then stays bounded by the request's own size.
  ONYX_ASSIGN_OR_RETURN(const int64_t count, LimitedElementCount(shape, max_elements));
  std::vector<const json*> flat;
  ONYX_RETURN_IF_ERROR(Flatten(data, &flat, 0));
  if (static_cast<size_t>(count) != flat.size()) {
    return InvalidArgument("'data' holds " + std::to_string(flat.size()) + " elements, shape " + ShapeToString(shape) +
                           " needs " + std::to_string(count));
  }
  ONYX_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(type, shape));
  ONYX_RETURN_IF_ERROR(Dispatch<AllTypes>(type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    T* out = t.data<T>();
    for (size_t i = 0; i < flat.size(); ++i) {
      Status st = ElementFromJson<T>(*flat[i], &out[i]);
      if (!st.ok()) return st.WithContext("element " + std::to_string(i));
    }
    return Status::Ok();
  }));
  return t;
}

// The binary tensor extension: fixed-size elements as raw little-endian bytes; BYTES elements each as a 4-byte
// little-endian length and the bytes.
Result<Tensor> TensorFromBinary(DataType type, const Shape& shape, std::string_view bytes, int64_t max_elements) {
  ONYX_ASSIGN_OR_RETURN(const int64_t count, LimitedElementCount(shape, max_elements));
  if (type == DataType::kString) {
    std::vector<std::string> items;
    size_t pos = 0;
    while (pos < bytes.size()) {
      if (bytes.size() - pos < 4) return InvalidArgument("BYTES data ends inside an element's 4-byte length");
      uint32_t len;
      std::memcpy(&len, bytes.data() + pos, 4);
      pos += 4;
      if (bytes.size() - pos < len) return InvalidArgument("BYTES element runs past the binary data");
      items.emplace_back(bytes.substr(pos, len));
      pos += len;
    }
    // Compared before allocating: the shape may claim far more strings than the bytes hold.
    if (static_cast<size_t>(count) != items.size()) {
      return InvalidArgument("binary data holds " + std::to_string(items.size()) + " strings, shape " +
                             ShapeToString(shape) + " needs " + std::to_string(count));
    }
    ONYX_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(type, shape));
    for (size_t i = 0; i < items.size(); ++i) t.data<std::string>()[i] = std::move(items[i]);
    return t;
  }
  // Validate the count against the bytes before allocating.
  const size_t element_bytes = static_cast<size_t>(DataTypeBits(type) / 8);
  if (static_cast<uint64_t>(count) > bytes.size() / element_bytes ||
      static_cast<size_t>(count) * element_bytes != bytes.size()) {
    return InvalidArgument("binary data has " + std::to_string(bytes.size()) + " bytes, shape " + ShapeToString(shape) +
                           " of " + std::string(DataTypeName(type)) + " needs " +
                           std::to_string(static_cast<uint64_t>(count) * element_bytes));
  }
  ONYX_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(type, shape));
  if (type == DataType::kBool) {
    for (int64_t i = 0; i < count; ++i) t.data<bool>()[i] = bytes[static_cast<size_t>(i)] != 0;
  } else if (!bytes.empty()) {
    std::memcpy(t.raw(), bytes.data(), bytes.size());
  }
  return t;
}

Result<Shape> ShapeFromJson(const json& j) {
  if (!j.is_array()) return InvalidArgument("'shape' must be an array of dims");
  Shape shape;
  for (const auto& d : j) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0) {
      return InvalidArgument("'shape' must hold non-negative integers, got " + j.dump());
    }
    shape.push_back(d.get<int64_t>());
  }
  return shape;
}

const json* Parameter(const json& object, const char* name) {
  auto params = object.find("parameters");
  if (params == object.end() || !params->is_object()) return nullptr;
  auto it = params->find(name);
  return it == params->end() ? nullptr : &*it;
}

Result<std::string> RequiredString(const json& object, const char* field, const std::string& where) {
  auto it = object.find(field);
  if (it == object.end() || !it->is_string()) return InvalidArgument(where + " needs a string '" + field + "'");
  return it->get<std::string>();
}

}  // namespace

Result<std::string> ProtocolDatatype(DataType type) {
  for (const auto& d : kDatatypes) {
    if (d.type == type) return std::string(d.name);
  }
  return Unsupported("element type " + std::string(DataTypeName(type)) + " has no inference-protocol datatype");
}

Result<DataType> DataTypeFromProtocol(std::string_view name) {
  for (const auto& d : kDatatypes) {
    if (name == d.name) return d.type;
  }
  return InvalidArgument("unknown datatype '" + std::string(name) +
                         "' (BOOL, UINT8..UINT64, INT8..INT64, FP16, BF16, FP32, FP64, BYTES)");
}

nlohmann::json ModelMetadata(const Session& session, const std::string& model_name) {
  auto describe = [](const ir::ValueInfo& v) {
    json j = {{"name", v.name}, {"datatype", ""}};
    if (v.type && v.type->is_tensor()) {
      auto dt = ProtocolDatatype(v.type->elem_type);
      j["datatype"] = dt.ok() ? *dt : std::string(DataTypeName(v.type->elem_type));
      json shape = json::array();
      if (v.type->shape) {
        for (const auto& d : *v.type->shape) shape.push_back(d.is_value() ? d.value : -1);
      } else {
        shape = json(nullptr);  // rank unknown
      }
      j["shape"] = shape;
    } else if (v.type) {
      j["type"] = v.type->ToString();
    }
    return j;
  };
  json inputs = json::array();
  for (const auto* in : session.inputs()) inputs.push_back(describe(*in));
  json outputs = json::array();
  for (const auto& out : session.outputs()) outputs.push_back(describe(out));
  return {{"name", model_name}, {"versions", {"1"}}, {"platform", "onnx"}, {"inputs", inputs}, {"outputs", outputs}};
}

Result<InferRequest> ParseInferRequest(std::string_view body, size_t json_size, int64_t max_elements,
                                       const std::shared_ptr<void>& body_keeper) {
  if (json_size > body.size()) {
    return InvalidArgument("Inference-Header-Content-Length " + std::to_string(json_size) + " exceeds the body's " +
                           std::to_string(body.size()) + " bytes");
  }
  json j = json::parse(body.substr(0, json_size), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument("the request body is not valid JSON");
  if (!j.is_object()) return InvalidArgument("the request must be a JSON object");
  InferRequest req;
  if (auto id = j.find("id"); id != j.end() && id->is_string()) req.id = id->get<std::string>();
  if (const json* b = Parameter(j, "binary_data_output"); b != nullptr && b->is_boolean()) {
    req.binary_outputs_by_default = b->get<bool>();
  }
  auto inputs = j.find("inputs");
  if (inputs == j.end() || !inputs->is_array()) return InvalidArgument("the request needs an 'inputs' array");
  std::string_view binary = body.substr(json_size);
  for (size_t k = 0; k < inputs->size(); ++k) {
    const json& in = (*inputs)[k];
    if (!in.is_object()) return InvalidArgument("inputs[" + std::to_string(k) + "] is not an object");
    ONYX_ASSIGN_OR_RETURN(std::string name, RequiredString(in, "name", "inputs[" + std::to_string(k) + "]"));
    const std::string where = "input '" + name + "'";
    ONYX_ASSIGN_OR_RETURN(std::string datatype, RequiredString(in, "datatype", where));
    auto type = DataTypeFromProtocol(datatype);
    if (!type.ok()) return type.status().WithContext(where);
    auto shape_it = in.find("shape");
    if (shape_it == in.end()) return InvalidArgument(where + " needs a 'shape'");
    auto shape = ShapeFromJson(*shape_it);
    if (!shape.ok()) return shape.status().WithContext(where);
    Result<Tensor> tensor = InvalidArgument("no data");
    if (const json* size = Parameter(in, "binary_data_size"); size != nullptr) {
      if (!size->is_number_unsigned()) return InvalidArgument(where + ": 'binary_data_size' must be a byte count");
      const uint64_t n = size->get<uint64_t>();
      if (n > binary.size()) {
        return InvalidArgument(where + ": binary_data_size " + std::to_string(n) + " but only " +
                               std::to_string(binary.size()) + " bytes are left after the JSON");
      }
      const bool viewable = body_keeper != nullptr && *type != DataType::kString && *type != DataType::kBool && n > 0 &&
                            reinterpret_cast<uintptr_t>(binary.data()) % 64 == 0;
      auto count = LimitedElementCount(*shape, max_elements);
      if (viewable && count.ok() && static_cast<uint64_t>(*count) <= n &&
          static_cast<uint64_t>(*count) * static_cast<uint64_t>(DataTypeBits(*type) / 8) == n) {
        // The bytes fit the shape exactly: a view of them where they lie rather than a copy.
        tensor = Tensor::Borrow(*type, *shape, const_cast<char*>(binary.data()), body_keeper);
      } else {
        tensor = TensorFromBinary(*type, *shape, binary.substr(0, n), max_elements);  // a copy, or the error
      }
      binary.remove_prefix(n);
    } else {
      auto data = in.find("data");
      if (data == in.end()) return InvalidArgument(where + " needs 'data' (or parameters.binary_data_size)");
      tensor = TensorFromJsonData(*type, *shape, *data, max_elements);
    }
    if (!tensor.ok()) return tensor.status().WithContext(where);
    req.feeds.emplace_back(name, Value(std::move(tensor).value()));
  }
  if (!binary.empty()) {
    return InvalidArgument(std::to_string(binary.size()) + " bytes after the JSON belong to no input");
  }
  if (auto outputs = j.find("outputs"); outputs != j.end()) {
    if (!outputs->is_array()) return InvalidArgument("'outputs' must be an array");
    for (size_t k = 0; k < outputs->size(); ++k) {
      const json& out = (*outputs)[k];
      if (!out.is_object()) return InvalidArgument("outputs[" + std::to_string(k) + "] is not an object");
      ONYX_ASSIGN_OR_RETURN(std::string name, RequiredString(out, "name", "outputs[" + std::to_string(k) + "]"));
      if (const json* b = Parameter(out, "binary_data"); b != nullptr && b->is_boolean()) {
        req.binary_output[name] = b->get<bool>();
      }
      req.output_names.push_back(std::move(name));
    }
  }
  return req;
}

namespace {

// The binary-data-extension bytes of one tensor: raw little-endian elements, one byte per bool, 4-byte
// length-prefixed strings.
size_t BinaryBytes(const Tensor& t) {
  if (t.type() == DataType::kString) {
    size_t n = 0;
    for (const auto& s : t.values<std::string>()) n += 4 + s.size();
    return n;
  }
  if (t.type() == DataType::kBool) return static_cast<size_t>(t.size());
  return t.nbytes();
}

void AppendBinary(const Tensor& t, std::string* out) {
  if (t.type() == DataType::kString) {
    for (const auto& s : t.values<std::string>()) {
      const auto len = static_cast<uint32_t>(s.size());
      out->append(reinterpret_cast<const char*>(&len), 4);
      *out += s;
    }
  } else if (t.type() == DataType::kBool) {
    for (bool b : t.values<bool>()) out->push_back(b ? 1 : 0);
  } else {
    out->append(static_cast<const char*>(t.raw()), t.nbytes());
  }
}

}  // namespace

Result<std::string> BuildInferResponse(const std::string& model_name, const InferRequest& request,
                                       const std::vector<std::string>& output_names, const std::vector<Value>& outputs,
                                       size_t* json_size, const std::string& model_version) {
  json outs = json::array();
  std::vector<const Tensor*> binary;  // the outputs sent as binary data, in order, after the JSON
  size_t binary_bytes = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = output_names.at(i);
    const Value& v = outputs[i];
    if (!v.is_tensor()) {
      return Unsupported("output '" + name + "' is a " + v.KindName() +
                         "; the inference protocol carries tensors only (ask for other outputs in 'outputs')");
    }
    const Tensor& t = v.tensor();
    ONYX_ASSIGN_OR_RETURN(std::string datatype, ProtocolDatatype(t.type()));
    json o = {{"name", name}, {"datatype", datatype}, {"shape", t.shape()}};
    auto flag = request.binary_output.find(name);
    const bool as_binary = flag != request.binary_output.end() ? flag->second : request.binary_outputs_by_default;
    if (as_binary) {
      const size_t bytes = BinaryBytes(t);
      o["parameters"] = {{"binary_data_size", bytes}};
      binary.push_back(&t);
      binary_bytes += bytes;
    } else {
      json data = json::array();
      ONYX_RETURN_IF_ERROR(Dispatch<AllTypes>(t.type(), [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        for (const auto& x : t.values<T>()) data.push_back(ElementToJson<T>(x));
        return Status::Ok();
      }));
      o["data"] = std::move(data);
    }
    outs.push_back(std::move(o));
  }
  json response = {{"model_name", model_name}, {"model_version", model_version}, {"outputs", std::move(outs)}};
  if (!request.id.empty()) response["id"] = request.id;
  // BYTES outputs may hold any bytes: invalid UTF-8 is replaced rather than failing the response.
  std::string text = response.dump(-1, ' ', false, json::error_handler_t::replace);
  *json_size = text.size();
  // The outputs' bytes are copied once, into a buffer sized for all of them.
  text.reserve(text.size() + binary_bytes);
  for (const Tensor* t : binary) AppendBinary(*t, &text);
  return text;
}

Result<Tensor> TensorFromRawBytes(DataType type, const Shape& shape, std::string_view bytes, int64_t max_elements) {
  return TensorFromBinary(type, shape, bytes, max_elements);
}

Result<int64_t> RequestElementCount(const Shape& shape, int64_t max_elements) {
  return LimitedElementCount(shape, max_elements);
}

}  // namespace onyx::serve
