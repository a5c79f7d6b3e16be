#include "schema/op_versions.h"

#include <map>
#include <string>

#include "ir/model.h"

namespace onyx {
namespace {

const std::map<std::pair<std::string_view, std::string_view>, OpVersionInfo>& Table() {
  static const auto* table = [] {
    auto* t = new std::map<std::pair<std::string_view, std::string_view>, OpVersionInfo>();
#define ONYX_OP_VERSIONS(domain, op, fn, ...) \
  t->emplace(std::make_pair(std::string_view(domain), std::string_view(op)), OpVersionInfo{domain, op, fn, {__VA_ARGS__}});
#include "schema/op_versions.inc"
#undef ONYX_OP_VERSIONS
    return t;
  }();
  return *table;
}

}  // namespace

const OpVersionInfo* FindOpVersions(std::string_view domain, std::string_view op_type) {
  const auto& t = Table();
  auto it = t.find({ir::CanonicalDomain(domain), op_type});
  return it == t.end() ? nullptr : &it->second;
}

std::optional<int> ResolveSinceVersion(std::string_view domain, std::string_view op_type, int64_t opset) {
  const OpVersionInfo* info = FindOpVersions(domain, op_type);
  if (info == nullptr) return std::nullopt;
  std::optional<int> best;
  for (int v : info->since_versions) {
    if (v <= opset) best = v;
  }
  return best;
}

}  // namespace onyx
