// Loop: runs its body while the trip count and the condition allow, threading N loop-carried values (tensors,
// sequences or optionals) through the iterations and stacking K per-iteration scan outputs along a new axis 0.
#include <limits>
#include <memory>

#include "ops/control_flow/control_flow.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::control_flow {
namespace {

class LoopKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(body_, info.CompileSubgraph("body"));
    body_graph_ = info.GetGraph("body");
    if (info.num_inputs() < 2) return info.Error("Loop takes inputs 'M' and 'cond' (either may be empty names)");
    num_carried_ = info.num_inputs() - 2;
    const size_t body_inputs = body_graph_->inputs.size();
    const size_t body_outputs = body_graph_->outputs.size();
    if (body_inputs != 2 + num_carried_) {
      return info.Error("'body' takes " + std::to_string(body_inputs) + " inputs, expected 2 + " +
                        std::to_string(num_carried_) + " (iteration number, condition, loop-carried values)");
    }
    if (body_outputs < 1 + num_carried_) {
      return info.Error("'body' returns " + std::to_string(body_outputs) + " outputs, expected at least 1 + " +
                        std::to_string(num_carried_) + " (condition, loop-carried values)");
    }
    num_scan_ = body_outputs - 1 - num_carried_;
    if (info.num_outputs() > num_carried_ + num_scan_) {
      return info.Error("the node has " + std::to_string(info.num_outputs()) + " outputs but 'body' yields only " +
                        std::to_string(num_carried_) + " loop-carried values and " + std::to_string(num_scan_) +
                        " scan outputs");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    // Without M the loop is bounded only by the condition; following onnxruntime (and the reference
    // implementation), the condition the body returns is honored even when the 'cond' input is omitted.
    int64_t max_trips = std::numeric_limits<int64_t>::max();
    if (ctx.has_input(0)) {
      ONYX_ASSIGN_OR_RETURN(max_trips, ReadInt(ctx.input_value(0), "input 'M' (0)"));
    }
    bool cond = true;
    if (ctx.has_input(1)) {
      ONYX_ASSIGN_OR_RETURN(cond, ReadBool(ctx.input_value(1), "input 'cond' (1)"));
    }

    std::vector<Value> carried(num_carried_);
    for (size_t i = 0; i < num_carried_; ++i) {
      carried[i] = ctx.has_input(2 + i) ? ctx.input_value(2 + i) : Value::None();
    }
    std::vector<std::vector<Tensor>> scans(num_scan_);
    std::vector<Value> outs;
    int64_t it = 0;
    for (; it < max_trips && cond; ++it) {
      std::vector<Value> ins;
      ins.reserve(2 + num_carried_);
      ins.emplace_back(Tensor::Scalar<int64_t>(it));
      ins.emplace_back(Tensor::Scalar<bool>(cond));
      for (auto& v : carried) ins.push_back(std::move(v));
      Status st = ctx.RunSubgraph(*body_, std::move(ins), &outs);
      if (!st.ok()) return st.WithContext("in 'body', iteration " + std::to_string(it));
      ONYX_ASSIGN_OR_RETURN(cond, ReadBool(outs[0], "'body' output 'cond' (iteration " + std::to_string(it) + ")"));
      for (size_t i = 0; i < num_carried_; ++i) carried[i] = std::move(outs[1 + i]);
      for (size_t k = 0; k < num_scan_; ++k) {
        Value& v = outs[1 + num_carried_ + k];
        if (!v.is_tensor()) {
          return InvalidArgument("scan output " + std::to_string(k) + " of 'body' must be a tensor, got a " +
                                 v.KindName() + " (iteration " + std::to_string(it) + ")");
        }
        scans[k].push_back(std::move(v.tensor()));
      }
    }

    for (size_t i = 0; i < num_carried_ && i < ctx.num_outputs(); ++i) ctx.SetOutput(i, std::move(carried[i]));
    for (size_t k = 0; k < num_scan_ && num_carried_ + k < ctx.num_outputs(); ++k) {
      const std::string what = "scan output " + std::to_string(k);
      Tensor out;
      if (scans[k].empty()) {
        ONYX_ASSIGN_OR_RETURN(out, EmptyStacked(&body_graph_->outputs[1 + num_carried_ + k], 0));
      } else {
        ONYX_ASSIGN_OR_RETURN(out, Stack(scans[k], 0, what));
      }
      ctx.SetOutput(num_carried_ + k, std::move(out));
    }
    return Status::Ok();
  }

 private:
  std::shared_ptr<const GraphPlan> body_;
  const ir::Graph* body_graph_ = nullptr;
  size_t num_carried_ = 0;
  size_t num_scan_ = 0;
};

}  // namespace

void RegisterLoopOps(KernelRegistry& registry) {
  registry.Add("", "Loop", 1, kLatestVersion, MakeFactory<LoopKernel>());
}

}  // namespace onyx::ops::control_flow
