// Status and Result<T>: the one error style of onyx. Library code never throws for bad input and never exits;
// errors carry a message that names what failed and where (file, node, operator, input, attribute).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace onyx {

enum class StatusCode { kOk = 0, kInvalidArgument, kNotFound, kUnsupported, kIoError, kInternal, kFailedCheck };

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

  // Returns a copy whose message is prefixed with `context: ` (used while an error travels up).
  Status WithContext(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status Unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
inline Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace onyx

#define ONYX_CONCAT_INNER(a, b) a##b
#define ONYX_CONCAT(a, b) ONYX_CONCAT_INNER(a, b)

#define ONYX_RETURN_IF_ERROR(expr)           \
  do {                                       \
    ::onyx::Status onyx_status__ = (expr);   \
    if (!onyx_status__.ok()) return onyx_status__; \
  } while (0)

#define ONYX_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()

#define ONYX_ASSIGN_OR_RETURN(lhs, expr) \
  ONYX_ASSIGN_OR_RETURN_IMPL(ONYX_CONCAT(onyx_result__, __LINE__), lhs, expr)

// Returns InvalidArgument(message) from the enclosing function when `cond` is false.
#define ONYX_CHECK_ARG(cond, message)                      \
  do {                                                     \
    if (!(cond)) return ::onyx::InvalidArgument(message);  \
  } while (0)
