#include "runtime/concat_in_place.h"

namespace onyx {
namespace {

// Producers' slices start on cache-line boundaries (what Tensor::Allocate gives), so vectorized kernels and oneDNN
// see the same alignment as for a buffer of their own.
constexpr size_t kSliceAlignment = 64;

}  // namespace

void ConcatInPlace::Plan(const std::vector<ConcatStep>& concats, const std::vector<int>& producer,
                         const std::vector<int>& readers, const std::vector<bool>& kept) {
  for (const auto& c : concats) {
    if (c.input_slots.size() < 2) continue;
    bool eligible = true;
    for (int s : c.input_slots) {
      // Each input: written by an earlier step, read once (by this Concat, so never twice in it), not an output.
      const auto i = static_cast<size_t>(s);
      if (s < 0 || producer[i] < 0 || producer[i] >= c.step || readers[i] != 1 || kept[i]) eligible = false;
    }
    if (!eligible) continue;
    const int g = static_cast<int>(groups_.size());
    groups_.push_back(Group{c.step, c.node, c.input_slots});
    group_of_step_[c.step] = g;
    for (size_t k = 0; k < c.input_slots.size(); ++k) input_of_slot_[c.input_slots[k]] = {g, static_cast<int>(k)};
  }
  learned_.assign(groups_.size(), nullptr);
}

int ConcatInPlace::GroupOfStep(int step) const {
  auto it = group_of_step_.find(step);
  return it == group_of_step_.end() ? -1 : it->second;
}

ConcatInPlace::RunState ConcatInPlace::StartRun() const {
  RunState run;
  if (groups_.empty()) return run;
  std::lock_guard<std::mutex> lock(mutex_);
  run.layouts = learned_;
  run.buffers.resize(groups_.size());
  return run;
}

void ConcatInPlace::RestartRun(RunState& run) const {
  if (groups_.empty()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  run.layouts = learned_;  // same length: copies into the existing vector
  run.buffers.resize(groups_.size());
  for (Tensor& b : run.buffers) b = Tensor();
}

std::optional<Tensor> ConcatInPlace::PlaceOutput(RunState& run, int slot, DataType type, Shape&& shape,
                                                 BufferPool* pool) const {
  auto it = input_of_slot_.find(slot);
  if (it == input_of_slot_.end()) return std::nullopt;
  const auto [g, k] = it->second;
  const ConcatLayout* layout = run.layouts[static_cast<size_t>(g)].get();
  if (layout == nullptr || layout->type != type || layout->input_shapes[static_cast<size_t>(k)] != shape) {
    return std::nullopt;
  }
  Tensor& buffer = run.buffers[static_cast<size_t>(g)];
  if (!buffer.defined()) {
    buffer = pool != nullptr ? pool->AllocateCopyingShape(type, layout->output_shape)
                             : Tensor::Allocate(type, layout->output_shape);
  }
  return buffer.View(type, std::move(shape), layout->offsets[static_cast<size_t>(k)]);
}

bool ConcatInPlace::Assemble(RunState& run, int group, const std::vector<const Value*>& ins, Value* out) const {
  const auto g = static_cast<size_t>(group);
  Tensor buffer = std::move(run.buffers[g]);
  run.buffers[g] = Tensor();
  const ConcatLayout* layout = run.layouts[g].get();
  if (layout == nullptr || !buffer.defined() || ins.size() != layout->offsets.size()) return false;
  const char* base = static_cast<const char*>(buffer.raw());
  for (size_t k = 0; k < ins.size(); ++k) {
    if (ins[k] == nullptr || !ins[k]->is_tensor()) return false;
    const Tensor& t = ins[k]->tensor();
    // In place only when this input is the very slice handed out (same storage, offset, type and shape).
    if (!t.shares_storage_with(buffer) || t.raw() != base + layout->offsets[k] || t.type() != layout->type ||
        t.shape() != layout->input_shapes[k]) {
      return false;
    }
  }
  *out = Value(std::move(buffer));
  return true;
}

void ConcatInPlace::Learn(RunState& run, int group, const std::vector<const Value*>& ins, const Value& out) const {
  const auto g = static_cast<size_t>(group);
  if (!out.is_tensor()) return;
  const Tensor& y = out.tensor();
  if (y.type() == DataType::kString || y.size() == 0) return;
  const ir::Attribute* axis_attr = groups_[g].node->FindAttribute("axis");
  int64_t axis = axis_attr != nullptr ? axis_attr->i : 1;  // Concat-1 defaulted to 1
  if (axis < 0) axis += y.rank();
  if (axis < 0 || axis >= y.rank()) return;
  for (int64_t d = 0; d < axis; ++d) {
    if (y.dim(d) != 1) return;  // the inputs' blocks interleave: no contiguous slices
  }
  auto layout = std::make_shared<ConcatLayout>();
  layout->type = y.type();
  layout->output_shape = y.shape();
  size_t offset = 0;
  for (const Value* v : ins) {
    if (v == nullptr || !v->is_tensor() || v->tensor().type() != y.type()) return;
    if (offset % kSliceAlignment != 0) return;
    layout->input_shapes.push_back(v->tensor().shape());
    layout->offsets.push_back(offset);
    offset += v->tensor().nbytes();
  }
  if (offset != y.nbytes()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  learned_[g] = layout;
  run.layouts[g] = std::move(layout);
}

}  // namespace onyx
