// What a TFLite operator converter sees: the operator, its tensors (with their TFLite types, shapes and
// quantization), their ONNX values, and the graph builder. One OpContext converts one subgraph; Begin() points it
// at each operator in turn.
//
// Quantized tensors (integers with scales) have two ONNX views: the raw one (the stored integers; graph inputs and
// outputs keep it) and the real one (DequantizeLinear of it; quantized constants are dequantized at conversion).
// Converters compute on real values (Input) and hand real results to SetOutput, which re-quantizes them when the
// output tensor is quantized: each quantized TFLite operator becomes DequantizeLinear -> float op -> QuantizeLinear.
// TFLite's integer kernels round with fixed-point multipliers and round half away from zero where QuantizeLinear
// rounds half to even, so results can differ from TFLite's by one quantization step.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "convert/common/graph_builder.h"
#include "convert/tflite/op_codes.h"
#include "convert/tflite/tflite_model.h"
#include "core/tensor.h"

namespace onyx::convert::tflite {

// The ONNX element type of a TFLite tensor type (Unsupported for strings, complex numbers, resources...).
Result<DataType> OnnxType(TensorType t);

// What the conversion of one file shares across its subgraphs.
struct ConversionState {
  int64_t opset = 17;            // the requested opset (the graph is built at 17, then converted)
  int instances = 0;             // numbers the inlined subgraph copies
  GraphBuilder* main = nullptr;  // the main graph's builder (CALL_ONCE subgraphs are inlined into it)
  bool uses_ml = false;          // a node of the ai.onnx.ml domain was emitted (LabelEncoder)
  // Resource variables (VAR_HANDLE by container/shared_name) and their current ONNX value: a converted model is
  // one invocation, so a read sees the last assignment made before it (CALL_ONCE's initialization, typically).
  std::map<std::string, std::string> variables;
  // Hash tables (HASHTABLE by table_id) and their imported constant keys and values.
  struct Table {
    TensorType key_type = TensorType::kInt64, value_type = TensorType::kInt64;
    std::vector<std::string> string_keys, string_values;
    std::vector<int64_t> int_keys, int_values;
    bool imported = false;
  };
  std::map<std::string, Table> tables;
};

class OpContext {
 public:
  // `prefix` names the values of an inlined subgraph ("while_2/body/"; "" for the main graph): ONNX names are
  // global, and a subgraph may be inlined several times. `depth` counts the nesting (WHILE bodies inside bodies);
  // `state` is shared by every subgraph of the file.
  OpContext(const TfliteModel& model, int subgraph, GraphBuilder& builder, std::string prefix, int depth,
            ConversionState* state);

  GraphBuilder& b;
  const TfliteModel& model;
  const TfliteSubgraph& graph;
  const int subgraph_index;
  const int depth;
  ConversionState* const state;
  int* const instances;  // &state->instances
  const std::string& prefix() const { return prefix_; }

  void Begin(const TfliteOperator& op, size_t index);
  const TfliteOperator& op() const { return *op_; }
  // "operator 3 (RSQRT)": the prefix of every error about this operator.
  const std::string& where() const { return where_; }
  Status Error(const std::string& what) const { return InvalidArgument(where_ + ": " + what); }
  Status Unsupported(const std::string& what) const { return onyx::Unsupported(where_ + ": " + what); }

  size_t num_inputs() const { return op_->inputs.size(); }
  size_t num_outputs() const { return op_->outputs.size(); }
  bool HasInput(size_t k) const { return k < op_->inputs.size() && op_->inputs[k] >= 0; }
  Result<int32_t> InIndex(size_t k) const;
  Result<const TfliteTensor*> InTensor(size_t k) const;
  Result<const TfliteTensor*> OutTensor(size_t k = 0) const;
  // The shape TFLite recorded for input k / output k.
  Result<std::vector<int64_t>> InShape(size_t k) const;
  Result<std::vector<int64_t>> OutShape(size_t k = 0) const;

  // Input k's real-valued ONNX value (dequantized when quantized).
  Result<std::string> Input(size_t k);
  // Input k's stored value (the integers of a quantized tensor).
  Result<std::string> RawInput(size_t k);
  // A constant input's stored value; Unsupported when it is computed at run time.
  Result<Tensor> ConstInput(size_t k, const std::string& what);
  Result<std::vector<int64_t>> ConstInts(size_t k, const std::string& what);
  bool IsConstInput(size_t k) const;
  // A constant input as float32: float16 widened, quantized integers dequantized, sparse tensors densified, and
  // the outputs of DEQUANTIZE operators folded at conversion.
  Result<Tensor> FloatConst(size_t k, const std::string& what);

  // Sets output k from a real-valued result (quantized when the output tensor is).
  Status SetOutput(const std::string& value, size_t k = 0);
  // Sets output k to a value of the tensor's own (stored) type.
  Status SetRawOutput(const std::string& value, size_t k = 0);
  // Output k is a constant computed at conversion (a folded DEQUANTIZE).
  Status SetFoldedOutput(Tensor value, size_t k = 0);

  // Options: fallback when the operator has no options table (FlatBuffers writers omit empty ones).
  const FlatTable& options() const { return op_->options; }
  Result<int32_t> OptInt(int field, int32_t fallback = 0) const;
  Result<int8_t> OptByte(int field, int8_t fallback = 0) const;
  Result<bool> OptBool(int field, bool fallback = false) const;
  Result<float> OptFloat(int field, float fallback = 0) const;

  // Applies a fused activation (schema.fbs ActivationFunctionType) to a real value.
  Result<std::string> Activation(int8_t kind, const std::string& v);
  std::string ToNchw(const std::string& v, int64_t rank = 4);
  std::string ToNhwc(const std::string& v, int64_t rank = 4);
  // A value or node name derived from output 0's tensor name.
  std::string Name(const std::string& what) const;

  // Resource tensors (VAR_HANDLE / HASHTABLE outputs) name a variable or table of `state`, by key.
  Status SetResource(const std::string& key, size_t k = 0);
  Result<std::string> ResourceInput(size_t k) const;

  // The subgraph's tensors as ONNX values, for the driver.
  Status AddGraphInputs(ir::Graph& graph, bool declare_shapes);
  Result<std::string> TensorValue(int32_t index, bool raw);
  Status SetTensorValue(int32_t index, const std::string& value);  // a raw value (e.g. a loop body's input)

 private:
  Result<const TfliteTensor*> TensorAt(int32_t i) const;
  Result<Tensor> ConstantOf(int32_t i);      // stored value
  Result<Tensor> RealConstantOf(int32_t i);  // float32 real value of a quantized / float16 / sparse constant
  Result<std::string> Quantize(const std::string& real, const TfliteTensor& t);
  Result<std::string> Dequantize(const std::string& raw, const TfliteTensor& t);
  Status RequireInt16Opset(const TfliteTensor& t) const;

  std::string prefix_;
  std::vector<std::string> raw_;              // ONNX value per tensor (stored type), "" until produced
  std::vector<std::string> real_;             // real-valued view of quantized tensors, "" until needed
  std::map<int32_t, Tensor> folded_;          // float32 values computed at conversion, by tensor index
  std::map<int32_t, std::string> resources_;  // resource tensor -> key in state
  const TfliteOperator* op_ = nullptr;
  std::string where_;
};

using OpFn = Status (*)(OpContext&);
// Custom operators with a converter, by custom_code.
const std::map<std::string, OpFn>& CustomOpTable();
void AddCustomNnOps(std::map<std::string, OpFn>& table);   // Convolution2DTransposeBias
void AddMediapipeOps(std::map<std::string, OpFn>& table);  // MediaPipe's pooling-with-indices, landmark transforms
Status Landmarks2TransformMatrix(OpContext& c);            // ops_mediapipe_landmarks.cc
void AddStateOps(std::map<int32_t, OpFn>& table);          // VAR_HANDLE / READ_ / ASSIGN_VARIABLE, HASHTABLE_*
// Every builtin operator with a converter, by family (one file each: ops_<family>.cc).
const std::map<int32_t, OpFn>& OpTable();
void AddNnOps(std::map<int32_t, OpFn>& table);       // convolutions, pooling, fully connected, normalization
void AddMathOps(std::map<int32_t, OpFn>& table);     // elementwise arithmetic, activations, comparisons, logic
void AddReduceOps(std::map<int32_t, OpFn>& table);   // reductions, arg-reductions, softmax, top-k, cumsum
void AddArrayOps(std::map<int32_t, OpFn>& table);    // shapes, slicing, joining, gathering, scattering, creation
void AddQuantOps(std::map<int32_t, OpFn>& table);    // QUANTIZE, DEQUANTIZE, DENSIFY
void AddRnnOps(std::map<int32_t, OpFn>& table);      // UNIDIRECTIONAL_SEQUENCE_RNN / _LSTM, BIDIRECTIONAL_SEQUENCE_LSTM
void AddImageOps(std::map<int32_t, OpFn>& table);    // resizing, depth/space/batch rearrangements, NMS
void AddControlOps(std::map<int32_t, OpFn>& table);  // WHILE, IF, CALL_ONCE
void AddIndexOps(std::map<int32_t, OpFn>& table);    // segments, lookups, WHERE / UNIQUE, diagonals, slice updates
void AddRandomOps(std::map<int32_t, OpFn>& table);   // RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL
void AddCellOps(std::map<int32_t, OpFn>& table);     // single-step recurrent cells (RNN, LSTM, SVDF)

// Input k as an int64 ONNX value (ONNX takes shapes, repeats and indices as int64): a constant is converted at
// conversion, a computed value is cast.
Result<std::string> Int64Input(OpContext& c, size_t k, const std::string& what);
// A scalar constant of `type` (a numeric ONNX type) holding `value` (converted as by static_cast).
Result<std::string> ScalarConst(OpContext& c, DataType type, double value, const std::string& what);

// Converts subgraph `index` into `b` with its values named under `prefix`, its inputs bound to `inputs` (ONNX
// values of the stored types); returns its outputs' values. Used for WHILE / IF bodies and CALL_ONCE.
Result<std::vector<std::string>> InlineSubgraph(const OpContext& caller, int index, GraphBuilder& b,
                                                const std::string& prefix, const std::vector<std::string>& inputs);

// Densifies a sparse constant (schema.fbs SparsityParameters) into its dense stored value.
Result<Tensor> DensifySparse(const TfliteTensor& t, DataType type);

}  // namespace onyx::convert::tflite
