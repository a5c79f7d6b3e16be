// TensorFlow 1 control flow: frames (while loops made of Enter / Merge / Switch / LoopCond / NextIteration / Exit)
// become ONNX Loops, conditionals (Switch ... Merge, as tf.cond writes them) ONNX Ifs.
//
// Tf1Graph analyzes a node list once: which frame each node's outputs live in (Enter opens a frame by its
// frame_name, Exit leaves it), the loop variables of each frame (Enter -> Merge <- NextIteration), and, for every
// tensor, the Switch outcomes it needs to be computed at all (its guard: the (predicate, branch) pairs of the
// Switches it depends on). A conditional's Merge joins two tensors whose guards differ in one predicate's branch.
//
// The graph walk (graph_walk.cc) then treats a frame (reached through one of its Exits) and a conditional (reached
// through its Merge) as one unit each, whose dependencies are what they read from outside; converting the unit
// walks the loop body or the branches again, inside an ONNX subgraph.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "convert/tf/graph_walk.h"

namespace onyx::convert::tf {

class Tf1Graph {
 public:
  // The control flow of `nodes` (indexed by `index`); null when no node is a TF1 control flow operator.
  static Result<std::unique_ptr<Tf1Graph>> Analyze(const std::vector<TfNode>& nodes,
                                                   const std::map<std::string, size_t>& index,
                                                   const ControlInputs* control, const std::string& path);

  enum class Kind { kNode, kFrame, kCond };
  struct Unit {
    Kind kind = Kind::kNode;
    size_t id = 0;  // the node (kNode; kCond: its Merge) or the frame (kFrame)
  };
  // What computes node `i`'s outputs for a walk in frame `scope` (-1: outside every loop).
  Result<Unit> UnitOf(size_t i, int scope) const;
  // The tensors a frame or a conditional reads from outside ("node:port").
  Result<std::vector<std::string>> Deps(const Unit& u) const;

  // The frame node `i`'s outputs live in (-1: outside every loop).
  int FrameOf(size_t i) const { return frame_[i]; }
  // "while loop frame 'name'", for errors.
  std::string FrameWhere(size_t f) const;

  // The frame as an ONNX Loop: sets the values of its Exits.
  Status ConvertFrame(const Walk& w, GraphBuilder& b, size_t frame, std::map<std::string, TfValue>& values) const;
  // The conditional joined by Merge `merge` as an ONNX If (or the branch taken, for a constant predicate).
  Status ConvertCond(const Walk& w, GraphBuilder& b, size_t merge, int scope,
                     std::map<std::string, TfValue>& values) const;

 private:
  using Guard = std::vector<std::pair<int, int>>;  // sorted (predicate id, branch: 0 false, 1 true)

  struct Var {
    size_t merge = 0, enter = 0, next = 0;
    long sw = -1;  // the loop's Switch on this variable
  };
  struct Frame {
    std::string name;
    int parent = -1;
    std::vector<Var> vars;
    std::vector<size_t> exits;
    long loop_cond = -1;
    std::vector<std::string> deps;
  };
  struct Cond {
    std::string pred;       // the predicate tensor
    std::string branch[2];  // the tensor each branch gives (0: false, 1: true)
    int true_input = 1;     // which Merge input is the true branch's
    std::vector<std::string> deps;
    std::string error;  // why the Merge is not a conditional onyx recognizes
  };

  Guard GuardOf(size_t node, int port) const;
  bool Within(int frame, int ancestor) const;
  void FindCond(size_t merge);

  const std::vector<TfNode>* nodes_ = nullptr;
  std::string path_;
  std::vector<std::vector<std::pair<size_t, int>>> inputs_;  // data inputs: (producer, port); producer npos: unknown
  std::vector<std::vector<size_t>> control_;                 // control inputs: producers
  std::vector<int> frame_;                                   // per node: the frame of its outputs
  std::vector<Frame> frames_;
  std::vector<bool> loop_merge_, loop_switch_, cond_switch_;
  std::vector<int> pred_id_;  // per cond Switch: its predicate's id
  std::vector<std::string> preds_;
  std::vector<Guard> guard_;  // per node (a cond Switch adds its branch per port)
  std::map<size_t, Cond> conds_;
  std::map<size_t, std::pair<size_t, size_t>> var_of_merge_;  // loop Merge -> (frame, variable)
};

}  // namespace onyx::convert::tf
