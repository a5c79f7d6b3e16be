#include "optimizer/optimizer.h"

#include <chrono>
#include <unordered_set>

#include "ir/gradient.h"
#include "optimizer/pass_list.h"

namespace onyx::optimizer {
namespace {

struct PassEntry {
  const char* name;
  OptLevel level;
  PassFn run;
};

const std::vector<PassEntry>& Passes() {
  static const std::vector<PassEntry> passes = {
#define ONYX_PASS_ENTRY(name, level) {#name, OptLevel::level, &Run##name},
      ONYX_OPTIMIZER_PASSES(ONYX_PASS_ENTRY)
#undef ONYX_PASS_ENTRY
  };
  return passes;
}

int64_t CountNodes(const ir::Graph& g) {
  int64_t n = static_cast<int64_t>(g.nodes.size());
  for (const auto& node : g.nodes) {
    for (const auto& a : node.attributes) {
      if (a.g) n += CountNodes(*a.g);
      for (const auto& sg : a.graphs) n += CountNodes(*sg);
    }
  }
  return n;
}

// One round over a graph: its subgraphs first (what they stop reading may let the outer graph shrink), then every
// pass of the level. Returns the number of rewrites.
Result<int64_t> OptimizeGraphOnce(ir::Graph& graph, const ir::Model& model, const OptimizerOptions& options,
                                  bool is_main, OptimizerStats* stats) {
  int64_t total = 0;
  for (auto& node : graph.nodes) {
    for (auto& a : node.attributes) {
      if (a.g) {
        ONYX_ASSIGN_OR_RETURN(int64_t n, OptimizeGraphOnce(*a.g, model, options, false, stats));
        total += n;
      }
      for (auto& sg : a.graphs) {
        ONYX_ASSIGN_OR_RETURN(int64_t n, OptimizeGraphOnce(*sg, model, options, false, stats));
        total += n;
      }
    }
  }
  PassContext ctx{model, options, is_main};
  for (const auto& pass : Passes()) {
    if (static_cast<int>(pass.level) > static_cast<int>(options.level)) continue;
    const auto pass_start = std::chrono::steady_clock::now();
    auto n = pass.run(graph, ctx);
    if (!n.ok()) return n.status().WithContext(std::string("optimizer pass ") + pass.name);
    if (stats != nullptr) {
      stats->ms_by_pass[pass.name] +=
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - pass_start).count();
    }
    if (*n > 0 && stats != nullptr) stats->rewrites_by_pass[pass.name] += *n;
    total += *n;
  }
  return total;
}

// Drops value_info entries of values the rewrites removed (a saved model should not describe values it lacks).
void PruneValueInfo(ir::Graph& graph) {
  std::unordered_set<std::string> names;
  for (const auto& n : graph.nodes) {
    names.insert(n.outputs.begin(), n.outputs.end());
  }
  for (const auto& in : graph.inputs) names.insert(in.name);
  for (const auto& t : graph.initializers) names.insert(t.name);
  std::erase_if(graph.value_info, [&](const ir::ValueInfo& vi) { return !names.count(vi.name); });
  for (auto& n : graph.nodes) {
    for (auto& a : n.attributes) {
      if (a.g) PruneValueInfo(*a.g);
      for (auto& sg : a.graphs) PruneValueInfo(*sg);
    }
  }
}

bool UsesDomain(const ir::Graph& graph, std::string_view domain) {
  for (const auto& n : graph.nodes) {
    if (n.domain == domain) return true;
    for (const auto& a : n.attributes) {
      if (a.g && UsesDomain(*a.g, domain)) return true;
      for (const auto& sg : a.graphs) {
        if (UsesDomain(*sg, domain)) return true;
      }
    }
  }
  return false;
}

}  // namespace

Result<OptLevel> ParseOptLevel(std::string_view text) {
  if (text == "disabled" || text == "disable" || text == "none" || text == "off") return OptLevel::kDisabled;
  if (text == "basic") return OptLevel::kBasic;
  if (text == "extended") return OptLevel::kExtended;
  if (text == "all") return OptLevel::kAll;
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos && text.size() < 6) {
    return OptLevelFromInt(std::stoi(std::string(text)));
  }
  return InvalidArgument("unknown optimization level '" + std::string(text) +
                         "' (expected disabled, basic, extended or all)");
}

Result<OptLevel> OptLevelFromInt(int64_t value) {
  if (value < 0) return InvalidArgument("optimization level " + std::to_string(value) + " is negative");
  if (value == 0) return OptLevel::kDisabled;
  if (value == 1) return OptLevel::kBasic;
  if (value == 2) return OptLevel::kExtended;
  return OptLevel::kAll;
}

std::string_view OptLevelName(OptLevel level) {
  switch (level) {
    case OptLevel::kDisabled:
      return "disabled";
    case OptLevel::kBasic:
      return "basic";
    case OptLevel::kExtended:
      return "extended";
    case OptLevel::kAll:
      return "all";
  }
  return "?";
}

Status OptimizeModel(ir::Model& model, const OptimizerOptions& options, OptimizerStats* stats) {
  if (stats != nullptr) stats->nodes_before = stats->nodes_after = CountNodes(model.graph);
  if (options.level == OptLevel::kDisabled) return Status::Ok();
  const auto start = std::chrono::steady_clock::now();
  // A graph that cannot be ordered (a cycle, an undefined input) is left alone: compiling it reports the problem
  // in the runtime's words.
  if (!ir::TopologicalSort(model.graph).ok()) return Status::Ok();
  // Rounds until nothing changes: one rewrite often enables another (folding makes a BatchNormalization's inputs
  // constant, a removed Identity joins a Conv to its Add). The cap only guards against a pass that never settles.
  constexpr int kMaxRounds = 10;
  auto rounds = [&]() -> Status {
    for (int round = 0; round < kMaxRounds; ++round) {
      ONYX_ASSIGN_OR_RETURN(int64_t n, OptimizeGraphOnce(model.graph, model, options, true, stats));
      // Fusions append their new nodes; readers must follow their producers again.
      ONYX_RETURN_IF_ERROR(ir::TopologicalSort(model.graph));
      if (n == 0) break;
    }
    return Status::Ok();
  };
  ONYX_RETURN_IF_ERROR(rounds());
  if (options.level >= OptLevel::kExtended) {
    // The convolutions whose QDQ groups did not fuse keep float weights computed by DequantizeLinear: folded now
    // (constant_folding.cc says why), then the rounds again for what constant weights enable.
    PassContext ctx{model, options, true};
    ctx.fold_weight_dequantize = true;
    ONYX_ASSIGN_OR_RETURN(int folded, RunConstantFolding(model.graph, ctx));
    if (folded > 0) {
      if (stats != nullptr) stats->rewrites_by_pass["ConstantFolding"] += folded;
      ONYX_RETURN_IF_ERROR(rounds());
    }
  }
  PruneValueInfo(model.graph);
  // Fusions may emit onyx's private operators (ai.onyx.internal) where the model's opset lacks the standard one.
  if (UsesDomain(model.graph, ir::kInternalDomain) && !model.OpsetVersion(ir::kInternalDomain)) {
    model.opset_import.push_back({ir::kInternalDomain, 1});
  }
  // ... and ONNX Runtime's (MatMulNBits for weight-only quantized MatMuls).
  if (UsesDomain(model.graph, "com.microsoft") && !model.OpsetVersion("com.microsoft")) {
    model.opset_import.push_back({"com.microsoft", 1});
  }
  if (stats != nullptr) {
    stats->nodes_after = CountNodes(model.graph);
    stats->milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  return Status::Ok();
}

}  // namespace onyx::optimizer
