#include "quantize/prepare.h"

#include <map>
#include <span>
#include <unordered_set>

#include "ir/graph_edit.h"
#include "optimizer/pass_list.h"
#include "runtime/session.h"

namespace onyx::quantize {

namespace {

struct PrepPass {
  const char* name;
  optimizer::PassFn run;
};

// Only passes whose results are standard ONNX operators computing the same values up to float rounding. Not taken:
// FuseQdqGroups and FuseDynamicQuantMatMul (integer operators; none in a float model anyway), FuseGelu, FuseLayerNorm
// and FuseHardSwish (onyx-internal operators below their ONNX opset), FuseAttention (internal).
const PrepPass kPasses[] = {
    {"DeadCodeElimination", &optimizer::RunDeadCodeElimination},
    {"ConstantFolding", &optimizer::RunConstantFolding},
    {"EliminateIdentity", &optimizer::RunEliminateIdentity},
    {"EliminateCast", &optimizer::RunEliminateCast},
    {"FuseReshapeChain", &optimizer::RunFuseReshapeChain},
    {"FuseTransposePair", &optimizer::RunFuseTransposePair},
    {"CommonSubexpression", &optimizer::RunCommonSubexpression},
    {"FusePadConv", &optimizer::RunFusePadConv},
    {"FuseConvBatchNorm", &optimizer::RunFuseConvBatchNorm},
    {"FuseConvScaleBias", &optimizer::RunFuseConvScaleBias},
    {"FuseGemmScaleBias", &optimizer::RunFuseGemmScaleBias},
    {"FuseMatMulAdd", &optimizer::RunFuseMatMulAdd},
    {"DeadCodeElimination", &optimizer::RunDeadCodeElimination},
};

// Identity first: its consumers then read the shared initializer itself (folding would copy it once per Identity).
const PrepPass kConstantPasses[] = {
    {"DeadCodeElimination", &optimizer::RunDeadCodeElimination},
    {"EliminateIdentity", &optimizer::RunEliminateIdentity},
    {"ConstantFolding", &optimizer::RunConstantFolding},
    {"DeadCodeElimination", &optimizer::RunDeadCodeElimination},
};

constexpr int kMaxRounds = 8;  // each round runs every pass; a fold can expose another (Pad -> Conv -> BN)

Status RunPasses(ir::Model& model, int threads, std::span<const PrepPass> passes, QuantizeReport* report) {
  optimizer::OptimizerOptions options;
  options.level = optimizer::OptLevel::kExtended;
  options.num_threads = threads > 0 ? threads : 1;
  options.run_constant_model = ConstantModelRunner(options.num_threads);
  const optimizer::PassContext ctx{model, options, true};
  std::map<std::string, int64_t> rewrites;
  for (int round = 0; round < kMaxRounds; ++round) {
    int64_t total = 0;
    for (const PrepPass& pass : passes) {
      auto n = pass.run(model.graph, ctx);
      if (!n.ok()) return n.status().WithContext(std::string("preparing the model for quantization: ") + pass.name);
      rewrites[pass.name] += *n;
      total += *n;
    }
    if (total == 0) break;
  }
  ONYX_RETURN_IF_ERROR(ir::TopologicalSort(model.graph));
  for (const ir::Node& n : model.graph.nodes) {
    if (!n.domain.empty() && n.domain != "ai.onnx" && n.domain != "ai.onnx.ml") {
      // The input model's own custom operators are fine; none of the passes above makes one, so this names a bug.
      if (n.domain == ir::kInternalDomain) {
        return Internal("preparing the model for quantization left " + n.Describe() + " in " + n.domain);
      }
    }
  }
  // Value infos of values the rewrites removed would describe names the saved model lacks.
  std::unordered_set<std::string> names;
  for (const auto& n : model.graph.nodes) names.insert(n.outputs.begin(), n.outputs.end());
  for (const auto& in : model.graph.inputs) names.insert(in.name);
  for (const auto& t : model.graph.initializers) names.insert(t.name);
  std::erase_if(model.graph.value_info, [&](const ir::ValueInfo& v) { return names.count(v.name) == 0; });
  for (const auto& [name, count] : rewrites) {
    if (count > 0 && name != "DeadCodeElimination") {
      report->notes.push_back("before quantizing: " + name + " made " + std::to_string(count) + " rewrite(s)");
    }
  }
  return Status::Ok();
}

}  // namespace

Status PrepareForQuantization(ir::Model& model, int threads, QuantizeReport* report) {
  return RunPasses(model, threads, kPasses, report);
}

Status PrepareConstants(ir::Model& model, int threads, QuantizeReport* report) {
  return RunPasses(model, threads, kConstantPasses, report);
}

}  // namespace onyx::quantize
