#include "optimizer/inferred_types.h"

#include <vector>

namespace onyx::optimizer {

std::optional<infer::GraphTypes> InferOnCopy(const ir::Graph& graph, const PassContext& ctx) {
  ir::Graph copy = graph;  // tensors share their storage: no weights are copied
  infer::InferOptions options;
  options.strict = false;
  std::vector<ir::OpsetId> imports = ctx.model.opset_import;
  for (const char* domain : {"com.microsoft", ir::kInternalDomain}) {
    if (!ctx.model.OpsetVersion(domain)) imports.push_back({domain, 1});
  }
  auto inferred = infer::InferGraphShapes(copy, imports, ctx.model.functions, options);
  if (!inferred.ok()) return std::nullopt;
  return std::move(inferred).value();
}

const ir::TypeInfo* FindType(const infer::GraphTypes& types, const std::string& name) {
  auto it = types.values.find(name);
  return it == types.values.end() ? nullptr : &it->second;
}

}  // namespace onyx::optimizer
