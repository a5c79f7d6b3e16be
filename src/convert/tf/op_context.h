// What an operator converter sees: the TF node, its inputs as ONNX values (with their element types and, for
// constants, their values), and the graph builder to emit ONNX nodes with. Converters set every output they
// produce with SetOutput.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "convert/common/graph_builder.h"
#include "convert/tf/tf_node.h"
#include "core/tensor.h"

namespace onyx::convert::tf {

class Functions;  // functions.h: the graph's function library (If/While bodies, calls)

// A TF tensor as an ONNX value.
struct TfValue {
  std::string name;  // the ONNX value
  DataType type = DataType::kUndefined;
  const Tensor* constant = nullptr;  // the value, when the tensor is a Const
};

class OpContext {
 public:
  OpContext(GraphBuilder& builder, const TfNode& node, std::vector<TfValue> inputs)
      : b(builder), node(node), inputs_(std::move(inputs)) {}

  GraphBuilder& b;
  const TfNode& node;
  // The graph's TensorFlow functions, for the control flow converters; set by the graph walk.
  Functions* functions = nullptr;

  size_t num_inputs() const { return inputs_.size(); }
  Result<TfValue> Input(size_t i) const;
  // Input i, which must be a Const (an attribute in ONNX); `what` names it in the error.
  Result<Tensor> ConstInput(size_t i, const std::string& what) const;
  // The integers of a constant input (int32 or int64).
  Result<std::vector<int64_t>> ConstInts(size_t i, const std::string& what) const;

  void SetOutput(int port, std::string value, DataType type) { outputs_[port] = {std::move(value), type, nullptr}; }
  // An output that is another tensor as it is (a function call's result), keeping its constant value.
  void SetOutputValue(int port, TfValue value) { outputs_[port] = std::move(value); }
  const std::map<int, TfValue>& outputs() const { return outputs_; }

  // A name for an ONNX node or value derived from this TF node.
  std::string Name(const std::string& suffix = "") const {
    return suffix.empty() ? node.name : node.name + "/" + suffix;
  }

 private:
  std::vector<TfValue> inputs_;
  std::map<int, TfValue> outputs_;
};

using OpFn = Status (*)(OpContext&);
// Every TF operator with a converter, by family (one file each: ops_<family>.cc).
const std::map<std::string, OpFn>& OpTable();
void AddNnOps(std::map<std::string, OpFn>& table);           // convolutions, pooling, matmul, normalization
void AddMathOps(std::map<std::string, OpFn>& table);         // elementwise arithmetic and activations
void AddLogicalOps(std::map<std::string, OpFn>& table);      // comparisons, logical and bitwise ops, Select
void AddReductionOps(std::map<std::string, OpFn>& table);    // reductions, arg-reductions, cumulative ops
void AddArrayOps(std::map<std::string, OpFn>& table);        // shapes, slicing, joining, gathering, scattering
void AddCreationOps(std::map<std::string, OpFn>& table);     // Fill, Range, OneHot, *Like, graph-level ops
void AddImageOps(std::map<std::string, OpFn>& table);        // resizing, cropping, detection (NMS), TopK, sorting
void AddControlFlowOps(std::map<std::string, OpFn>& table);  // If/While functions, TF1 loops, TensorLists
void AddSparseOps(std::map<std::string, OpFn>& table);       // segment and sparse ops, ragged tensors
void AddSpectralOps(std::map<std::string, OpFn>& table);     // complex numbers, FFTs
void AddRecurrentOps(std::map<std::string, OpFn>& table);    // LSTM/GRU block cells
void AddNumericOps(std::map<std::string, OpFn>& table);      // Bucketize, MatrixDeterminant (ops_numeric.cc)
// ops_nchw.cc: wraps the layout-sensitive converters already in `table` (convolutions, pooling, BiasAdd,
// FusedBatchNorm, DepthToSpace...) with their data_format NCHW forms, and adds MaxPoolV2. OpTable calls it last,
// after every family has registered.
void AddChannelsFirstForms(std::map<std::string, OpFn>& table);

}  // namespace onyx::convert::tf
