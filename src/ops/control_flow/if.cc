// If: runs one of two subgraphs (neither takes inputs; both read the enclosing scope) and returns its outputs,
// which may be tensors, sequences or optionals.
#include <algorithm>
#include <memory>
#include <string>

#include "ops/control_flow/control_flow.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::control_flow {
namespace {

class IfKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(then_, info.CompileSubgraph("then_branch"));
    ONYX_ASSIGN_OR_RETURN(else_, info.CompileSubgraph("else_branch"));
    for (const std::string name : {"then_branch", "else_branch"}) {
      const ir::Graph* g = info.GetGraph(name);
      if (g->outputs.size() != info.num_outputs()) {
        return info.Error(name + " has " + std::to_string(g->outputs.size()) + " outputs but the node has " +
                          std::to_string(info.num_outputs()));
      }
      if (!g->inputs.empty()) return info.Error(name + " must take no inputs");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    if (!ctx.has_input(0)) return InvalidArgument("input 'cond' (0) is missing");
    ONYX_ASSIGN_OR_RETURN(bool cond, ReadBool(ctx.input_value(0), "input 'cond' (0)"));
    std::vector<Value> outputs;
    Status st = ctx.RunSubgraph(cond ? *then_ : *else_, {}, &outputs);
    if (!st.ok()) return st.WithContext(cond ? "in 'then_branch'" : "in 'else_branch'");
    const size_t n = std::min(outputs.size(), ctx.num_outputs());
    // Copied rather than moved (a copy shares the storage): moving the variant here trips a false
    // maybe-uninitialized warning in GCC 12 at -O3.
    for (size_t i = 0; i < n; ++i) ctx.SetOutput(i, outputs[i]);
    return Status::Ok();
  }

 private:
  std::shared_ptr<const GraphPlan> then_;
  std::shared_ptr<const GraphPlan> else_;
};

}  // namespace

void RegisterIfOps(KernelRegistry& registry) { registry.Add("", "If", 1, kLatestVersion, MakeFactory<IfKernel>()); }

}  // namespace onyx::ops::control_flow
