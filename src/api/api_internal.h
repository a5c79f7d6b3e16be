// What the C API's opaque handles hold, and the boundary helpers every entry point uses: Status -> onyx_status*,
// and the catch-all that keeps C++ exceptions (std::bad_alloc included) from crossing into C callers.
#pragma once

#include <exception>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "ir/model.h"
#include "onyx/onyx_c_api.h"
#include "runtime/session.h"

struct onyx_status {
  onyx_status_code code;
  std::string message;
  bool is_static = false;  // the preallocated out-of-memory status: never freed
};

struct onyx_session_options {
  onyx::SessionOptions options;
};

// One input's or output's declared type, flattened for C: the arrays live as long as the handle holding this.
struct onyx_io_info {
  std::string name;
  onyx_value_kind kind = ONYX_KIND_UNKNOWN;
  onyx_element_type type = ONYX_ELEMENT_UNDEFINED;
  int64_t rank = -1;
  std::vector<int64_t> dims;           // -1 for symbolic or unknown
  std::vector<std::string> dim_names;  // the symbol, or ""
};

struct onyx_session {
  std::unique_ptr<onyx::Session> session;
  std::vector<onyx_io_info> inputs;
  std::vector<onyx_io_info> outputs;
  // The keeper of every borrowed input tensor. The session holds one reference, so a borrowed input never looks
  // like its storage's only holder (kernels then never compute in place into the caller's memory), and an output
  // that still shares it (Identity of an input) is recognized and copied before the caller's buffer goes away.
  std::shared_ptr<void> borrow_token;
  onyx::Tensor borrow_marker;  // an empty tensor over borrow_token, for Tensor::shares_storage_with
};

struct onyx_value {
  onyx::Value value;
};

struct onyx_model {
  onyx::ir::Model model;
  std::vector<onyx_io_info> inputs;
  std::vector<onyx_io_info> outputs;
};

struct onyx_strings {
  std::vector<std::string> items;
};

struct onyx_profile {
  std::vector<onyx::OpProfile> entries;
};

namespace onyx::api {

// The flattened form of a declared value type.
onyx_io_info MakeIoInfo(const ir::ValueInfo& info);
// Recomputes a model handle's input/output infos (after load or a change).
void RefreshIoInfos(onyx_model& model);

// nullptr for OK, else a new onyx_status carrying the code and `function: message`.
onyx_status* ToCStatus(const char* function, const Status& status);
// The status for an exception that reached the boundary.
onyx_status* FromException(const char* function, std::exception_ptr error) noexcept;

// Runs `body` (returning onyx::Status) and converts its result; nothing it throws escapes.
template <typename Body>
onyx_status* Guard(const char* function, Body&& body) noexcept {
  try {
    return ToCStatus(function, std::forward<Body>(body)());
  } catch (...) {
    return FromException(function, std::current_exception());
  }
}

// "argument 'name' is NULL" when `pointer` is null.
inline Status CheckNotNull(const void* pointer, const char* name) {
  if (pointer == nullptr) return InvalidArgument(std::string("argument '") + name + "' is NULL");
  return Status::Ok();
}

}  // namespace onyx::api
