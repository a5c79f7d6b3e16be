// Session: loads a model, resolves a kernel for every node (by domain, operator, operator version), plans the
// values' slots and lifetimes, and runs. Subgraphs (If/Loop/Scan bodies) are compiled into their own plans.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "ir/model.h"
#include "optimizer/optimizer.h"
#include "runtime/concat_in_place.h"
#include "runtime/kernel.h"

namespace onyx {

struct SessionOptions {
  int intra_op_num_threads = 0;  // 0: all cores
  // Graph rewrites run at creation (src/optimizer, docs/optimizer.md), as onnxruntime's levels.
  optimizer::OptLevel optimization_level = optimizer::OptLevel::kAll;
  // When set, the optimized model is saved there (as onnxruntime's optimized_model_filepath).
  std::string optimized_model_path;
  // Time every node, summed per operator (Session::Profile), as onnxruntime's enable_profiling. Nodes of
  // subgraphs are counted too, so If/Loop/Scan entries include the time of their bodies.
  bool enable_profiling = false;
  // With enable_profiling: one entry per node ("name (op_type)") instead of per operator type.
  bool profile_per_node = false;
};

// Called after each node of the main graph with each output it produced (subgraph nodes are not reported). The
// value may be overwritten by later nodes that reuse its buffer: an observer that keeps it must copy it.
using ValueObserver = std::function<void(const ir::Node& node, size_t output_index, const Value& value)>;

// Settings of one Session::Run (as onnxruntime's RunOptions).
struct RunOptions {
  ValueObserver observer;  // e.g. `onyx compare --per-node` collecting every intermediate value
};

// Time spent in one operator type over all profiled runs.
struct OpProfile {
  std::string op;  // op_type, domain-qualified outside ai.onnx
  double total_ms = 0;
  int64_t calls = 0;
};

// A compiled graph: kernels in execution order and the slot of every value.
class GraphPlan {
 public:
  struct Step {
    const ir::Node* node = nullptr;
    std::string description;  // "node 'x' (Conv, opset 11)"
    std::unique_ptr<OpKernel> kernel;
    std::vector<int> inputs;         // slot per input, -1 for an omitted optional input
    std::vector<int> outputs;        // slot per output, -1 for an unused one
    std::vector<int> release_after;  // slots whose last reader is this step
    std::vector<bool> last_read;     // per input: this step is its slot's last reader, and reads it once
  };

  std::vector<Step> steps;
  std::unordered_map<std::string, int> slot_of;
  int num_slots = 0;
  std::vector<std::pair<int, Value>> constants;         // initializers
  std::vector<int> input_slots;                         // the graph's declared inputs, in order
  std::vector<int> output_slots;                        // the graph's outputs, in order
  std::vector<std::pair<std::string, int>> outer_refs;  // values read from enclosing graphs
  const ir::Graph* graph = nullptr;
  ConcatInPlace concat_in_place;  // Concats whose producers may write straight into their output
};

// The values of one running graph; subgraph frames point at the frame of the node that runs them.
class ExecutionFrame {
 public:
  ExecutionFrame(const GraphPlan& plan, const ExecutionFrame* parent)
      : plan_(plan), parent_(parent), concat_run_(plan.concat_in_place.StartRun()) {
    slots_.resize(static_cast<size_t>(plan.num_slots));
  }
  std::vector<Value>& slots() { return slots_; }
  ConcatInPlace::RunState& concat_run() { return concat_run_; }
  // Where output `output` of step `step` goes when its Concat takes it in place (KernelContext::AllocateOutput).
  std::optional<Tensor> PlaceOutput(int step, size_t output, DataType type, const Shape& shape);
  // Whether step `step` is the last reader of its input `input` (KernelContext::ReuseInputAsOutput).
  bool IsLastRead(int step, size_t input) const {
    const auto& last = plan_.steps[static_cast<size_t>(step)].last_read;
    return input < last.size() && last[input];
  }
  // The value visible under `name` here or in an enclosing frame; null when none is set.
  const Value* Lookup(const std::string& name) const;
  int num_threads = 1;
  std::unordered_map<std::string, OpProfile>* profile = nullptr;  // set when the session profiles
  bool profile_per_node = false;
  const ValueObserver* observer = nullptr;  // main-graph frames only (RunOptions::observer)

 private:
  const GraphPlan& plan_;
  const ExecutionFrame* parent_;
  std::vector<Value> slots_;
  ConcatInPlace::RunState concat_run_;
};

// Runs a plan in a frame whose inputs (and outer references) are already set; collects the outputs.
Status ExecutePlan(const GraphPlan& plan, ExecutionFrame& frame, std::vector<Value>* outputs);

class Session {
 public:
  static Result<std::unique_ptr<Session>> Create(ir::Model model, const SessionOptions& options = {});
  static Result<std::unique_ptr<Session>> Load(const std::string& path, const SessionOptions& options = {});

  const ir::Model& model() const { return *model_; }
  // Inputs a caller must (or may, when an initializer gives a default) feed.
  const std::vector<const ir::ValueInfo*>& inputs() const { return inputs_; }
  const std::vector<ir::ValueInfo>& outputs() const { return model_->graph.outputs; }
  // What the optimizer did at creation (node counts before and after, rewrites per pass).
  const optimizer::OptimizerStats& optimizer_stats() const { return optimizer_stats_; }

  // Per-operator times of the runs so far, largest first (empty unless SessionOptions::enable_profiling).
  std::vector<OpProfile> Profile() const;
  // Forgets the times collected so far (e.g. those of warm-up runs, which pay first-touch page faults).
  void ClearProfile();

  // Runs the model. `output_names` empty means all outputs, in graph order.
  Status Run(const std::vector<std::pair<std::string, Value>>& feeds, const std::vector<std::string>& output_names,
             std::vector<Value>* outputs) const;
  Status Run(const std::vector<std::pair<std::string, Value>>& feeds, const std::vector<std::string>& output_names,
             std::vector<Value>* outputs, const RunOptions& run_options) const;

 private:
  Session() = default;
  std::unique_ptr<ir::Model> model_;
  std::shared_ptr<const GraphPlan> plan_;
  std::vector<const ir::ValueInfo*> inputs_;
  std::vector<size_t> required_inputs_;  // positions in graph.inputs of the inputs without an initializer
  SessionOptions options_;
  optimizer::OptimizerStats optimizer_stats_;
  mutable std::mutex profile_mutex_;
  mutable std::unordered_map<std::string, OpProfile> profile_;
  int num_threads_ = 1;
};

// The optimizer's constant folding evaluator: runs a model without inputs in a session of its own (no
// optimization, `num_threads` threads). Session::Create passes it to the optimizer; tests that call
// optimizer::OptimizeModel directly pass it too.
optimizer::ConstantModelRunner ConstantModelRunner(int num_threads);

}  // namespace onyx
