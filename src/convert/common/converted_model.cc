#include "convert/common/converted_model.h"

#include "onyx_version.h"
#include "version/opset_converter.h"

namespace onyx::convert {

ir::Model NewConvertedModel(std::string graph_name) {
  ir::Model model;
  model.ir_version = 8;
  model.producer_name = "onyx";
  model.producer_version = ONYX_VERSION_STRING;
  model.opset_import.push_back({"", 17});
  model.graph.name = std::move(graph_name);
  return model;
}

Status MissingOperators(const std::string& path, const std::string& framework, const std::set<std::string>& missing) {
  if (missing.empty()) return Status::Ok();
  std::string list;
  for (const auto& op : missing) list += (list.empty() ? "" : ", ") + op;
  return Unsupported(path + ": no converter for " + framework + " operator(s) " + list);
}

Result<TransposeStats> FinishConvertedModel(ir::Model& model, int64_t opset) {
  const TransposeStats stats = OptimizeTransposes(model.graph);
  if (opset != 17) {
    ONYX_ASSIGN_OR_RETURN(model, version::ConvertOpset(model, opset));
  }
  return stats;
}

}  // namespace onyx::convert
