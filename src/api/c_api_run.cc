// The C API's runs: caller tensors borrowed as inputs (zero-copy), outputs handed back as owned values or copied into
// caller buffers, and the accessors of those values.
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/api_internal.h"

using onyx::DataType;
using onyx::Result;
using onyx::Status;
using onyx::Tensor;
using onyx::Value;
using onyx::api::CheckNotNull;
using onyx::api::Guard;

namespace {

Result<onyx::Shape> ShapeOf(const onyx_tensor_view& view, const std::string& what) {
  if (view.rank > 0 && view.shape == nullptr) return onyx::InvalidArgument(what + ": shape is NULL with rank > 0");
  onyx::Shape shape(view.shape, view.shape + view.rank);
  for (int64_t d : shape) {
    if (d < 0) return onyx::InvalidArgument(what + ": negative dimension in shape " + onyx::ShapeToString(shape));
  }
  return shape;
}

Result<DataType> TypeOf(const onyx_tensor_view& view, const std::string& what) {
  const auto raw = static_cast<int32_t>(view.type);
  if (raw == 0 || !onyx::IsValidDataType(raw)) {
    return onyx::InvalidArgument(what + ": element type " + std::to_string(raw) + " is not a valid ONNX element type");
  }
  return static_cast<DataType>(raw);
}

// The caller's tensor as an onyx tensor: borrowed (no copy) except for strings, which onyx stores as std::string.
Result<Tensor> ToTensor(const onyx_session& session, const onyx_tensor_view& view, const char* name) {
  const std::string what = std::string("input '") + name + "'";
  ONYX_ASSIGN_OR_RETURN(DataType type, TypeOf(view, what));
  ONYX_ASSIGN_OR_RETURN(onyx::Shape shape, ShapeOf(view, what));
  auto count = onyx::CheckedNumElements(shape);
  if (!count.ok()) return count.status().WithContext(what);
  const size_t n = static_cast<size_t>(*count);
  const size_t needed = type == DataType::kString ? n * sizeof(const char*) : onyx::DataTypeStorageBytes(type, n);
  if (view.size_bytes < needed) {
    return onyx::InvalidArgument(what + ": a " + std::string(onyx::DataTypeName(type)) + " tensor of shape " +
                                 onyx::ShapeToString(shape) + " needs " + std::to_string(needed) +
                                 " bytes, the buffer has " + std::to_string(view.size_bytes));
  }
  if (needed > 0 && view.data == nullptr) return onyx::InvalidArgument(what + ": data is NULL");
  if (type != DataType::kString) return Tensor::Borrow(type, std::move(shape), view.data, session.borrow_token);
  ONYX_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(type, shape));
  const auto* items = static_cast<const char* const*>(view.data);
  for (size_t i = 0; i < n; ++i) {
    if (items[i] == nullptr) return onyx::InvalidArgument(what + ": string " + std::to_string(i) + " is NULL");
    t.data<std::string>()[i] = items[i];
  }
  return t;
}

// Outputs that still share a borrowed input's memory (an Identity of an input, a sequence holding one) are copied:
// the caller may free its input buffers as soon as the run returns.
void Detach(const onyx_session& session, Value& value) {
  if (value.is_tensor()) {
    if (value.tensor().shares_storage_with(session.borrow_marker)) value = Value(value.tensor().Clone());
  } else if (value.is_sequence()) {
    for (Value& item : value.sequence().items) Detach(session, item);
  }
}

// The feeds (caller buffers borrowed) and the wanted output names of a run, checked before running.
Status PrepareRun(const onyx_session* session, const char* const* input_names, const onyx_tensor_view* inputs,
                  size_t num_inputs, const char* const* output_names, size_t num_outputs, bool all_allowed,
                  std::vector<std::pair<std::string, Value>>* feeds, std::vector<std::string>* wanted) {
  ONYX_RETURN_IF_ERROR(CheckNotNull(session, "session"));
  if (num_inputs > 0) {
    ONYX_RETURN_IF_ERROR(CheckNotNull(input_names, "input_names"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(inputs, "inputs"));
  }
  if (num_outputs > 0 || !all_allowed) ONYX_RETURN_IF_ERROR(CheckNotNull(output_names, "output_names"));
  feeds->reserve(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) {
    if (input_names[i] == nullptr) return onyx::InvalidArgument("input_names[" + std::to_string(i) + "] is NULL");
    ONYX_ASSIGN_OR_RETURN(Tensor t, ToTensor(*session, inputs[i], input_names[i]));
    feeds->emplace_back(input_names[i], Value(std::move(t)));
  }
  wanted->reserve(num_outputs);
  for (size_t i = 0; i < num_outputs; ++i) {
    if (output_names[i] == nullptr) return onyx::InvalidArgument("output_names[" + std::to_string(i) + "] is NULL");
    // Checked before running: a misspelt name should not cost a whole run.
    bool known = false;
    for (const onyx_io_info& out : session->outputs) known = known || out.name == output_names[i];
    if (!known) return onyx::InvalidArgument(std::string("'") + output_names[i] + "' is not an output of the model");
    wanted->emplace_back(output_names[i]);
  }
  return Status::Ok();
}

Status RunSession(const onyx_session* session, const char* const* input_names, const onyx_tensor_view* inputs,
                  size_t num_inputs, const char* const* output_names, size_t num_outputs, bool all_allowed,
                  std::vector<Value>* results) {
  std::vector<std::pair<std::string, Value>> feeds;
  std::vector<std::string> wanted;
  ONYX_RETURN_IF_ERROR(
      PrepareRun(session, input_names, inputs, num_inputs, output_names, num_outputs, all_allowed, &feeds, &wanted));
  ONYX_RETURN_IF_ERROR(session->session->Run(feeds, wanted, results));
  for (Value& v : *results) Detach(*session, v);
  return Status::Ok();
}

Status CheckTensor(const onyx_value* value) {
  ONYX_RETURN_IF_ERROR(CheckNotNull(value, "value"));
  if (!value->value.is_tensor()) {
    return onyx::InvalidArgument(std::string("the value is a ") + value->value.KindName() + ", not a tensor");
  }
  return Status::Ok();
}

}  // namespace

extern "C" {

onyx_status* onyx_session_run(const onyx_session* session, const char* const* input_names,
                              const onyx_tensor_view* inputs, size_t num_inputs, const char* const* output_names,
                              size_t num_outputs, onyx_value** outputs) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(outputs, "outputs"));
    std::vector<Value> results;
    ONYX_RETURN_IF_ERROR(
        RunSession(session, input_names, inputs, num_inputs, output_names, num_outputs, true, &results));
    // Allocate every handle before handing any out, so that a failure leaves `outputs` untouched.
    std::vector<std::unique_ptr<onyx_value>> handles;
    handles.reserve(results.size());
    for (Value& v : results) handles.push_back(std::make_unique<onyx_value>(onyx_value{std::move(v)}));
    for (size_t i = 0; i < handles.size(); ++i) outputs[i] = handles[i].release();
    return Status::Ok();
  });
}

onyx_status* onyx_session_run_into(const onyx_session* session, const char* const* input_names,
                                   const onyx_tensor_view* inputs, size_t num_inputs, const char* const* output_names,
                                   size_t num_outputs, onyx_tensor_view* outputs) {
  return Guard(__func__, [&]() -> Status {
    if (num_outputs > 0) ONYX_RETURN_IF_ERROR(CheckNotNull(outputs, "outputs"));
    std::vector<std::pair<std::string, Value>> feeds;
    std::vector<std::string> wanted;
    ONYX_RETURN_IF_ERROR(
        PrepareRun(session, input_names, inputs, num_inputs, output_names, num_outputs, false, &feeds, &wanted));
    // The caller's buffers as tensors; Session::RunInto checks each against its output (type and shape) before
    // writing any, and copies the results straight in (no intermediate output values).
    std::vector<Tensor> buffers;
    std::vector<size_t> capacities;
    buffers.reserve(num_outputs);
    capacities.reserve(num_outputs);
    for (size_t i = 0; i < num_outputs; ++i) {
      const std::string what = std::string("output '") + output_names[i] + "'";
      ONYX_ASSIGN_OR_RETURN(DataType type, TypeOf(outputs[i], what));
      ONYX_ASSIGN_OR_RETURN(onyx::Shape shape, ShapeOf(outputs[i], what));
      auto count = onyx::CheckedNumElements(shape);
      if (!count.ok()) return count.status().WithContext(what);
      buffers.push_back(Tensor::Borrow(type, std::move(shape), outputs[i].data, nullptr));
      capacities.push_back(outputs[i].size_bytes);
    }
    return session->session->RunInto(feeds, wanted, buffers, capacities);
  });
}

onyx_status* onyx_value_get_kind(const onyx_value* value, onyx_value_kind* kind) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(value, "value"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(kind, "kind"));
    const Value& v = value->value;
    *kind = v.is_tensor()     ? ONYX_KIND_TENSOR
            : v.is_sequence() ? ONYX_KIND_SEQUENCE
            : v.is_map()      ? ONYX_KIND_MAP
            : v.is_none()     ? ONYX_KIND_OPTIONAL
                              : ONYX_KIND_UNKNOWN;
    return Status::Ok();
  });
}

onyx_status* onyx_value_get_element_type(const onyx_value* value, onyx_element_type* type) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckTensor(value));
    ONYX_RETURN_IF_ERROR(CheckNotNull(type, "type"));
    *type = static_cast<onyx_element_type>(value->value.tensor().type());
    return Status::Ok();
  });
}

onyx_status* onyx_value_get_shape(const onyx_value* value, size_t* rank, const int64_t** dims) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckTensor(value));
    ONYX_RETURN_IF_ERROR(CheckNotNull(rank, "rank"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(dims, "dims"));
    const Tensor& t = value->value.tensor();
    *rank = t.shape().size();
    *dims = t.shape().data();
    return Status::Ok();
  });
}

onyx_status* onyx_value_get_element_count(const onyx_value* value, size_t* count) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckTensor(value));
    ONYX_RETURN_IF_ERROR(CheckNotNull(count, "count"));
    *count = static_cast<size_t>(value->value.tensor().size());
    return Status::Ok();
  });
}

onyx_status* onyx_value_get_data(const onyx_value* value, const void** data, size_t* size_bytes) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckTensor(value));
    ONYX_RETURN_IF_ERROR(CheckNotNull(data, "data"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(size_bytes, "size_bytes"));
    const Tensor& t = value->value.tensor();
    if (t.type() == DataType::kString) {
      return onyx::InvalidArgument("the value is a string tensor: read it with onyx_value_get_string");
    }
    *data = t.raw();
    *size_bytes = t.nbytes();
    return Status::Ok();
  });
}

onyx_status* onyx_value_get_string(const onyx_value* value, size_t index, const char** data, size_t* length) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckTensor(value));
    ONYX_RETURN_IF_ERROR(CheckNotNull(data, "data"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(length, "length"));
    const Tensor& t = value->value.tensor();
    if (t.type() != DataType::kString) {
      return onyx::InvalidArgument("the value is a " + std::string(onyx::DataTypeName(t.type())) +
                                   " tensor, not a string tensor");
    }
    if (index >= static_cast<size_t>(t.size())) {
      return onyx::InvalidArgument("index " + std::to_string(index) + " is out of range (" + std::to_string(t.size()) +
                                   " strings)");
    }
    const std::string& s = t.data<std::string>()[index];
    *data = s.c_str();
    *length = s.size();
    return Status::Ok();
  });
}

void onyx_value_release(onyx_value* value) { delete value; }

}  // extern "C"
