// Session: loads a model, resolves a kernel for every node (by domain, operator, operator version), plans the
// values' slots and lifetimes, and runs. Subgraphs (If/Loop/Scan bodies) are compiled into their own plans.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "ir/model.h"
#include "optimizer/optimizer.h"
#include "runtime/buffer_pool.h"
#include "runtime/concat_in_place.h"
#include "runtime/kernel.h"

namespace onyx {

struct SessionOptions {
  int intra_op_num_threads = 0;  // 0: every CPU the process may use (core/cpu_count.h)
  // Graph rewrites run at creation (src/optimizer, docs/optimizer.md), as onnxruntime's levels.
  optimizer::OptLevel optimization_level = optimizer::OptLevel::kAll;
  // When set, the optimized model is saved there (as onnxruntime's optimized_model_filepath).
  std::string optimized_model_path;
  // Time every node, summed per operator (Session::Profile), as onnxruntime's enable_profiling. Nodes of
  // subgraphs are counted too, so If/Loop/Scan entries include the time of their bodies.
  bool enable_profiling = false;
  // With enable_profiling: one entry per node ("name (op_type)") instead of per operator type.
  bool profile_per_node = false;
  // Floating-point sums in ONNX Runtime's order (KernelInfo::ort_summation_order): outputs bit-identical to ORT's
  // unoptimized graph, at some speed. Unset: on at optimization level disabled, off otherwise.
  std::optional<bool> ort_summation_order;
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
  // Initializers every reader adopted (KernelInfo::AdoptConstantInput): held here and in the model as shells.
  std::vector<std::string> released_constants;
  std::vector<int> input_slots;                         // the graph's declared inputs, in order
  std::vector<int> output_slots;                        // the graph's outputs, in order
  std::vector<std::pair<std::string, int>> outer_refs;  // values read from enclosing graphs
  // Per slot: the index in `constants` of its initializer, -1 for none. Constant slots are never released during
  // a run (the model holds their storage anyway), so a reused frame keeps them from one run to the next.
  std::vector<int> constant_of_slot;
  std::vector<uint8_t> is_input_slot;  // per slot: a declared input of the graph
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
  const GraphPlan& plan() const { return plan_; }
  std::vector<Value>& slots() { return slots_; }
  ConcatInPlace::RunState& concat_run() { return concat_run_; }
  // The buffer of output `output` of step `step` (-1 outside a plan): a slice of its Concat's output when the
  // Concat takes it in place, else a block from this frame's pool (KernelContext::AllocateOutput).
  // With `min_bytes`, from the pool with at least that much room (KernelContext::AllocateOutputWithRoom).
  Tensor AllocateOutput(int step, size_t output, DataType type, Shape shape, size_t min_bytes = 0);
  // Whether this frame runs a subgraph (a control-flow node's body) rather than a session's main graph.
  bool is_subgraph() const { return parent_ != nullptr; }
  // Empties slot s, giving its buffer back to the pool when nothing else holds it.
  void ReleaseSlot(int s) { pool_.Release(slots_[static_cast<size_t>(s)]); }
  // A frame kept by a session between runs (main graphs): BeginRun sets the constants that are not already in
  // place and forgets the Concat buffers of the last run; EndRun empties the slots (buffers back to the pool, feed
  // slots keep their shape vectors), so that runs of repeated shapes allocate nothing here.
  void BeginRun();
  void EndRun();
  BufferPool& pool() { return pool_; }
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
  kernels::DeferredTuning* deferred_tuning = nullptr;  // the run's queue (Session::Execute), shared with subgraphs
  // Scratch reused step after step and run after run (the executor's and Session::Run's lists).
  std::vector<const Value*> step_inputs;
  std::vector<Value> step_outputs;
  std::vector<uint8_t> fed;

 private:
  const GraphPlan& plan_;
  const ExecutionFrame* parent_;
  std::vector<Value> slots_;
  ConcatInPlace::RunState concat_run_;
  BufferPool pool_;
};

// Runs a plan's steps in a frame whose inputs (and outer references) are already set.
Status ExecuteSteps(const GraphPlan& plan, ExecutionFrame& frame);
// ExecuteSteps, then collects the outputs.
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
  // Intra-op threads of its runs (SessionOptions::intra_op_num_threads, or every CPU the process may use).
  int num_threads() const { return num_threads_; }
  // The bytes of the activation arenas the idle frames planned from repeated runs (BufferPool), 0 before any.
  size_t activation_arena_bytes() const;

  // Per-operator times of the runs so far, largest first (empty unless SessionOptions::enable_profiling).
  std::vector<OpProfile> Profile() const;
  // Forgets the times collected so far (e.g. those of warm-up runs, which pay first-touch page faults).
  void ClearProfile();

  // Runs the model. `output_names` empty means all outputs, in graph order.
  Status Run(const std::vector<std::pair<std::string, Value>>& feeds, const std::vector<std::string>& output_names,
             std::vector<Value>* outputs) const;
  Status Run(const std::vector<std::pair<std::string, Value>>& feeds, const std::vector<std::string>& output_names,
             std::vector<Value>* outputs, const RunOptions& run_options) const;
  // Runs the model and writes the outputs (all of them in graph order when `output_names` is empty) into the
  // caller's tensors, which must already have each output's type and shape (strings are not supported). Nothing
  // is written unless every output fits. With shapes that ran before, a run allocates no heap memory in the
  // runtime itself (kernels may still allocate temporaries: tests/unit/steady_state_alloc_test.cc).
  // `capacities` (optional, bytes per output) says how much memory each tensor's data really has, when a caller
  // describes a buffer by the shape it expects (the C API): an output that would not fit is an error.
  Status RunInto(const std::vector<std::pair<std::string, Value>>& feeds, const std::vector<std::string>& output_names,
                 std::span<Tensor> outputs, std::span<const size_t> capacities = {}) const;

 private:
  class FrameLease;
  Session() = default;
  // Create, for a model whose loading took `loading_ms` (counted with the creation in the tuning's miss budget).
  static Result<std::unique_ptr<Session>> CreateAfterLoading(ir::Model model, const SessionOptions& options,
                                                             double loading_ms);
  // Sets the feeds in a frame (BeginRun done) after checking them against the declared inputs.
  Status BindFeeds(ExecutionFrame& frame, const std::vector<std::pair<std::string, Value>>& feeds) const;
  // Runs the plan in `frame` (feeds bound), profiling when enabled, then times the shapes the tuning cache lacked
  // (kernels/deferred_tuning.h). Sets `*retuned` when that changed a kernel's implementation.
  Status Execute(ExecutionFrame& frame, bool* retuned) const;
  // BindFeeds and Execute, twice when Execute retuned a kernel: shapes timed after a run take the winners from then
  // on, whose rounding may differ from the fixed rules', so that run's outputs are computed again by them and every
  // answer of the session comes from the same kernels.
  Status BindAndExecute(ExecutionFrame& frame, const std::vector<std::pair<std::string, Value>>& feeds) const;
  // The position in graph.outputs of `name`.
  Result<size_t> OutputIndex(const std::string& name) const;
  std::unique_ptr<ir::Model> model_;
  std::shared_ptr<const GraphPlan> plan_;
  std::vector<const ir::ValueInfo*> inputs_;
  std::vector<size_t> required_inputs_;  // positions in graph.inputs of the inputs without an initializer
  SessionOptions options_;
  optimizer::OptimizerStats optimizer_stats_;
  mutable std::mutex profile_mutex_;
  mutable std::unordered_map<std::string, OpProfile> profile_;
  int num_threads_ = 1;
  // Frames of finished runs, reused by the next ones (with their buffer pools): one per run in flight at once.
  mutable std::mutex frames_mutex_;
  mutable std::vector<std::unique_ptr<ExecutionFrame>> idle_frames_;
  // Held shared by every run while its kernels execute, and exclusively by the deferred tuning that may change a
  // kernel's implementation (Execute): a run in flight on another thread then never mixes the kernels of before and
  // after the change, whose roundings differ (concurrent runs of one input gave results 1 ulp apart).
  mutable std::shared_mutex kernels_mutex_;
  // Runs that computed with the session's kernels (counted under kernels_mutex_: the deferred tuning's condition).
  mutable std::atomic<int64_t> runs_executed_{0};
};

// The optimizer's constant folding evaluator: runs a model without inputs in a session of its own (no
// optimization, `num_threads` threads). Session::Create passes it to the optimizer; tests that call
// optimizer::OptimizeModel directly pass it too.
optimizer::ConstantModelRunner ConstantModelRunner(int num_threads);

}  // namespace onyx
