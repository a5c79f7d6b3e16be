#include "runtime/concat_in_place.h"

#include <algorithm>

namespace onyx {
namespace {

// Producers' slices start on cache-line boundaries (what Tensor::Allocate gives), so vectorized kernels and oneDNN
// see the same alignment as for a buffer of their own.
constexpr size_t kSliceAlignment = 64;

int64_t ConcatAxis(const ir::Node& node) {
  const ir::Attribute* axis = node.FindAttribute("axis");
  return axis != nullptr ? axis->i : 1;  // Concat-1 defaulted to 1
}

}  // namespace

void ConcatInPlace::Plan(const std::vector<ConcatStep>& concats, const std::vector<int>& producer,
                         const std::vector<int>& readers, const std::vector<bool>& kept) {
  // Chains: a Concat whose inputs are a chain's last Concat's inputs and one more, on the same axis, extends it.
  std::vector<std::vector<size_t>> chains;  // indices into concats, in step order (concats come in step order)
  for (size_t i = 0; i < concats.size(); ++i) {
    const ConcatStep& c = concats[i];
    bool extended = false;
    for (auto& chain : chains) {
      const ConcatStep& tail = concats[chain.back()];
      if (tail.input_slots.size() + 1 == c.input_slots.size() && ConcatAxis(*tail.node) == ConcatAxis(*c.node) &&
          std::equal(tail.input_slots.begin(), tail.input_slots.end(), c.input_slots.begin())) {
        chain.push_back(i);
        extended = true;
        break;
      }
    }
    if (!extended) chains.push_back({i});
  }
  for (const auto& chain : chains) {
    const ConcatStep& last = concats[chain.back()];
    if (last.input_slots.size() < 2) continue;
    bool eligible = true;
    for (size_t k = 0; k < last.input_slots.size() && eligible; ++k) {
      // Each input: written by an earlier step, not an output, read only by the chain's Concats that join it (once
      // each: those from the one that adds it on).
      const int s = last.input_slots[k];
      const auto i = static_cast<size_t>(s);
      int chain_reads = 0, first_reader = -1;
      for (size_t m : chain) {
        if (k >= concats[m].input_slots.size()) continue;
        ++chain_reads;
        if (first_reader < 0) first_reader = concats[m].step;
      }
      if (s < 0 || producer[i] < 0 || producer[i] >= first_reader || readers[i] != chain_reads || kept[i]) {
        eligible = false;
      }
    }
    // The earlier Concats' outputs are views into the buffer: not graph outputs (the pool recycles it per run).
    for (size_t m = 0; m + 1 < chain.size() && eligible; ++m) {
      const int out = concats[chain[m]].output_slot;
      if (out < 0 || kept[static_cast<size_t>(out)]) eligible = false;
    }
    if (!eligible) continue;
    const int g = static_cast<int>(groups_.size());
    for (size_t m : chain) group_of_step_[concats[m].step] = g;
    groups_.push_back(Group{last.step, last.node, last.input_slots});
    for (size_t k = 0; k < last.input_slots.size(); ++k) input_of_slot_[last.input_slots[k]] = {g, static_cast<int>(k)};
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

bool ConcatInPlace::Assemble(RunState& run, int step, const std::vector<const Value*>& ins, Value* out) const {
  const int group = GroupOfStep(step);
  if (group < 0) return false;
  const auto g = static_cast<size_t>(group);
  const bool last = groups_[g].step == step;
  const ConcatLayout* layout = run.layouts[g].get();
  Tensor& buffer = run.buffers[g];
  if (layout == nullptr || !buffer.defined() || ins.empty() || ins.size() > layout->offsets.size() ||
      (last && ins.size() != layout->offsets.size())) {
    if (last) buffer = Tensor();  // the chain is done with it either way
    return false;
  }
  const char* base = static_cast<const char*>(buffer.raw());
  bool in_place = true;
  for (size_t k = 0; k < ins.size() && in_place; ++k) {
    if (ins[k] == nullptr || !ins[k]->is_tensor()) {
      in_place = false;
      break;
    }
    const Tensor& t = ins[k]->tensor();
    // In place only when this input is the very slice handed out (same storage, offset, type and shape).
    in_place = t.shares_storage_with(buffer) && t.raw() == base + layout->offsets[k] && t.type() == layout->type &&
               t.shape() == layout->input_shapes[k];
  }
  if (!in_place) {
    if (last) buffer = Tensor();
    return false;
  }
  if (last) {
    *out = Value(std::move(buffer));
    buffer = Tensor();
  } else {
    *out = Value(buffer.View(layout->type, layout->prefix_shapes[ins.size() - 1], 0));
  }
  return true;
}

void ConcatInPlace::Learn(RunState& run, int step, const std::vector<const Value*>& ins, const Value& out) const {
  const int group = GroupOfStep(step);
  if (group < 0 || groups_[static_cast<size_t>(group)].step != step) return;  // learned from the chain's last
  const auto g = static_cast<size_t>(group);
  if (!out.is_tensor()) return;
  const Tensor& y = out.tensor();
  if (y.type() == DataType::kString || y.size() == 0) return;
  int64_t axis = ConcatAxis(*groups_[g].node);
  if (axis < 0) axis += y.rank();
  if (axis < 0 || axis >= y.rank()) return;
  for (int64_t d = 0; d < axis; ++d) {
    if (y.dim(d) != 1) return;  // the inputs' blocks interleave: no contiguous slices
  }
  auto layout = std::make_shared<ConcatLayout>();
  layout->type = y.type();
  layout->output_shape = y.shape();
  size_t offset = 0;
  int64_t axis_extent = 0;
  for (const Value* v : ins) {
    if (v == nullptr || !v->is_tensor() || v->tensor().type() != y.type()) return;
    if (offset % kSliceAlignment != 0) return;
    const Shape& shape = v->tensor().shape();
    if (shape.size() != y.shape().size()) return;
    layout->input_shapes.push_back(shape);
    layout->offsets.push_back(offset);
    offset += v->tensor().nbytes();
    axis_extent += shape[static_cast<size_t>(axis)];
    Shape prefix = y.shape();
    prefix[static_cast<size_t>(axis)] = axis_extent;
    layout->prefix_shapes.push_back(std::move(prefix));
  }
  if (offset != y.nbytes()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  learned_[g] = layout;
  run.layouts[g] = std::move(layout);
}

}  // namespace onyx
