#include "convert/common/json_limits.h"

namespace onyx::convert {

int64_t MaxJsonDepth() {
  // Real Keras configs nest about 5 levels per model plus ~6 for a layer's inbound nodes: 1000 leaves room for the
  // deepest nesting MaxModelNesting allows while keeping each recursive walk far from the stack's end.
  static const int64_t limit = EnvLimit("ONYX_MAX_JSON_DEPTH", 1000);
  return limit;
}

Status CheckJsonDepth(std::string_view text, const std::string& where) {
  const int64_t limit = MaxJsonDepth();
  int64_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) {
        return InvalidArgument(where + ": JSON nested more than " + std::to_string(limit) +
                               " levels deep (raise the limit with ONYX_MAX_JSON_DEPTH)");
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return Status::Ok();
}

}  // namespace onyx::convert
