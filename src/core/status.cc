#include "core/status.h"

namespace onyx {

std::string Status::ToString() const {
  if (ok()) return "OK";
  return message_;
}

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  return Status(code_, context + ": " + message_);
}

}  // namespace onyx
