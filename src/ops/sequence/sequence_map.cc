// SequenceMap: runs a body once per item of the first input sequence. Further inputs are either sequences of
// the same length (the body sees their i-th item) or anything else, which the body sees whole every time.
// Each body output is collected into one output sequence.
#include <memory>

#include "ops/control_flow/control_flow.h"
#include "ops/sequence/sequence.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::sequence {
namespace {

class SequenceMapKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(body_, info.CompileSubgraph("body"));
    body_graph_ = info.GetGraph("body");
    if (body_graph_->inputs.size() != info.num_inputs()) {
      return info.Error("'body' takes " + std::to_string(body_graph_->inputs.size()) + " inputs but the node has " +
                        std::to_string(info.num_inputs()));
    }
    if (body_graph_->outputs.size() != info.num_outputs()) {
      return info.Error("'body' returns " + std::to_string(body_graph_->outputs.size()) +
                        " outputs but the node has " + std::to_string(info.num_outputs()));
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const SequenceValue* first, SequenceInput(ctx, 0, "'input_sequence' (0)"));
    const size_t n = first->items.size();
    for (size_t j = 1; j < ctx.num_inputs(); ++j) {
      if (!ctx.has_input(j)) return InvalidArgument("input " + std::to_string(j) + " is missing");
      const Value& v = ctx.input_value(j);
      if (v.is_sequence() && v.sequence().items.size() != n) {
        return InvalidArgument("input " + std::to_string(j) + " is a sequence of " +
                               std::to_string(v.sequence().items.size()) + " items, input 'input_sequence' (0) has " +
                               std::to_string(n));
      }
    }
    std::vector<SequenceValue> outs(ctx.num_outputs());
    for (size_t k = 0; k < outs.size(); ++k) {
      outs[k].elem_type = control_flow::DeclaredSequenceElemType(&body_graph_->outputs[k]);
      if (outs[k].elem_type == DataType::kUndefined) {
        // A body output declared as a tensor gives the element type directly.
        const auto& decl = body_graph_->outputs[k].type;
        if (decl && decl->is_tensor()) outs[k].elem_type = decl->elem_type;
      }
      outs[k].items.reserve(n);
    }
    std::vector<Value> results;
    for (size_t i = 0; i < n; ++i) {
      std::vector<Value> ins;
      ins.reserve(ctx.num_inputs());
      ins.push_back(first->items[i]);
      for (size_t j = 1; j < ctx.num_inputs(); ++j) {
        const Value& v = ctx.input_value(j);
        ins.push_back(v.is_sequence() ? v.sequence().items[i] : v);
      }
      Status st = ctx.RunSubgraph(*body_, std::move(ins), &results);
      if (!st.ok()) return st.WithContext("in 'body', item " + std::to_string(i));
      for (size_t k = 0; k < outs.size(); ++k) {
        if (results[k].is_tensor()) {
          if (i == 0) outs[k].elem_type = results[k].tensor().type();
          ONYX_RETURN_IF_ERROR(
              CheckElementType(outs[k].elem_type, results[k].tensor(),
                               "'body' output " + std::to_string(k) + " for item " + std::to_string(i)));
        }
        outs[k].items.push_back(std::move(results[k]));
      }
    }
    for (size_t k = 0; k < outs.size(); ++k) ctx.SetOutput(k, std::move(outs[k]));
    return Status::Ok();
  }

 private:
  std::shared_ptr<const GraphPlan> body_;
  const ir::Graph* body_graph_ = nullptr;
};

}  // namespace

void RegisterSequenceMapOps(KernelRegistry& registry) {
  registry.Add("", "SequenceMap", 17, kLatestVersion, MakeFactory<SequenceMapKernel>());
}

}  // namespace onyx::ops::sequence
