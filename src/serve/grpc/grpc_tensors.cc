#include "serve/grpc/grpc_tensors.h"

#include <cstring>
#include <limits>
#include <type_traits>

namespace onyx::serve {
namespace {

using inference::InferTensorContents;
using inference::ModelInferRequest;
using inference::ModelInferResponse;

// The typed-contents fields, each with its name for messages.
struct ContentsField {
  const char* name;
  int size;
};
std::vector<ContentsField> NonEmptyFields(const InferTensorContents& c) {
  const ContentsField all[] = {
      {"bool_contents", c.bool_contents_size()},     {"int_contents", c.int_contents_size()},
      {"int64_contents", c.int64_contents_size()},   {"uint_contents", c.uint_contents_size()},
      {"uint64_contents", c.uint64_contents_size()}, {"fp32_contents", c.fp32_contents_size()},
      {"fp64_contents", c.fp64_contents_size()},     {"bytes_contents", c.bytes_contents_size()},
  };
  std::vector<ContentsField> out;
  for (const auto& f : all) {
    if (f.size > 0) out.push_back(f);
  }
  return out;
}

// The field that carries `type`'s values; null for FP16 and BF16, which the protocol sends raw only.
const char* FieldOf(DataType type) {
  switch (type) {
    case DataType::kBool:
      return "bool_contents";
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
      return "int_contents";
    case DataType::kInt64:
      return "int64_contents";
    case DataType::kUint8:
    case DataType::kUint16:
    case DataType::kUint32:
      return "uint_contents";
    case DataType::kUint64:
      return "uint64_contents";
    case DataType::kFloat:
      return "fp32_contents";
    case DataType::kDouble:
      return "fp64_contents";
    case DataType::kString:
      return "bytes_contents";
    default:
      return nullptr;
  }
}

// Copies `src` into `dst`, refusing values out of T's range (int_contents carries INT8 and INT16 as int32, ...).
template <typename T, typename Src>
Status CopyValues(const Src& src, T* dst) {
  for (int i = 0; i < src.size(); ++i) {
    const auto& v = src.Get(i);
    using V = std::remove_cvref_t<decltype(v)>;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, V>) {
      bool in_range = v <= static_cast<V>(std::numeric_limits<T>::max());
      if constexpr (std::is_signed_v<T>) in_range = in_range && v >= static_cast<V>(std::numeric_limits<T>::min());
      if (!in_range) {
        return InvalidArgument("element " + std::to_string(i) + ": " + std::to_string(v) +
                               " is out of the element type's range");
      }
    }
    dst[i] = static_cast<T>(v);
  }
  return Status::Ok();
}

// The repeated field of InferTensorContents that holds T's values.
template <typename T>
const auto& FieldFor(const InferTensorContents& c) {
  if constexpr (std::is_same_v<T, bool>) {
    return c.bool_contents();
  } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t>) {
    return c.int_contents();
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return c.int64_contents();
  } else if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t>) {
    return c.uint_contents();
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return c.uint64_contents();
  } else if constexpr (std::is_same_v<T, float>) {
    return c.fp32_contents();
  } else if constexpr (std::is_same_v<T, double>) {
    return c.fp64_contents();
  } else {
    static_assert(std::is_same_v<T, std::string>);
    return c.bytes_contents();
  }
}

using TypedContentTypes = TypeList<bool, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t,
                                   float, double, std::string>;

// One input from its typed contents (`contents` may be null: no values).
Result<Tensor> TensorFromContents(DataType type, const std::string& datatype, const Shape& shape,
                                  const InferTensorContents* contents, int64_t max_elements) {
  ONYX_ASSIGN_OR_RETURN(const int64_t count, RequestElementCount(shape, max_elements));
  const char* field = FieldOf(type);
  if (field == nullptr) {
    return InvalidArgument(datatype + " has no typed contents field: send its values in raw_input_contents");
  }
  const InferTensorContents empty;
  const InferTensorContents& c = contents != nullptr ? *contents : empty;
  const std::vector<ContentsField> filled = NonEmptyFields(c);
  if (filled.size() > 1 || (filled.size() == 1 && std::strcmp(filled[0].name, field) != 0)) {
    std::string names;
    for (const auto& f : filled) names += (names.empty() ? "" : ", ") + std::string(f.name);
    return InvalidArgument("values are in " + names + "; " + datatype + " takes " + field);
  }
  const int64_t given = filled.empty() ? 0 : filled[0].size;
  if (given != count) {
    return InvalidArgument(std::string(field) + " holds " + std::to_string(given) + " values, shape " +
                           ShapeToString(shape) + " needs " + std::to_string(count));
  }
  ONYX_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(type, shape));
  ONYX_RETURN_IF_ERROR(Dispatch<TypedContentTypes>(type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    return CopyValues<T>(FieldFor<T>(c), t.data<T>());
  }));
  return t;
}

bool HasValues(const ModelInferRequest::InferInputTensor& in) {
  return in.has_contents() && !NonEmptyFields(in.contents()).empty();
}

// The raw layout of one tensor (raw_input_contents' layout), appended to `out`.
void AppendRaw(const Tensor& t, std::string* out) {
  if (t.type() == DataType::kString) {
    for (const auto& s : t.values<std::string>()) {
      const auto len = static_cast<uint32_t>(s.size());
      char le[4] = {static_cast<char>(len & 0xff), static_cast<char>((len >> 8) & 0xff),
                    static_cast<char>((len >> 16) & 0xff), static_cast<char>(len >> 24)};
      out->append(le, 4);
      *out += s;
    }
  } else if (t.type() == DataType::kBool) {
    for (bool b : t.values<bool>()) out->push_back(b ? 1 : 0);
  } else if (t.nbytes() > 0) {
    out->append(static_cast<const char*>(t.raw()), t.nbytes());
  }
}

// One output's values into the typed field of its datatype.
Status FillContents(const Tensor& t, InferTensorContents* c) {
  return Dispatch<TypedContentTypes>(t.type(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const auto values = t.values<T>();
    if constexpr (std::is_same_v<T, bool>) {
      for (bool v : values) c->add_bool_contents(v);
    } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t>) {
      for (T v : values) c->add_int_contents(v);
    } else if constexpr (std::is_same_v<T, int64_t>) {
      c->mutable_int64_contents()->Add(values.begin(), values.end());
    } else if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t>) {
      for (T v : values) c->add_uint_contents(v);
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      c->mutable_uint64_contents()->Add(values.begin(), values.end());
    } else if constexpr (std::is_same_v<T, float>) {
      c->mutable_fp32_contents()->Add(values.begin(), values.end());
    } else if constexpr (std::is_same_v<T, double>) {
      c->mutable_fp64_contents()->Add(values.begin(), values.end());
    } else {
      for (const auto& v : values) c->add_bytes_contents(v);
    }
    return Status::Ok();
  });
}

}  // namespace

Result<InferRequest> InferRequestFromProto(const ModelInferRequest& request, int64_t max_elements) {
  InferRequest req;
  req.id = request.id();
  req.binary_outputs_by_default = true;
  const bool raw = request.raw_input_contents_size() > 0;
  if (raw && request.raw_input_contents_size() != request.inputs_size()) {
    return InvalidArgument("raw_input_contents holds " + std::to_string(request.raw_input_contents_size()) +
                           " entries for " + std::to_string(request.inputs_size()) + " inputs (one per input)");
  }
  for (int k = 0; k < request.inputs_size(); ++k) {
    const auto& in = request.inputs(k);
    if (in.name().empty()) return InvalidArgument("inputs[" + std::to_string(k) + "] has no name");
    const std::string where = "input '" + in.name() + "'";
    auto type = DataTypeFromProtocol(in.datatype());
    if (!type.ok()) return type.status().WithContext(where);
    const Shape shape(in.shape().begin(), in.shape().end());
    Result<Tensor> tensor = InvalidArgument("no data");
    if (raw) {
      if (HasValues(in)) {
        return InvalidArgument(
            where + " has typed contents, but the request carries raw_input_contents: " + "send every input one way");
      }
      tensor = TensorFromRawBytes(*type, shape, request.raw_input_contents(k), max_elements);
    } else {
      tensor =
          TensorFromContents(*type, in.datatype(), shape, in.has_contents() ? &in.contents() : nullptr, max_elements);
    }
    if (!tensor.ok()) return tensor.status().WithContext(where);
    req.feeds.emplace_back(in.name(), Value(std::move(tensor).value()));
  }
  for (int k = 0; k < request.outputs_size(); ++k) {
    const auto& out = request.outputs(k);
    if (out.name().empty()) return InvalidArgument("outputs[" + std::to_string(k) + "] has no name");
    if (auto it = out.parameters().find("binary_data");
        it != out.parameters().end() && it->second.parameter_choice_case() == inference::InferParameter::kBoolParam) {
      req.binary_output[out.name()] = it->second.bool_param();
    }
    req.output_names.push_back(out.name());
  }
  return req;
}

Status FillInferResponse(const std::string& model_name, const std::string& model_version, const InferRequest& request,
                         const std::vector<std::string>& output_names, const std::vector<Value>& outputs,
                         ModelInferResponse* response) {
  response->set_model_name(model_name);
  response->set_model_version(model_version);
  response->set_id(request.id);
  std::vector<std::string> raw(outputs.size());
  bool any_raw = false;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = output_names.at(i);
    const Value& v = outputs[i];
    if (!v.is_tensor()) {
      return Unsupported("output '" + name + "' is a " + v.KindName() +
                         "; the inference protocol carries tensors only (ask for other outputs in 'outputs')");
    }
    const Tensor& t = v.tensor();
    ONYX_ASSIGN_OR_RETURN(std::string datatype, ProtocolDatatype(t.type()));
    auto* o = response->add_outputs();
    o->set_name(name);
    o->set_datatype(datatype);
    o->mutable_shape()->Add(t.shape().begin(), t.shape().end());
    auto flag = request.binary_output.find(name);
    const bool wants_raw = flag != request.binary_output.end() ? flag->second : request.binary_outputs_by_default;
    if (wants_raw || FieldOf(t.type()) == nullptr) {
      AppendRaw(t, &raw[i]);
      any_raw = true;
    } else {
      ONYX_RETURN_IF_ERROR(FillContents(t, o->mutable_contents()).WithContext("output '" + name + "'"));
    }
  }
  if (any_raw) {
    for (auto& bytes : raw) response->add_raw_output_contents(std::move(bytes));
  }
  return Status::Ok();
}

}  // namespace onyx::serve
