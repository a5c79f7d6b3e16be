// Scan: iterates a body over slices of M scan inputs, threading N state values and stacking K per-iteration scan
// outputs. Version 8 has a batch axis 0 (every input and output), scans axis 1 and takes optional per-batch
// sequence lengths; version 9 on has no batch axis and takes per-input and per-output axes and directions.
#include <algorithm>
#include <memory>

#include "ops/common/op_util.h"
#include "ops/control_flow/control_flow.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::control_flow {
namespace {

// Reads an attribute of one int per scan input / output: absent means all `fill`; otherwise it needs `count`
// entries.
Status ReadPerItem(const KernelInfo& info, const char* name, size_t count, int64_t fill, bool is_direction,
                   std::vector<int64_t>* out) {
  if (!info.HasAttribute(name)) {
    out->assign(count, fill);
    return Status::Ok();
  }
  *out = info.GetInts(name);
  if (out->size() != count) {
    return info.Error("attribute '" + std::string(name) + "' has " + std::to_string(out->size()) +
                      " entries, expected " + std::to_string(count));
  }
  if (is_direction) {
    for (int64_t d : *out) {
      if (d != 0 && d != 1) {
        return info.Error("attribute '" + std::string(name) + "' holds " + std::to_string(d) +
                          "; directions are 0 (forward) or 1 (reverse)");
      }
    }
  }
  return Status::Ok();
}

class ScanKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    v8_ = info.since_version() < 9;
    ONYX_ASSIGN_OR_RETURN(body_, info.CompileSubgraph("body"));
    body_graph_ = info.GetGraph("body");
    ONYX_ASSIGN_OR_RETURN(int64_t m, info.GetRequiredInt("num_scan_inputs"));
    const size_t first = v8_ ? 1 : 0;  // version 8 takes sequence_lens first
    if (m < 1 || static_cast<size_t>(m) + first > info.num_inputs()) {
      return info.Error("attribute 'num_scan_inputs' is " + std::to_string(m) + " but the node has " +
                        std::to_string(info.num_inputs() - std::min(first, info.num_inputs())) +
                        " state and scan inputs");
    }
    num_scan_in_ = static_cast<size_t>(m);
    num_state_ = info.num_inputs() - first - num_scan_in_;
    if (info.num_outputs() < num_state_) {
      return info.Error("the node has " + std::to_string(info.num_outputs()) + " outputs, fewer than its " +
                        std::to_string(num_state_) + " state variables");
    }
    num_scan_out_ = info.num_outputs() - num_state_;
    if (body_graph_->inputs.size() != num_state_ + num_scan_in_) {
      return info.Error("'body' takes " + std::to_string(body_graph_->inputs.size()) + " inputs, expected " +
                        std::to_string(num_state_) + " states + " + std::to_string(num_scan_in_) + " scan inputs");
    }
    if (body_graph_->outputs.size() != num_state_ + num_scan_out_) {
      return info.Error("'body' returns " + std::to_string(body_graph_->outputs.size()) + " outputs, expected " +
                        std::to_string(num_state_ + num_scan_out_) + " (as many as the node has)");
    }
    for (size_t i = 0; i < num_state_ + first; ++i) {
      if (i >= first && !info.has_input(i)) return info.Error("state input " + std::to_string(i) + " is missing");
    }
    if (v8_) {
      return ReadPerItem(info, "directions", num_scan_in_, 0, true, &in_dirs_);
    }
    ONYX_RETURN_IF_ERROR(ReadPerItem(info, "scan_input_axes", num_scan_in_, 0, false, &in_axes_));
    ONYX_RETURN_IF_ERROR(ReadPerItem(info, "scan_input_directions", num_scan_in_, 0, true, &in_dirs_));
    ONYX_RETURN_IF_ERROR(ReadPerItem(info, "scan_output_axes", num_scan_out_, 0, false, &out_axes_));
    ONYX_RETURN_IF_ERROR(ReadPerItem(info, "scan_output_directions", num_scan_out_, 0, true, &out_dirs_));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override { return v8_ ? ComputeV8(ctx) : ComputeV9(ctx); }

 private:
  // One scan over `length` steps: `slice(j, t)` gives scan input j's element at step t (directions applied by
  // the caller). Leaves the final states in `states` and each scan output's elements, in step order, in `scans`.
  template <typename SliceFn>
  Status RunSteps(KernelContext& ctx, int64_t length, SliceFn&& slice, std::vector<Value>& states,
                  std::vector<std::vector<Tensor>>& scans) const {
    scans.assign(num_scan_out_, {});
    std::vector<Value> outs;
    for (int64_t t = 0; t < length; ++t) {
      std::vector<Value> ins;
      ins.reserve(num_state_ + num_scan_in_);
      for (auto& s : states) ins.push_back(std::move(s));
      for (size_t j = 0; j < num_scan_in_; ++j) ins.emplace_back(slice(j, t));
      Status st = ctx.RunSubgraph(*body_, std::move(ins), &outs);
      if (!st.ok()) return st.WithContext("in 'body', iteration " + std::to_string(t));
      for (size_t i = 0; i < num_state_; ++i) states[i] = std::move(outs[i]);
      for (size_t k = 0; k < num_scan_out_; ++k) {
        Value& v = outs[num_state_ + k];
        if (!v.is_tensor()) {
          return InvalidArgument("scan output " + std::to_string(k) + " of 'body' must be a tensor, got a " +
                                 v.KindName() + " (iteration " + std::to_string(t) + ")");
        }
        scans[k].push_back(std::move(v.tensor()));
      }
    }
    return Status::Ok();
  }

  Status ComputeV9(KernelContext& ctx) const {
    std::vector<Value> states(num_state_);
    for (size_t i = 0; i < num_state_; ++i) states[i] = ctx.input_value(i);
    std::vector<const Tensor*> xs(num_scan_in_);
    std::vector<int64_t> axes(num_scan_in_);
    int64_t length = -1;
    for (size_t j = 0; j < num_scan_in_; ++j) {
      const size_t idx = num_state_ + j;
      ONYX_ASSIGN_OR_RETURN(xs[j], ctx.TensorInput(idx));
      if (xs[j]->rank() == 0) return InvalidArgument("scan input " + std::to_string(idx) + " is a scalar");
      auto axis = NormalizeAxis(in_axes_[j], xs[j]->rank());
      if (!axis.ok()) return axis.status().WithContext("'scan_input_axes' of scan input " + std::to_string(idx));
      axes[j] = *axis;
      const int64_t len = xs[j]->dim(axes[j]);
      if (length >= 0 && len != length) {
        return InvalidArgument("scan input " + std::to_string(idx) + " has " + std::to_string(len) +
                               " steps along axis " + std::to_string(axes[j]) + ", the first scan input has " +
                               std::to_string(length));
      }
      length = len;
    }
    std::vector<std::vector<Tensor>> scans;
    auto slice = [&](size_t j, int64_t t) { return SliceAt(*xs[j], axes[j], in_dirs_[j] ? length - 1 - t : t); };
    ONYX_RETURN_IF_ERROR(RunSteps(ctx, length, slice, states, scans));

    for (size_t i = 0; i < num_state_; ++i) ctx.SetOutput(i, std::move(states[i]));
    for (size_t k = 0; k < num_scan_out_; ++k) {
      const std::string what = "scan output " + std::to_string(k);
      Tensor out;
      if (scans[k].empty()) {
        auto empty = EmptyStacked(&body_graph_->outputs[num_state_ + k], out_axes_[k]);
        if (!empty.ok()) return empty.status().WithContext("'scan_output_axes' of " + what);
        out = std::move(empty).value();
      } else {
        auto axis = NormalizeAxis(out_axes_[k], scans[k][0].rank() + 1);
        if (!axis.ok()) return axis.status().WithContext("'scan_output_axes' of " + what);
        std::vector<int64_t> order;
        if (out_dirs_[k]) {
          for (int64_t t = 0; t < length; ++t) order.push_back(length - 1 - t);
        }
        ONYX_ASSIGN_OR_RETURN(out, Stack(scans[k], *axis, what, order));
      }
      ctx.SetOutput(num_state_ + k, std::move(out));
    }
    return Status::Ok();
  }

  Status ComputeV8(KernelContext& ctx) const {
    std::vector<const Tensor*> ins(num_state_ + num_scan_in_);
    for (size_t i = 0; i < ins.size(); ++i) {
      ONYX_ASSIGN_OR_RETURN(ins[i], ctx.TensorInput(1 + i));
      if (ins[i]->rank() == 0) {
        return InvalidArgument("input " + std::to_string(1 + i) + " is a scalar; Scan-8 inputs have a batch axis 0");
      }
    }
    const int64_t batch = ins[0]->dim(0);
    const Tensor& x0 = *ins[num_state_];
    if (x0.rank() < 2) {
      return InvalidArgument("scan input " + std::to_string(1 + num_state_) + " has shape " +
                             ShapeToString(x0.shape()) + "; Scan-8 scan inputs have a batch axis and a sequence axis");
    }
    const int64_t max_len = x0.dim(1);
    for (size_t i = 0; i < ins.size(); ++i) {
      const bool is_scan = i >= num_state_;
      if (ins[i]->dim(0) != batch || (is_scan && (ins[i]->rank() < 2 || ins[i]->dim(1) != max_len))) {
        return InvalidArgument("input " + std::to_string(1 + i) + " has shape " + ShapeToString(ins[i]->shape()) +
                               ", expected batch size " + std::to_string(batch) +
                               (is_scan ? " and sequence length " + std::to_string(max_len) : std::string()));
      }
    }
    std::vector<int64_t> lens(static_cast<size_t>(batch), max_len);
    if (ctx.has_input(0)) {
      ONYX_ASSIGN_OR_RETURN(const Tensor* sl, ctx.TensorInput(0));
      if (!IsInteger(sl->type()) || sl->size() != batch) {
        return InvalidArgument("input 'sequence_lens' (0) must hold " + std::to_string(batch) +
                               " integers (one per batch entry), got " + TensorTypeString(sl->type()) + " " +
                               ShapeToString(sl->shape()));
      }
      for (int64_t b = 0; b < batch; ++b) {
        lens[static_cast<size_t>(b)] = sl->IntAt(b);
        if (lens[static_cast<size_t>(b)] < 0 || lens[static_cast<size_t>(b)] > max_len) {
          return InvalidArgument("input 'sequence_lens' (0) entry " + std::to_string(b) + " is " +
                                 std::to_string(lens[static_cast<size_t>(b)]) + ", outside [0, " +
                                 std::to_string(max_len) + "]");
        }
      }
    }

    std::vector<std::vector<Tensor>> final_states(num_state_);  // per state, per batch entry
    std::vector<std::vector<std::vector<Tensor>>> batch_scans;  // per batch entry, per scan output, per step
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<Value> states(num_state_);
      for (size_t i = 0; i < num_state_; ++i) states[i] = SliceAt(*ins[i], 0, b);
      std::vector<Tensor> xs(num_scan_in_);
      for (size_t j = 0; j < num_scan_in_; ++j) xs[j] = SliceAt(*ins[num_state_ + j], 0, b);
      const int64_t len = lens[static_cast<size_t>(b)];
      auto slice = [&](size_t j, int64_t t) { return SliceAt(xs[j], 0, in_dirs_[j] ? len - 1 - t : t); };
      std::vector<std::vector<Tensor>> scans;
      Status st = RunSteps(ctx, len, slice, states, scans);
      if (!st.ok()) return st.WithContext("batch entry " + std::to_string(b));
      for (size_t i = 0; i < num_state_; ++i) {
        if (!states[i].is_tensor()) return InvalidArgument("state " + std::to_string(i) + " of 'body' is not a tensor");
        final_states[i].push_back(std::move(states[i].tensor()));
      }
      batch_scans.push_back(std::move(scans));
    }

    for (size_t i = 0; i < num_state_; ++i) {
      if (batch == 0) {
        ctx.SetOutput(i, ins[i]->Clone());
        continue;
      }
      ONYX_ASSIGN_OR_RETURN(Tensor out, Stack(final_states[i], 0, "final state " + std::to_string(i)));
      ctx.SetOutput(i, std::move(out));
    }
    for (size_t k = 0; k < num_scan_out_; ++k) {
      // The element shape comes from any step that ran; when none did, from the body's declaration.
      const Tensor* sample = nullptr;
      for (const auto& scans : batch_scans) {
        if (!scans[k].empty()) {
          sample = &scans[k][0];
          break;
        }
      }
      Tensor element_proto;
      if (sample == nullptr) {
        ONYX_ASSIGN_OR_RETURN(Tensor empty, EmptyStacked(&body_graph_->outputs[num_state_ + k], 0));
        Shape s = empty.shape();
        s.erase(s.begin());
        element_proto = Tensor::Allocate(empty.type(), s);
        sample = &element_proto;
      }
      Shape out_shape = sample->shape();
      out_shape.insert(out_shape.begin(), {batch, max_len});
      ONYX_ASSIGN_OR_RETURN(int64_t n, CheckedNumElements(out_shape));
      (void)n;
      // Steps past a batch entry's sequence length are padding: zeros.
      Tensor out = Tensor::Allocate(sample->type(), out_shape, /*zero=*/true);
      Shape row_shape(out_shape.begin() + 1, out_shape.end());
      for (int64_t b = 0; b < batch; ++b) {
        const auto& items = batch_scans[static_cast<size_t>(b)][k];
        Tensor row = Tensor::Allocate(sample->type(), row_shape, /*zero=*/true);
        for (size_t t = 0; t < items.size(); ++t) {
          if (items[t].type() != sample->type() || items[t].shape() != sample->shape()) {
            return InvalidArgument("scan output " + std::to_string(k) + ": batch entry " + std::to_string(b) +
                                   " step " + std::to_string(t) + " gives " + TensorTypeString(items[t].type()) +
                                   " " + ShapeToString(items[t].shape()) + ", other steps give " +
                                   TensorTypeString(sample->type()) + " " + ShapeToString(sample->shape()));
          }
          WriteAt(items[t], row, 0, static_cast<int64_t>(t));
        }
        WriteAt(row, out, 0, b);
      }
      ctx.SetOutput(num_state_ + k, std::move(out));
    }
    return Status::Ok();
  }

  bool v8_ = false;
  std::shared_ptr<const GraphPlan> body_;
  const ir::Graph* body_graph_ = nullptr;
  size_t num_state_ = 0;
  size_t num_scan_in_ = 0;
  size_t num_scan_out_ = 0;
  std::vector<int64_t> in_axes_, in_dirs_, out_axes_, out_dirs_;
};

}  // namespace

void RegisterScanOps(KernelRegistry& registry) {
  registry.Add("", "Scan", 8, 8, MakeFactory<ScanKernel>());
  registry.Add("", "Scan", 9, kLatestVersion, MakeFactory<ScanKernel>());
}

}  // namespace onyx::ops::control_flow
