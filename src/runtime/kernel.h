// The kernel interface: how an operator's implementation sees its node at creation (KernelInfo: attributes
// parsed and validated once) and its values at run time (KernelContext: inputs, outputs, subgraphs).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/value.h"
#include "ir/model.h"

namespace onyx::kernels {
class DeferredTuning;  // kernels/deferred_tuning.h
}  // namespace onyx::kernels

namespace onyx {

class GraphPlan;       // a compiled (sub)graph, owned by the session
class ExecutionFrame;  // the values of one running (sub)graph

class KernelInfo {
 public:
  // Looks up a value that is constant for the session (an initializer no feed can override); null otherwise.
  using ConstantLookup = std::function<const Tensor*(const std::string&)>;

  KernelInfo(const ir::Node& node, int64_t opset, int since_version,
             std::function<Result<std::shared_ptr<const GraphPlan>>(const ir::Graph&)> compile_subgraph,
             ConstantLookup constants = {}, bool ort_summation_order = false)
      : node_(node),
        opset_(opset),
        since_version_(since_version),
        compile_subgraph_(std::move(compile_subgraph)),
        constants_(std::move(constants)),
        ort_summation_order_(ort_summation_order) {}

  const ir::Node& node() const { return node_; }
  const std::string& op_type() const { return node_.op_type; }
  int64_t opset() const { return opset_; }              // the version of the node's domain the model imports
  int since_version() const { return since_version_; }  // the operator version in force at that opset
  size_t num_inputs() const { return node_.inputs.size(); }
  size_t num_outputs() const { return node_.outputs.size(); }
  // Whether input i is given (present and not the empty name of an omitted optional input).
  bool has_input(size_t i) const { return i < node_.inputs.size() && !node_.inputs[i].empty(); }

  // Whether floating-point reductions (convolution and matrix products, pooling, reductions, softmax) must add in
  // ONNX Runtime's order, so that outputs are bit-identical to its unoptimized graph (SessionOptions): quantized
  // models re-quantize after every float step, where one flipped rounding moves every later value.
  bool ort_summation_order() const { return ort_summation_order_; }

  // Input i when it is a session constant (kernels prepack such weights once); null when it is not.
  const Tensor* ConstantInput(size_t i) const {
    return has_input(i) && constants_ ? constants_(node_.inputs[i]) : nullptr;
  }
  // Called by a kernel that keeps what it needs of constant input i (a Tensor sharing its storage, or a copy in a
  // layout of its own) and from then on reads only that input's type and shape through KernelContext, never its
  // values. When
  // every reader of an initializer adopts it, the session keeps only a shell of it (type and shape, no bytes), so the
  // weights live as long as the kernels' references: a kernel that packs them into a layout of its own drops its
  // reference and the original is freed (ONNX Runtime frees a prepacked initializer alike). The session's model
  // then lacks those bytes (format::SerializeModel refuses it).
  void AdoptConstantInput(size_t i) const {
    if (adopted_ != nullptr && ConstantInput(i) != nullptr) adopted_->push_back(node_.inputs[i]);
  }
  // Where AdoptConstantInput records the names (set by the session; without it adoption is a no-op).
  void set_adopted_constants(std::vector<std::string>* adopted) { adopted_ = adopted; }

  bool HasAttribute(std::string_view name) const { return node_.FindAttribute(name) != nullptr; }
  int64_t GetInt(std::string_view name, int64_t default_value) const;
  float GetFloat(std::string_view name, float default_value) const;
  std::string GetString(std::string_view name, const std::string& default_value = "") const;
  std::vector<int64_t> GetInts(std::string_view name, const std::vector<int64_t>& default_value = {}) const;
  std::vector<float> GetFloats(std::string_view name, const std::vector<float>& default_value = {}) const;
  std::vector<std::string> GetStrings(std::string_view name, const std::vector<std::string>& default_value = {}) const;
  const Tensor* GetTensor(std::string_view name) const;    // null when absent
  const ir::Graph* GetGraph(std::string_view name) const;  // null when absent
  Result<int64_t> GetRequiredInt(std::string_view name) const;
  Result<std::string> GetRequiredString(std::string_view name) const;
  // Compiles the GRAPH attribute `name` into a plan the kernel can run with KernelContext::RunSubgraph.
  Result<std::shared_ptr<const GraphPlan>> CompileSubgraph(std::string_view name) const;

  // InvalidArgument("node 'x' (Op, opset N): <message>").
  Status Error(const std::string& message) const;
  Status UnsupportedError(const std::string& message) const;

 private:
  const ir::Node& node_;
  int64_t opset_;
  int since_version_;
  std::function<Result<std::shared_ptr<const GraphPlan>>(const ir::Graph&)> compile_subgraph_;
  ConstantLookup constants_;
  bool ort_summation_order_;
  std::vector<std::string>* adopted_ = nullptr;
};

class KernelContext {
 public:
  // `step` is the kernel's position in its frame's plan (-1 outside a plan).
  KernelContext(std::vector<const Value*> inputs, std::vector<Value>* outputs, ExecutionFrame* frame, int num_threads,
                int step = -1)
      : owned_inputs_(std::move(inputs)),
        inputs_(owned_inputs_),
        outputs_(outputs),
        frame_(frame),
        num_threads_(num_threads),
        step_(step) {}
  // The same over inputs the caller keeps alive (the executor's per-frame list: no vector per step).
  KernelContext(std::span<const Value* const> inputs, std::vector<Value>* outputs, ExecutionFrame* frame,
                int num_threads, int step = -1)
      : inputs_(inputs), outputs_(outputs), frame_(frame), num_threads_(num_threads), step_(step) {}
  KernelContext(const KernelContext&) = delete;
  KernelContext& operator=(const KernelContext&) = delete;

  size_t num_inputs() const { return inputs_.size(); }
  // Whether input i is given (omitted optional inputs and inputs past the end are not).
  bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr && !inputs_[i]->empty(); }
  const Value& input_value(size_t i) const { return *inputs_[i]; }
  // Input i as a tensor; check has_input and is_tensor (see TensorInput) unless the schema guarantees them.
  const Tensor& input(size_t i) const { return inputs_[i]->tensor(); }
  // Input i as a tensor, with an error naming the input when it is missing or not a tensor.
  Result<const Tensor*> TensorInput(size_t i) const;

  size_t num_outputs() const { return outputs_->size(); }
  // Allocates output i (uninitialized) and returns it for the kernel to fill. It may be a slice of a larger
  // buffer (runtime/concat_in_place.h): write only through this tensor, and set outputs with SetOutput otherwise.
  // Inside a session the buffer comes from the frame's pool (runtime/buffer_pool.h): no heap allocation once the
  // same shapes ran before.
  Tensor& AllocateOutput(size_t i, DataType type, Shape&& shape);
  // The same with a copy of `shape` (an input's, a cached one) made in a vector the frame recycles, where a copy at
  // the call site would allocate every run.
  Tensor& AllocateOutput(size_t i, DataType type, const Shape& shape);
  void SetOutput(size_t i, Value v) { (*outputs_)[i] = std::move(v); }
  // Sets output i to a view of `in`'s data as `shape` (the same element count: the caller checked it), the shape
  // copied into a vector the frame recycles: a Reshape-like output without a heap allocation per run.
  void SetOutputView(size_t i, const Tensor& in, const Shape& shape);
  // `shape` copied into a vector the frame recycles (a plain copy outside a frame).
  Shape CopyShape(const Shape& shape) const;
  // Output `out` as input `in`'s own buffer, for kernels that can compute in place (a convolution adding its
  // result onto a residual): non-null only when this node is the input's last reader and nothing else holds its
  // storage (not a graph input, initializer, output or view), so that no one can see the overwrite.
  Tensor* ReuseInputAsOutput(size_t in, size_t out);
  // The same with output `out` of `shape`, larger than the input, in the room after its data (Tensor::
  // writable_bytes): the input's elements stay where they are and the caller writes the rest. Null where the input
  // cannot be reused or lacks the room.
  Tensor* GrowInputAsOutput(size_t in, size_t out, const Shape& shape);
  // Output i as AllocateOutput gives it, in a buffer of at least `room_bytes` (for GrowInputAsOutput later).
  Tensor& AllocateOutputWithRoom(size_t i, DataType type, const Shape& shape, size_t room_bytes);
  // Whether input `in` is an input of the subgraph this kernel runs in (a loop-carried value of a Loop or Scan body).
  bool IsSubgraphInput(size_t in) const;

  // Runs a compiled subgraph with these inputs; it reads outer-scope values from this kernel's frame.
  Status RunSubgraph(const GraphPlan& plan, std::vector<Value> inputs, std::vector<Value>* outputs) const;

  int num_threads() const { return num_threads_; }
  // Where a kernel queues the timing of a shape the tuning cache does not know, to be done after this run (null
  // outside a session's run: the kernel then times at once or not at all).
  kernels::DeferredTuning* deferred_tuning() const;

 private:
  // Input `in` when this node may overwrite it: its last reader, and the only holder of its storage.
  const Tensor* ReusableInput(size_t in) const;
  std::vector<const Value*> owned_inputs_;  // set by the vector constructor only
  std::span<const Value* const> inputs_;
  std::vector<Value>* outputs_;
  ExecutionFrame* frame_;
  int num_threads_;
  int step_;
};

class OpKernel {
 public:
  virtual ~OpKernel() = default;
  // Called once at session creation: parse and validate attributes here.
  virtual Status Init(const KernelInfo& /*info*/) { return Status::Ok(); }
  virtual Status Compute(KernelContext& ctx) = 0;
};

using KernelFactory = std::function<Result<std::unique_ptr<OpKernel>>(const KernelInfo&)>;

template <typename K>
KernelFactory MakeFactory() {
  return [](const KernelInfo& info) -> Result<std::unique_ptr<OpKernel>> {
    auto k = std::make_unique<K>();
    ONYX_RETURN_IF_ERROR(k->Init(info));
    return std::unique_ptr<OpKernel>(std::move(k));
  };
}

// A kernel defined by one function of (info, ctx), for stateless operators whose attributes are cheap to read.
using ComputeFn = std::function<Status(const KernelInfo&, KernelContext&)>;

}  // namespace onyx
