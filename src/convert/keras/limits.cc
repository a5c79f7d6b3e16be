#include "convert/keras/limits.h"

namespace onyx::convert::keras {

int64_t MaxModelNesting() {
  // Real models nest a few levels (a backbone inside a Functional model inside a Sequential).
  static const int64_t limit = EnvLimit("ONYX_MAX_MODEL_NESTING", 64);
  return limit;
}

uint64_t MaxZipEntryBytes() {
  // 4 GiB: the weights of the largest models Keras 3 archives in practice; a zip bomb's few megabytes claim more.
  static const uint64_t limit = static_cast<uint64_t>(EnvLimit("ONYX_MAX_ZIP_ENTRY_BYTES", int64_t{4} << 30));
  return limit;
}

Status CheckModelNesting(int64_t depth, const std::string& where) {
  if (depth <= MaxModelNesting()) return Status::Ok();
  return InvalidArgument(where + ": models nested more than " + std::to_string(MaxModelNesting()) +
                         " levels deep (raise the limit with ONYX_MAX_MODEL_NESTING)");
}

}  // namespace onyx::convert::keras
