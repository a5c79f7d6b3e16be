#include "core/limits.h"

#include <cstdlib>

namespace onyx {

int64_t EnvLimit(const char* name, int64_t fallback) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return fallback;
  char* end = nullptr;
  const long long v = std::strtoll(env, &end, 10);
  return end != nullptr && *end == '\0' && v > 0 ? static_cast<int64_t>(v) : fallback;
}

int64_t MaxProtobufDepth() { return EnvLimit("ONYX_MAX_PROTOBUF_DEPTH", 100); }

int64_t MaxGraphNodes() { return EnvLimit("ONYX_MAX_GRAPH_NODES", 10'000'000); }

}  // namespace onyx
