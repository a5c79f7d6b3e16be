// Concat in place: when a Concat joins whole contiguous blocks (every dim before the axis is 1, as channel concats
// at batch 1 in NCHW or in the blocked nChw16c layout) and each of its inputs is produced by an earlier node and
// read by nothing else, the producers can write straight into the Concat's output and the copy disappears.
//
// Chains too: Concats each of which joins the previous one's inputs and one more (DenseNet's dense blocks: every
// layer concatenates all earlier features) share the last one's output; each produced input is written once into
// its slice, and every Concat of the chain returns the prefix of the buffer its inputs fill. Then an input may be
// read by several Concats, all of its chain, and nothing else; the chain's earlier Concats may have any readers.
//
// Output shapes are only known at run time, so the byte layout is learned from a run that copied: later runs with
// the same shapes allocate the whole output when the first producer asks for its output, hand every producer its
// slice, and the Concat step only checks that each input arrived in place. Anything else (another shape or type,
// a producer that returns a view of some other tensor) falls back to the ordinary copy, and the layout is learned
// again from that run (from the chain's last Concat).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/tensor.h"
#include "core/value.h"
#include "ir/model.h"
#include "runtime/buffer_pool.h"

namespace onyx {

// The byte layout of one Concat's output, learned from a run.
struct ConcatLayout {
  DataType type = DataType::kUndefined;
  Shape output_shape;
  std::vector<Shape> input_shapes;
  std::vector<size_t> offsets;  // bytes from the output's start, per input
  // prefix_shapes[j]: the output shape of the first j + 1 inputs (a chain's earlier Concats).
  std::vector<Shape> prefix_shapes;
};

class ConcatInPlace {
 public:
  // What one run of a plan holds: the learned layouts it started with and the output buffers handed out so far.
  struct RunState {
    std::vector<std::shared_ptr<const ConcatLayout>> layouts;
    std::vector<Tensor> buffers;
  };

  // Plan time. `producer[s]` is the step writing slot s (-1 for inputs, initializers, outer values),
  // `readers[s]` how many times steps read slot s (subgraph reads included), `kept[s]` whether s outlives the
  // run (a graph output). `concats` lists (step, node, input slots) of every Concat step.
  struct ConcatStep {
    int step;
    const ir::Node* node;
    std::vector<int> input_slots;
    int output_slot = -1;
  };
  void Plan(const std::vector<ConcatStep>& concats, const std::vector<int>& producer, const std::vector<int>& readers,
            const std::vector<bool>& kept);

  bool empty() const { return groups_.empty(); }
  // The group of a Concat step, -1 when that step is not a candidate.
  int GroupOfStep(int step) const;

  RunState StartRun() const;
  // Prepares a RunState used before for another run (same effect as StartRun, reusing its vectors).
  void RestartRun(RunState& run) const;
  // A producer asks for output slot `slot`: a view into its Concat's output when the learned layout expects
  // exactly this type and shape there (the whole output comes from `pool` when given; `shape` is moved into the
  // view); nullopt for an ordinary allocation (`shape` is left as it was).
  std::optional<Tensor> PlaceOutput(RunState& run, int slot, DataType type, Shape&& shape,
                                    BufferPool* pool = nullptr) const;
  // Before the Concat of step `step` (of a group) runs: when every input sits in place in this run's buffer, sets
  // *out to that buffer (a chain's earlier Concat: the prefix its inputs fill) and returns true (no copy).
  bool Assemble(RunState& run, int step, const std::vector<const Value*>& ins, Value* out) const;
  // After the Concat of step `step` ran as a copy: the last of its group learns (or relearns) the layout when these
  // values allow writing in place.
  void Learn(RunState& run, int step, const std::vector<const Value*>& ins, const Value& out) const;

 private:
  // A Concat, or a chain of them; group_of_step_ maps each of its Concats' steps to it.
  struct Group {
    int step;  // the (chain's last) Concat: the one whose copy is learned from, whose output is the buffer
    const ir::Node* node;
    std::vector<int> input_slots;  // its inputs
  };
  std::vector<Group> groups_;
  std::unordered_map<int, int> group_of_step_;
  std::unordered_map<int, std::pair<int, int>> input_of_slot_;  // slot -> (group, input index)
  // Learned layouts, shared by every run (Session::Run may be called from several threads).
  mutable std::mutex mutex_;
  mutable std::vector<std::shared_ptr<const ConcatLayout>> learned_;
};

}  // namespace onyx
