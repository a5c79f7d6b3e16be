// The C API's version queries, status objects, and the conversions at the boundary (api_internal.h).
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "api/api_internal.h"
#include "onyx_version.h"

namespace onyx::api {
namespace {

// Handed out when even a status object cannot be allocated; onyx_status_release leaves it alone.
onyx_status g_out_of_memory{ONYX_OUT_OF_MEMORY, "out of memory", true};

onyx_status_code CodeOf(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return ONYX_OK;
    case StatusCode::kInvalidArgument:
      return ONYX_INVALID_ARGUMENT;
    case StatusCode::kNotFound:
      return ONYX_NOT_FOUND;
    case StatusCode::kUnsupported:
      return ONYX_UNSUPPORTED;
    case StatusCode::kIoError:
      return ONYX_IO_ERROR;
    case StatusCode::kInternal:
      return ONYX_INTERNAL;
    case StatusCode::kFailedCheck:
      return ONYX_FAILED_CHECK;
  }
  return ONYX_INTERNAL;
}

onyx_status* NewStatus(onyx_status_code code, const char* function, const std::string& message) noexcept {
  try {
    return new onyx_status{code, std::string(function) + ": " + message};
  } catch (...) {
    return &g_out_of_memory;
  }
}

}  // namespace

onyx_status* ToCStatus(const char* function, const Status& status) {
  if (status.ok()) return nullptr;
  return NewStatus(CodeOf(status.code()), function, status.message());
}

onyx_status* FromException(const char* function, std::exception_ptr error) noexcept {
  try {
    std::rethrow_exception(error);
  } catch (const std::bad_alloc&) {
    return NewStatus(ONYX_OUT_OF_MEMORY, function, "out of memory");
  } catch (const std::exception& e) {
    return NewStatus(ONYX_INTERNAL, function, std::string("unexpected C++ exception: ") + e.what());
  } catch (...) {
    return NewStatus(ONYX_INTERNAL, function, "unexpected C++ exception of unknown type");
  }
}

}  // namespace onyx::api

extern "C" {

uint32_t onyx_api_version(void) { return ONYX_API_VERSION; }

const char* onyx_version_string(void) { return ONYX_VERSION_STRING; }

onyx_status_code onyx_status_get_code(const onyx_status* status) { return status ? status->code : ONYX_OK; }

const char* onyx_status_get_message(const onyx_status* status) { return status ? status->message.c_str() : ""; }

void onyx_status_release(onyx_status* status) {
  if (status != nullptr && !status->is_static) delete status;
}

onyx_status* onyx_strings_get_count(const onyx_strings* strings, size_t* count) {
  return onyx::api::Guard(__func__, [&]() -> onyx::Status {
    ONYX_RETURN_IF_ERROR(onyx::api::CheckNotNull(strings, "strings"));
    ONYX_RETURN_IF_ERROR(onyx::api::CheckNotNull(count, "count"));
    *count = strings->items.size();
    return onyx::Status::Ok();
  });
}

onyx_status* onyx_strings_get(const onyx_strings* strings, size_t index, const char** value) {
  return onyx::api::Guard(__func__, [&]() -> onyx::Status {
    ONYX_RETURN_IF_ERROR(onyx::api::CheckNotNull(strings, "strings"));
    ONYX_RETURN_IF_ERROR(onyx::api::CheckNotNull(value, "value"));
    if (index >= strings->items.size()) {
      return onyx::InvalidArgument("index " + std::to_string(index) + " is out of range (" +
                                   std::to_string(strings->items.size()) + " strings)");
    }
    *value = strings->items[index].c_str();
    return onyx::Status::Ok();
  });
}

void onyx_strings_release(onyx_strings* strings) { delete strings; }

}  // extern "C"
