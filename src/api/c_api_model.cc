// The C API's model handles (load, check, infer shapes, convert opset, save) and the framework converters.
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/api_internal.h"
#include "checker/checker.h"
#include "convert/convert_file.h"
#include "format/model_io.h"
#include "infer/shape_inference.h"
#include "version/opset_converter.h"

using onyx::Status;
using onyx::api::CheckNotNull;
using onyx::api::Guard;

namespace onyx::api {

onyx_io_info MakeIoInfo(const ir::ValueInfo& info) {
  onyx_io_info out;
  out.name = info.name;
  if (!info.type) return out;
  const ir::TypeInfo& t = *info.type;
  switch (t.kind) {
    case ir::TypeInfo::Kind::kUndefined:
      out.kind = ONYX_KIND_UNKNOWN;
      break;
    case ir::TypeInfo::Kind::kTensor:
      out.kind = ONYX_KIND_TENSOR;
      break;
    case ir::TypeInfo::Kind::kSequence:
      out.kind = ONYX_KIND_SEQUENCE;
      break;
    case ir::TypeInfo::Kind::kMap:
      out.kind = ONYX_KIND_MAP;
      break;
    case ir::TypeInfo::Kind::kOptional:
      out.kind = ONYX_KIND_OPTIONAL;
      break;
    default:
      out.kind = ONYX_KIND_OTHER;
      break;
  }
  if (!t.is_tensor()) return out;
  out.type = static_cast<onyx_element_type>(t.elem_type);
  if (!t.shape) return out;
  out.rank = static_cast<int64_t>(t.shape->size());
  for (const ir::Dim& d : *t.shape) {
    out.dims.push_back(d.is_value() ? d.value : -1);
    out.dim_names.push_back(d.is_param() ? d.param : std::string());
  }
  return out;
}

void RefreshIoInfos(onyx_model& model) {
  model.inputs.clear();
  model.outputs.clear();
  for (const auto* in : model.model.graph.RealInputs()) model.inputs.push_back(MakeIoInfo(*in));
  for (const auto& out : model.model.graph.outputs) model.outputs.push_back(MakeIoInfo(out));
}

}  // namespace onyx::api

namespace {

onyx_model* NewModel(onyx::ir::Model model) {
  auto m = std::make_unique<onyx_model>();
  m->model = std::move(model);
  onyx::api::RefreshIoInfos(*m);
  return m.release();
}

// The checker's full pass: shape inference over a copy, each diagnostic a problem (as `onyx check --full`).
void AddInferenceProblems(const onyx::ir::Model& model, std::vector<onyx::checker::Problem>& problems) {
  onyx::ir::Model copy = model;
  std::vector<std::string> diagnostics;
  onyx::infer::InferOptions io;
  io.strict = false;
  io.diagnostics = &diagnostics;
  Status st = onyx::infer::InferShapes(copy, io);
  if (!st.ok()) diagnostics.push_back(st.message());
  for (auto& d : diagnostics) problems.push_back(onyx::checker::Problem{"shape inference", "inference", std::move(d)});
}

}  // namespace

extern "C" {

onyx_status* onyx_model_load(const char* path, onyx_model** out) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(path, "path"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(out, "out"));
    ONYX_ASSIGN_OR_RETURN(onyx::ir::Model model, onyx::format::LoadModel(path));
    *out = NewModel(std::move(model));
    return Status::Ok();
  });
}

onyx_status* onyx_model_load_from_bytes(const void* data, size_t size, onyx_model** out) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(data, "data"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(out, "out"));
    ONYX_ASSIGN_OR_RETURN(onyx::ir::Model model, onyx::format::LoadModelFromBytes(
                                                     std::string_view(static_cast<const char*>(data), size), "."));
    *out = NewModel(std::move(model));
    return Status::Ok();
  });
}

void onyx_model_release(onyx_model* model) { delete model; }

onyx_status* onyx_model_check(const onyx_model* model, int full, onyx_strings** problems) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(model, "model"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(problems, "problems"));
    // The checker's own full-check hook is process-wide (the CLI sets it); the API runs inference itself instead,
    // so that concurrent checks never race on that global.
    std::vector<onyx::checker::Problem> found = onyx::checker::CheckModel(model->model);
    if (full != 0) AddInferenceProblems(model->model, found);
    auto list = std::make_unique<onyx_strings>();
    for (const auto& p : found) list->items.push_back(p.ToString());
    *problems = list.release();
    return Status::Ok();
  });
}

onyx_status* onyx_model_infer_shapes(onyx_model* model) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(model, "model"));
    // Inference runs on a copy so that a failure leaves the caller's model as it was.
    onyx::ir::Model copy = model->model;
    ONYX_RETURN_IF_ERROR(onyx::infer::InferShapes(copy));
    model->model = std::move(copy);
    onyx::api::RefreshIoInfos(*model);
    return Status::Ok();
  });
}

onyx_status* onyx_model_convert_opset(const onyx_model* model, int64_t opset, onyx_model** out) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(model, "model"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(out, "out"));
    ONYX_ASSIGN_OR_RETURN(onyx::ir::Model converted, onyx::version::ConvertOpset(model->model, opset));
    *out = NewModel(std::move(converted));
    return Status::Ok();
  });
}

onyx_status* onyx_model_get_opset(const onyx_model* model, const char* domain, int64_t* version) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(model, "model"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(domain, "domain"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(version, "version"));
    const std::string_view wanted = std::string_view(domain) == "ai.onnx" ? std::string_view() : domain;
    *version = 0;
    for (const auto& o : model->model.opset_import) {
      const std::string_view d = o.domain == "ai.onnx" ? std::string_view() : std::string_view(o.domain);
      if (d == wanted) *version = o.version;
    }
    return Status::Ok();
  });
}

onyx_status* onyx_model_save(const onyx_model* model, const char* path) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(model, "model"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(path, "path"));
    return onyx::format::SaveModel(model->model, path);
  });
}

onyx_status* onyx_convert(const char* path, int64_t opset, onyx_model** out) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(path, "path"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(out, "out"));
    if (!onyx::convert::IsConvertibleFile(path)) {
      return onyx::InvalidArgument(std::string("'") + path +
                                   "' is not a model onyx converts (.keras, .h5, .hdf5, .json, .pb, .tflite or a "
                                   "SavedModel directory)");
    }
    ONYX_ASSIGN_OR_RETURN(onyx::ir::Model model, onyx::convert::ConvertFile(path, opset));
    *out = NewModel(std::move(model));
    return Status::Ok();
  });
}

}  // extern "C"
