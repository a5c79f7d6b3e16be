#include "runtime/kernel.h"

#include <optional>

#include "runtime/session.h"

namespace onyx {

int64_t KernelInfo::GetInt(std::string_view name, int64_t default_value) const {
  const auto* a = node_.FindAttribute(name);
  return a != nullptr && a->type == ir::AttrType::kInt ? a->i : default_value;
}

float KernelInfo::GetFloat(std::string_view name, float default_value) const {
  const auto* a = node_.FindAttribute(name);
  if (a == nullptr) return default_value;
  if (a->type == ir::AttrType::kFloat) return a->f;
  if (a->type == ir::AttrType::kInt) return static_cast<float>(a->i);
  return default_value;
}

std::string KernelInfo::GetString(std::string_view name, const std::string& default_value) const {
  const auto* a = node_.FindAttribute(name);
  return a != nullptr && a->type == ir::AttrType::kString ? a->s : default_value;
}

std::vector<int64_t> KernelInfo::GetInts(std::string_view name, const std::vector<int64_t>& default_value) const {
  const auto* a = node_.FindAttribute(name);
  return a != nullptr && a->type == ir::AttrType::kInts ? a->ints : default_value;
}

std::vector<float> KernelInfo::GetFloats(std::string_view name, const std::vector<float>& default_value) const {
  const auto* a = node_.FindAttribute(name);
  return a != nullptr && a->type == ir::AttrType::kFloats ? a->floats : default_value;
}

std::vector<std::string> KernelInfo::GetStrings(std::string_view name,
                                                const std::vector<std::string>& default_value) const {
  const auto* a = node_.FindAttribute(name);
  return a != nullptr && a->type == ir::AttrType::kStrings ? a->strings : default_value;
}

const Tensor* KernelInfo::GetTensor(std::string_view name) const {
  const auto* a = node_.FindAttribute(name);
  return a != nullptr && a->type == ir::AttrType::kTensor ? &a->t.tensor : nullptr;
}

const ir::Graph* KernelInfo::GetGraph(std::string_view name) const {
  const auto* a = node_.FindAttribute(name);
  return a != nullptr && a->type == ir::AttrType::kGraph ? a->g.get() : nullptr;
}

Result<int64_t> KernelInfo::GetRequiredInt(std::string_view name) const {
  const auto* a = node_.FindAttribute(name);
  if (a == nullptr || a->type != ir::AttrType::kInt) {
    return Error("required int attribute '" + std::string(name) + "' is missing");
  }
  return a->i;
}

Result<std::string> KernelInfo::GetRequiredString(std::string_view name) const {
  const auto* a = node_.FindAttribute(name);
  if (a == nullptr || a->type != ir::AttrType::kString) {
    return Error("required string attribute '" + std::string(name) + "' is missing");
  }
  return a->s;
}

Result<std::shared_ptr<const GraphPlan>> KernelInfo::CompileSubgraph(std::string_view name) const {
  const ir::Graph* g = GetGraph(name);
  if (g == nullptr) return Error("required graph attribute '" + std::string(name) + "' is missing");
  auto plan = compile_subgraph_(*g);
  if (!plan.ok()) return plan.status().WithContext("in subgraph '" + std::string(name) + "' of " + node_.Describe());
  return plan;
}

Status KernelInfo::Error(const std::string& message) const {
  std::string d = node_.Describe();
  d.pop_back();
  return InvalidArgument(d + ", opset " + std::to_string(opset_) + "): " + message);
}

Status KernelInfo::UnsupportedError(const std::string& message) const {
  std::string d = node_.Describe();
  d.pop_back();
  return Unsupported(d + ", opset " + std::to_string(opset_) + "): " + message);
}

Result<const Tensor*> KernelContext::TensorInput(size_t i) const {
  if (!has_input(i)) return InvalidArgument("input " + std::to_string(i) + " is missing");
  if (!inputs_[i]->is_tensor()) {
    return InvalidArgument("input " + std::to_string(i) + " must be a tensor, got a " + inputs_[i]->KindName());
  }
  return &inputs_[i]->tensor();
}

Tensor& KernelContext::AllocateOutput(size_t i, DataType type, const Shape& shape) {
  if (frame_ != nullptr) return AllocateOutput(i, type, frame_->pool().CopyShape(shape));
  return AllocateOutput(i, type, Shape(shape));
}

Tensor& KernelContext::AllocateOutput(size_t i, DataType type, Shape&& shape) {
  if (frame_ != nullptr) {
    (*outputs_)[i] = Value(frame_->AllocateOutput(step_, i, type, std::move(shape)));
    return (*outputs_)[i].tensor();
  }
  (*outputs_)[i] = Value(Tensor::Allocate(type, std::move(shape)));
  return (*outputs_)[i].tensor();
}

const Tensor* KernelContext::ReusableInput(size_t in) const {
  if (frame_ == nullptr || step_ < 0 || !has_input(in) || !inputs_[in]->is_tensor()) return nullptr;
  if (!frame_->IsLastRead(step_, in) || !inputs_[in]->tensor().owns_storage_alone()) return nullptr;
  return &inputs_[in]->tensor();
}

Tensor* KernelContext::ReuseInputAsOutput(size_t in, size_t out) {
  const Tensor* t = ReusableInput(in);
  if (t == nullptr) return nullptr;
  SetOutputView(out, *t, t->shape());
  return &(*outputs_)[out].tensor();
}

Tensor* KernelContext::GrowInputAsOutput(size_t in, size_t out, const Shape& shape) {
  const Tensor* t = ReusableInput(in);
  if (t == nullptr) return nullptr;
  const size_t bytes = DataTypeStorageBytes(t->type(), static_cast<size_t>(NumElements(shape)));
  if (bytes > t->writable_bytes()) return nullptr;
  SetOutputView(out, *t, shape);
  return &(*outputs_)[out].tensor();
}

Tensor& KernelContext::AllocateOutputWithRoom(size_t i, DataType type, const Shape& shape, size_t room_bytes) {
  if (frame_ == nullptr) return AllocateOutput(i, type, shape);
  (*outputs_)[i] = Value(frame_->AllocateOutput(step_, i, type, frame_->pool().CopyShape(shape), room_bytes));
  return (*outputs_)[i].tensor();
}

bool KernelContext::IsSubgraphInput(size_t in) const {
  if (frame_ == nullptr || step_ < 0 || !frame_->is_subgraph()) return false;
  const GraphPlan& plan = frame_->plan();
  const auto& inputs = plan.steps[static_cast<size_t>(step_)].inputs;
  if (in >= inputs.size() || inputs[in] < 0) return false;
  return plan.is_input_slot[static_cast<size_t>(inputs[in])] != 0;
}

void KernelContext::SetOutputView(size_t i, const Tensor& in, const Shape& shape) {
  (*outputs_)[i] = Value(in.View(in.type(), CopyShape(shape), 0));
}

kernels::DeferredTuning* KernelContext::deferred_tuning() const {
  return frame_ != nullptr ? frame_->deferred_tuning : nullptr;
}

Shape KernelContext::CopyShape(const Shape& shape) const {
  return frame_ != nullptr ? frame_->pool().CopyShape(shape) : Shape(shape);
}

Status KernelContext::RunSubgraph(const GraphPlan& plan, std::vector<Value> inputs, std::vector<Value>* outputs) const {
  ExecutionFrame frame(plan, frame_);
  frame.num_threads = num_threads_;
  // Subgraph nodes are profiled too; the control-flow node's own entry then includes their time.
  if (frame_ != nullptr) {
    frame.profile = frame_->profile;
    frame.profile_per_node = frame_->profile_per_node;
    frame.deferred_tuning = frame_->deferred_tuning;
  }
  auto& slots = frame.slots();
  for (const auto& [slot, value] : plan.constants) slots[static_cast<size_t>(slot)] = value;
  if (inputs.size() > plan.input_slots.size()) {
    return InvalidArgument("subgraph takes " + std::to_string(plan.input_slots.size()) + " inputs, got " +
                           std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) slots[static_cast<size_t>(plan.input_slots[i])] = std::move(inputs[i]);
  for (const auto& [name, slot] : plan.outer_refs) {
    const Value* v = frame_ != nullptr ? frame_->Lookup(name) : nullptr;
    if (v == nullptr)
      return InvalidArgument("subgraph reads '" + name + "', which has no value in any enclosing scope");
    slots[static_cast<size_t>(slot)] = *v;
  }
  return ExecutePlan(plan, frame, outputs);
}

}  // namespace onyx
