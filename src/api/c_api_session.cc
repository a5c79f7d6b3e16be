// The C API's session options, session creation, input/output metadata and profiles.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "api/api_internal.h"
#include "format/model_io.h"
#include "optimizer/optimizer.h"

using onyx::Status;
using onyx::api::CheckNotNull;
using onyx::api::Guard;

namespace {

const onyx::SessionOptions& OptionsOrDefault(const onyx_session_options* options) {
  static const onyx::SessionOptions kDefaults;
  return options != nullptr ? options->options : kDefaults;
}

// Wraps a created session: its metadata flattened once, and the token that marks borrowed inputs.
std::unique_ptr<onyx_session> Wrap(std::unique_ptr<onyx::Session> session) {
  auto s = std::make_unique<onyx_session>();
  for (const auto* in : session->model().graph.RealInputs()) s->inputs.push_back(onyx::api::MakeIoInfo(*in));
  for (const auto& out : session->outputs()) s->outputs.push_back(onyx::api::MakeIoInfo(out));
  s->session = std::move(session);
  // Any non-null pointer with a do-nothing deleter: the token only counts references, it owns nothing.
  s->borrow_token = std::shared_ptr<void>(s.get(), [](void*) {});
  s->borrow_marker = onyx::Tensor::Borrow(onyx::DataType::kUint8, {0}, nullptr, s->borrow_token);
  return s;
}

Status IoInfoAt(const std::vector<onyx_io_info>& infos, size_t index, const char* what, const onyx_io_info** info) {
  if (index >= infos.size()) {
    return onyx::InvalidArgument(std::string(what) + " index " + std::to_string(index) +
                                 " is out of range (the model has " + std::to_string(infos.size()) + ")");
  }
  *info = &infos[index];
  return Status::Ok();
}

}  // namespace

extern "C" {

onyx_status* onyx_session_options_create(onyx_session_options** out) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(out, "out"));
    *out = new onyx_session_options();
    return Status::Ok();
  });
}

void onyx_session_options_release(onyx_session_options* options) { delete options; }

onyx_status* onyx_session_options_set_threads(onyx_session_options* options, int threads) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(options, "options"));
    if (threads < 0)
      return onyx::InvalidArgument("threads must be >= 0 (0: all cores), got " + std::to_string(threads));
    options->options.intra_op_num_threads = threads;
    return Status::Ok();
  });
}

onyx_status* onyx_session_options_set_optimization_level(onyx_session_options* options, int level) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(options, "options"));
    ONYX_ASSIGN_OR_RETURN(options->options.optimization_level, onyx::optimizer::OptLevelFromInt(level));
    return Status::Ok();
  });
}

onyx_status* onyx_session_options_set_ort_summation_order(onyx_session_options* options, int mode) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(options, "options"));
    if (mode < -1 || mode > 1) {
      return onyx::InvalidArgument("mode must be 1 (on), 0 (off) or -1 (the default), got " + std::to_string(mode));
    }
    options->options.ort_summation_order = mode < 0 ? std::nullopt : std::optional<bool>(mode == 1);
    return Status::Ok();
  });
}

onyx_status* onyx_session_options_set_profiling(onyx_session_options* options, int enable, int per_node) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(options, "options"));
    options->options.enable_profiling = enable != 0;
    options->options.profile_per_node = per_node != 0;
    return Status::Ok();
  });
}

onyx_status* onyx_session_options_set_optimized_model_path(onyx_session_options* options, const char* path) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(options, "options"));
    options->options.optimized_model_path = path != nullptr ? path : "";
    return Status::Ok();
  });
}

onyx_status* onyx_session_create(const char* path, const onyx_session_options* options, onyx_session** out) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(path, "path"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(out, "out"));
    ONYX_ASSIGN_OR_RETURN(auto session, onyx::Session::Load(path, OptionsOrDefault(options)));
    *out = Wrap(std::move(session)).release();
    return Status::Ok();
  });
}

onyx_status* onyx_session_create_from_bytes(const void* data, size_t size, const onyx_session_options* options,
                                            onyx_session** out) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(data, "data"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(out, "out"));
    ONYX_ASSIGN_OR_RETURN(onyx::ir::Model model, onyx::format::LoadModelFromBytes(
                                                     std::string_view(static_cast<const char*>(data), size), "."));
    ONYX_ASSIGN_OR_RETURN(auto session, onyx::Session::Create(std::move(model), OptionsOrDefault(options)));
    *out = Wrap(std::move(session)).release();
    return Status::Ok();
  });
}

onyx_status* onyx_session_create_from_model(const onyx_model* model, const onyx_session_options* options,
                                            onyx_session** out) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(model, "model"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(out, "out"));
    ONYX_ASSIGN_OR_RETURN(auto session, onyx::Session::Create(model->model, OptionsOrDefault(options)));
    *out = Wrap(std::move(session)).release();
    return Status::Ok();
  });
}

void onyx_session_release(onyx_session* session) { delete session; }

onyx_status* onyx_session_get_input_count(const onyx_session* session, size_t* count) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(session, "session"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(count, "count"));
    *count = session->inputs.size();
    return Status::Ok();
  });
}

onyx_status* onyx_session_get_output_count(const onyx_session* session, size_t* count) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(session, "session"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(count, "count"));
    *count = session->outputs.size();
    return Status::Ok();
  });
}

onyx_status* onyx_session_get_input_info(const onyx_session* session, size_t index, const onyx_io_info** info) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(session, "session"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(info, "info"));
    return IoInfoAt(session->inputs, index, "input", info);
  });
}

onyx_status* onyx_session_get_output_info(const onyx_session* session, size_t index, const onyx_io_info** info) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(session, "session"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(info, "info"));
    return IoInfoAt(session->outputs, index, "output", info);
  });
}

onyx_status* onyx_model_get_input_count(const onyx_model* model, size_t* count) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(model, "model"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(count, "count"));
    *count = model->inputs.size();
    return Status::Ok();
  });
}

onyx_status* onyx_model_get_output_count(const onyx_model* model, size_t* count) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(model, "model"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(count, "count"));
    *count = model->outputs.size();
    return Status::Ok();
  });
}

onyx_status* onyx_model_get_input_info(const onyx_model* model, size_t index, const onyx_io_info** info) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(model, "model"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(info, "info"));
    return IoInfoAt(model->inputs, index, "input", info);
  });
}

onyx_status* onyx_model_get_output_info(const onyx_model* model, size_t index, const onyx_io_info** info) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(model, "model"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(info, "info"));
    return IoInfoAt(model->outputs, index, "output", info);
  });
}

onyx_status* onyx_io_info_get_name(const onyx_io_info* info, const char** name) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(info, "info"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(name, "name"));
    *name = info->name.c_str();
    return Status::Ok();
  });
}

onyx_status* onyx_io_info_get_kind(const onyx_io_info* info, onyx_value_kind* kind) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(info, "info"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(kind, "kind"));
    *kind = info->kind;
    return Status::Ok();
  });
}

onyx_status* onyx_io_info_get_element_type(const onyx_io_info* info, onyx_element_type* type) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(info, "info"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(type, "type"));
    *type = info->type;
    return Status::Ok();
  });
}

onyx_status* onyx_io_info_get_shape(const onyx_io_info* info, int64_t* rank, const int64_t** dims) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(info, "info"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(rank, "rank"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(dims, "dims"));
    *rank = info->rank;
    *dims = info->dims.data();
    return Status::Ok();
  });
}

onyx_status* onyx_io_info_get_dim_name(const onyx_io_info* info, size_t axis, const char** name) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(info, "info"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(name, "name"));
    if (axis >= info->dim_names.size()) {
      return onyx::InvalidArgument("axis " + std::to_string(axis) + " is out of range for '" + info->name + "' (rank " +
                                   std::to_string(info->rank) + ")");
    }
    *name = info->dim_names[axis].c_str();
    return Status::Ok();
  });
}

onyx_status* onyx_session_get_profile(const onyx_session* session, onyx_profile** out) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(session, "session"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(out, "out"));
    auto profile = std::make_unique<onyx_profile>();
    profile->entries = session->session->Profile();
    *out = profile.release();
    return Status::Ok();
  });
}

onyx_status* onyx_profile_get_count(const onyx_profile* profile, size_t* count) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(profile, "profile"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(count, "count"));
    *count = profile->entries.size();
    return Status::Ok();
  });
}

onyx_status* onyx_profile_get_entry(const onyx_profile* profile, size_t index, onyx_profile_entry* entry) {
  return Guard(__func__, [&]() -> Status {
    ONYX_RETURN_IF_ERROR(CheckNotNull(profile, "profile"));
    ONYX_RETURN_IF_ERROR(CheckNotNull(entry, "entry"));
    if (index >= profile->entries.size()) {
      return onyx::InvalidArgument("index " + std::to_string(index) + " is out of range (" +
                                   std::to_string(profile->entries.size()) + " entries)");
    }
    const onyx::OpProfile& p = profile->entries[index];
    entry->op = p.op.c_str();
    entry->total_ms = p.total_ms;
    entry->calls = p.calls;
    return Status::Ok();
  });
}

void onyx_profile_release(onyx_profile* profile) { delete profile; }

}  // extern "C"
